/// \file tables.hpp
/// \brief The program's tables, one function each. Every row is recorded once, through
/// course::RunReport: the terminal table, the CSV and the results file's "rows" come from the same
/// cells. Measured points keep the JSON shape they always had (scenario, copy, memory, bytes, lanes, and
/// the nested "spin_blocked" and "events" timings). Where figures.py and the committed results read a
/// table under "extra" (bidirectional, d2d_duel, fits, book_size, p2p), each entry there is copied from
/// the recorded row, never computed a second time. No CUDA here: CI checks all of it.
#pragma once
#include <string>
#include <vector>

#include "common/device_info.hpp"
#include "common/report.hpp"
#include "measurements.hpp"

namespace bandwidth {

/// Records every table of a run in the order the program prints them (the lesson's tables, then the
/// tuned copies beyond the lesson) and the results file's "extra"; returns the notes to print after the
/// tables. Each table is one function in tables.cpp; a table with no rows (a part --variants left out,
/// or the peer matrix on one GPU) is not shown.
std::vector<std::string> record_run(course::RunReport& report, const Measurements& measured,
                                    const course::DeviceInfo& info);

}  // namespace bandwidth
