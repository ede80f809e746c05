// Grading probe of exercise 02.3 (common/probe.hpp): launch_sm_copy (src/sm_copy.cu, the student's file,
// in the chapter's library as the tests and bandwidth_exercise link it).
//
// Verdict (`--seed S --out F`): copies of random bytes between pointers at every pair of the tests'
// offsets (0, 1, 3, 8, 15), at the tests' awkward sizes (1 byte … 3 MiB + 13), sizes drawn from the seed,
// 0 bytes, 64 MiB + 5 and a drawn size of 32 to 96 MiB, into a destination poisoned with 0xFF from 64
// bytes before the copy to 64 bytes past it. A correct copy has one result, so the probe writes the
// destination's bytes raw: the whole poisoned window for copies up to 4 KiB; for longer ones the guard
// bytes on both sides, the first and last 64 bytes, 256 places drawn from the seed and 64 fingerprints
// of consecutive chunks (each a 64-bit hash of every byte of its chunk). In release builds it also writes
// what a stream capture of the copy records (the kinds of node: the task wants kernels of this file only;
// the chapter's other copies, CUB and Thrust are named as such) and the bytes that replaying the
// recording alone leaves. It judges nothing: the grader compares every value with the instructor build's.
//
// Timed (`--time exercise|reference|none`): bandwidth_exercise's perf size, 1 GiB between aligned
// buffers. Each repetition flips the bytes of the source at 64 places and of the destination at 64 more
// (places from the grader's nonce and the repetition), runs the copy (exercise: launch_sm_copy;
// reference: cudaMemcpyAsync device to device, exercises.json's d2d_memcpy; none: no copy), waits, and
// returns the destination's bytes at all 128 places: only a whole copy made in this repetition gives
// them.
// Before the warm-up, the exercise's side records what one copy of the timed buffers enqueues (the chapter's
// other copies' kernels named as theirs, a cudaMemcpy as a copy node, CUB and Thrust as theirs), carried as
// `ran` in the done records for the grader to compare with the answer's: the timed copy must be done by the
// file's own kernels, as the verdict's capture checks at 16 MiB.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "beyond/sm_copy_tuned.cuh"
#include "common/buffers.cuh"
#include "common/check.cuh"
#include "common/device.cuh"
#include "common/errors.hpp"
#include "common/probe.hpp"
#include "common/probe_record.cuh"
#include "sm_copy.cuh"

namespace {

using course::probe::mix;
using course::probe::Random;

constexpr unsigned char poison = 0xff;
constexpr std::size_t pad = 64;  // poisoned bytes checked on both sides of a destination
constexpr std::size_t offsets[] = {0, 1, 3, 8, 15};

// The tests' awkward sizes (tests/copy_checks.cuh): around one int4, one 4 KiB tile, the tuned copies'
// 16 and 32 KiB tiles, up to 3 MiB + 13.
const std::size_t awkward_sizes[] = {1,     2,     3,     15,          16,    17,    31,    33,
                                     255,   256,   4095,  4097,        16383, 16385, 32767, 32768 + 17,
                                     65535, 65541, 65536 * 3 + 9, (std::size_t{1} << 20) + 7, (std::size_t{3} << 20) + 13};

__device__ std::uint64_t device_mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Random bytes, a function of (seed, index): the same in every build.
__global__ void fill_random_bytes(unsigned char* out, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    out[i] = static_cast<unsigned char>(device_mix(seed + 0x9e3779b97f4a7c15ULL * (i / 8 + 1)) >> (8 * (i % 8)));
}

void fill_random(unsigned char* out, std::size_t n, std::uint64_t seed, cudaStream_t stream) {
  fill_random_bytes<<<1024, 256, 0, stream>>>(out, n, seed);
  CUDA_CHECK_LAUNCH();
}

// 64-bit fingerprint of bytes: any changed byte changes it (but for a 2^-64 chance).
std::uint64_t fingerprint(const unsigned char* p, std::size_t n) {
  std::uint64_t h = mix(n, 0x6670);
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t word;
    std::memcpy(&word, p + i, 8);
    h = mix(h, word);
  }
  for (; i < n; ++i) h = mix(h, p[i]);
  return h;
}

