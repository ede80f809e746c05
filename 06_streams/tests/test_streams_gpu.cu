// GPU side of the streams chapter. The claims of the lesson, asserted on the recorded timelines:
// chunking never changes the result; pinned memory overlaps and pageable does not; one hardware queue
// turns depth-first issue of kernel chains into a false dependency (checked through the program, which starts child
// processes with CUDA_DEVICE_MAX_CONNECTIONS set); small grids run concurrently, big grids do not; the
// legacy default stream serialises blocking streams; host functions run in stream order.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "child_process.hpp"
#include "common/buffers.cuh"
#include "common/device.cuh"
#include "streams.cuh"

using namespace streams;

namespace {

// The chapter's buffers for `n` floats: pinned host in/out, device in/out, inputs filled.
struct Buffers {
  explicit Buffers(std::size_t n) : host_in(n), host_out(n), dev_in(n), dev_out(n) {
    fill_inputs(host_in.span(), 7u);
  }
  void poison() {
    std::memset(host_out.data(), 0xff, host_out.bytes());
    dev_out.fill_bytes(0xff);
  }
  course::PinnedBuffer<float> host_in, host_out;
  course::DeviceBuffer<float> dev_in, dev_out;
};

// Runs the program's issue_order scenario once (it starts one child process per queue setting) and keeps
// its results file for every test that reads it.
const nlohmann::json& issue_order_results() {
  static const nlohmann::json results = [] {
    const std::string path = (std::filesystem::temp_directory_path() /
                              ("streams_test_issue_order_" + std::to_string(getpid()) + ".json")).string();
    const int rc = run_child_process({STREAMS_PROGRAM, "--variants", "issue_order", "--size", "16MiB", "--reps", "5",
                                      "--warmup", "1", "--json", path}, {}, "/dev/null");
    REQUIRE(rc == 0);
    std::ifstream in(path);
    nlohmann::json j = nlohmann::json::parse(in);
    std::filesystem::remove(path);
    return j;
  }();
  return results;
}

// The recorded timeline of one configuration and order, from the program's results.
Timeline recorded(const nlohmann::json& results, int connections, int streams, const std::string& order) {
  const std::string name = std::to_string(connections) + (connections == 1 ? " queue, " : " queues, ") +
                           std::to_string(streams) + " streams, " + order;
  for (const auto& tl : results.at("extra").at("timelines"))
    if (tl.at("name") == name) return timeline_from_json(tl);
  FAIL("no timeline named " << name);
  return {};
}

double wall(const nlohmann::json& results, int connections, int streams, const std::string& order) {
  for (const auto& row : results.at("rows"))
    if (row.at("scenario") == "issue_order" && row.at("connections") == connections && row.at("streams") == streams &&
        row.at("order") == order)
      return row.at("measured_ms").get<double>();
  FAIL("no issue_order row for " << connections << " / " << streams << " / " << order);
  return 0;
}

}  // namespace

