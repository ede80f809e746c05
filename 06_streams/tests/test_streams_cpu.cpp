// CPU side of the streams chapter: chunking, validation, issue orders, the pipeline model, the queue
// simulator, and the timeline's Gantt chart and trace, all on synthetic data.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "model.hpp"
#include "timeline.hpp"

using namespace streams;

TEST_CASE("chunks cover every element exactly once, sizes differing by at most one") {
  for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{31}, std::size_t{33}, std::size_t{1000003}}) {
    for (int chunks : {1, 2, 3, 7, 8, 31, 33}) {
      if (static_cast<std::size_t>(chunks) > n) continue;
      std::size_t next = 0, smallest = n, largest = 0;
      for (int c = 0; c < chunks; ++c) {
        const ChunkRange r = chunk_range(n, chunks, c);
        CHECK(r.begin == next);
        CHECK(r.count >= 1);
        next = r.begin + r.count;
        smallest = std::min(smallest, r.count);
        largest = std::max(largest, r.count);
      }
      CHECK(next == n);
      CHECK(largest - smallest <= 1);
    }
  }
}

TEST_CASE("bad pipeline shapes are usage errors: 0 streams, 0 chunks, more chunks than elements") {
  CHECK_THROWS_AS(validate_pipeline_shape(100, 4, 0), course::UsageError);
  CHECK_THROWS_AS(validate_pipeline_shape(100, 0, 4), course::UsageError);
  CHECK_THROWS_AS(validate_pipeline_shape(100, 101, 4), course::UsageError);
  CHECK_THROWS_AS(validate_pipeline_shape(0, 1, 1), course::UsageError);
  CHECK_NOTHROW(validate_pipeline_shape(100, 100, 4));
  CHECK_NOTHROW(validate_pipeline_shape(1, 1, 8));
}

namespace {
std::string spell(const std::vector<PipelineOp>& ops) {
  std::string s;
  for (const auto& op : ops) s += static_cast<char>(op.kind) + std::to_string(op.chunk) + " ";
  return s;
}
}  // namespace

TEST_CASE("every issue order issues each H, K, D once, in stream order within a chunk") {
  for (IssueOrder order : all_issue_orders()) {
    for (int chunks : {1, 2, 3, 4, 9}) {
      const auto ops = issue_sequence(chunks, order);
      REQUIRE(ops.size() == 3 * static_cast<std::size_t>(chunks));
      std::set<std::pair<int, char>> seen;
      for (std::size_t i = 0; i < ops.size(); ++i) {
        CHECK(seen.insert({ops[i].chunk, static_cast<char>(ops[i].kind)}).second);
        const auto pos = [&](OpKind k) {
          return std::find(ops.begin(), ops.end(), PipelineOp{ops[i].chunk, k}) - ops.begin();
        };
        CHECK(pos(OpKind::h2d) < pos(OpKind::kernel));
        CHECK(pos(OpKind::kernel) < pos(OpKind::d2h));
      }
    }
  }
}

TEST_CASE("depth-first and staggered orders, spelled out") {
  CHECK(spell(issue_sequence(3, IssueOrder::depth_first)) == "H0 K0 D0 H1 K1 D1 H2 K2 D2 ");
  CHECK(spell(issue_sequence(4, IssueOrder::staggered)) == "H0 H1 K0 H2 K1 D0 H3 K2 D1 K3 D2 D3 ");
}

TEST_CASE("breadth-first issues every copy in before any copy out (the lab)") {
  for (int chunks : {2, 3, 4, 16}) {
    const auto ops = issue_sequence(chunks, IssueOrder::breadth_first);
    std::size_t last_h2d = 0, first_d2h = ops.size();
    for (std::size_t i = 0; i < ops.size(); ++i) {
      if (ops[i].kind == OpKind::h2d) last_h2d = i;
      if (ops[i].kind == OpKind::d2h) first_d2h = std::min(first_d2h, i);
    }
    CHECK(last_h2d < first_d2h);
  }
}

TEST_CASE("the pipeline model: T(1) = H+K+D, balanced limits 3x with two copy engines, 2x with one") {
  CHECK(pipeline_model_ms(1, 2, 3, 1, 2) == doctest::Approx(6.0));
  CHECK(pipeline_model_ms(1, 2, 3, 1, 1) == doctest::Approx(6.0));
  CHECK(pipeline_model_ms(3, 3, 3, 4, 2) == doctest::Approx(9.0 / 4 + 0.75 * 3));
  CHECK(pipeline_model_ms(3, 3, 3, 4, 1) == doctest::Approx(9.0 / 4 + 0.75 * 6));
  const double t2 = pipeline_model_ms(1, 1, 1, 100000, 2);
  CHECK(3.0 / t2 == doctest::Approx(3.0).epsilon(0.001));
  const double t1 = pipeline_model_ms(1, 2, 1, 100000, 1);  // balanced for one engine: H + D = K
  CHECK(4.0 / t1 == doctest::Approx(2.0).epsilon(0.001));
  CHECK_THROWS(pipeline_model_ms(1, 1, 1, 0, 2));
}

