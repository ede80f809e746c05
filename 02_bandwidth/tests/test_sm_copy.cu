// The lesson's SM copy, launch_sm_copy (exercise 02.3, src/sm_copy.cu), and the copies that rely on
// split_for_vectors' head (exercise 02.2's GPU case): byte for byte on a GPU, with poisoned bytes on both
// sides of every destination, at awkward sizes, sizes drawn from COURSE_SEED, and every pair of offsets.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "beyond/sm_copy_tuned.cuh"
#include "common/buffers.cuh"
#include "common/check.cuh"
#include "common/device.cuh"
#include "copies.cuh"
#include "copy_checks.cuh"
#include "exercise_inputs.hpp"
#include "sm_copy.cuh"

using namespace bandwidth;
using copy_checks::NamedCopy;

namespace {

// The awkward sizes and `count` more drawn from `seed`, spread over 1 byte … `limit` on a log scale.
std::vector<std::size_t> sizes_with_drawn(std::uint64_t seed, int count, std::size_t limit) {
  std::vector<std::size_t> sizes = copy_checks::awkward_sizes();
  std::mt19937_64 rng(seed);
  for (int i = 0; i < count; ++i) {
    const double fraction = static_cast<double>(rng() >> 11) / static_cast<double>(1ull << 53);
    sizes.push_back(std::clamp<std::size_t>(
        static_cast<std::size_t>(std::pow(static_cast<double>(limit), fraction)) + rng() % 17, 1, limit));
  }
  return sizes;
}

// Whether split_for_vectors keeps its contract (exercise 02.2) for copies of these sizes between pointers
// misaligned by `offset` alike. Every copy of the chapter whose pointers agree modulo 16 takes its head
// and tail from it, so until it does those copies cannot be right, whoever wrote the kernel.
bool split_keeps_contract(std::span<const std::size_t> sizes, std::size_t offset) {
  for (const std::size_t n : sizes) {
    const auto* dst = reinterpret_cast<const void*>(std::uintptr_t{0x10000} + offset);
    const auto* src = reinterpret_cast<const void*>(std::uintptr_t{0x90000} + offset);
    const VectorSplit s = split_for_vectors(dst, src, n);
    if (!s.vectorizable || s.head_bytes >= 16 || s.tail_bytes >= 16 || s.vector_count > n / 16 ||
        s.head_bytes + 16 * s.vector_count + s.tail_bytes != n || s.head_bytes != std::min(n, (16 - offset % 16) % 16))
      return false;
  }
  return true;
}

bool split_keeps_contract_everywhere(std::span<const std::size_t> sizes) {
  for (const std::size_t offset : copy_checks::offsets)
    if (!split_keeps_contract(sizes, offset)) {
      MESSAGE("split_for_vectors (exercise 02.2) does not keep its contract yet: copies between pointers equally "
              "misaligned (a head before the body) are left out until it does");
      return false;
    }
  return true;
}

}  // namespace

// Exercise 02.2's GPU case: the tuned copies cut every copy with split_for_vectors, so a wrong head or tail
// shows here as wrong bytes. Where no GPU is present the CPU cases (test_vector_split.cpp) grade it.
TEST_SUITE("exercise 02.2") {
  TEST_CASE("the tuned SM copies, which split with split_for_vectors, are exact between pointers equally misaligned") {
    if (!exercise_inputs::gpu_present_for_cpu_exercise()) return;
    course::require_device(0);
    const std::uint64_t seed = exercise_inputs::seed(22);
    INFO("seed " << seed << " (COURSE_SEED)");
    const auto sizes = sizes_with_drawn(seed, 4, std::size_t{4} << 20);
    const std::size_t largest = *std::max_element(sizes.begin(), sizes.end());
    const auto data = copy_checks::random_bytes(largest + 32, seed);
    course::DeviceBuffer<unsigned char> src(largest + 32), dst(largest + 32 + 2 * copy_checks::pad);
    src.upload(data);
    for (const SmCopyVariant& v : tuned_sm_copy_variants())
      for (const std::size_t n : sizes)
        for (const std::size_t offset : {std::size_t{1}, std::size_t{3}, std::size_t{8}, std::size_t{15}}) {
          // The source 16 bytes further on as well: the pointers agree modulo 16, not in address.
          for (const std::size_t src_offset : {offset, offset + 16}) {
            const std::string wrong = copy_checks::checked_copy({v.name, v.launch}, dst, src, data, n, src_offset, offset);
            INFO(wrong);
            REQUIRE(wrong.empty());
          }
        }
  }
}

