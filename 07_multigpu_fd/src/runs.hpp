/// \file runs.hpp
/// \brief The runs wave_fd makes. Each records its rows once, in the report's tables; the report prints
/// them and writes the results file at the end (course::RunReport::finish).
#pragma once
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "common/device_info.hpp"
#include "common/report.hpp"
#include "measurement.hpp"
#include "options.hpp"

namespace wave {

/// What the runs in this process share.
struct RunContext {
  const Settings& settings;
  course::RunReport& report;
  double ceiling_gbs = 0;                ///< measured copy bandwidth of the first device (read + write)
  std::vector<std::string> peer_lines;   ///< one per neighbouring device pair, each once
  std::vector<std::string> notes;        ///< printed after the tables
  std::vector<Variant> tuned;            ///< the shape chosen for each tuned rung so far (by name)
  std::optional<double> stream_gcells;   ///< ladder and tune: the stream ceiling, Gcells/s

  /// The stream ceiling of the first device for this grid, in Gcells/s: measured on first use (with
  /// --steps, --warmup, --reps, as the rungs), then kept.
  double stream_ceiling();

  /// `rung` in the shape --tune chose for it, or else the fastest of its candidates in a short search on
  /// this problem (tuned_variant); a rung of fixed shape as it is. Noted once per rung.
  Variant resolve(const Variant& rung);

  /// Adds the solver's peer-access lines not seen yet.
  void add_peer_lines(const std::vector<std::string>& lines);

  /// Times `slabs` slabs of `p` on `gpus` GPUs with `v` (--steps, --warmup, --reps); returns the
  /// measurement and, when `keep_field`, the field it ends with (for a bit-for-bit check).
  std::pair<Measurement, std::vector<float>> measure(const std::string& table, const Variant& v, const Problem& p,
                                                     int gpus, int slabs, bool overlap, bool keep_field);
};

/// Throws course::NoDeviceError (exit 77) when no CUDA device can be used. Creates no context, so a
/// launcher may call it before starting its ranks.
void require_any_device();

/// For the runs in this process: takes --device (exit 77 without a GPU), refuses (exit 2) more GPUs
/// than present or a grid that does not fit their memory, prints the device header and the problem,
/// measures the copy ceiling, and records device, config and ceiling in the results file.
RunContext open_devices(const Settings& s, course::RunReport& report);

/// What every results file of this chapter records about the run (config, bytes per cell, ceiling).
void record_setup(const Settings& s, course::ResultsFile& results, const course::DeviceInfo& device,
                  double ceiling_gbs, int gpus_present);

/// Every selected kernel on one GPU, one slab (table "ladder"); notes the best rung against 85% of
/// the roofline. Every rung after the first is compared bit for bit with the first rung's field (all
/// rungs do the same arithmetic); returns whether every one was equal.
bool run_ladder(RunContext& ctx);

/// Every candidate of every tuned rung among --variants (table "tune"), full timing, each checked bit
/// for bit against its rung's first candidate; the fastest becomes the rung's shape for the rest of
/// the process (ctx.tuned). Returns whether every check held.
bool run_tune(RunContext& ctx);

/// Strong scaling (the same grid on 1 … gpus GPUs, each checked bit for bit against one GPU) and weak
/// scaling (ny × g rows on g GPUs), with and without overlap (tables "strong" and "weak"). Returns
/// whether every check held.
bool run_scaling(RunContext& ctx);

/// One configuration (table "run"), optionally checked against one GPU and snapshotted. Returns
/// whether the check held (true without --check).
bool run_slabs(RunContext& ctx);

/// This process as one NCCL rank (table "nccl" on rank 0). Returns nothing on the other ranks (they
/// report nothing), else whether the check held.
std::optional<bool> run_nccl(const Settings& s, course::RunReport& report);

}  // namespace wave