TEST_CASE("the queue simulator: one queue makes depth-first serial, breadth-first a bit better, staggered ideal") {
  QueueMachine one{4, 1, 2, 1.0, 1.0, 1.0};
  CHECK(simulate_hardware_queues(issue_sequence(4, IssueOrder::depth_first), one, "d").end_ms() == doctest::Approx(9.0));
  CHECK(simulate_hardware_queues(issue_sequence(4, IssueOrder::breadth_first), one, "b").end_ms() == doctest::Approx(8.0));
  CHECK(simulate_hardware_queues(issue_sequence(4, IssueOrder::staggered), one, "s").end_ms() == doctest::Approx(6.0));
  QueueMachine many{4, 8, 2, 1.0, 1.0, 1.0};
  for (IssueOrder order : all_issue_orders()) {
    const Timeline tl = simulate_hardware_queues(issue_sequence(4, order), many, "m");
    CHECK(tl.end_ms() == doctest::Approx(6.0));  // = pipeline_model_ms(4, 4, 4, 4, 2)
    CHECK(tl.end_ms() == doctest::Approx(pipeline_model_ms(4, 4, 4, 4, 2)));
  }
  // The simulated depth-first timeline on one queue shows the false dependency: H(i) waits for K(i-1).
  const Timeline d = simulate_hardware_queues(issue_sequence(4, IssueOrder::depth_first), one, "d");
  for (double lead : h2d_lead_over_previous_kernel_ms(d, 4)) CHECK(lead <= 0.0);
  const Timeline b = simulate_hardware_queues(issue_sequence(4, IssueOrder::breadth_first), one, "b");
  for (double lead : h2d_lead_over_previous_kernel_ms(b, 4)) CHECK(lead > 0.0);
}

TEST_CASE("the queue simulator: copies in their own queues suffer no false dependency on one connection") {
  QueueMachine one{4, 1, 2, 1.0, 1.0, 1.0, true};
  QueueMachine many{4, 8, 2, 1.0, 1.0, 1.0, true};
  for (IssueOrder order : all_issue_orders())
    CHECK(simulate_hardware_queues(issue_sequence(4, order), one, "o").end_ms() ==
          doctest::Approx(simulate_hardware_queues(issue_sequence(4, order), many, "m").end_ms()));
}

TEST_CASE("kernel chains: depth-first on one queue takes ((k-1)S+1)t, breadth-first kt, 8 queues kt") {
  const ChainMachine one{4, 1, 1.0}, eight{4, 8, 1.0}, shared{32, 8, 1.0};
  const auto depth = issue_steps(4, 3, IssueOrder::depth_first);
  const auto breadth = issue_steps(4, 3, IssueOrder::breadth_first);
  CHECK(simulate_kernel_chains(depth, 3, one, "d").end_ms() == doctest::Approx(9.0));
  CHECK(simulate_kernel_chains(breadth, 3, one, "b").end_ms() == doctest::Approx(3.0));
  CHECK(simulate_kernel_chains(issue_steps(4, 3, IssueOrder::staggered), 3, one, "s").end_ms() == doctest::Approx(5.0));
  for (IssueOrder order : all_issue_orders())
    CHECK(simulate_kernel_chains(issue_steps(4, 3, order), 3, eight, "e").end_ms() == doctest::Approx(3.0));
  CHECK(simulate_kernel_chains(issue_steps(32, 3, IssueOrder::depth_first), 3, shared, "sd").end_ms() == doctest::Approx(9.0));
  CHECK(simulate_kernel_chains(issue_steps(32, 3, IssueOrder::breadth_first), 3, shared, "sb").end_ms() == doctest::Approx(3.0));
  CHECK(first_step_spread_ms(simulate_kernel_chains(depth, 3, one, "d"), 3) > 0.0);
  CHECK(first_step_spread_ms(simulate_kernel_chains(breadth, 3, one, "b"), 3) < 0.0);
}

TEST_CASE("breadth-first kernel chains issue every first step before any second step (the lab)") {
  const auto ops = issue_steps(4, 3, IssueOrder::breadth_first);
  REQUIRE(ops.size() == 12);
  for (std::size_t i = 0; i < ops.size(); ++i) CHECK(ops[i].step == static_cast<int>(i / 4));
}

TEST_CASE("the duplex-aware model: equals the lecture's on a full-duplex link, slower otherwise") {
  CHECK(pipeline_model_duplex_ms(3, 3, 3, 3, 4, 2) == doctest::Approx(pipeline_model_ms(3, 3, 3, 4, 2)));
  CHECK(pipeline_model_duplex_ms(3, 3, 3, 4, 4, 2) == doctest::Approx(9.0 / 4 + 0.75 * 4));
  CHECK(pipeline_model_duplex_ms(3, 4, 3, 4, 4, 2) == doctest::Approx(pipeline_model_ms(3, 4, 3, 4, 2)));
}

