#include "copies.cuh"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>

#include "common/check.cuh"
#include "grid_stride_map.hpp"
#include "sm_copy.cuh"

namespace bandwidth {

// ---------------------------------------------------------------------------------------------------
// Host buffers

void HostBuffer::FreeDeleter::operator()(unsigned char* p) const noexcept { std::free(p); }

HostBuffer::HostBuffer(HostMemoryKind kind, std::size_t bytes) : kind_(kind), bytes_(bytes) {
  if (bytes == 0) throw std::invalid_argument("HostBuffer: 0 bytes");
  // [host_memory_kinds]
  switch (kind) {
    case HostMemoryKind::pageable:
      malloced_.reset(static_cast<unsigned char*>(std::malloc(bytes)));  // NOLINT: pageable on purpose
      if (!malloced_) throw std::bad_alloc();
      ptr_ = malloced_.get();
      break;
    case HostMemoryKind::pinned:
      pinned_ = course::PinnedBuffer<unsigned char>(bytes, cudaHostAllocDefault);
      ptr_ = pinned_.data();
      break;
    case HostMemoryKind::write_combined:
      // Uncached for the CPU: CPU writes are combined into full bus bursts, CPU reads are very slow.
      pinned_ = course::PinnedBuffer<unsigned char>(bytes, cudaHostAllocWriteCombined);
      ptr_ = pinned_.data();
      break;
    case HostMemoryKind::registered: {
      // cudaHostRegister locks whole pages: start on a page boundary and round the length up.
      const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
      const std::size_t rounded = (bytes + page - 1) / page * page;
      malloced_.reset(static_cast<unsigned char*>(std::aligned_alloc(page, rounded)));
      if (!malloced_) throw std::bad_alloc();
      CUDA_CHECK(cudaHostRegister(malloced_.get(), rounded, cudaHostRegisterDefault));
      registered_ = true;
      ptr_ = malloced_.get();
      break;
    }
  }
  // [host_memory_kinds]
}

HostBuffer::~HostBuffer() {
  if (registered_) cudaHostUnregister(ptr_);  // before malloced_ frees the pages
}

// ---------------------------------------------------------------------------------------------------
// Data and checks

void fill_random(std::span<unsigned char> out, std::uint64_t seed) {
  const auto word = [seed](std::uint64_t i) {  // splitmix64 of (seed, position)
    std::uint64_t z = seed + (i + 1) * 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  const std::size_t words = out.size() / 8;
  for (std::size_t i = 0; i < words; ++i) {
    const std::uint64_t w = word(i);
    std::memcpy(out.data() + 8 * i, &w, 8);
  }
  const std::uint64_t last = word(words);
  std::memcpy(out.data() + 8 * words, &last, out.size() - 8 * words);
}

namespace {

constexpr int check_threads = 256;

__global__ void count_wrong_bytes_kernel(const unsigned char* __restrict__ actual,
                                         const unsigned char* __restrict__ expected, std::size_t bytes,
                                         std::size_t guard_bytes, unsigned long long* __restrict__ wrong) {
  const std::size_t threads = std::size_t{gridDim.x} * blockDim.x;
  unsigned long long local = 0;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < bytes + guard_bytes; i += threads) {
    const unsigned char want = i < bytes ? expected[i] : poison_byte;
    local += actual[i] != want ? 1 : 0;
  }
  if (local) atomicAdd(wrong, local);
}

__global__ void grid_stride_copy_kernel(int4* __restrict__ dst, const int4* __restrict__ src, std::size_t vector_count,
                                        unsigned char* __restrict__ dst_tail, const unsigned char* __restrict__ src_tail,
                                        std::size_t tail_bytes) {
  // [grid_stride_kernel]
  // Trip after trip, each thread copies the int4 grid_stride_vector names (exercise 02.1), one in flight,
  // until the index passes the end.
  for (std::size_t trip = 0;; ++trip) {
    const std::size_t i = grid_stride_vector(blockIdx.x, threadIdx.x, trip, gridDim.x, blockDim.x, vector_count);
    if (i >= vector_count) break;
    dst[i] = src[i];
  }
  // [grid_stride_kernel]
  const std::size_t thread = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (thread < tail_bytes) dst_tail[thread] = src_tail[thread];
}

// Source and destination disagree modulo 16: no access wider than a byte is aligned on both sides.
__global__ void byte_copy_kernel(unsigned char* __restrict__ dst, const unsigned char* __restrict__ src,
                                 std::size_t bytes) {
  const std::size_t threads = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < bytes; i += threads) dst[i] = src[i];
}

}  // namespace

