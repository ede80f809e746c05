// OpRecorder: an event pair around every recorded operation, read back as one timeline after the run.
#include "common/check.cuh"
#include "streams.cuh"

namespace streams {

void OpRecorder::reset(std::string name, std::vector<std::string> rows) {
  name_ = std::move(name);
  rows_ = std::move(rows);
  pending_.clear();
  used_ = 0;
}

void OpRecorder::reserve(std::size_t pairs) {
  while (pool_.size() < 2 * pairs) pool_.emplace_back();
}

std::size_t OpRecorder::next_event() {
  if (used_ == pool_.size()) pool_.emplace_back();
  return used_++;
}

// [recorder_collect]
Timeline OpRecorder::collect() {
  Timeline tl{name_, rows_, {}};
  for (const auto& p : pending_) {
    pool_[p.end_event].synchronize();
    // Every time is an elapsed time from the same base event: one clock for all streams.
    tl.intervals.push_back({p.row, p.kind, p.chunk, p.label, pool_[p.begin_event].elapsed_ms_since(base_),
                            pool_[p.end_event].elapsed_ms_since(base_)});
  }
  return tl;
}
// [recorder_collect]

}  // namespace streams
