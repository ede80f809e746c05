/// \file rows.hpp
/// \brief What the driver reports, in one place: each measurement recorded once as a course::Row (the
/// terminal table, the CSV and the results JSON all come from it), and the JSON of the configuration,
/// the thermodynamics and the per-thread timelines. The row keys are the ones figures.py reads.
#pragma once
#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <vector>

#include "common/report.hpp"
#include "common/timing_options.hpp"
#include "md.hpp"
#include "simulation.hpp"
#include "sweep.hpp"

namespace md {

/// Records `m` as one row of `table`: force time (median, min-max), speedup over `serial_ms`, the loop's
/// timesteps/s (when steps were timed), the force error, then the idle time beside the model, Tc, and
/// the triangle's Δ and whether it was clamped. A value that does not apply is left out of the JSON row
/// (shown "-"), as figures.py expects. JSON only: `isa`, the instruction set the strategy's pair loop ran
/// ("avx512", "avx2" or "baseline": the clone the loader bound for a strategy built with MD_VECTOR_CLONES,
/// the build's one target for the others).
void record_row(course::RowTable& table, const Config& config, std::size_t atoms, int reps, const Measurement& m,
                double serial_ms);

/// The CPU's vector extensions that matter to this program's loops, named as /proc/cpuinfo and lscpu name
/// them (sse2 … avx2, fma, avx512f …; but sse3, which they call pni), as the CPU reports them to the code
/// (cpuid, the source the loader's clone resolver reads too). Empty on a CPU other than x86.
std::vector<std::string> cpu_vector_extensions();

/// Writes into the results file's header what the CPU is and which vectors it offers: `cpu_model`
/// (/proc/cpuinfo's model name) and `cpu_vector_extensions` (the list above). Each row's `isa` says which
/// of them the row's force loop used (record_row).
void record_cpu(course::ResultsFile& results);

/// The results file's "config": the run's parameters, including the velocity seed.
nlohmann::json config_json(const Config& config, std::size_t atoms, const course::TimingOptions& timing);

/// LAMMPS-style thermo output as JSON.
nlohmann::json thermo_json(const Thermo& thermo);

/// The per-thread timestamps of one force evaluation, in microseconds, for the timeline plot.
nlohmann::json timeline_json(const std::vector<ThreadTimes>& times);

}  // namespace md