void launch_byte_copy(void* dst, const void* src, std::size_t bytes, cudaStream_t stream) {
  if (bytes == 0) return;
  constexpr int threads = 256;
  const int grid = static_cast<int>(std::min<std::size_t>(
      (bytes + threads - 1) / threads,
      static_cast<std::size_t>(resident_blocks(reinterpret_cast<const void*>(byte_copy_kernel), threads))));
  byte_copy_kernel<<<grid, threads, 0, stream>>>(static_cast<unsigned char*>(dst), static_cast<const unsigned char*>(src),
                                                 bytes);
  CUDA_CHECK_LAUNCH();
}

int resident_blocks(const void* kernel, int threads) {
  struct Entry {
    int device;
    const void* kernel;
    int threads;
    int blocks;
  };
  static std::vector<Entry> cache;  // the chapter is single-threaded
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  for (const Entry& e : cache)
    if (e.device == device && e.kernel == kernel && e.threads == threads) return e.blocks;
  int sms = 0, per_sm = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0));
  const int blocks = std::max(1, sms * per_sm);
  cache.push_back({device, kernel, threads, blocks});
  return blocks;
}

void launch_grid_stride_copy(void* dst, const void* src, std::size_t bytes, cudaStream_t stream) {
  if (bytes == 0) return;
  if (reinterpret_cast<std::uintptr_t>(dst) % 16 != 0 || reinterpret_cast<std::uintptr_t>(src) % 16 != 0)
    throw std::invalid_argument("launch_grid_stride_copy: pointers must be 16-byte aligned");
  constexpr int threads = 256;
  const std::size_t vector_count = bytes / 16;
  const std::size_t blocks_needed = std::max<std::size_t>(1, (vector_count + threads - 1) / threads);
  const int grid = static_cast<int>(std::min<std::size_t>(
      blocks_needed, static_cast<std::size_t>(resident_blocks(reinterpret_cast<const void*>(grid_stride_copy_kernel), threads))));
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  grid_stride_copy_kernel<<<grid, threads, 0, stream>>>(reinterpret_cast<int4*>(d), reinterpret_cast<const int4*>(s),
                                                        vector_count, d + vector_count * 16, s + vector_count * 16,
                                                        bytes - vector_count * 16);
  CUDA_CHECK_LAUNCH();
}

