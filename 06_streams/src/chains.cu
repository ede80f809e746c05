// Kernel chains: single-block kernels that spin on the global timer, issued chain by chain or step by
// step (the issue-order scenarios), each stamping when it ran.
#include <algorithm>
#include <chrono>

#include "common/check.cuh"
#include "streams.cuh"
#include "streams_detail.hpp"

namespace streams {

namespace {
__device__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// [chain_step_kernel]
// One step of a chain: a single block that spins `spin_ns` on the global timer (a stand-in for ~1 ms of
// work that leaves almost the whole GPU free for other streams), then advances its chain's value and
// writes its own start and end time.
__global__ void chain_step_kernel(std::uint64_t spin_ns, std::uint32_t* value, int step, unsigned long long* stamps) {
  if (threadIdx.x != 0) return;
  const unsigned long long start = global_ns();
  unsigned long long now = start;
  while (now - start < spin_ns) now = global_ns();
  *value = *value * 31u + static_cast<std::uint32_t>(step + 1);
  stamps[0] = start;
  stamps[1] = now;
}
// [chain_step_kernel]
}  // namespace

std::uint32_t chain_value_reference(int chain, int steps) {
  std::uint32_t v = static_cast<std::uint32_t>(chain) + 1u;
  for (int s = 0; s < steps; ++s) v = v * 31u + static_cast<std::uint32_t>(s + 1);
  return v;
}

KernelChainRunner::KernelChainRunner(int streams) {
  if (streams < 1) throw course::UsageError("the number of streams must be at least 1");
  for (int i = 0; i < streams; ++i) {
    streams_.emplace_back(cudaStreamNonBlocking);
    done_.emplace_back(cudaEventDefault);
  }
  values_ = course::DeviceBuffer<std::uint32_t>(static_cast<std::size_t>(streams));
}

KernelChainRun KernelChainRunner::run(int steps, IssueOrder order, double kernel_ms, double blocker_ms,
                                      const std::string& name) {
  const int chains = static_cast<int>(streams_.size());
  const std::vector<StepOp> sequence = issue_steps(chains, steps, order);
  if (sequence.size() != static_cast<std::size_t>(chains) * static_cast<std::size_t>(steps))
    throw std::logic_error("issue_steps must issue every chain's every step exactly once");
  const std::size_t stamp_count = 2 * sequence.size();
  if (stamps_.size() < stamp_count) stamps_ = course::DeviceBuffer<unsigned long long>(stamp_count);
  std::vector<std::uint32_t> initial(static_cast<std::size_t>(chains));
  for (int c = 0; c < chains; ++c) initial[static_cast<std::size_t>(c)] = static_cast<std::uint32_t>(c) + 1u;
  values_.upload(initial);
  stamps_.fill_bytes(0);
  CUDA_CHECK(cudaDeviceSynchronize());

  // [chain_issue]
  cudaStream_t first = streams_[0];
  if (blocker_ms > 0) course::launch_spin_kernel(to_ns(blocker_ms), first);  // holds the GPU while we issue
  base_.record(first);
  for (int c = 1; c < chains; ++c) CUDA_CHECK(cudaStreamWaitEvent(streams_[c], base_.get(), 0));
  const auto t0 = std::chrono::steady_clock::now();
  for (const StepOp& op : sequence) {
    const std::size_t slot = static_cast<std::size_t>(op.chain) * static_cast<std::size_t>(steps) +
                             static_cast<std::size_t>(op.step);
    chain_step_kernel<<<1, 32, 0, streams_[static_cast<std::size_t>(op.chain)]>>>(
        to_ns(kernel_ms), values_.data() + op.chain, op.step, stamps_.data() + 2 * slot);
    CUDA_CHECK_LAUNCH();
  }
  for (int c = 0; c < chains; ++c) done_[static_cast<std::size_t>(c)].record(streams_[static_cast<std::size_t>(c)]);
  // [chain_issue]

  KernelChainRun run;
  run.host_enqueue_ms = ms_since(t0);
  run.blocker_too_short = blocker_ms > 0 && run.host_enqueue_ms > 0.8 * blocker_ms;
  for (int c = 0; c < chains; ++c) {
    done_[static_cast<std::size_t>(c)].synchronize();
    run.wall_ms = std::max<double>(run.wall_ms, done_[static_cast<std::size_t>(c)].elapsed_ms_since(base_));
  }
  std::vector<unsigned long long> stamps(stamp_count);
  CUDA_CHECK(cudaMemcpy(stamps.data(), stamps_.data(), stamp_count * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  run.values.resize(static_cast<std::size_t>(chains));
  values_.download(run.values);
  unsigned long long origin = ~0ull;
  for (std::size_t i = 0; i < sequence.size(); ++i) origin = std::min(origin, stamps[2 * i]);
  run.timeline.name = name;
  for (int c = 0; c < chains; ++c) run.timeline.rows.push_back("stream " + std::to_string(c));
  for (int c = 0; c < chains; ++c)
    for (int st = 0; st < steps; ++st) {
      const std::size_t slot = static_cast<std::size_t>(c) * static_cast<std::size_t>(steps) + static_cast<std::size_t>(st);
      if (stamps[2 * slot + 1] < stamps[2 * slot]) throw std::runtime_error("kernel chain: a step did not run");
      run.timeline.intervals.push_back({c, 'K', c * steps + st, "kernel " + std::to_string(c) + "." + std::to_string(st),
                                        1e-6 * static_cast<double>(stamps[2 * slot] - origin),
                                        1e-6 * static_cast<double>(stamps[2 * slot + 1] - origin)});
    }
  return run;
}

KernelChainMeasurement measure_kernel_chains(KernelChainRunner& runner, int steps, IssueOrder order, double kernel_ms,
                                             course::TimingOptions timing, const std::string& name) {
  KernelChainMeasurement m;
  m.blocker_ms = 1.0;
  for (int i = 0; i < std::max(timing.warmup, 1); ++i) {
    const KernelChainRun r = runner.run(steps, order, kernel_ms, m.blocker_ms, name);
    m.blocker_ms = std::max(0.5, 2.0 * r.host_enqueue_ms + 0.5);
  }
  std::vector<double> walls;
  for (int i = 0; i < std::max(timing.reps, 1); ++i) {
    m.last = runner.run(steps, order, kernel_ms, m.blocker_ms, name);
    walls.push_back(m.last.wall_ms);
  }
  m.wall = course::summarize(walls);
  return m;
}

}  // namespace streams
