/// \file gantt.hpp
/// \brief One force evaluation as a text Gantt chart: a line per thread, time across.
#pragma once
#include <iosfwd>
#include <span>
#include <string>

#include "forces.hpp"

namespace md {

/// One thread's line, `width` columns for `span` seconds: '-' zeroing its private array, '=' pair loop,
/// '.' waiting, '#' inside the critical section (or the parallel reduction). Phases are painted in that
/// order, each at least one column wide, so a section shorter than a column still shows.
std::string gantt_line(const ThreadTimes& t, double span, int width);

/// The chart of one evaluation under `title`, a line per thread with its particle count.
void print_gantt(std::ostream& out, const std::string& title, std::span<const ThreadTimes> times);

}  // namespace md
