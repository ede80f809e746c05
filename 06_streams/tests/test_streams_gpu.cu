// GPU side of the streams chapter. The claims of the lesson, asserted on the recorded timelines:
// chunking never changes the result; one hardware queue turns depth-first issue of kernel chains into a
// false dependency (checked through the program, which starts child processes with
// CUDA_DEVICE_MAX_CONNECTIONS set); small grids run concurrently, big grids do not; the legacy default
// stream serialises blocking streams; host functions run in stream order. Then the exercises' GPU cases:
// breadth-first issue removes the false dependency (06.1), pinned memory overlaps and pageable does not
// (06.2), the pipeline through a device ring (06.3).
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "child_process.hpp"
#include "common/buffers.cuh"
#include "common/check.cuh"
#include "common/device.cuh"
#include "course_test_env.hpp"
#include "streams.cuh"

using namespace streams;

namespace {

// The chapter's buffers for `n` floats: pinned host in/out, device in/out, inputs filled from `seed`.
struct Buffers {
  explicit Buffers(std::size_t n, std::uint32_t seed = 7u) : host_in(n), host_out(n), dev_in(n), dev_out(n) {
    fill_inputs(host_in.span(), seed);
  }
  void poison() {
    std::memset(host_out.data(), 0xff, host_out.bytes());
    dev_out.fill_bytes(0xff);
  }
  course::PinnedBuffer<float> host_in, host_out;
  course::DeviceBuffer<float> dev_in, dev_out;
};

// The orders that are not an exercise (breadth_first is 06.1).
const IssueOrder chapter_orders[] = {IssueOrder::depth_first, IssueOrder::staggered};

// Fresh inputs per grading run: the grader sets COURSE_SEED; a fixed seed otherwise (common's rule).
unsigned course_seed() { return static_cast<unsigned>(course::testing::seed_from_env(6062u)); }


// How many of `n` floats differ bit for bit, and the first of them (n if none).
struct Mismatch {
  std::size_t count = 0, first = 0;
};
Mismatch compare_bits(const float* expected, const float* got, std::size_t n) {
  Mismatch m{0, n};
  for (std::size_t i = 0; i < n; ++i)
    if (std::memcmp(&expected[i], &got[i], sizeof(float)) != 0) {
      if (m.count++ == 0) m.first = i;
    }
  return m;
}

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