// Exercise 02.3: launch_sm_copy. As handed out it copies byte by byte: correct and slow. These cases
// grade correctness; bandwidth_exercise times it against cudaMemcpy.
TEST_SUITE("exercise 02.3") {
  const NamedCopy lesson_copy{"launch_sm_copy", &launch_sm_copy};

  TEST_CASE("launch_sm_copy copies any size between any offsets and writes nothing outside") {
    course::require_device(0);
    const std::uint64_t seed = exercise_inputs::seed(23);
    INFO("seed " << seed << " (COURSE_SEED)");
    const auto sizes = sizes_with_drawn(seed, 6, std::size_t{4} << 20);
    const bool split_ready = split_keeps_contract_everywhere(sizes);
    const std::size_t largest = *std::max_element(sizes.begin(), sizes.end());
    const auto data = copy_checks::random_bytes(largest + 16, seed);
    course::DeviceBuffer<unsigned char> src(largest + 16), dst(largest + 16 + 2 * copy_checks::pad);
    src.upload(data);
    for (const std::size_t n : sizes)
      for (const std::size_t src_offset : copy_checks::offsets)
        for (const std::size_t dst_offset : copy_checks::offsets) {
          if (src_offset == dst_offset && src_offset != 0 && !split_ready) continue;
          const std::string wrong = copy_checks::checked_copy(lesson_copy, dst, src, data, n, src_offset, dst_offset);
          INFO(wrong);
          REQUIRE(wrong.empty());
        }
  }

  TEST_CASE("launch_sm_copy is exact on large copies (64 MiB + 5 and a size drawn from the seed), and 0 bytes is a no-op") {
    course::require_device(0);
    const std::uint64_t seed = exercise_inputs::seed(23) ^ 0x1a29eull;
    INFO("seed " << seed << " (COURSE_SEED)");
    std::mt19937_64 rng(seed);
    const std::size_t drawn = (std::size_t{32} << 20) + rng() % (std::size_t{64} << 20);
    const std::size_t largest = std::max(drawn, (std::size_t{64} << 20) + 5);
    const auto data = copy_checks::random_bytes(largest + 16, seed);
    course::DeviceBuffer<unsigned char> src(largest + 16), dst(largest + 16 + 2 * copy_checks::pad);
    src.upload(data);
    const std::size_t large_sizes[] = {(std::size_t{64} << 20) + 5, drawn};
    const bool split_ready = split_keeps_contract_everywhere(large_sizes);
    for (const std::size_t n : large_sizes)
      for (const auto& [src_offset, dst_offset] : {std::pair<std::size_t, std::size_t>{0, 0}, {3, 3}, {0, 3}}) {
        if (src_offset == dst_offset && src_offset != 0 && !split_ready) continue;
        const std::string wrong = copy_checks::checked_copy(lesson_copy, dst, src, data, n, src_offset, dst_offset);
        INFO(wrong);
        REQUIRE(wrong.empty());
      }
    // Zero bytes: nothing written, no launch error, whatever the pointers.
    for (const std::size_t offset : copy_checks::offsets) {
      const std::string wrong = copy_checks::checked_copy(lesson_copy, dst, src, data, 0, offset, 0);
      INFO(wrong);
      CHECK(wrong.empty());
    }
  }

  TEST_CASE("launch_sm_copy copies in kernels of its own, on the stream it is given: no library copy, no other copy of the chapter") {
#ifndef NDEBUG
    MESSAGE("debug build: every launch synchronises, which a stream capture cannot hold; checked in release builds");
    return;
#else
    course::require_device(0);
    const std::size_t n = (std::size_t{16} << 20) + 5;
    const auto data = copy_checks::random_bytes(n + 16, 7);
    course::DeviceBuffer<unsigned char> src(n + 16), dst(n + 16 + SweepConfig::guard_bytes);
    src.upload(data);
    course::Stream stream;

    // What a stream capture of `launch` records: its kernels, and how many nodes are not kernels (a
    // cudaMemcpyAsync or cudaMemsetAsync is a memcpy or memset node). `error` says why nothing was
    // recorded: a call that may not run while a stream is captured (cudaMemcpy, cudaDeviceSynchronize,
    // the legacy default stream) ends the capture.
    struct Recorded {
      cudaGraph_t graph = nullptr;
      std::vector<const void*> kernels;
      std::size_t other_nodes = 0;
      std::string error;
    };
    const auto record = [&](const NamedCopy& copy, std::size_t src_offset, std::size_t dst_offset,
                            cudaStreamCaptureMode mode) {
      Recorded r;
      CUDA_CHECK(cudaStreamBeginCapture(stream.get(), mode));
      try {
        copy.launch(dst.data() + dst_offset, src.data() + src_offset, n, stream.get());
      } catch (const std::exception& e) {
        r.error = e.what();
      }
      const cudaError_t ended = cudaStreamEndCapture(stream.get(), &r.graph);
      if (ended != cudaSuccess) {
        (void)cudaGetLastError();  // not sticky: clear it so that the next call does not see it
        if (r.error.empty()) r.error = std::string("the capture ended with ") + cudaGetErrorName(ended);
        r.graph = nullptr;
        return r;
      }
      std::size_t count = 0;
      CUDA_CHECK(cudaGraphGetNodes(r.graph, nullptr, &count));
      std::vector<cudaGraphNode_t> nodes(count);
      if (count > 0) CUDA_CHECK(cudaGraphGetNodes(r.graph, nodes.data(), &count));
      for (cudaGraphNode_t node : nodes) {
        cudaGraphNodeType type;
        CUDA_CHECK(cudaGraphNodeGetType(node, &type));
        if (type != cudaGraphNodeTypeKernel) {
          ++r.other_nodes;
          continue;
        }
        cudaKernelNodeParams params{};
        CUDA_CHECK(cudaGraphKernelNodeGetParams(node, &params));
        r.kernels.push_back(params.func);
      }
      return r;
    };

    // The kernels of the chapter's other SM copies: the naive rung and the tuned ones. (The byte-wise
    // fallback, launch_byte_copy, is allowed: pointers that disagree modulo 16 need it.) Each is run once
    // first, so that what it sets up on its first call is done before the capture.
    std::set<const void*> others;
    std::vector<NamedCopy> other_copies{{"launch_grid_stride_copy", &launch_grid_stride_copy}};
    for (const SmCopyVariant& v : tuned_sm_copy_variants()) other_copies.push_back({v.name, v.launch});
    for (const NamedCopy& copy : other_copies) {
      copy.launch(dst.data(), src.data(), n, stream.get());
      stream.synchronize();
      Recorded r = record(copy, 0, 0, cudaStreamCaptureModeRelaxed);
      INFO(copy.name << ": " << r.error);
      REQUIRE(r.graph != nullptr);
      others.insert(r.kernels.begin(), r.kernels.end());
      CUDA_CHECK(cudaGraphDestroy(r.graph));
    }

    const std::size_t sizes[] = {n};
    const bool split_ready = split_keeps_contract_everywhere(sizes);
    for (const auto& [src_offset, dst_offset] : {std::pair<std::size_t, std::size_t>{0, 0}, {3, 3}, {1, 2}}) {
      if (src_offset == dst_offset && src_offset != 0 && !split_ready) continue;
      CAPTURE(src_offset);
      CAPTURE(dst_offset);
      // Once for real first, as above: a launcher may set things up on its first call.
      lesson_copy.launch(dst.data() + dst_offset, src.data() + src_offset, n, stream.get());
      stream.synchronize();
      Recorded r = record(lesson_copy, src_offset, dst_offset, cudaStreamCaptureModeThreadLocal);
      INFO("capture: " << (r.error.empty() ? "recorded" : r.error));
      REQUIRE(r.graph != nullptr);
      CHECK(r.other_nodes == 0);  // a library copy or memset on the stream
      REQUIRE(!r.kernels.empty());  // work on some other stream, or nothing at all
      for (const void* kernel : r.kernels) {
        const char* name = nullptr;
        CUDA_CHECK(cudaFuncGetName(&name, kernel));
        const std::string kernel_name = name != nullptr ? name : "";
        INFO("kernel " << kernel_name);
        CHECK(others.count(kernel) == 0);  // the naive rung or a tuned copy doing the work
        // CUB's and Thrust's kernels (mangled names hold the namespace as "3cub", "6thrust").
        CHECK(kernel_name.find("3cub") == std::string::npos);
        CHECK(kernel_name.find("6thrust") == std::string::npos);
      }
      // What was recorded, run alone, is the whole copy.
      cudaGraphExec_t exec = nullptr;
      CUDA_CHECK(cudaGraphInstantiate(&exec, r.graph, 0));
      CUDA_CHECK(cudaMemsetAsync(dst.data(), poison_byte, dst.size(), stream.get()));
      CUDA_CHECK(cudaGraphLaunch(exec, stream.get()));
      stream.synchronize();
      std::vector<unsigned char> back(n + SweepConfig::guard_bytes);
      CUDA_CHECK(cudaMemcpy(back.data(), dst.data() + dst_offset, back.size(), cudaMemcpyDeviceToHost));
      CHECK(count_wrong_bytes_on_host(back, {data.data() + src_offset, n}, SweepConfig::guard_bytes) == 0);
      CUDA_CHECK(cudaGraphExecDestroy(exec));
      CUDA_CHECK(cudaGraphDestroy(r.graph));
    }
#endif
  }

  TEST_CASE("the bench and the duel run launch_sm_copy at odd sizes and find every byte right") {
    course::require_device(0);
    const std::size_t sizes[] = {1, 3, 15, 16, 17, 4097, (std::size_t{1} << 20) + 7};
    CopyBench bench(sizes[std::size(sizes) - 1], 42);
    for (const std::size_t n : sizes) {
      CAPTURE(n);
      const CopyMeasurement m = bench.measure(CopyKind::d2d_sm_kernel, n, {1, 3});  // throws on a wrong byte
      CHECK(m.events.ms.median > 0);
      CHECK(m.spin_blocked.ms.median > 0);
    }
    const CopyKind lesson[] = {CopyKind::d2d_sm_kernel};
    const auto duel = bench.d2d_duel(sizes[std::size(sizes) - 1], {1, 3}, lesson);  // throws on a wrong byte
    REQUIRE(duel.size() == 2);
    CHECK(duel[1].copy == "d2d_sm_kernel");
  }
}
