// GPU side of common: the event timer against a kernel of known duration, the device query, the RAII
// owners and the check macros. All in the doctest suite "gpu": skipped without a GPU.
#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <sstream>
#include <vector>

#include "common/buffers.cuh"
#include "common/check.cuh"
#include "common/device.cuh"
#include "common/timing.cuh"

TEST_SUITE("gpu") {
  TEST_CASE("the event timer measures a 2 ms spin kernel within 10%") {
    course::require_device(0);
    const auto st = course::time_gpu([](cudaStream_t s) { course::launch_spin_kernel(2'000'000, s); }, {2, 9});
    CHECK(st.count == 9);
    CHECK(st.median == doctest::Approx(2.0).epsilon(0.10));
    CHECK(st.min <= st.median);
    CHECK(st.median <= st.max);
  }

  TEST_CASE("the host timer around a synchronised spin kernel agrees with the event timer") {
    course::require_device(0);
    const auto st = course::time_host(
        [] {
          course::launch_spin_kernel(3'000'000);
          CUDA_CHECK(cudaDeviceSynchronize());
        },
        {1, 5});
    CHECK(st.median == doctest::Approx(3.0).epsilon(0.15));
  }

  TEST_CASE("the device query describes a real device") {
    const auto d = course::require_device(0);
    CHECK(!d.name.empty());
    CHECK(d.sm_count > 0);
    CHECK(d.global_mem_bytes > (std::size_t{1} << 30));
    CHECK(d.l2_bytes > 0);
    CHECK(d.cc_major >= 5);
    CHECK(d.driver_version >= d.runtime_version / 1000 * 1000);
    std::ostringstream out;
    course::print_device_header(out, d);
    CHECK(out.str().find(d.name) != std::string::npos);
  }

  TEST_CASE("an out-of-range device index is a usage error") {
    CHECK_THROWS_AS(course::require_device(course::usable_device_count()), course::UsageError);
    CHECK_THROWS_AS(course::require_device(-1), course::UsageError);
  }

  TEST_CASE("device and pinned buffers round-trip random data; fill_bytes poisons every byte") {
    course::require_device(0);
    const std::size_t n = 1000003;
    std::vector<int> host(n);
    for (std::size_t i = 0; i < n; ++i) host[i] = static_cast<int>((i * 2654435761u) ^ 0x5bd1e995u);
    course::DeviceBuffer<int> dev(n);
    CHECK(dev.bytes() == n * sizeof(int));
    dev.upload(host);
    course::PinnedBuffer<int> back(n);
    dev.download(back.span());
    CHECK(std::equal(host.begin(), host.end(), back.data()));
    dev.fill_bytes(0xff);
    dev.download(back.span());
    CHECK(std::all_of(back.data(), back.data() + n, [](int v) { return v == -1; }));
    course::DeviceBuffer<int> moved = std::move(dev);
    CHECK(moved.size() == n);
    CHECK(dev.size() == 0);
    CHECK(dev.data() == nullptr);
  }

  TEST_CASE("CUDA_CHECK throws CudaError naming the failing call") {
    course::require_device(0);
    try {
      CUDA_CHECK(cudaMemcpy(nullptr, reinterpret_cast<void*>(8), 16, cudaMemcpyDeviceToDevice));
      FAIL("no error raised");
    } catch (const course::CudaError& e) {
      const std::string what = e.what();
      CHECK(what.find("cudaMemcpy") != std::string::npos);
      CHECK(what.find("test_device.cu") != std::string::npos);
    }
    cudaGetLastError();
  }

  TEST_CASE("the measured copy bandwidth is a plausible figure") {
    course::require_device(0);
    const double gbs = course::measure_copy_bandwidth_gbs(std::size_t{256} << 20, {2, 5});
    CHECK(gbs > 50.0);
    CHECK(gbs < 20000.0);
  }
}
