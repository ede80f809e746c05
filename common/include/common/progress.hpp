/// \file progress.hpp
/// \brief Progress of a long sweep on stderr, only when stderr is a terminal (quiet when piped or in CI).
#pragma once
#include <cstddef>
#include <string>

namespace course {

/// Shows "label: i/total" on one refreshed stderr line while a sweep runs, and clears it at the end.
class Progress {
 public:
  Progress(std::string label, std::size_t total);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  /// Advances by one; `what` names the current item (optional).
  void step(const std::string& what = {});
  /// Whether anything is shown (stderr is a terminal).
  bool active() const noexcept { return active_; }

 private:
  std::string label_;
  std::size_t total_;
  std::size_t done_ = 0;
  bool active_;
};

}  // namespace course