TEST_CASE("the queue simulator with one copy engine serialises the two copy directions") {
  QueueMachine one_engine{4, 8, 1, 1.0, 1.0, 1.0};
  const Timeline tl = simulate_hardware_queues(issue_sequence(4, IssueOrder::depth_first), one_engine, "e");
  // Eight copies back to back on the one engine; every kernel hides behind them.
  CHECK(tl.end_ms() == doctest::Approx(8.0));
}

namespace {
Timeline demo_timeline() {
  Timeline tl;
  tl.name = "demo";
  tl.rows = {"s0", "stream 1"};
  tl.intervals = {{0, 'H', 0, "H2D 0", 0, 2}, {0, 'K', 0, "kernel 0", 2, 4}, {1, 'H', 1, "H2D 1", 2, 4},
                  {1, 'D', 1, "D2H 1", 4, 8}};
  return tl;
}
}  // namespace

TEST_CASE("the Gantt chart: one row per stream, one letter per operation, a time axis and a legend") {
  CHECK(render_gantt(demo_timeline(), 8) ==
        "demo: 8.00 ms, 1 column = 1.000 ms\n"
        "s0       |HHKK....|\n"
        "stream 1 |..HHDDDD|\n"
        "          0 8.00 ms\n"
        "H = host to device copy, K = kernel, D = device to host copy\n");
  CHECK(render_gantt(demo_timeline(), 16) ==
        "demo: 8.00 ms, 1 column = 0.500 ms\n"
        "s0       |HHHHKKKK........|\n"
        "stream 1 |....HHHHDDDDDDDD|\n"
        "          0        8.00 ms\n"
        "H = host to device copy, K = kernel, D = device to host copy\n");
}

TEST_CASE("the Gantt chart gives a very short operation one column and shows an empty timeline") {
  Timeline tl{"tiny", {"a"}, {{0, 'K', 0, "k", 0.0, 10.0}, {0, 'C', 1, "c", 4.01, 4.02}}};
  CHECK(render_gantt(tl, 10) ==
        "tiny: 10.00 ms, 1 column = 1.000 ms\n"
        "a |KKKKCKKKKK|\n"
        "   0 10.00 ms\n"
        "K = kernel, C = host function\n");
  CHECK(render_gantt(Timeline{"none", {"a"}, {}}, 10) == "none: empty\n");
  CHECK_THROWS(render_gantt(tl, 0));
}

TEST_CASE("overlap factor and h2d lead on synthetic intervals") {
  const Timeline tl = demo_timeline();
  CHECK(tl.busy_ms() == doctest::Approx(10.0));
  CHECK(tl.overlap_factor() == doctest::Approx(10.0 / 8.0));
  CHECK(tl.find('D', 1)->start_ms == doctest::Approx(4.0));
  CHECK(tl.find('D', 0) == nullptr);
  const auto lead = h2d_lead_over_previous_kernel_ms(tl, 2);
  REQUIRE(lead.size() == 1);
  CHECK(lead[0] == doctest::Approx(2.0));  // K0 ends at 4, H1 starts at 2
}

TEST_CASE("Chrome trace: names for processes and threads, complete events in microseconds") {
  const nlohmann::json trace = chrome_trace({demo_timeline()});
  const auto& events = trace.at("traceEvents");
  CHECK(events.size() == 2 + 2 + 4);
  CHECK(events[0].at("args").at("name") == "demo");
  const auto& first = events[4];
  CHECK(first.at("ph") == "X");
  CHECK(first.at("name") == "H2D 0");
  CHECK(first.at("ts").get<double>() == doctest::Approx(0.0));
  CHECK(first.at("dur").get<double>() == doctest::Approx(2000.0));
  CHECK(events[7].at("tid") == 1);
}

TEST_CASE("timelines round-trip through JSON") {
  const Timeline tl = demo_timeline();
  const Timeline back = timeline_from_json(nlohmann::json::parse(to_json(tl).dump()));
  CHECK(back.name == tl.name);
  CHECK(back.rows == tl.rows);
  REQUIRE(back.intervals.size() == tl.intervals.size());
  CHECK(back.intervals[3].kind == 'D');
  CHECK(back.intervals[3].label == "D2H 1");
  CHECK(back.intervals[3].end_ms == doctest::Approx(8.0));
}

TEST_CASE("the CPU reference of the FMA chain stays in [0, 1] and depends on its input") {
  CHECK(fma_chain_reference(0.5f, 0) == 0.5f);
  const float a = fma_chain_reference(0.25f, 1000), b = fma_chain_reference(0.75f, 1000);
  CHECK(a < b);
  CHECK(a >= 0.0f);
  CHECK(b <= 1.0f);
}
