// Grading probe of exercise 06.1 (breadth-first issue): the issue orders the student's
// breadth_first_steps returns, written raw, for the grader to compare with the answer's (common/probe.hpp).
//
// The order is unique (every chain's step s, chains in increasing order, before any step s + 1), so the raw
// order itself is what every correct answer shares. Per shape it writes the (chain, step) pairs in issue
// order; for the copy pipeline the issue_sequence spelled out ("H0", "K0", ...); and what the chapter's
// queue simulators predict from the order (the timeline's end and its first-step spread on one hardware
// queue, the end on 8 queues shared by 32 streams). Shapes: the suite's fixed ones (1 x 1, 1 x 64, 64 x 1,
// 4 x 3, 31 x 33, 256 x 3, ...) and shapes drawn from the seed.
#include <cstdint>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "common/errors.hpp"
#include "common/probe.hpp"
#include "model.hpp"

namespace {

using course::probe::Cases;
using course::probe::Options;
using course::probe::Random;
using course::probe::Tolerance;
using namespace streams;

// The simulators work in whole multiples of the 1 ms kernel: their sums are exact in double.
const Tolerance simulator_tolerance{0.0, 1e-9};

std::string shape_name(int chains, int steps) {
  return std::to_string(chains) + " chains x " + std::to_string(steps) + " steps";
}

// The order as it comes out: chain and step interleaved, so a missing, repeated or extra command shows
// as a different length or a different pair at its place.
std::vector<long long> flatten(const std::vector<StepOp>& ops) {
  std::vector<long long> values;
  values.reserve(2 * ops.size());
  for (const StepOp& op : ops) {
    values.push_back(op.chain);
    values.push_back(op.step);
  }
  return values;
}

void add_order(Cases& cases, int chains, int steps) {
  cases.add_exact("order " + shape_name(chains, steps), flatten(issue_steps(chains, steps, IssueOrder::breadth_first)));
}

// What the queue simulators of model.hpp make of the order: one hardware queue, 1 ms kernels. Only an
// order that keeps the contract may go in (the simulator assumes it): these shapes are small, and a broken
// order already fails its "order" case.
void add_simulation(Cases& cases, int chains, int steps) {
  const std::vector<StepOp> ops = issue_steps(chains, steps, IssueOrder::breadth_first);
  if (ops.size() != static_cast<std::size_t>(chains) * static_cast<std::size_t>(steps)) {
    cases.add("one queue " + shape_name(chains, steps), std::vector<double>{-1.0, -1.0}, simulator_tolerance);
    return;
  }
  for (const StepOp& op : ops)
    if (op.chain < 0 || op.chain >= chains || op.step < 0 || op.step >= steps) {
      cases.add("one queue " + shape_name(chains, steps), std::vector<double>{-2.0, -2.0}, simulator_tolerance);
      return;
    }
  const Timeline one = simulate_kernel_chains(ops, steps, ChainMachine{chains, 1, 1.0}, "probe");
  cases.add("one queue " + shape_name(chains, steps), std::vector<double>{one.end_ms(), first_step_spread_ms(one, steps)},
            simulator_tolerance);
}

std::vector<std::string> spell(const std::vector<PipelineOp>& ops) {
  std::vector<std::string> words;
  for (const PipelineOp& op : ops) words.push_back(static_cast<char>(op.kind) + std::to_string(op.chunk));
  return words;
}

int body(int argc, char** argv) {
  const Options options = course::probe::parse(argc, argv, "06.1", false);
  if (options.timed()) throw course::UsageError("exercise 06.1 has no timed mode");
  Cases cases("06.1", options.seed);
  Random random(options.seed);

  // The suite's fixed shapes: one of either, chains on both sides of steps, the program's shapes.
  std::vector<std::pair<int, int>> shapes = {{1, 1},  {1, 3},   {3, 1},   {4, 3},  {3, 4},  {32, 3}, {16, 3}, {2, 7},
                                             {7, 2},  {31, 33}, {33, 31}, {64, 1}, {1, 64}, {256, 3}, {2, 1}, {1, 2}};
  // Shapes drawn from the seed: mostly up to 70 x 70 like the suite's, a few long and a few wide ones.
  for (int i = 0; i < 60; ++i)
    shapes.emplace_back(1 + static_cast<int>(random.below(70)), 1 + static_cast<int>(random.below(70)));
  for (int i = 0; i < 3; ++i) shapes.emplace_back(200 + static_cast<int>(random.below(800)), 1 + static_cast<int>(random.below(4)));
  for (int i = 0; i < 3; ++i) shapes.emplace_back(1 + static_cast<int>(random.below(4)), 200 + static_cast<int>(random.below(800)));
  for (const auto& [chains, steps] : shapes) add_order(cases, chains, steps);

  // The copy pipeline issued breadth-first, spelled out as the program prints it.
  // issue_sequence refuses an order that issues a step other than 0, 1, 2: its message is then the case's
  // value (never the answer's).
  for (int chunks : {1, 2, 3, 4, 16, 33, 1 + static_cast<int>(random.below(100))}) {
    std::vector<std::string> words;
    try {
      words = spell(issue_sequence(chunks, IssueOrder::breadth_first));
    } catch (const std::exception& error) {
      words = {std::string("refused: ") + error.what()};
    }
    cases.add_exact("copy pipeline " + std::to_string(chunks) + " chunks", words);
  }

  // What the simulators predict: one queue (the suite's shapes and 20 drawn ones), and 32 streams on 8
  // queues (four to a queue).
  std::vector<std::pair<int, int>> simulated = {{4, 3}, {1, 1}, {2, 5}, {32, 3}, {5, 2}};
  for (int i = 0; i < 20; ++i)
    simulated.emplace_back(1 + static_cast<int>(random.below(32)), 1 + static_cast<int>(random.below(6)));
  for (const auto& [chains, steps] : simulated) add_simulation(cases, chains, steps);
  {
    const std::vector<StepOp> ops = issue_steps(32, 3, IssueOrder::breadth_first);
    const bool sound = ops.size() == 96;
    const double end = sound ? simulate_kernel_chains(ops, 3, ChainMachine{32, 8, 1.0}, "probe").end_ms() : -1.0;
    cases.add("8 queues 32 chains x 3 steps", std::vector<double>{end}, simulator_tolerance);
  }

  cases.write(options.out);
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return course::run_main("probe_06_1", body, argc, argv); }