  TEST_CASE("the chunked pipeline equals the CPU reference for any size, chunk count, stream count, order") {
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
          for (IssueOrder order : chapter_orders) {
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

  TEST_CASE("one hardware queue makes depth-first issue of kernel chains a false dependency; 8 queues do not") {
    const auto& results = issue_order_results();
    const double queues = wall(results, 1, 4, "depth_first") / wall(results, 8, 4, "depth_first");
    const double eight = wall(results, 8, 4, "depth_first") / wall(results, 8, 4, "staggered");
    const double shared = wall(results, 8, 32, "depth_first") / wall(results, 8, 4, "depth_first");
    CAPTURE(queues);
    CAPTURE(eight);
    CAPTURE(shared);
    CHECK(queues > 1.5);                                  // model 9 ms / 3 ms = 3x
    CHECK(eight == doctest::Approx(1.0).epsilon(0.2));    // every stream has its own queue: the order is moot
    CHECK(shared > 1.5);                                  // 32 streams, 4 to a queue: depth-first 9 ms again
    // Depth-first on one queue: the first kernel of stream i+1 waits for the whole step before it.
    CHECK(first_step_spread_ms(recorded(results, 1, 4, "depth_first"), 3) > 0.5);
    CHECK(first_step_spread_ms(recorded(results, 8, 4, "depth_first"), 3) < 0.0);
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

// ---------------------------------------------------------------------------------------------------------
// Exercise 06.1's GPU case (06.1 is graded on the CPU; this case runs where a GPU is): the program's
// issue_order scenario on one hardware queue, read off the kernels' own time stamps.

TEST_SUITE("exercise 06.1") {
  TEST_CASE("on one hardware queue breadth-first issue removes the false dependency (where a GPU is)") {
    if (!course::testing::gpu_present_for_cpu_exercise("the issue-order timeline is")) return;
    const auto& results = issue_order_results();
    // Every stream's first kernel runs at the same time as the others: nothing unrelated holds it back.
    const double spread = first_step_spread_ms(recorded(results, 1, 4, "breadth_first"), 3);
    CAPTURE(spread);
    CHECK(spread < 0.0);
    const double one = wall(results, 1, 4, "depth_first") / wall(results, 1, 4, "breadth_first");
    const double shared = wall(results, 8, 32, "depth_first") / wall(results, 8, 32, "breadth_first");
    CAPTURE(one);
    CAPTURE(shared);
    CHECK(one > 1.5);     // model 9 ms / 3 ms = 3x
    CHECK(shared > 1.5);  // 32 streams, 4 to a queue: model 3x
    CHECK(wall(results, 1, 4, "breadth_first") < 1.5 * 3 * 1.0);  // about 3 kernels' time (3 ms)
    CHECK(results.at("extra").at("summary").at("false_dependency").at("one_queue").at("depth_over_breadth")
              .get<double>() == doctest::Approx(one));
  }
}

// ---------------------------------------------------------------------------------------------------------
// Exercise 06.2: the pipeline's operations (enqueue_chunk_op in pipeline.cu).

TEST_SUITE("exercise 06.2") {
  TEST_CASE("from pinned memory the copies overlap the kernels; from pageable memory nothing overlaps") {
    course::require_device(0);
    const std::size_t n = (64u << 20) / sizeof(float);
    Buffers b(n, course_seed());
    const Calibration c = calibrate_balanced(b.host_in.data(), b.host_out.data(), b.dev_in.data(), b.dev_out.data(),
                                             n, {1, 5});
    PipelineRunner runner(4);
    // The unchunked run: its output is what every chunked run must give bit for bit (checked against the
    // CPU on a sample: thousands of FMAs per element), its time the serial time.
    const PipelineShape serial{n, 1, 1, IssueOrder::depth_first, c.kernel_iterations};
    b.poison();
    runner.run(serial, b.host_in.data(), b.host_out.data(), b.dev_in.data(), b.dev_out.data(), 0, false);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; i += 4099) {
      const float want = fma_chain_reference(b.host_in[i], c.kernel_iterations);
      wrong += std::memcmp(&want, &b.host_out[i], sizeof(float)) != 0;
    }
    CHECK(wrong == 0);
    const std::vector<float> expected(b.host_out.data(), b.host_out.data() + n);
    const double serial_ms = measure_pipeline(runner, serial, b.host_in.data(), b.host_out.data(), b.dev_in.data(),
                                              b.dev_out.data(), {1, 5}, false, "serial").wall.median;

    const PipelineShape shape{n, 8, 4, IssueOrder::depth_first, c.kernel_iterations};
    b.poison();
    const PipelineMeasurement pinned = measure_pipeline(runner, shape, b.host_in.data(), b.host_out.data(),
                                                        b.dev_in.data(), b.dev_out.data(), {1, 5}, false, "pinned");
    const Mismatch pinned_diff = compare_bits(expected.data(), b.host_out.data(), n);
    CAPTURE(pinned_diff.first);
    CHECK(pinned_diff.count == 0);
    std::vector<float> pageable_in(b.host_in.data(), b.host_in.data() + n), pageable_out(n, 0.0f);
    const PipelineMeasurement pageable = measure_pipeline(runner, shape, pageable_in.data(), pageable_out.data(),
                                                          b.dev_in.data(), b.dev_out.data(), {1, 5}, false, "pageable");
    CHECK(compare_bits(expected.data(), pageable_out.data(), n).count == 0);

    const double pinned_overlap = pinned.recorded.timeline.overlap_factor();
    const double pageable_overlap = pageable.recorded.timeline.overlap_factor();
    const std::vector<double> leads = h2d_lead_over_previous_kernel_ms(pinned.recorded.timeline, shape.chunks);
    const double best_lead = leads.empty() ? 0.0 : *std::max_element(leads.begin(), leads.end());
    const double pinned_over_serial = pinned.wall.median / serial_ms;
    CAPTURE(pinned_overlap);
    CAPTURE(best_lead);
    CAPTURE(pinned_over_serial);
    CAPTURE(pageable_overlap);
    CHECK(pinned_overlap > 1.5);       // the operations' times add up to well over the wall time
    CHECK(best_lead > 0.0);            // a chunk's copy in ran while the previous chunk's kernel did
    CHECK(pinned_over_serial < 0.75);  // model T(8) / T(1) = 0.42 for a balanced pipeline
    CHECK(pageable_overlap < 1.2);     // one thing at a time
    CHECK(pageable.wall.median > 1.3 * pinned.wall.median);
  }

  TEST_CASE("the pipeline still computes the CPU reference: awkward sizes, shapes drawn from COURSE_SEED") {
    course::require_device(0);
    const int iterations = 7;
    std::mt19937 rng(course_seed());
    std::vector<std::size_t> sizes = {1, 31, 33, 4097, 100003};
    sizes.push_back(std::uniform_int_distribution<std::size_t>(1, std::size_t{3} << 20)(rng));
    PipelineRunner runner(8);
    for (std::size_t n : sizes) {
      Buffers b(n, course_seed());
      std::vector<float> expected(n);
      for (std::size_t i = 0; i < n; ++i) expected[i] = fma_chain_reference(b.host_in[i], iterations);
      for (int draw = 0; draw < 6; ++draw) {
        const int chunks = std::uniform_int_distribution<int>(1, static_cast<int>(std::min<std::size_t>(n, 64)))(rng);
        const int stream_count = std::uniform_int_distribution<int>(1, 8)(rng);
        const IssueOrder order = chapter_orders[draw % 2];
        INFO(n << " elements, " << chunks << " chunks over " << stream_count << " streams, "
               << issue_order_name(order));
        b.poison();
        runner.run({n, chunks, stream_count, order, iterations}, b.host_in.data(), b.host_out.data(), b.dev_in.data(),
                   b.dev_out.data(), 0, false);
        const Mismatch d = compare_bits(expected.data(), b.host_out.data(), n);
        CAPTURE(d.first);
        CHECK(d.count == 0);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// Exercise 06.3: the pipeline through a device ring (ring_pipeline in pipeline.cu). Correctness only: the
// ring_pipeline scenario of the program times it against the full-buffer pipeline.

namespace {

// A ring with `guard` poisoned floats on either side of each half, to see a write outside it.
struct GuardedRing {
  static constexpr std::size_t guard = 1024;
  explicit GuardedRing(std::size_t capacity) : in(capacity + 2 * guard), out(capacity + 2 * guard), capacity(capacity) {}
  DeviceRing ring() { return {in.data() + guard, out.data() + guard, capacity}; }
  void poison() {
    in.fill_bytes(0xff);
    out.fill_bytes(0xff);
  }
  // True when every guard float still holds the poison.
  bool guards_intact() const {
    std::vector<std::uint32_t> bits(guard);
    for (const course::DeviceBuffer<float>* buffer : {&in, &out})
      for (std::size_t offset : {std::size_t{0}, guard + capacity}) {
        CUDA_CHECK(cudaMemcpy(bits.data(), buffer->data() + offset, guard * sizeof(float), cudaMemcpyDeviceToHost));
        if (std::any_of(bits.begin(), bits.end(), [](std::uint32_t b) { return b != 0xffffffffu; })) return false;
      }
    return true;
  }
  course::DeviceBuffer<float> in, out;
  std::size_t capacity;
};

// `count` ordinary (blocking) streams, as the ring_pipeline scenario gives them.
struct BlockingStreams {
  explicit BlockingStreams(int count) {
    owned.reserve(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) handles.push_back(owned.emplace_back(cudaStreamDefault).get());
  }
  std::span<const cudaStream_t> first(int count) const { return {handles.data(), static_cast<std::size_t>(count)}; }
  std::vector<Stream> owned;
  std::vector<cudaStream_t> handles;
};

}  // namespace

TEST_SUITE("exercise 06.3") {
  TEST_CASE("ring_pipeline computes the CPU reference for any size, ring and stream count, inside its ring") {
    course::require_device(0);
    const int iterations = 7;
    std::mt19937 rng(course_seed());
    std::vector<std::size_t> sizes = {1, 2, 31, 33, 1000, 4097, 100003, std::size_t{1} << 20};
    sizes.push_back(std::uniform_int_distribution<std::size_t>(1, std::size_t{3} << 20)(rng));
    const BlockingStreams streams(8);
    for (std::size_t n : sizes) {
      course::PinnedBuffer<float> host_in(n), host_out(n);
      fill_inputs(host_in.span(), course_seed());
      const std::vector<float> input(host_in.data(), host_in.data() + n);
      std::vector<float> expected(n);
      for (std::size_t i = 0; i < n; ++i) expected[i] = fma_chain_reference(input[i], iterations);
      std::vector<std::size_t> capacities = {1, 3, 32, std::max<std::size_t>(1, n / 4), n / 8 + 1, n, 3 * n + 5};
      capacities.push_back(std::uniform_int_distribution<std::size_t>(1, 2 * n)(rng));
      for (std::size_t capacity : capacities) {
        if (n / capacity > 4096) continue;  // millions of one-element chunks: minutes of API calls, nothing new
        GuardedRing ring(capacity);
        for (int stream_count : {1, 2, 3, 8}) {
          INFO(n << " elements through a ring of " << capacity << " on " << stream_count << " streams");
          ring.poison();
          std::memset(host_out.data(), 0xff, host_out.bytes());
          ring_pipeline(host_in.data(), host_out.data(), n, iterations, ring.ring(), streams.first(stream_count));
          // No synchronisation here: the results must be on the host when ring_pipeline returns.
          const Mismatch d = compare_bits(expected.data(), host_out.data(), n);
          CAPTURE(d.first);
          CHECK(d.count == 0);
          CHECK(std::memcmp(input.data(), host_in.data(), n * sizeof(float)) == 0);  // the input is left alone
          CHECK(ring.guards_intact());                                              // nothing written outside the ring
          if (d.count != 0) return;  // one shape says it; the rest would say it again
        }
      }
    }
  }

  TEST_CASE("ring_pipeline through a quarter-size ring equals the unchunked pipeline on 64 MiB") {
    course::require_device(0);
    const std::size_t n = (64u << 20) / sizeof(float);
    const int iterations = 50;
    Buffers b(n, course_seed());
    PipelineRunner runner(1);
    b.poison();
    runner.run({n, 1, 1, IssueOrder::depth_first, iterations}, b.host_in.data(), b.host_out.data(), b.dev_in.data(),
               b.dev_out.data(), 0, false);
    const std::vector<float> expected(b.host_out.data(), b.host_out.data() + n);
    const BlockingStreams streams(8);
    GuardedRing ring(ring_capacity(n));
    ring.poison();
    b.poison();
    ring_pipeline(b.host_in.data(), b.host_out.data(), n, iterations, ring.ring(), streams.first(8));
    const Mismatch d = compare_bits(expected.data(), b.host_out.data(), n);
    CAPTURE(d.first);
    CHECK(d.count == 0);
    CHECK(ring.guards_intact());
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; i += 997) {
      const float want = fma_chain_reference(b.host_in[i], iterations);
      wrong += std::memcmp(&want, &b.host_out[i], sizeof(float)) != 0;
    }
    CHECK(wrong == 0);
  }

  TEST_CASE("ring_pipeline refuses nothing to do: no element, an empty ring, no stream") {
    course::require_device(0);
    course::PinnedBuffer<float> host(4);
    GuardedRing ring(4);
    const BlockingStreams streams(1);
    CHECK_THROWS_AS(ring_pipeline(host.data(), host.data(), 0, 1, ring.ring(), streams.first(1)), std::invalid_argument);
    CHECK_THROWS_AS(ring_pipeline(host.data(), host.data(), 4, 1, DeviceRing{}, streams.first(1)), std::invalid_argument);
    CHECK_THROWS_AS(ring_pipeline(host.data(), host.data(), 4, 1, ring.ring(), streams.first(0)), std::invalid_argument);
  }
}