std::size_t count_wrong_bytes_on_device(const unsigned char* actual, const unsigned char* expected, std::size_t bytes,
                                        std::size_t guard_bytes, cudaStream_t stream) {
  course::DeviceBuffer<unsigned long long> wrong(1);
  CUDA_CHECK(cudaMemsetAsync(wrong.data(), 0, sizeof(unsigned long long), stream));
  const std::size_t total = bytes + guard_bytes;
  if (total > 0) {
    const std::size_t blocks_needed = (total + check_threads - 1) / check_threads;
    const int grid = static_cast<int>(std::min<std::size_t>(
        blocks_needed,
        static_cast<std::size_t>(resident_blocks(reinterpret_cast<const void*>(count_wrong_bytes_kernel), check_threads))));
    count_wrong_bytes_kernel<<<grid, check_threads, 0, stream>>>(actual, expected, bytes, guard_bytes, wrong.data());
    CUDA_CHECK_LAUNCH();
  }
  unsigned long long result = 0;
  CUDA_CHECK(cudaMemcpyAsync(&result, wrong.data(), sizeof result, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return static_cast<std::size_t>(result);
}

std::size_t count_wrong_bytes_on_host(std::span<const unsigned char> actual, std::span<const unsigned char> expected,
                                      std::size_t guard_bytes) {
  if (actual.size() < expected.size() + guard_bytes)
    throw std::invalid_argument("count_wrong_bytes_on_host: actual shorter than expected + guard");
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) wrong += actual[i] != expected[i] ? 1 : 0;
  for (std::size_t i = expected.size(); i < expected.size() + guard_bytes; ++i) wrong += actual[i] != poison_byte ? 1 : 0;
  return wrong;
}

// ---------------------------------------------------------------------------------------------------
// Timing

namespace {

void set_device(int device) { CUDA_CHECK(cudaSetDevice(device)); }

// Events the lanes other than lane 0 record when their copies are done; lane 0 waits for them.
std::vector<course::Event> make_join_events(std::span<const CopyLane> lanes) {
  std::vector<course::Event> joins;
  for (std::size_t l = 1; l < lanes.size(); ++l) {
    set_device(lanes[l].device);
    joins.emplace_back(cudaEventDisableTiming);
  }
  set_device(lanes[0].device);
  return joins;
}

// Lanes 1.. start when `start` (recorded on lane 0) has passed.
void fork(std::span<const CopyLane> lanes, const course::Event& start) {
  for (std::size_t l = 1; l < lanes.size(); ++l) {
    set_device(lanes[l].device);
    CUDA_CHECK(cudaStreamWaitEvent(lanes[l].stream, start.get(), 0));
  }
}

// Lane 0 continues when every other lane is done.
void join(std::span<const CopyLane> lanes, std::vector<course::Event>& joins) {
  for (std::size_t l = 1; l < lanes.size(); ++l) {
    set_device(lanes[l].device);
    joins[l - 1].record(lanes[l].stream);
    set_device(lanes[0].device);
    CUDA_CHECK(cudaStreamWaitEvent(lanes[0].stream, joins[l - 1].get(), 0));
  }
  set_device(lanes[0].device);
}

void enqueue_all(std::span<const CopyLane> lanes) {
  for (const CopyLane& lane : lanes) {
    set_device(lane.device);
    lane.enqueue(lane.stream);
  }
}

}  // namespace

CopyTiming time_with_events(std::span<const CopyLane> lanes, course::TimingOptions opts) {
  if (lanes.empty()) throw std::invalid_argument("time_with_events: no lanes");
  set_device(lanes[0].device);
  course::Event start, stop;
  auto joins = make_join_events(lanes);
  const auto trial = [&] {
    // [naive_trial]
    start.record(lanes[0].stream);
    fork(lanes, start);
    enqueue_all(lanes);  // the GPU is idle: it passes `start` while the host is still in here
    join(lanes, joins);
    stop.record(lanes[0].stream);
    stop.synchronize();
    // [naive_trial]
    return static_cast<double>(stop.elapsed_ms_since(start));
  };
  for (int i = 0; i < opts.warmup; ++i) trial();
  std::vector<double> ms;
  for (int i = 0; i < opts.reps; ++i) ms.push_back(trial());
  return {course::summarize(ms), 1, 1.0, {}};
}

CopyTiming time_spin_blocked(std::span<const CopyLane> lanes, int copies, course::TimingOptions opts) {
  if (lanes.empty()) throw std::invalid_argument("time_spin_blocked: no lanes");
  if (copies < 1) throw std::invalid_argument("time_spin_blocked: copies must be >= 1");
  set_device(lanes[0].device);
  course::Event start, stop;
  auto joins = make_join_events(lanes);
  // Meant to outlast enqueueing every copy with a wide margin; whether it did is measured in every trial
  // (spin_covered), not assumed. It costs wall time only: the spin ends before the interval starts.
  const std::uint64_t spin_ns = 100'000 + 25'000ull * static_cast<std::uint64_t>(copies) * lanes.size();
  int covered = 0;
  // Each lane's own end, where the lanes share a device (events on two devices have no common clock):
  // with two directions at once, each direction's rate is its bytes over the time to its own end.
  const bool per_lane = lanes.size() > 1 && std::all_of(lanes.begin(), lanes.end(), [&](const CopyLane& l) {
    return l.device == lanes[0].device;
  });
  std::vector<course::Event> lane_done(per_lane ? lanes.size() : 0);
  std::vector<std::vector<double>> lane_samples(lane_done.size());
  const auto trial = [&] {
    const auto host_begin = std::chrono::steady_clock::now();
    // [spin_trial]
    course::launch_spin_kernel(spin_ns, lanes[0].stream);  // holds the stream while we enqueue
    start.record(lanes[0].stream);                          // passes when the spin ends
    fork(lanes, start);
    for (int k = 0; k < copies; ++k) enqueue_all(lanes);
    const auto host_end = std::chrono::steady_clock::now();
    for (std::size_t l = 0; l < lane_done.size(); ++l) lane_done[l].record(lanes[l].stream);
    join(lanes, joins);
    stop.record(lanes[0].stream);
    stop.synchronize();
    // [spin_trial]
    const auto enqueue_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(host_end - host_begin).count();
    return std::pair{static_cast<double>(stop.elapsed_ms_since(start)),
                     enqueue_ns < static_cast<std::int64_t>(spin_ns)};
  };
  for (int i = 0; i < opts.warmup; ++i) trial();
  std::vector<double> ms;
  for (int i = 0; i < opts.reps; ++i) {
    const auto [trial_ms, spin_covered] = trial();
    ms.push_back(trial_ms);
    covered += spin_covered ? 1 : 0;
    for (std::size_t l = 0; l < lane_done.size(); ++l)  // complete: `stop` waited for every lane
      lane_samples[l].push_back(static_cast<double>(lane_done[l].elapsed_ms_since(start)));
  }
  CopyTiming out{course::summarize(per_copy_samples(ms, copies)), copies, static_cast<double>(covered) / opts.reps, {}};
  for (const auto& samples : lane_samples) out.lane_ms.push_back(course::summarize(per_copy_samples(samples, copies)));
  return out;
}

// ---------------------------------------------------------------------------------------------------
// The single-GPU bench

CopyBench::CopyBench(std::size_t max_bytes, std::uint64_t seed)
    : max_bytes_(max_bytes),
      reference_(max_bytes),
      device_reference_(max_bytes),
      device_destination_(max_bytes + SweepConfig::guard_bytes),
      device_scratch_(max_bytes + SweepConfig::guard_bytes) {
  if (max_bytes == 0) throw std::invalid_argument("CopyBench: 0 bytes");
  CUDA_CHECK(cudaGetDevice(&device_));
  fill_random(reference_, seed);
  device_reference_.upload(reference_);
}

void CopyBench::use_host_memory(HostMemoryKind kind) {
  host_source_.reset();  // free the old pair first: two pairs of 1 GiB pinned buffers add up
  host_destination_.reset();
  host_source_.emplace(kind, max_bytes_ + SweepConfig::guard_bytes);
  host_destination_.emplace(kind, max_bytes_ + SweepConfig::guard_bytes);
  std::memcpy(host_source_->data(), reference_.data(), max_bytes_);  // CPU writes: fine even when uncached
  std::memset(host_source_->data() + max_bytes_, poison_byte, SweepConfig::guard_bytes);
}

void CopyBench::enqueue(CopyKind kind, std::size_t bytes, cudaStream_t stream) {
  switch (kind) {
    case CopyKind::h2d:
      CUDA_CHECK(cudaMemcpyAsync(device_destination_.data(), host_source_->data(), bytes, cudaMemcpyHostToDevice, stream));
      break;
    case CopyKind::d2h:
      CUDA_CHECK(cudaMemcpyAsync(host_destination_->data(), device_reference_.data(), bytes, cudaMemcpyDeviceToHost, stream));
      break;
    case CopyKind::d2d_memcpy:
      CUDA_CHECK(cudaMemcpyAsync(device_destination_.data(), device_reference_.data(), bytes, cudaMemcpyDeviceToDevice,
                                 stream));
      break;
    case CopyKind::d2d_sm_kernel: launch_sm_copy(device_destination_.data(), device_reference_.data(), bytes, stream); break;
    case CopyKind::d2d_grid_stride:
      launch_grid_stride_copy(device_destination_.data(), device_reference_.data(), bytes, stream);
      break;
  }
}

void CopyBench::poison_destination(CopyKind kind, std::size_t bytes) {
  // Our streams do not synchronise with the legacy default stream, so poison on ours and wait.
  if (kind == CopyKind::d2h) {
    std::memset(host_destination_->data(), poison_byte, bytes + SweepConfig::guard_bytes);
  } else {
    CUDA_CHECK(cudaMemsetAsync(device_destination_.data(), poison_byte, bytes + SweepConfig::guard_bytes, stream_));
    stream_.synchronize();
  }
}

void CopyBench::check_destination(CopyKind kind, std::size_t bytes, const char* what) {
  const unsigned char* actual = device_destination_.data();
  if (kind == CopyKind::d2h) {
    // Reading write-combined memory with the CPU is uncached and very slow, so every host destination
    // is brought back to the device by a plain synchronous copy and compared there.
    CUDA_CHECK(cudaMemcpyAsync(device_scratch_.data(), host_destination_->data(), bytes + SweepConfig::guard_bytes,
                               cudaMemcpyHostToDevice, stream_));
    stream_.synchronize();
    actual = device_scratch_.data();
  }
  const std::size_t wrong =
      count_wrong_bytes_on_device(actual, device_reference_.data(), bytes, SweepConfig::guard_bytes, stream_);
  if (wrong != 0)
    throw std::runtime_error("data check failed: " + copy_kind_name(kind) + " of " + std::to_string(bytes) +
                             " bytes (" + what + ") left " + std::to_string(wrong) + " wrong bytes");
}

CopyMeasurement CopyBench::measure(CopyKind kind, std::size_t bytes, course::TimingOptions opts) {
  if (bytes == 0 || bytes > max_bytes_) throw std::invalid_argument("CopyBench::measure: bad size");
  if (involves_host(kind) && !host_source_) throw std::logic_error("CopyBench::measure: no host memory chosen");
  set_device(device_);
  const CopyLane lane{device_, stream_.get(), [this, kind, bytes](cudaStream_t s) { enqueue(kind, bytes, s); }};
  CopyMeasurement m;
  m.bytes = bytes;
  poison_destination(kind, bytes);
  m.events = time_with_events({&lane, 1}, opts);
  check_destination(kind, bytes, "events");
  poison_destination(kind, bytes);
  m.spin_blocked = time_spin_blocked({&lane, 1}, copies_per_trial(bytes), opts);
  check_destination(kind, bytes, "spin-blocked");
  return m;
}

CopyMeasurement CopyBench::measure_bidirectional(std::size_t bytes, course::TimingOptions opts) {
  if (bytes == 0 || bytes > max_bytes_) throw std::invalid_argument("CopyBench::measure_bidirectional: bad size");
  if (!host_source_) throw std::logic_error("CopyBench::measure_bidirectional: no host memory chosen");
  set_device(device_);
  const CopyLane lanes[] = {
      {device_, stream_.get(), [this, bytes](cudaStream_t s) { enqueue(CopyKind::h2d, bytes, s); }},
      {device_, second_stream_.get(), [this, bytes](cudaStream_t s) { enqueue(CopyKind::d2h, bytes, s); }}};
  const auto poison_both = [&] {
    poison_destination(CopyKind::h2d, bytes);
    poison_destination(CopyKind::d2h, bytes);
  };
  const auto check_both = [&](const char* what) {
    check_destination(CopyKind::h2d, bytes, what);
    check_destination(CopyKind::d2h, bytes, what);
  };
  CopyMeasurement m;
  m.bytes = bytes;
  poison_both();
  m.events = time_with_events(lanes, opts);
  check_both("bidirectional, events");
  poison_both();
  m.spin_blocked = time_spin_blocked(lanes, copies_per_trial(bytes), opts);
  check_both("bidirectional, spin-blocked");
  return m;
}

CallReturn CopyBench::measure_call_return(CopyKind copy, CopyCall call, std::size_t bytes, course::TimingOptions opts) {
  if (copy != CopyKind::h2d && copy != CopyKind::d2h && copy != CopyKind::d2d_memcpy)
    throw std::invalid_argument("CopyBench::measure_call_return: h2d, d2h or d2d_memcpy only");
  if (bytes == 0 || bytes > max_bytes_) throw std::invalid_argument("CopyBench::measure_call_return: bad size");
  if (involves_host(copy) && !host_source_) throw std::logic_error("CopyBench::measure_call_return: no host memory chosen");
  set_device(device_);
  const bool to_device = copy != CopyKind::d2h;
  void* dst = to_device ? static_cast<void*>(device_destination_.data()) : static_cast<void*>(host_destination_->data());
  const void* src = copy == CopyKind::h2d ? static_cast<const void*>(host_source_->data())
                                          : static_cast<const void*>(device_reference_.data());
  const cudaMemcpyKind direction = copy == CopyKind::h2d   ? cudaMemcpyHostToDevice
                                   : copy == CopyKind::d2h ? cudaMemcpyDeviceToHost
                                                           : cudaMemcpyDeviceToDevice;
  poison_destination(copy, bytes);
  const CallReturn out = time_call_return(dst, src, bytes, direction, call, opts);
  check_destination(copy, bytes, (copy_call_name(call) + ", call return").c_str());
  return out;
}

CallReturn CopyBench::measure_host_to_host_call_return(CopyCall call, std::size_t bytes, course::TimingOptions opts) {
  if (bytes == 0 || bytes > max_bytes_) throw std::invalid_argument("CopyBench::measure_host_to_host_call_return: bad size");
  if (!host_source_) throw std::logic_error("CopyBench::measure_host_to_host_call_return: no host memory chosen");
  set_device(device_);
  poison_destination(CopyKind::d2h, bytes);  // the host destination
  const CallReturn out = time_call_return(host_destination_->data(), host_source_->data(), bytes, cudaMemcpyHostToHost,
                                          call, opts);
  check_destination(CopyKind::d2h, bytes, (copy_call_name(call) + " host to host, call return").c_str());
  return out;
}

CallReturn CopyBench::time_call_return(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind direction,
                                       CopyCall call, course::TimingOptions opts) {
  // cudaMemcpy goes to the default stream, so that is the stream whose synchronize says it is complete.
  const cudaStream_t stream = call == CopyCall::memcpy ? cudaStream_t{nullptr} : stream_.get();
  using clock = std::chrono::steady_clock;
  const auto ms = [](clock::time_point from, clock::time_point to) {
    return std::chrono::duration<double, std::milli>(to - from).count();
  };
  std::vector<double> returned, complete, after_return, wait_floor;
  CUDA_CHECK(cudaDeviceSynchronize());  // nothing queued anywhere: the first trial starts like the others
  for (int i = 0; i < opts.warmup + opts.reps; ++i) {
    // What the synchronize costs when there is nothing to wait for.
    const auto idle_begin = clock::now();
    CUDA_CHECK(cudaStreamSynchronize(stream));
    const auto idle_end = clock::now();
    // [call_return_trial]
    const auto begin = clock::now();
    if (call == CopyCall::memcpy)
      CUDA_CHECK(cudaMemcpy(dst, src, bytes, direction));
    else
      CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, direction, stream));
    const auto returned_at = clock::now();
    CUDA_CHECK(cudaStreamSynchronize(stream));  // returns once the copy is complete
    const auto complete_at = clock::now();
    // [call_return_trial]
    if (i < opts.warmup) continue;
    returned.push_back(ms(begin, returned_at));
    complete.push_back(ms(begin, complete_at));
    after_return.push_back(ms(returned_at, complete_at));
    wait_floor.push_back(ms(idle_begin, idle_end));
  }
  return {course::summarize(returned), course::summarize(complete), course::summarize(after_return),
          course::summarize(wait_floor)};
}

