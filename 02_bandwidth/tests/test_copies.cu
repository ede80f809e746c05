// Chapter 02's copies: host buffers of every kind, the SM copies beyond the lesson and the naive rung at
// awkward sizes and offsets, the data check itself, and the lesson's two timing claims. CPU cases first;
// the rest in suite "gpu". The naive rung's output is exercise 02.1's GPU case (its suite, below). The
// lesson's own SM copy (exercise 02.3) and the copies between pointers equally misaligned, which rely on
// split_for_vectors (exercise 02.2), are tested in test_sm_copy.cu.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/buffers.cuh"
#include "common/check.cuh"
#include "beyond/sm_copy_tuned.cuh"
#include "common/device.cuh"
#include "copies.cuh"
#include "copy_checks.cuh"
#include "exercise_inputs.hpp"
#include "sm_copy.cuh"

using namespace bandwidth;
using copy_checks::random_bytes;

namespace {
constexpr std::size_t guard = SweepConfig::guard_bytes;
// The lesson's SM copies as the duel takes them (cudaMemcpy, entry 0, is always there), but for its own
// kernel: that is exercise 02.3's, tested in its suite.
constexpr CopyKind lesson_sm_copies[] = {CopyKind::d2d_grid_stride};
// Sizes that are not multiples of 16, below and above one vector, one block and one tile.
const std::size_t odd_sizes[] = {1, 3, 15, 16, 17, 4097, (std::size_t{1} << 20) + 7};
}  // namespace

TEST_CASE("random data is reproducible from its seed, differs between seeds, and fills odd lengths") {
  const auto a = random_bytes(1001, 7), b = random_bytes(1001, 7), c = random_bytes(1001, 8);
  CHECK(a == b);
  CHECK(a != c);
  // Bytes look uniform enough that a stale or shifted copy cannot match by chance.
  CHECK(std::count(a.begin(), a.end(), a[0]) < 20);
  CHECK(!std::equal(a.begin() + 1, a.end(), a.begin()));
  const auto three = random_bytes(3, 7);
  CHECK(std::equal(three.begin(), three.end(), a.begin()));  // a prefix of the same stream
}

TEST_CASE("the host check counts wrong bytes and writes past the end") {
  const auto expected = random_bytes(100, 1);
  std::vector<unsigned char> actual(expected);
  actual.resize(100 + 16, poison_byte);
  CHECK(count_wrong_bytes_on_host(actual, expected, 16) == 0);
  actual[37] ^= 1;
  CHECK(count_wrong_bytes_on_host(actual, expected, 16) == 1);
  actual[37] ^= 1;
  actual[100 + 3] = 0;  // a write past the end
  CHECK(count_wrong_bytes_on_host(actual, expected, 16) == 1);
  CHECK_THROWS_AS(count_wrong_bytes_on_host(expected, expected, 1), std::invalid_argument);
}

