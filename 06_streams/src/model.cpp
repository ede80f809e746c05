#include "model.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "common/errors.hpp"

namespace streams {

ChunkRange chunk_range(std::size_t elements, int chunks, int index) {
  if (chunks < 1 || index < 0 || index >= chunks) throw std::invalid_argument("chunk_range: bad chunk index");
  const auto n = static_cast<std::size_t>(chunks);
  const auto i = static_cast<std::size_t>(index);
  const std::size_t base = elements / n;
  const std::size_t extra = elements % n;  // the first `extra` chunks take one element more
  return {i * base + std::min(i, extra), base + (i < extra ? 1 : 0)};
}

void validate_pipeline_shape(std::size_t elements, int chunks, int streams) {
  if (streams < 1) throw course::UsageError("the number of streams must be at least 1");
  if (chunks < 1) throw course::UsageError("the number of chunks must be at least 1");
  if (elements == 0) throw course::UsageError("the buffer holds no element");
  if (static_cast<std::size_t>(chunks) > elements)
    throw course::UsageError(std::to_string(chunks) + " chunks of " + std::to_string(elements) +
                             " elements would leave chunks empty");
}

std::string issue_order_name(IssueOrder order) {
  switch (order) {
    case IssueOrder::depth_first: return "depth_first";
    case IssueOrder::breadth_first: return "breadth_first";
    case IssueOrder::staggered: return "staggered";
  }
  return "unknown";
}

IssueOrder issue_order_from_name(const std::string& name) {
  for (IssueOrder order : all_issue_orders())
    if (issue_order_name(order) == name) return order;
  throw std::invalid_argument("no issue order is called '" + name + "'");
}

std::vector<IssueOrder> all_issue_orders() {
  return {IssueOrder::depth_first, IssueOrder::breadth_first, IssueOrder::staggered};
}

std::vector<PipelineOp> issue_sequence(int chunks, IssueOrder order) {
  const OpKind kinds[3] = {OpKind::h2d, OpKind::kernel, OpKind::d2h};
  std::vector<PipelineOp> ops;
  for (const StepOp& op : issue_steps(chunks, 3, order)) {
    if (op.step < 0 || op.step > 2) throw std::logic_error("issue_steps returned a step outside 0..2");
    ops.push_back({op.chain, kinds[op.step]});
  }
  return ops;
}

// [pipeline_model]
double pipeline_model_ms(double h, double k, double d, int chunks, int copy_engines) {
  if (chunks < 1 || copy_engines < 1) throw std::invalid_argument("pipeline_model_ms: chunks and engines >= 1");
  const double n = chunks;
  // The slowest stage sets the pace once the pipeline is full; with one copy engine both copies are
  // one stage.
  const double bottleneck = copy_engines >= 2 ? std::max({h, k, d}) : std::max(h + d, k);
  return (h + k + d) / n + (n - 1.0) / n * bottleneck;
}
// [pipeline_model]

double pipeline_model_duplex_ms(double h, double k, double d, double both, int chunks, int copy_engines) {
  if (copy_engines < 2) return pipeline_model_ms(h, k, d, chunks, copy_engines);
  if (chunks < 1) throw std::invalid_argument("pipeline_model_duplex_ms: chunks >= 1");
  const double n = chunks;
  return (h + k + d) / n + (n - 1.0) / n * std::max({h, k, d, both});
}

Timeline simulate_hardware_queues(std::span<const PipelineOp> sequence, const QueueMachine& machine,
                                  const std::string& name) {
  if (machine.streams < 1 || machine.connections < 1 || machine.copy_engines < 1)
    throw std::invalid_argument("simulate_hardware_queues: streams, connections, engines >= 1");
  Timeline timeline;
  timeline.name = name;
  for (int s = 0; s < machine.streams; ++s) timeline.rows.push_back("stream " + std::to_string(s));

  const int queue_count = std::min(machine.streams, machine.connections);
  // Queues [0, queue_count) are the connections; with copies_bypass_connections, queue queue_count + s holds
  // stream s's copies (the copy engines' own queues: only the stream's order holds them back).
  std::vector<std::vector<std::size_t>> queues(static_cast<std::size_t>(queue_count + machine.streams));
  for (std::size_t i = 0; i < sequence.size(); ++i) {
    const int stream = sequence[i].chunk % machine.streams;
    const bool own_queue = machine.copies_bypass_connections && sequence[i].kind != OpKind::kernel;
    queues[static_cast<std::size_t>(own_queue ? queue_count + stream : stream % machine.connections)].push_back(i);
  }
  std::vector<std::size_t> head(queues.size(), 0);
  std::vector<double> queue_clock(queues.size(), 0.0);   // when the queue's last operation left it
  std::vector<double> stream_done(static_cast<std::size_t>(machine.streams), 0.0);
  double engine_free[3] = {0, 0, 0};                     // H2D copy, D2H copy, compute

  for (std::size_t dispatched = 0; dispatched < sequence.size(); ++dispatched) {
    // The queue whose head can leave first; ties go to the operation issued first.
    std::size_t best = queues.size();
    double best_ready = std::numeric_limits<double>::infinity();
    for (std::size_t q = 0; q < queues.size(); ++q) {
      if (head[q] == queues[q].size()) continue;
      const PipelineOp& op = sequence[queues[q][head[q]]];
      const double ready =
          std::max(queue_clock[q], stream_done[static_cast<std::size_t>(op.chunk % machine.streams)]);
      if (ready < best_ready || (ready == best_ready && queues[q][head[q]] < queues[best][head[best]])) {
        best = q;
        best_ready = ready;
      }
    }
    const PipelineOp& op = sequence[queues[best][head[best]]];
    ++head[best];
    queue_clock[best] = best_ready;
    int engine = 2;
    double duration = machine.kernel_ms;
    if (op.kind == OpKind::h2d) {
      engine = 0;
      duration = machine.h2d_ms;
    } else if (op.kind == OpKind::d2h) {
      engine = machine.copy_engines >= 2 ? 1 : 0;
      duration = machine.d2h_ms;
    }
    const double start = std::max(best_ready, engine_free[engine]);
    const double end = start + duration;
    engine_free[engine] = end;
    const int stream = op.chunk % machine.streams;
    stream_done[static_cast<std::size_t>(stream)] = end;
    const char kind = static_cast<char>(op.kind);
    const char* what = op.kind == OpKind::h2d ? "H2D " : op.kind == OpKind::d2h ? "D2H " : "kernel ";
    timeline.intervals.push_back({stream, kind, op.chunk, what + std::to_string(op.chunk), start, end});
  }
  return timeline;
}

Timeline simulate_kernel_chains(std::span<const StepOp> sequence, int steps, const ChainMachine& machine,
                                const std::string& name) {
  if (machine.streams < 1 || machine.connections < 1 || steps < 1)
    throw std::invalid_argument("simulate_kernel_chains: streams, connections, steps >= 1");
  Timeline timeline;
  timeline.name = name;
  for (int s = 0; s < machine.streams; ++s) timeline.rows.push_back("stream " + std::to_string(s));
  const int queue_count = std::min(machine.streams, machine.connections);
  std::vector<std::vector<std::size_t>> queues(static_cast<std::size_t>(queue_count));
  for (std::size_t i = 0; i < sequence.size(); ++i) {
    if (sequence[i].chain < 0 || sequence[i].chain >= machine.streams)
      throw std::invalid_argument("simulate_kernel_chains: chain outside the streams");
    queues[static_cast<std::size_t>(sequence[i].chain % machine.connections)].push_back(i);
  }
  std::vector<std::size_t> head(queues.size(), 0);
  std::vector<double> queue_clock(queues.size(), 0.0);
  std::vector<double> stream_done(static_cast<std::size_t>(machine.streams), 0.0);
  for (std::size_t dispatched = 0; dispatched < sequence.size(); ++dispatched) {
    std::size_t best = queues.size();
    double best_ready = std::numeric_limits<double>::infinity();
    for (std::size_t q = 0; q < queues.size(); ++q) {
      if (head[q] == queues[q].size()) continue;
      const StepOp& op = sequence[queues[q][head[q]]];
      const double ready = std::max(queue_clock[q], stream_done[static_cast<std::size_t>(op.chain)]);
      if (ready < best_ready || (ready == best_ready && queues[q][head[q]] < queues[best][head[best]])) {
        best = q;
        best_ready = ready;
      }
    }
    const StepOp& op = sequence[queues[best][head[best]]];
    ++head[best];
    queue_clock[best] = best_ready;
    // Small grids: nothing else holds a kernel back once it has left its queue.
    const double end = best_ready + machine.kernel_ms;
    stream_done[static_cast<std::size_t>(op.chain)] = end;
    timeline.intervals.push_back({op.chain, 'K', op.chain * steps + op.step,
                                  "kernel " + std::to_string(op.chain) + "." + std::to_string(op.step), best_ready, end});
  }
  return timeline;
}

double first_step_spread_ms(const Timeline& timeline, int steps) {
  if (steps < 1) throw std::invalid_argument("first_step_spread_ms: steps >= 1");
  double latest_start = -std::numeric_limits<double>::infinity();
  double earliest_end = std::numeric_limits<double>::infinity();
  for (const Interval& iv : timeline.intervals) {
    if (iv.kind != 'K' || iv.chunk < 0 || iv.chunk % steps != 0) continue;
    latest_start = std::max(latest_start, iv.start_ms);
    earliest_end = std::min(earliest_end, iv.end_ms);
  }
  if (earliest_end == std::numeric_limits<double>::infinity())
    throw std::invalid_argument("first_step_spread_ms: no first step in the timeline");
  return latest_start - earliest_end;
}

}  // namespace streams
