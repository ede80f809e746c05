/// \file listing.hpp
/// \brief `wave_fd --list-variants`: every kernel of the ladder as data, the one source of kernel facts for
/// the lesson's tables (07_multigpu_fd/figures.py) and the compiler report (compiler_report.py).
#pragma once
#include "common/report.hpp"
#include "options.hpp"

namespace wave {

/// Lists every rung, every tuning candidate and the stream ceiling (table "variants"): name, family,
/// what it teaches, the kernel with its template arguments, the launch shape (block, launch-grid formula,
/// rows, ring depth, blocks/SM asked of the register allocator, dynamic shared memory), and, with a GPU,
/// what the runtime reports: cudaFuncGetAttributes (registers, static shared and local memory per
/// thread) and the toolkit's occupancy calculator (cuda_occupancy.h: blocks per SM, each resource's
/// limit, what binds), checked against cudaOccupancyMaxActiveBlocksPerMultiprocessor. The results file's
/// "extra" holds the default rung, the build (type, CUDA flags, architectures, nvcc) and the SM's
/// resources. Without a GPU the static part is listed and a note (report.info()) says the runtime part needs
/// one; the exit status is 0 either way (the static part is what a CPU test and compiler_report.py read).
void list_variants(const Settings& s, course::RunReport& report);

}  // namespace wave