TEST_SUITE("gpu") {
  TEST_CASE("every host memory kind carries random data to the device and back, byte for byte, at odd sizes") {
    course::require_device(0);
    const std::size_t largest = *std::max_element(std::begin(odd_sizes), std::end(odd_sizes));
    course::Stream stream;
    course::DeviceBuffer<unsigned char> device(largest + guard);
    std::vector<unsigned char> readback(largest + guard);
    for (const HostMemoryVariant& variant : host_memory_variants()) {
      const HostMemoryKind kind = variant.kind;
      HostBuffer source(kind, largest + guard), destination(kind, largest + guard);
      for (const std::size_t n : odd_sizes) {
        CAPTURE(kind_name(kind));
        CAPTURE(n);
        const auto expected = random_bytes(n, n);
        std::memcpy(source.data(), expected.data(), n);
        // Host → device, checked by reading the device back with a plain cudaMemcpy.
        CUDA_CHECK(cudaMemsetAsync(device.data(), poison_byte, n + guard, stream));
        CUDA_CHECK(cudaMemcpyAsync(device.data(), source.data(), n, cudaMemcpyHostToDevice, stream));
        stream.synchronize();
        CUDA_CHECK(cudaMemcpy(readback.data(), device.data(), n + guard, cudaMemcpyDeviceToHost));
        CHECK(count_wrong_bytes_on_host({readback.data(), n + guard}, expected, guard) == 0);
        // Device → host into the poisoned destination buffer of the same kind.
        std::memset(destination.data(), poison_byte, n + guard);
        CUDA_CHECK(cudaMemcpyAsync(destination.data(), device.data(), n, cudaMemcpyDeviceToHost, stream));
        stream.synchronize();
        CHECK(count_wrong_bytes_on_host({destination.data(), n + guard}, expected, guard) == 0);
      }
    }
  }

  TEST_CASE("the device check finds a wrong byte, a write past the end, and nothing in a good copy") {
    course::require_device(0);
    const std::size_t n = (std::size_t{1} << 20) + 5;
    const auto data = random_bytes(n, 3);
    course::DeviceBuffer<unsigned char> expected(n), actual(n + guard);
    expected.upload(data);
    CUDA_CHECK(cudaMemset(actual.data(), poison_byte, n + guard));
    CUDA_CHECK(cudaMemcpy(actual.data(), expected.data(), n, cudaMemcpyDeviceToDevice));
    CHECK(count_wrong_bytes_on_device(actual.data(), expected.data(), n, guard, nullptr) == 0);
    const unsigned char flipped = static_cast<unsigned char>(data[n / 2] ^ 0x10);
    CUDA_CHECK(cudaMemcpy(actual.data() + n / 2, &flipped, 1, cudaMemcpyHostToDevice));
    CHECK(count_wrong_bytes_on_device(actual.data(), expected.data(), n, guard, nullptr) == 1);
    CUDA_CHECK(cudaMemcpy(actual.data() + n + guard - 1, &flipped, 1, cudaMemcpyHostToDevice));
    CHECK(count_wrong_bytes_on_device(actual.data(), expected.data(), n, guard, nullptr) == 2);
    // An untouched (all poison) destination is wrong almost everywhere.
    CUDA_CHECK(cudaMemset(actual.data(), poison_byte, n + guard));
    CHECK(count_wrong_bytes_on_device(actual.data(), expected.data(), n, guard, nullptr) > n * 99 / 100);
  }

  // The tuned copies beyond the lesson: exact for any size and alignment. Pointers equally misaligned
  // (a head before the body) are left to exercise 02.2's suite: they need split_for_vectors' head.
  std::vector<copy_checks::NamedCopy> tuned_copies() {
    std::vector<copy_checks::NamedCopy> copies;
    for (const SmCopyVariant& v : tuned_sm_copy_variants()) copies.push_back({v.name, v.launch});
    return copies;
  }

  TEST_CASE("every tuned SM copy copies any size, aligned or between pointers that disagree modulo 16, and writes nothing outside") {
    course::require_device(0);
    const auto& sizes = copy_checks::awkward_sizes();
    const std::size_t largest = *std::max_element(sizes.begin(), sizes.end());
    const auto data = random_bytes(largest + 16, 11);
    course::DeviceBuffer<unsigned char> src(largest + 16), dst(largest + 16 + 2 * copy_checks::pad);
    src.upload(data);
    for (const auto& copy : tuned_copies())
      for (const std::size_t n : sizes)
        for (const std::size_t src_offset : copy_checks::offsets)
          for (const std::size_t dst_offset : copy_checks::offsets) {
            if (src_offset == dst_offset && src_offset != 0) continue;  // exercise 02.2's suite
            const std::string wrong = copy_checks::checked_copy(copy, dst, src, data, n, src_offset, dst_offset);
            INFO(wrong);
            REQUIRE(wrong.empty());
          }
  }

  TEST_CASE("every tuned SM copy is right when the grid loops many times (64 MiB + 5, aligned and mutually misaligned)") {
    course::require_device(0);
    const std::size_t n = (std::size_t{64} << 20) + 5;
    const auto data = random_bytes(n + 16, 5);
    course::DeviceBuffer<unsigned char> src(n + 16), dst(n + 16 + guard);
    src.upload(data);
    std::vector<unsigned char> back(n + guard);
    for (const auto& copy : tuned_copies())
      for (const std::size_t dst_offset : {std::size_t{0}, std::size_t{3}}) {
        CAPTURE(copy.name);
        CAPTURE(dst_offset);
        CUDA_CHECK(cudaMemset(dst.data(), poison_byte, dst.size()));
        copy.launch(dst.data() + dst_offset, src.data(), n, nullptr);
        CUDA_CHECK(cudaDeviceSynchronize());
        CUDA_CHECK(cudaMemcpy(back.data(), dst.data() + dst_offset, n + guard, cudaMemcpyDeviceToHost));
        CHECK(count_wrong_bytes_on_host(back, {data.data(), n}, guard) == 0);
        copy.launch(dst.data(), src.data(), 0, nullptr);  // zero bytes: nothing to do, no launch error
        CUDA_CHECK(cudaDeviceSynchronize());
      }
  }

  TEST_CASE("the bench times and checks every copy kind, every host kind, both directions at once, at odd sizes") {
    course::require_device(0);
    CopyBench bench((std::size_t{1} << 20) + 7, 42);
    for (const HostMemoryVariant& variant : host_memory_variants()) {
      const HostMemoryKind kind = variant.kind;
      bench.use_host_memory(kind);
      for (const std::size_t n : odd_sizes) {
        CAPTURE(kind_name(kind));
        CAPTURE(n);
        for (const CopyKind copy : {CopyKind::h2d, CopyKind::d2h, CopyKind::d2d_memcpy, CopyKind::d2d_grid_stride}) {
          CAPTURE(copy_kind_name(copy));
          const CopyMeasurement m = bench.measure(copy, n, {1, 3});  // throws on a wrong byte
          CHECK(m.events.ms.median > 0);
          CHECK(m.spin_blocked.ms.median > 0);
          CHECK(m.spin_blocked.copies_per_trial == copies_per_trial(n));
        }
        CHECK_NOTHROW(bench.measure_bidirectional(n, {1, 3}));
        for (const CopyKind copy : {CopyKind::h2d, CopyKind::d2h})
          for (const CopyCall call : {CopyCall::memcpy, CopyCall::memcpy_async}) {
            CAPTURE(copy_kind_name(copy));
            CAPTURE(copy_call_name(call));
            const CallReturn r = bench.measure_call_return(copy, call, n, {1, 3});  // throws on a wrong byte
            CHECK(r.complete_ms.median >= r.returned_ms.median);
            CHECK(r.wait_floor_ms.count == 3);
          }
      }
    }
    // Call returns are measured for the copy engine's calls only: an SM copy kernel is refused.
    CHECK_THROWS_AS(bench.measure_call_return(CopyKind::d2d_grid_stride, CopyCall::memcpy, 64, {1, 1}), std::invalid_argument);
    const std::size_t n = (std::size_t{1} << 20) + 7;
    const auto duel = bench.d2d_duel(n, {1, 3}, lesson_sm_copies, tuned_sm_copy_variants());  // throws on a wrong byte
    REQUIRE(duel.size() == 2 + tuned_sm_copy_variants().size());
    CHECK(duel[0].copy == "d2d_memcpy");
    CHECK(duel[1].copy == "d2d_grid_stride");
    CHECK(duel[2].copy == tuned_sm_copy_variants()[0].name);
    CHECK(bench.d2d_duel(n, {1, 1}).size() == 1);  // cudaMemcpy alone: the baseline always runs
    const CopyKind not_sm_copies[] = {CopyKind::d2d_memcpy, CopyKind::h2d};
    for (const CopyKind& wrong : not_sm_copies)
      CHECK_THROWS_AS(bench.d2d_duel(n, {1, 1}, {&wrong, 1}), std::invalid_argument);
    CHECK_THROWS_AS(bench.measure(CopyKind::h2d, (std::size_t{1} << 20) + 8, {1, 1}), std::invalid_argument);
  }

  TEST_CASE("pinned memory moves 64 MiB at least 1.1x faster than pageable memory, both directions") {
    course::require_device(0);
    const std::size_t n = std::size_t{64} << 20;
    CopyBench bench(n, 1);
    double gbs[2][2] = {};  // [pageable, pinned][h2d, d2h]
    const HostMemoryKind kinds[] = {HostMemoryKind::pageable, HostMemoryKind::pinned};
    for (int k = 0; k < 2; ++k) {
      bench.use_host_memory(kinds[k]);
      for (int d = 0; d < 2; ++d) {
        const auto m = bench.measure(d == 0 ? CopyKind::h2d : CopyKind::d2h, n, {2, 7});
        gbs[k][d] = static_cast<double>(n) / (m.spin_blocked.ms.median * 1e6);
      }
    }
    MESSAGE("H2D pageable " << gbs[0][0] << " pinned " << gbs[1][0] << " GB/s; D2H pageable " << gbs[0][1]
                            << " pinned " << gbs[1][1] << " GB/s");
    CHECK(gbs[1][0] > 1.1 * gbs[0][0]);
    CHECK(gbs[1][1] > 1.1 * gbs[0][1]);
  }

  TEST_CASE("cudaMemcpy returns with its copy complete, cudaMemcpyAsync of pinned memory long before; into pageable "
            "memory both wait") {
    course::require_device(0);
    const std::size_t n = std::size_t{32} << 20;  // hundreds of µs over PCIe: the call's own cost is noise
    CopyBench bench(n, 6);
    bench.use_host_memory(HostMemoryKind::pinned);
    for (const CopyKind copy : {CopyKind::h2d, CopyKind::d2h}) {
      CAPTURE(copy_kind_name(copy));
      const CallReturn blocking = bench.measure_call_return(copy, CopyCall::memcpy, n, {2, 9});
      const CallReturn async = bench.measure_call_return(copy, CopyCall::memcpy_async, n, {2, 9});
      MESSAGE("32 MiB " << copy_kind_name(copy) << " pinned, us to return / to complete: cudaMemcpy "
                        << blocking.returned_ms.median * 1e3 << " / " << blocking.complete_ms.median * 1e3
                        << ", cudaMemcpyAsync " << async.returned_ms.median * 1e3 << " / "
                        << async.complete_ms.median * 1e3);
      CHECK(blocking.returned_ms.median > 0.9 * blocking.complete_ms.median);
      CHECK(async.returned_ms.median < 0.1 * async.complete_ms.median);
    }
    // Into pageable memory neither call can return early: the CPU copies the data out of the driver's
    // staging buffer after the DMA, inside the call.
    bench.use_host_memory(HostMemoryKind::pageable);
    for (const CopyCall call : {CopyCall::memcpy, CopyCall::memcpy_async}) {
      CAPTURE(copy_call_name(call));
      const CallReturn r = bench.measure_call_return(CopyKind::d2h, call, n, {2, 9});
      CHECK(r.returned_ms.median > 0.9 * r.complete_ms.median);
    }
  }

  TEST_CASE("host to host calls return with the copy done; device to device copies arrive whatever the call") {
    course::require_device(0);
    const std::size_t n = std::size_t{32} << 20;
    CopyBench bench(n, 8);
    for (const HostMemoryKind kind : {HostMemoryKind::pageable, HostMemoryKind::pinned}) {
      bench.use_host_memory(kind);
      for (const CopyCall call : {CopyCall::memcpy, CopyCall::memcpy_async}) {
        CAPTURE(copy_call_name(call));
        // "Fully synchronous with respect to the host": the call itself moves the 32 MiB.
        const CallReturn r = bench.measure_host_to_host_call_return(call, n, {1, 5});
        CHECK(r.returned_ms.median > 0.9 * r.complete_ms.median);
      }
    }
    for (const CopyCall call : {CopyCall::memcpy, CopyCall::memcpy_async})
      for (const std::size_t size : {std::size_t{4096}, n})
        CHECK_NOTHROW(bench.measure_call_return(CopyKind::d2d_memcpy, call, size, {1, 3}));  // bytes checked inside
    CHECK_THROWS_AS(bench.measure_call_return(CopyKind::d2d_sm_kernel, CopyCall::memcpy, 4096, {1, 1}),
                    std::invalid_argument);
  }

  TEST_CASE("both directions at once: each direction's own time ends by the pair's, and moves its bytes") {
    course::require_device(0);
    const std::size_t n = std::size_t{32} << 20;
    CopyBench bench(n, 9);
    bench.use_host_memory(HostMemoryKind::pinned);
    const CopyMeasurement both = bench.measure_bidirectional(n, {2, 9});
    const CopyMeasurement h2d = bench.measure(CopyKind::h2d, n, {2, 9});
    REQUIRE(both.spin_blocked.lane_ms.size() == 2);  // lane 0 H2D, lane 1 D2H, on one device
    CHECK(both.events.lane_ms.empty());              // the naive timing has no per-lane ends
    for (const course::Stats& lane : both.spin_blocked.lane_ms) {
      CHECK(lane.median > 0);
      CHECK(lane.median <= both.spin_blocked.ms.median * 1.001);  // the pair ends with its later lane
    }
    // One direction alone is not slower than while the other runs (5% allowance for noise).
    CHECK(h2d.spin_blocked.ms.median <= 1.05 * both.spin_blocked.lane_ms[0].median);
    MESSAGE("32 MiB pinned: H2D alone " << h2d.spin_blocked.ms.median * 1e3 << " us, during D2H "
            << both.spin_blocked.lane_ms[0].median * 1e3 << " us; D2H during H2D "
            << both.spin_blocked.lane_ms[1].median * 1e3 << " us; the pair " << both.spin_blocked.ms.median * 1e3
            << " us");
  }

  TEST_CASE("behind a spin kernel, small pinned copies take less time each than with events around each one") {
    course::require_device(0);
    CopyBench bench(4096, 2);
    bench.use_host_memory(HostMemoryKind::pinned);
    const auto m = bench.measure(CopyKind::h2d, 4096, {3, 15});
    MESSAGE("4 KiB H2D: " << m.spin_blocked.ms.median * 1e3 << " us/copy spin-blocked, " << m.events.ms.median * 1e3
                          << " us with events");
    CHECK(m.spin_blocked.copies_per_trial == 64);
    CHECK(m.spin_blocked.spin_covered_fraction == 1.0);  // the spin outlasted all 64 enqueues
    CHECK(m.spin_blocked.ms.median < m.events.ms.median);
  }

  TEST_CASE("the fastest tuned SM copy comes close to cudaMemcpy device to device at 256 MiB") {
    course::require_device(0);
    const std::size_t n = std::size_t{256} << 20;
    CopyBench bench(n, 3);
    const auto duel = bench.d2d_duel(n, {2, 9}, lesson_sm_copies, tuned_sm_copy_variants());
    std::size_t best = 2;  // entry 1 is the naive rung, which is not expected to
    for (std::size_t v = 1; v < duel.size(); ++v) {
      MESSAGE("256 MiB D2D " << duel[v].copy << ": " << duel[0].ms.median / duel[v].ms.median << "x memcpy");
      if (v >= 2 && duel[v].ms.median < duel[best].ms.median) best = v;
    }
    MESSAGE("fastest tuned SM copy: " << duel[best].copy);
    // A sanity bound only: the measured ratios are in the committed results (d2d_duel_beyond). The
    // lesson's own kernel is timed against cudaMemcpy by bandwidth_exercise (exercise 02.3).
    CHECK(duel[best].ms.median < 1.10 * duel[0].ms.median);
  }
}

