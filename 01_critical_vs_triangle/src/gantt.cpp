#include "gantt.hpp"

#include <algorithm>
#include <cstdio>
#include <ostream>

namespace md {

std::string gantt_line(const ThreadTimes& t, double span, int width) {
  std::string line(static_cast<std::size_t>(width), ' ');
  if (!(span > 0)) return line;  // nothing was timed: no scale to draw on
  const auto column = [&](double at) { return std::clamp(static_cast<int>(at / span * width), 0, width - 1); };
  const auto paint = [&](double from, double to, char mark) {
    if (to <= from) return;
    const int last = to >= span ? width - 1 : std::max(column(from), column(to) - 1);
    for (int c = column(from); c <= last; ++c) line[static_cast<std::size_t>(c)] = mark;
  };
  paint(t.compute_end, span, '.');
  paint(t.start, t.loop_begin, '-');
  paint(t.loop_begin, t.compute_end, '=');
  paint(t.section_enter, t.section_exit, '#');
  return line;
}

void print_gantt(std::ostream& out, const std::string& title, std::span<const ThreadTimes> times) {
  double span = 0;
  for (const auto& t : times) span = std::max(span, t.section_exit);
  constexpr int width = 64;
  char line[256];
  std::snprintf(line, sizeof line, "\n%s: one force evaluation, %.0f us wide ('-' zero private array, '=' pair loop, "
                "'.' idle, '#' critical section / reduction)\n", title.c_str(), span * 1e6);
  out << line;
  for (std::size_t k = 0; k < times.size(); ++k) {
    std::snprintf(line, sizeof line, "  thread %2zu |%s| %6zu particles\n", k, gantt_line(times[k], span, width).c_str(),
                  times[k].particles);
    out << line;
  }
}

}  // namespace md