struct Buffers {
  course::DeviceBuffer<unsigned char> src, dst;
  std::vector<unsigned char> host;  // what src holds
};

// One copy of n bytes from src + src_offset to dst + pad + dst_offset, the window poisoned first; returns
// the window [0, pad + dst_offset + n + pad) as it is afterwards.
std::vector<unsigned char> copy_window(Buffers& b, std::size_t n, std::size_t src_offset, std::size_t dst_offset,
                                       const course::Stream& stream) {
  const std::size_t window = pad + dst_offset + n + pad;
  if (window > b.dst.size() || src_offset + n > b.src.size()) throw std::logic_error("probe_02_3: buffers too small");
  CUDA_CHECK(cudaMemsetAsync(b.dst.data(), poison, window, stream.get()));
  bandwidth::launch_sm_copy(b.dst.data() + pad + dst_offset, b.src.data() + src_offset, n, stream.get());
  stream.synchronize();
  std::vector<unsigned char> back(window);
  CUDA_CHECK(cudaMemcpy(back.data(), b.dst.data(), window, cudaMemcpyDeviceToHost));
  return back;
}

std::string copy_label(std::size_t n, std::size_t src_offset, std::size_t dst_offset) {
  return "n=" + std::to_string(n) + " src offset " + std::to_string(src_offset) + " dst offset " +
         std::to_string(dst_offset);
}

// The window raw (short copies), or its guards, ends, drawn places and chunk fingerprints (long ones).
void add_window(course::probe::Cases& cases, const std::string& name, const std::vector<unsigned char>& window,
                std::size_t n, std::size_t dst_offset, std::uint64_t seed) {
  if (n <= 4096) {
    cases.add_exact(name + " (window, 64 poisoned bytes each side)", std::vector<int>(window.begin(), window.end()));
    return;
  }
  const std::size_t begin = pad + dst_offset, end = begin + n;
  std::vector<long long> values(window.begin(), window.begin() + static_cast<std::ptrdiff_t>(begin + 64));
  values.insert(values.end(), window.begin() + static_cast<std::ptrdiff_t>(end - 64), window.end());
  Random random(mix(seed, mix(n, dst_offset)));
  for (int k = 0; k < 256; ++k) values.push_back(window[begin + random.below(n)]);
  const std::size_t chunk = (n + 63) / 64;
  for (std::size_t first = 0; first < n; first += chunk)
    values.push_back(static_cast<long long>(fingerprint(window.data() + begin + first, std::min(chunk, n - first))));
  cases.add_exact(name + " (guards, ends, 256 drawn places, 64 chunk fingerprints)", values);
}

