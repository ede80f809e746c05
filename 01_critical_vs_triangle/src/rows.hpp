/// \file rows.hpp
/// \brief What the driver reports, in one place: each measurement recorded once as a course::Row (the
/// terminal table, the CSV and the results JSON all come from it), and the JSON of the configuration,
/// the thermodynamics and the per-thread timelines. The row keys are the ones figures.py reads.
#pragma once
#include <nlohmann/json.hpp>

#include <cstddef>
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
/// (shown "-"), as figures.py expects.
void record_row(course::RowTable& table, const Config& config, std::size_t atoms, int reps, const Measurement& m,
                double serial_ms);

/// The results file's "config": the run's parameters, including the velocity seed.
nlohmann::json config_json(const Config& config, std::size_t atoms, const course::TimingOptions& timing);

/// LAMMPS-style thermo output as JSON.
nlohmann::json thermo_json(const Thermo& thermo);

/// The per-thread timestamps of one force evaluation, in microseconds, for the timeline plot.
nlohmann::json timeline_json(const std::vector<ThreadTimes>& times);

}  // namespace md