// Run by bandwidth_tests --two-gpus (ctest bandwidth_tests.two_gpus), which a machine with fewer than two
// GPUs reports as skipped: a one-GPU run has no pair to test, and must not count as a pass.
// Exercise 02.1's GPU case: the naive rung's kernel copies the int4s grid_stride_vector names
// (src/grid_stride_map.hpp), so its output shows whether the mapping covers every int4 once. Run where a
// GPU is present (REQUIRE_GPU=1 makes a missing one a failure); the CPU cases are test_grid_stride_map.cpp.
TEST_SUITE("exercise 02.1") {
  TEST_CASE("the grid-stride rung, which copies the int4s grid_stride_vector names, is exact at odd sizes and when the grid loops many times") {
    if (!exercise_inputs::gpu_present_for_cpu_exercise()) return;
    const std::size_t largest = (std::size_t{64} << 20) + 5;  // many trips of the resident grid
    const auto data = random_bytes(largest, 9);
    course::DeviceBuffer<unsigned char> src(data.size()), dst(data.size() + guard);
    src.upload(data);
    std::vector<unsigned char> back(data.size() + guard);
    std::vector<std::size_t> sizes(std::begin(odd_sizes), std::end(odd_sizes));
    sizes.push_back(largest);
    for (const std::size_t n : sizes) {
      CAPTURE(n);
      CUDA_CHECK(cudaMemset(dst.data(), poison_byte, n + guard));
      launch_grid_stride_copy(dst.data(), src.data(), n);
      CUDA_CHECK(cudaDeviceSynchronize());
      CUDA_CHECK(cudaMemcpy(back.data(), dst.data(), n + guard, cudaMemcpyDeviceToHost));
      CHECK(count_wrong_bytes_on_host({back.data(), n + guard}, {data.data(), n}, guard) == 0);
    }
    CHECK_THROWS_AS(launch_grid_stride_copy(dst.data() + 1, src.data(), 64), std::invalid_argument);
  }
}

TEST_SUITE("two gpus") {
  TEST_CASE("peer-to-peer copies arrive intact between every pair, with and without peer access") {
    const int count = course::usable_device_count();
    course::require_device(0);
    REQUIRE(count >= 2);
    const auto pairs = measure_peer_matrix(count, (std::size_t{1} << 20) + 7, {1, 2}, 4);  // throws on a wrong byte
    const auto staged = std::count_if(pairs.begin(), pairs.end(), [](const PeerMeasurement& p) { return !p.peer_access; });
    CHECK(staged == count * (count - 1));
    for (const auto& p : pairs) CHECK(p.one_way.spin_blocked.ms.median > 0);
  }
}