// The kernels of the chapter's other SM copies (the byte-wise fallback excepted: the task allows it) for a copy
// of n bytes, each run once before its capture, as the tests do.
std::set<const void*> other_copy_kernels(void* dst, const void* src, std::size_t n, cudaStream_t stream) {
  std::set<const void*> others;
  std::vector<void (*)(void*, const void*, std::size_t, cudaStream_t)> other_copies{&bandwidth::launch_grid_stride_copy};
  for (const bandwidth::SmCopyVariant& v : bandwidth::tuned_sm_copy_variants()) other_copies.push_back(v.launch);
  for (const auto launch : other_copies) {
    launch(dst, src, n, stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    const std::set<const void*> kernels = course::probe::kernels_enqueued(stream, [&] { launch(dst, src, n, stream); });
#ifdef NDEBUG  // a debug build's launch check synchronises: nothing can be captured there
    if (kernels.empty()) throw course::CudaError("probe_02_3: a chapter copy could not be captured");
#endif
    others.insert(kernels.begin(), kernels.end());
  }
  return others;
}

#ifdef NDEBUG
// What a stream capture of one launch_sm_copy records, as the kinds of its nodes (sorted, each once: how
// many kernels a correct copy uses is its own business), and the bytes that replaying it alone leaves.
void add_capture_cases(course::probe::Cases& cases, Buffers& b, std::uint64_t seed) {
  const std::size_t n = (std::size_t{16} << 20) + 5;
  course::Stream stream;
  const std::vector<course::probe::KnownKernels> known{
      {"a kernel of the chapter's other copies", other_copy_kernels(b.dst.data(), b.src.data(), n, stream.get())}};

  for (const auto& [src_offset, dst_offset] : {std::pair<std::size_t, std::size_t>{0, 0}, {3, 3}, {1, 2}}) {
    const std::string name = "stream capture " + copy_label(n, src_offset, dst_offset);
    const auto copy = [&, src_offset = src_offset, dst_offset = dst_offset] {
      bandwidth::launch_sm_copy(b.dst.data() + pad + dst_offset, b.src.data() + src_offset, n, stream.get());
    };
    copy();
    stream.synchronize();
    const std::vector<std::string> kinds = course::probe::record_call(stream.get(), copy, known);
    // The recording alone, replayed into a poisoned destination, is the whole copy.
    std::vector<unsigned char> window(pad + dst_offset + n + pad, 0);
    cudaGraph_t graph = course::probe::capture_graph(stream.get(), copy, cudaStreamCaptureModeThreadLocal);
    if (graph != nullptr) {
      cudaGraphExec_t exec = nullptr;
      CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
      CUDA_CHECK(cudaMemsetAsync(b.dst.data(), poison, window.size(), stream.get()));
      CUDA_CHECK(cudaGraphLaunch(exec, stream.get()));
      stream.synchronize();
      CUDA_CHECK(cudaMemcpy(window.data(), b.dst.data(), window.size(), cudaMemcpyDeviceToHost));
      CUDA_CHECK(cudaGraphExecDestroy(exec));
      CUDA_CHECK(cudaGraphDestroy(graph));
    }
    cases.add_exact(name + ": kinds of node recorded", kinds);
    add_window(cases, name + ": replayed alone", window, n, dst_offset, seed);
  }
}
#endif

void verdict(const course::probe::Options& options) {
  course::probe::Cases cases("02.3", options.seed);
  Random random(mix(options.seed, 0x0203));
  std::vector<std::size_t> sizes(std::begin(awkward_sizes), std::end(awkward_sizes));
  for (int k = 0; k < 6; ++k)  // log scale, 1 byte … 4 MiB
    sizes.push_back(std::clamp<std::size_t>(
        static_cast<std::size_t>(std::pow(4194304.0, random.uniform(0.0, 1.0))) + random.below(17), 1, 4194304));
  const std::size_t drawn_large = (std::size_t{32} << 20) + random.below(std::size_t{64} << 20);
  const std::size_t large_sizes[] = {(std::size_t{64} << 20) + 5, drawn_large};
  const std::size_t largest = std::max<std::size_t>(drawn_large, (std::size_t{64} << 20) + 5);

  Buffers b{course::DeviceBuffer<unsigned char>(largest + 16), course::DeviceBuffer<unsigned char>(largest + 16 + 2 * pad), {}};
  course::Stream stream;
  fill_random(b.src.data(), b.src.size(), mix(options.seed, 0x5c), stream.get());
  stream.synchronize();

  for (const std::size_t src_offset : offsets)
    for (const std::size_t dst_offset : offsets) {
      for (const std::size_t n : sizes)
        add_window(cases, copy_label(n, src_offset, dst_offset), copy_window(b, n, src_offset, dst_offset, stream), n,
                   dst_offset, options.seed);
      add_window(cases, copy_label(0, src_offset, dst_offset), copy_window(b, 0, src_offset, dst_offset, stream), 0,
                 dst_offset, options.seed);
    }
  for (const std::size_t n : large_sizes)
    for (const auto& [src_offset, dst_offset] : {std::pair<std::size_t, std::size_t>{0, 0}, {3, 3}, {0, 3}})
      add_window(cases, copy_label(n, src_offset, dst_offset), copy_window(b, n, src_offset, dst_offset, stream), n,
                 dst_offset, options.seed);
#ifdef NDEBUG
  add_capture_cases(cases, b, options.seed);
#else
  cases.add_exact("stream capture: not checked in a debug build (every launch synchronises)",
                  std::vector<std::string>{"debug build"});
#endif
  cases.write(options.out);
}

// The timed repetition's small work: flips the source's bytes at places[0, k) and the destination's at
// places[k, 2k), one thread so that a place drawn twice is flipped twice in the same order in every run.
__global__ void flip_bytes(unsigned char* src, unsigned char* dst, const std::uint64_t* places, int k, std::uint64_t tweak) {
  for (int j = 0; j < 2 * k; ++j) {
    unsigned char* p = j < k ? src : dst;
    p[places[j]] ^= static_cast<unsigned char>(1 + device_mix(tweak + static_cast<std::uint64_t>(j)) % 255);
  }
}

__global__ void gather_bytes(const unsigned char* dst, const std::uint64_t* places, int count, unsigned char* out) {
  const int j = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (j < count) out[j] = dst[places[j]];
}

void timed(const course::probe::Options& options) {
  const std::size_t bytes = std::size_t{1} << 30;  // exercises.json perf: bandwidth_exercise --size 1GiB
  constexpr int k = 64;
  course::DeviceBuffer<unsigned char> src(bytes), dst(bytes);
  course::DeviceBuffer<std::uint64_t> places(2 * k);
  course::DeviceBuffer<unsigned char> gathered(2 * k);
  course::PinnedBuffer<std::uint64_t> host_places(2 * k);
  course::PinnedBuffer<unsigned char> host_gathered(2 * k);
  course::Stream stream;
  fill_random(src.data(), bytes, mix(options.seed, 0x5c), stream.get());
  CUDA_CHECK(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice, stream.get()));
  stream.synchronize();
  const std::string variant = options.time_variant;
  // What one launch_sm_copy of the timed buffers enqueues (a capture, not run): the `ran` of the done records.
  std::vector<std::string> ran;
  if (variant == "exercise")
    ran = course::probe::record_call(
        stream.get(), [&] { bandwidth::launch_sm_copy(dst.data(), src.data(), bytes, stream.get()); },
        {{"a kernel of the chapter's other copies", other_copy_kernels(dst.data(), src.data(), bytes, stream.get())}});

  course::probe::run_timed(options, course::probe::Tolerance::exact(), [&](std::uint64_t nonce, int rep) {
    const auto flipped_src = course::probe::places(nonce, rep, 0x51, bytes, k);
    const auto poisoned_dst = course::probe::places(nonce, rep, 0xd5, bytes, k);
    for (int j = 0; j < k; ++j) {
      host_places[j] = flipped_src[j];
      host_places[k + j] = poisoned_dst[j];
    }
    CUDA_CHECK(cudaMemcpyAsync(places.data(), host_places.data(), host_places.bytes(), cudaMemcpyHostToDevice,
                               stream.get()));
    flip_bytes<<<1, 1, 0, stream.get()>>>(src.data(), dst.data(), places.data(), k, mix(nonce, rep));
    CUDA_CHECK_LAUNCH();
    if (variant == "exercise")
      bandwidth::launch_sm_copy(dst.data(), src.data(), bytes, stream.get());
    else if (variant == "reference")
      CUDA_CHECK(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice, stream.get()));
    gather_bytes<<<1, 2 * k, 0, stream.get()>>>(dst.data(), places.data(), 2 * k, gathered.data());
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpyAsync(host_gathered.data(), gathered.data(), gathered.bytes(), cudaMemcpyDeviceToHost,
                               stream.get()));
    stream.synchronize();
    return std::vector<double>(host_gathered.data(), host_gathered.data() + 2 * k);
  }, ran);
}

int body(int argc, char** argv) {
  const course::probe::Options options = course::probe::parse(argc, argv, "02.3", true);
  course::require_device(options.device);
  if (options.timed())
    timed(options);
  else
    verdict(options);
  return course::exit_ok;
}

}  // namespace

int main(int argc, char** argv) { return course::run_main("probe_02_3", body, argc, argv); }
