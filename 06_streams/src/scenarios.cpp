#include "scenarios.hpp"

namespace streams {

std::span<const Scenario> scenarios() {
  static constexpr Scenario table[] = {
      {"host_device", "a launch returns at once: the CPU works while the kernel runs", scenario_host_device},
      {"pageable_vs_pinned", "the same pipeline from pageable memory does not overlap; from pinned memory it does",
       scenario_pageable_vs_pinned},
      {"pipeline", "chunking over streams overlaps H2D, kernel and D2H; sweep N against the model T(N)",
       scenario_pipeline},
      {"kernel_concurrency", "big-grid kernels overlap only at their tails; small-grid kernels truly run together",
       scenario_kernel_concurrency},
      {"issue_order", "chains of dependent kernels issued depth-first, breadth-first or staggered on shared "
                      "hardware queues: the false dependency",
       scenario_issue_order},
      {"issue_order_copies", "the same orders for the copy pipeline: copies are fed by the copy engines' own "
                             "queues, so one connection does not serialise them",
       scenario_issue_order_copies},
      {"default_stream", "the legacy default stream serialises blocking streams; the per-thread default stream "
                         "does not",
       scenario_default_stream},
      {"host_func", "cudaLaunchHostFunc runs host work in stream order, overlapped with the rest of the pipeline",
       scenario_host_func},
      {"ring_pipeline", "exercise 06.3: the pipeline through a device ring a quarter of the buffer's size, timed "
                        "against the pipeline over full-size buffers",
       scenario_ring_pipeline},
  };
  return table;
}

}  // namespace streams
