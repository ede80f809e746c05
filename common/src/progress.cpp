#include "common/progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace course {

Progress::Progress(std::string label, std::size_t total)
    : label_(std::move(label)), total_(total), active_(::isatty(STDERR_FILENO) != 0) {}

Progress::~Progress() {
  if (active_ && done_ > 0) std::fprintf(stderr, "\r\033[K");
}

void Progress::step(const std::string& what) {
  ++done_;
  if (!active_) return;
  std::fprintf(stderr, "\r\033[K%s: %zu/%zu %s", label_.c_str(), done_, total_, what.c_str());
  std::fflush(stderr);
}

}  // namespace course