TEST_SUITE("gpu") {
  TEST_CASE("--csv: the program's stdout is the CSV table and nothing else, its notes and timelines on stderr") {
    course::require_device(0);
    const std::string out = (std::filesystem::temp_directory_path() /
                             ("streams_test_csv_" + std::to_string(getpid()) + ".csv")).string();
    const int rc = run_child_process({STREAMS_PROGRAM, "--variants", "host_device,default_stream", "--size", "4MiB",
                                      "--reps", "2", "--warmup", "1", "--csv"}, {}, out);
    REQUIRE(rc == 0);
    std::ifstream in(out);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    std::filesystem::remove(out);
    REQUIRE(lines.size() == 1 + 3 + 3);  // the header, host_device's three rows, default_stream's three
    CHECK(lines[0] == "scenario,variant,measured_ms,model_ms,speedup,model_speedup,overlap,duplex_model_ms");
    for (std::size_t i = 1; i < lines.size(); ++i) {
      CAPTURE(lines[i]);
      CHECK((lines[i].rfind("host_device,", 0) == 0 || lines[i].rfind("default_stream,", 0) == 0));
      int separators = 0;  // commas outside quotes: "kernel, then host work" is one cell
      bool quoted = false;
      for (char ch : lines[i]) {
        if (ch == '"') quoted = !quoted;
        if (ch == ',' && !quoted) ++separators;
      }
      CHECK(separators == 7);
    }
  }

  TEST_CASE("the chunked pipeline equals the CPU reference for any size, chunk count, stream count and order") {
    course::require_device(0);
    const int iterations = 7;
    PipelineRunner runner(4);
    for (std::size_t n : {std::size_t{1}, std::size_t{31}, std::size_t{33}, std::size_t{1000}, std::size_t{100003}}) {
      Buffers b(n);
      std::vector<float> expected(n);
      for (std::size_t i = 0; i < n; ++i) expected[i] = fma_chain_reference(b.host_in[i], iterations);
      for (int chunks : {1, 2, 3, 7, 16, static_cast<int>(n)}) {
        if (static_cast<std::size_t>(chunks) > n || chunks > 100000) continue;
        for (int stream_count : {1, 3, 4}) {
          for (IssueOrder order : all_issue_orders()) {
            CAPTURE(n);
            CAPTURE(chunks);
            CAPTURE(stream_count);
            CAPTURE(issue_order_name(order));
            b.poison();
            const PipelineShape shape{n, chunks, stream_count, order, iterations};
            const PipelineRun run = runner.run(shape, b.host_in.data(), b.host_out.data(), b.dev_in.data(),
                                               b.dev_out.data(), 0, chunks <= 16);
            CHECK(std::memcmp(expected.data(), b.host_out.data(), n * sizeof(float)) == 0);
            if (chunks <= 16) CHECK(run.timeline.intervals.size() == 3 * static_cast<std::size_t>(chunks));
          }
        }
      }
    }
  }

  TEST_CASE("the blocker holds the streams while the host issues many chunks, and the result is unchanged") {
    course::require_device(0);
    const std::size_t n = 1 << 20;
    Buffers b(n);
    PipelineRunner runner(8);
    const PipelineShape shape{n, 256, 8, IssueOrder::depth_first, 3};
    b.poison();
    const PipelineMeasurement m = measure_pipeline(runner, shape, b.host_in.data(), b.host_out.data(), b.dev_in.data(),
                                                   b.dev_out.data(), {1, 3}, true, "many chunks");
    CHECK_FALSE(m.recorded.blocker_too_short);
    CHECK(m.wall.median > 0);
    for (std::size_t i = 0; i < n; i += 997) CHECK(b.host_out[i] == fma_chain_reference(b.host_in[i], 3));
  }

  TEST_CASE("calibration makes the kernel take about as long as the copies") {
    course::require_device(0);
    const std::size_t n = (64u << 20) / sizeof(float);
    Buffers b(n);
    const Calibration c = calibrate_balanced(b.host_in.data(), b.host_out.data(), b.dev_in.data(), b.dev_out.data(),
                                             n, {1, 5});
    CHECK(c.h2d_ms > 0.1);
    CHECK(c.d2h_ms > 0.1);
    CHECK(c.both_copies_ms >= 0.95 * std::max(c.h2d_ms, c.d2h_ms));
    CHECK(c.kernel_ms == doctest::Approx(c.both_copies_ms).epsilon(0.15));
  }

  TEST_CASE("the pipeline overlaps with pinned memory and not with pageable memory") {
    course::require_device(0);
    const std::size_t n = (64u << 20) / sizeof(float);
    Buffers b(n);
    const Calibration c = calibrate_balanced(b.host_in.data(), b.host_out.data(), b.dev_in.data(), b.dev_out.data(),
                                             n, {1, 5});
    const PipelineShape shape{n, 8, 4, IssueOrder::depth_first, c.kernel_iterations};
    PipelineRunner runner(4);
    const PipelineMeasurement pinned = measure_pipeline(runner, shape, b.host_in.data(), b.host_out.data(),
                                                        b.dev_in.data(), b.dev_out.data(), {1, 5}, false, "pinned");
    std::vector<float> pageable_in(b.host_in.data(), b.host_in.data() + n), pageable_out(n, 0.0f);
    const PipelineMeasurement pageable = measure_pipeline(runner, shape, pageable_in.data(), pageable_out.data(),
                                                          b.dev_in.data(), b.dev_out.data(), {1, 5}, false, "pageable");
    const double pinned_overlap = pinned.recorded.timeline.overlap_factor();
    const double pageable_overlap = pageable.recorded.timeline.overlap_factor();
    CAPTURE(pinned_overlap);
    CAPTURE(pageable_overlap);
    CHECK(pinned_overlap > 1.5);      // sum of operation times clearly above the wall time
    CHECK(pageable_overlap < 1.2);    // one thing at a time
    CHECK(pageable.wall.median > 1.3 * pinned.wall.median);
    CHECK(std::memcmp(pageable_out.data(), b.host_out.data(), n * sizeof(float)) == 0);
  }

  TEST_CASE("one hardware queue makes depth-first issue of kernel chains a false dependency; 8 queues do not") {
    const auto& results = issue_order_results();
    const double one = wall(results, 1, 4, "depth_first") / wall(results, 1, 4, "breadth_first");
    const double eight = wall(results, 8, 4, "depth_first") / wall(results, 8, 4, "breadth_first");
    const double shared = wall(results, 8, 32, "depth_first") / wall(results, 8, 32, "breadth_first");
    const double queues = wall(results, 1, 4, "depth_first") / wall(results, 8, 4, "depth_first");
    CAPTURE(one);
    CAPTURE(eight);
    CAPTURE(shared);
    CAPTURE(queues);
    CHECK(one > 1.5);                                     // model 9 ms / 3 ms = 3x
    CHECK(eight == doctest::Approx(1.0).epsilon(0.2));    // every stream has its own queue
    CHECK(shared > 1.5);                                  // 4 streams per queue: model 3x
    CHECK(queues > 1.5);
    // Depth-first on one queue: the first kernel of stream i+1 waits for the whole step before it.
    CHECK(first_step_spread_ms(recorded(results, 1, 4, "depth_first"), 3) > 0.5);
    CHECK(first_step_spread_ms(recorded(results, 8, 4, "depth_first"), 3) < 0.0);
    CHECK(results.at("extra").at("summary").at("false_dependency").at("one_queue").at("depth_over_breadth")
              .get<double>() == doctest::Approx(one));
  }

  TEST_CASE("the lab: breadth-first issue removes the false dependency on one hardware queue") {
    const auto& results = issue_order_results();
    // Every stream's first kernel runs at the same time as the others: nothing unrelated holds it back.
    const double spread = first_step_spread_ms(recorded(results, 1, 4, "breadth_first"), 3);
    CAPTURE(spread);
    CHECK(spread < 0.0);
    const double ratio = wall(results, 1, 4, "depth_first") / wall(results, 1, 4, "breadth_first");
    CAPTURE(ratio);
    CHECK(ratio > 1.5);
    CHECK(wall(results, 1, 4, "breadth_first") < 1.5 * 3 * 1.0);  // about 3 kernels' time (3 ms)
  }

  TEST_CASE("small-grid kernels run concurrently; big-grid kernels only overlap at their tails") {
    const auto device = course::require_device(0);
    const std::size_t n = (64u << 20) / sizeof(float);
    Buffers b(n);
    b.dev_in.upload(b.host_in.span());
    const int kernels = 4;
    const unsigned small_blocks = static_cast<unsigned>(std::max(1, device.sm_count / (2 * kernels)));
    const int small_iterations = iterations_for(b.dev_in.data(), b.dev_out.data(), n, small_blocks, 2.0);
    const ConcurrencyResult small = measure_kernel_concurrency(b.dev_in.data(), b.dev_out.data(), n, kernels,
                                                               small_iterations, small_blocks, {1, 5}, "small");
    const int big_iterations = iterations_for(b.dev_in.data(), b.dev_out.data(), n, 0, 8.0);
    const ConcurrencyResult big = measure_kernel_concurrency(b.dev_in.data(), b.dev_out.data(), n, kernels,
                                                             big_iterations, 0, {1, 5}, "big");
    CAPTURE(small.serial_ms);
    CAPTURE(small.concurrent_ms);
    CAPTURE(big.serial_ms);
    CAPTURE(big.concurrent_ms);
    CHECK(small.serial_ms / small.concurrent_ms > 0.6 * kernels);
    CHECK(big.serial_ms / big.concurrent_ms < 1.25);
    CHECK(big.serial_ms / big.one_launch_ms == doctest::Approx(1.0).epsilon(0.15));
  }

  TEST_CASE("the legacy default stream serialises blocking streams; the per-thread default stream does not") {
    course::require_device(0);
    const double t = 3.0;
    const auto legacy = measure_default_stream(cudaStreamLegacy, true, t, {1, 3}, "legacy");
    const auto per_thread = measure_default_stream(cudaStreamPerThread, true, t, {1, 3}, "per-thread");
    const auto non_blocking = measure_default_stream(cudaStreamLegacy, false, t, {1, 3}, "non-blocking");
    CHECK(legacy.wall.median > 2.7 * t);
    CHECK(per_thread.wall.median < 1.6 * t);
    CHECK(non_blocking.wall.median < 1.6 * t);
    const Interval* a = legacy.timeline.find('S', -1);
    REQUIRE(a != nullptr);
    CHECK(legacy.timeline.overlap_factor() < 1.1);
    CHECK(per_thread.timeline.overlap_factor() > 2.0);
  }

  TEST_CASE("host functions run in stream order, after their chunk's copy out, and see its data") {
    course::require_device(0);
    const std::size_t n = 3000017;
    const int chunks = 7;
    Buffers b(n);
    b.poison();
    PipelineRunner runner(3);
    std::vector<std::uint32_t> seen(chunks, 0);
    const ChunkHostWork work = [&](int chunk) {
      const ChunkRange r = chunk_range(n, chunks, chunk);
      seen[static_cast<std::size_t>(chunk)] = xor_checksum({b.host_out.data() + r.begin, r.count});
    };
    const PipelineRun run = runner.run({n, chunks, 3, IssueOrder::depth_first, 50}, b.host_in.data(),
                                       b.host_out.data(), b.dev_in.data(), b.dev_out.data(), 0, true, "host", &work);
    for (int c = 0; c < chunks; ++c) {
      const ChunkRange r = chunk_range(n, chunks, c);
      CHECK(seen[static_cast<std::size_t>(c)] == xor_checksum({b.host_out.data() + r.begin, r.count}));
      const Interval* copy = run.timeline.find('D', c);
      const Interval* host = run.timeline.find('C', c);
      REQUIRE(copy != nullptr);
      REQUIRE(host != nullptr);
      CHECK(host->start_ms >= copy->end_ms - 1e-3);
    }
    for (std::size_t i = 0; i < n; i += 1009) CHECK(b.host_out[i] == fma_chain_reference(b.host_in[i], 50));
  }
}