std::vector<DuelEntry> CopyBench::d2d_duel(std::size_t bytes, course::TimingOptions opts,
                                           std::span<const CopyKind> copies, std::span<const SmCopyVariant> variants) {
  if (bytes == 0 || bytes > max_bytes_) throw std::invalid_argument("CopyBench::d2d_duel: bad size");
  for (const CopyKind kind : copies)
    if (involves_host(kind) || kind == CopyKind::d2d_memcpy)
      throw std::invalid_argument("CopyBench::d2d_duel: " + copy_kind_name(kind) + " is not an SM copy");
  set_device(device_);
  struct Contestant {
    std::string name;
    std::function<void(cudaStream_t)> enqueue;
  };
  std::vector<Contestant> contestants;
  const auto add_copy = [&](CopyKind kind) {
    contestants.push_back({copy_kind_name(kind), [this, kind, bytes](cudaStream_t s) { enqueue(kind, bytes, s); }});
  };
  add_copy(CopyKind::d2d_memcpy);
  for (const CopyKind kind : copies) add_copy(kind);
  for (const SmCopyVariant& variant : variants)
    contestants.push_back({variant.name, [this, &variant, bytes](cudaStream_t s) {
                             variant.launch(device_destination_.data(), device_reference_.data(), bytes, s);
                           }});
  course::Event start, stop;
  std::vector<std::vector<double>> ms(contestants.size());
  for (int round = 0; round < opts.warmup + opts.reps; ++round) {
    for (std::size_t v = 0; v < contestants.size(); ++v) {
      poison_destination(CopyKind::d2d_memcpy, bytes);  // any device destination kind
      start.record(stream_);
      contestants[v].enqueue(stream_);
      stop.record(stream_);
      stop.synchronize();
      if (round >= opts.warmup) ms[v].push_back(stop.elapsed_ms_since(start));
      check_destination(CopyKind::d2d_memcpy, bytes, contestants[v].name.c_str());
    }
  }
  std::vector<DuelEntry> out;
  for (std::size_t v = 0; v < contestants.size(); ++v) out.push_back({contestants[v].name, course::summarize(ms[v])});
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Peer to peer

namespace {

// One device's share of the matrix: a source holding the reference data, a destination, a stream.
struct PeerSide {
  int device;
  course::DeviceBuffer<unsigned char> source, destination;
  course::Stream stream;
};

// Enables (or disables) access from `device` to `peer`'s memory, tolerating "already so".
void set_peer_access(int device, int peer, bool enable) {
  set_device(device);
  const cudaError_t err = enable ? cudaDeviceEnablePeerAccess(peer, 0) : cudaDeviceDisablePeerAccess(peer);
  if (err == cudaErrorPeerAccessAlreadyEnabled || err == cudaErrorPeerAccessNotEnabled) {
    (void)cudaGetLastError();  // clear the non-sticky error
    return;
  }
  CUDA_CHECK(err);
}

// capable[i][j]: cudaDeviceCanAccessPeer says yes both ways between devices i and j (never i == j).
std::vector<std::vector<char>> peer_capability(int device_count) {
  const auto n = static_cast<std::size_t>(device_count);
  std::vector<std::vector<char>> capable(n, std::vector<char>(n, 0));
  for (int i = 0; i < device_count; ++i)
    for (int j = 0; j < device_count; ++j)
      if (i != j) {
        int can_ij = 0, can_ji = 0;
        CUDA_CHECK(cudaDeviceCanAccessPeer(&can_ij, i, j));
        CUDA_CHECK(cudaDeviceCanAccessPeer(&can_ji, j, i));
        capable[i][j] = can_ij && can_ji;
      }
  return capable;
}

void set_peer_access_where_capable(const std::vector<std::vector<char>>& capable, bool enable) {
  for (std::size_t i = 0; i < capable.size(); ++i)
    for (std::size_t j = 0; j < capable.size(); ++j)
      if (capable[i][j]) set_peer_access(static_cast<int>(i), static_cast<int>(j), enable);
}

}  // namespace

std::vector<PeerMeasurement> measure_peer_matrix(int device_count, std::size_t bytes, course::TimingOptions opts,
                                                 std::uint64_t seed) {
  if (device_count < 2) return {};
  int caller_device = 0;
  CUDA_CHECK(cudaGetDevice(&caller_device));
  std::vector<unsigned char> reference(bytes);
  fill_random(reference, seed);
  std::vector<PeerSide> sides;
  sides.reserve(static_cast<std::size_t>(device_count));
  for (int d = 0; d < device_count; ++d) {
    set_device(d);
    sides.push_back({d, course::DeviceBuffer<unsigned char>(bytes),
                     course::DeviceBuffer<unsigned char>(bytes + SweepConfig::guard_bytes), course::Stream()});
    sides.back().source.upload(reference);  // every source holds the same bytes: dst d checks against source d
  }
  const auto poison = [&](int d) {
    set_device(d);
    CUDA_CHECK(cudaMemsetAsync(sides[d].destination.data(), poison_byte, bytes + SweepConfig::guard_bytes, sides[d].stream));
    sides[d].stream.synchronize();
  };
  const auto check = [&](int d, const std::string& what) {
    set_device(d);
    const std::size_t wrong = count_wrong_bytes_on_device(sides[d].destination.data(), sides[d].source.data(), bytes,
                                                          SweepConfig::guard_bytes, sides[d].stream);
    if (wrong != 0)
      throw std::runtime_error("data check failed: peer copy into device " + std::to_string(d) + " (" + what +
                               ") left " + std::to_string(wrong) + " wrong bytes");
  };
  const auto lane = [&](int from, int to) {
    return CopyLane{from, sides[from].stream.get(), [&sides, from, to, bytes](cudaStream_t s) {
                      CUDA_CHECK(cudaMemcpyPeerAsync(sides[to].destination.data(), to, sides[from].source.data(), from,
                                                     bytes, s));
                    }};
  };
  const auto measure_pair = [&](int i, int j, bool peer_access, bool capable) {
    PeerMeasurement pm;
    pm.src = i;
    pm.dst = j;
    pm.peer_access = peer_access;
    pm.peer_capable = capable;
    const std::string label = std::to_string(i) + "->" + std::to_string(j) + (peer_access ? " peer" : " staged");
    const CopyLane one[] = {lane(i, j)};
    const CopyLane both[] = {lane(i, j), lane(j, i)};
    const int copies = copies_per_trial(bytes);
    pm.one_way.bytes = pm.both_ways.bytes = bytes;
    poison(j);
    pm.one_way.events = time_with_events(one, opts);
    check(j, label + " events");
    poison(j);
    pm.one_way.spin_blocked = time_spin_blocked(one, copies, opts);
    check(j, label + " spin-blocked");
    poison(i);
    poison(j);
    pm.both_ways.events = time_with_events(both, opts);
    check(i, label + " both ways, events");
    check(j, label + " both ways, events");
    poison(i);
    poison(j);
    pm.both_ways.spin_blocked = time_spin_blocked(both, copies, opts);
    check(i, label + " both ways, spin-blocked");
    check(j, label + " both ways, spin-blocked");
    return pm;
  };

  const auto capable = peer_capability(device_count);
  std::vector<PeerMeasurement> out;
  for (int i = 0; i < device_count; ++i)  // peer access off everywhere
    for (int j = 0; j < device_count; ++j)
      if (i != j) out.push_back(measure_pair(i, j, false, capable[i][j] != 0));
  set_peer_access_where_capable(capable, true);  // then on, where the hardware allows it
  for (int i = 0; i < device_count; ++i)
    for (int j = 0; j < device_count; ++j)
      if (i != j && capable[i][j]) out.push_back(measure_pair(i, j, true, true));
  set_peer_access_where_capable(capable, false);
  set_device(caller_device);
  return out;
}

}  // namespace bandwidth
