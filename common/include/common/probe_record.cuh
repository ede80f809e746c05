/// \file probe_record.cuh
/// \brief What a grading probe observes of the exercise's timed call, for the `ran` field of its `done`
/// records (probe.hpp's run_timed): the grader compares the student's with the instructor's answer's, so a
/// call that hands its work to the reference, another rung or a library earns no time points (issue 30).
///
/// Two observations, both made once at the timed size before the warm-up, never inside the clock:
///  - `record_call`: a stream capture of the call (thread-local mode: nothing runs, and a call that
///    allocates, synchronises or copies through the legacy stream cannot be recorded). Each node of the
///    recording gets one kind: the label of the first known set its kernel belongs to (the reference's
///    kernels, the chapter's other rungs'), a CUB or Thrust kernel, a kernel of the exercise's own (with or
///    without shared memory, where the task prescribes it), or a copy, a memset, a host function, another
///    node. The kinds are sorted, each once: how many kernels a right answer launches is its own business.
///  - `watch_device_memory`: for calls that cannot be captured (06.3 synchronises on host buffers), whether
///    the free device memory fell by more than a threshold at any moment during the call, sampled by a
///    second host thread: the full-size pipeline the ring exercise must not fall back on needs device
///    buffers of the whole input.
/// Both run in the student's process, so a call that detects the observation could act otherwise: the
/// grader refuses, before any run, exercise code that names the APIs to detect it (exercises.json
/// perf.forbid; docs/instructors.md, threat model).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace course::probe {

/// One node of a recorded call: its type and, for a kernel node, the kernel and its dynamic shared memory.
struct RecordedNode {
  cudaGraphNodeType type = cudaGraphNodeTypeEmpty;
  const void* kernel = nullptr;   ///< kernel nodes: the __global__ function
  unsigned dynamic_shared = 0;    ///< kernel nodes: dynamic shared memory per block
};

/// The nodes `call` enqueues on `stream`, recorded by a stream capture in `mode` (not run; the graph is
/// destroyed). False when nothing could be recorded: the call threw, or did something a capture cannot hold
/// (in thread-local mode: allocate, synchronise, copy through the legacy stream; in any mode: a debug
/// build's synchronising launch check). A failed capture leaves no sticky error.
bool record_nodes(cudaStream_t stream, const std::function<void()>& call, cudaStreamCaptureMode mode,
                  std::vector<RecordedNode>& nodes);

/// The graph a stream capture in `mode` of `call` records (not run; the caller destroys it), or nullptr
/// when nothing could be recorded (as record_nodes).
cudaGraph_t capture_graph(cudaStream_t stream, const std::function<void()>& call, cudaStreamCaptureMode mode);

/// The name the compiler gave `kernel` (mangled), as cudaFuncGetName reports it.
std::string kernel_name(const void* kernel);

/// The kernels one call enqueues on `stream` (a relaxed-mode capture, not run): what a known set is made of.
/// Empty when the call cannot be recorded (a rung that finishes on the host; every launch of a debug build).
std::set<const void*> kernels_enqueued(cudaStream_t stream, const std::function<void()>& call);

/// A named set of kernels (`kernels_enqueued` of the reference, of the chapter's other rungs).
struct KnownKernels {
  std::string label;               ///< e.g. "a kernel of the reference (naive_global)"
  std::set<const void*> kernels;
};

/// The kinds of work `call` enqueues on `stream`, recorded by a thread-local stream capture (not run; the
/// graph is destroyed). `note_shared_memory`: say for each kernel of its own whether it uses shared memory
/// (static or dynamic), where the task prescribes it. A call that cannot be captured gives one kind saying so.
/// Debug builds (whose every launch check synchronises) give "not recorded: debug build".
std::vector<std::string> record_call(cudaStream_t stream, const std::function<void()>& call,
                                     const std::vector<KnownKernels>& known, bool note_shared_memory = false);

/// Whether the device's free memory fell by more than `threshold_bytes` at any moment while `call` ran
/// (sampled every ~50 µs by a second thread, and once after the call, so memory kept across calls counts):
/// one kind, "no more than N MiB of device memory allocated during the call" or "more than N MiB ...".
std::vector<std::string> watch_device_memory(const std::function<void()>& call, std::size_t threshold_bytes);

}  // namespace course::probe
