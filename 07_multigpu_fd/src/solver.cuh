/// \file solver.cuh
/// \brief The multi-GPU pattern in one process: slabs along y on any number of devices (several slabs
/// may share one), a halo stream and an interior stream per slab, exchange overlapped with the
/// interior, peer copies between neighbours.
#pragma once
#include <cuda_runtime.h>

#include <memory>
#include <string>
#include <vector>

#include "common/buffers.cuh"
#include "decomposition.hpp"
#include "kernels.cuh"
#include "physics.hpp"

namespace wave {

/// How many wavefield buffers a slab of rung `v` rotates: three (u_prev, u, u_next), or K + 2 for a
/// temporal rung (a pass reads two and writes two others, u after K − 1 and K steps).
int buffers_for(const Variant& v);

/// One slab's memory and streams on its device: its wavefield buffers (rotated every step), its
/// slices of the coefficient arrays, and the two streams with their events.
class Slab {
 public:
  /// Allocates on `device` (made current) and uploads the coefficients, ghost rows included; the fields
  /// start at rest (0).
  Slab(const Problem& p, int device, RowRange global_rows, int high_priority, int buffers = 3, int ghost = halo);
  ~Slab();
  Slab(const Slab&) = delete;
  Slab& operator=(const Slab&) = delete;

  int device() const { return device_; }
  const SlabLayout& layout() const { return layout_; }
  RowRange global_rows() const { return global_rows_; }
  /// Buffer holding u at step `n` + `offset` (offset −1: u_prev, 0: u, +1: u_next of step n).
  float* field(int n, int offset) {
    const int count = static_cast<int>(buffers_.size());
    return buffers_[static_cast<std::size_t>(((n + offset + 1) % count + count) % count)].data();
  }
  /// The arguments of step `n` for local rows `rows`.
  StepArgs step_args(const Problem& p, int n, RowRange rows);

  cudaStream_t halo_stream() const { return halo_stream_; }
  cudaStream_t interior_stream() const { return interior_stream_; }
  cudaEvent_t halo_done() const { return halo_done_; }
  cudaEvent_t interior_done() const { return interior_done_; }

  /// Copies u after `n` steps (nx × rows, compact) to `out` (synchronous).
  void download(int n, float* out) const;
  /// Fills the cells step `n` must write — its own cells and the ghost rows a neighbour fills — of the
  /// u_next buffer (of every buffer but u_prev and u, for a temporal rung) with 0xFF bytes (NaN), so
  /// that a cell no kernel or copy writes shows up (synchronous).
  void poison_next(int n, bool ghosts_above, bool ghosts_below);

 private:
  int device_;
  RowRange global_rows_;
  SlabLayout layout_;
  int source_x_, source_y_;  // local; no_source_row when the source is neither in this slab nor its ghost rows
  std::vector<course::DeviceBuffer<float>> buffers_;
  course::DeviceBuffer<float> courant2_, damp_x_, damp_y_;  // courant2_ and damp_y_: ghost rows included
  course::Stream halo_stream_, interior_stream_;
  course::Event halo_done_{cudaEventDisableTiming}, interior_done_{cudaEventDisableTiming};
};

/// How a run is laid out.
struct SolverConfig {
  Problem problem;                  ///< resolved (see resolve())
  int slabs = 1;
  int devices = 1;                  ///< how many devices; slab s runs on first_device + device_of_slab(s, …)
  bool overlap = true;              ///< false: compute all rows, then exchange (no overlap)
  const Variant* variant = nullptr;
  int first_device = 0;             ///< devices first_device … first_device + devices − 1
};

/// Enqueues on `stream` the steps n … n + steps − 1 of local rows `rows` of `slab` with rung `v`: one
/// step (steps = 1, v.launch) or one pass of a temporal rung (steps = K = v.steps_per_pass, v.pass),
/// which writes u after n + K − 1 and n + K steps.
void enqueue_steps(const Problem& p, Slab& slab, const Variant& v, int n, int steps, RowRange rows, cudaStream_t stream);
/// The fields (as offsets from step n, Slab::field) that `steps` steps enqueued by enqueue_steps write
/// and the neighbours need in their ghost rows: {+1} for one step, {K − 1, K} for a pass of K.
std::vector<int> written_fields(int steps);

/// Bytes the halo exchange of `slabs` slabs of `p` running `v` moves per time step, all boundaries and
/// both directions together (whole stored rows, margins included): halo rows of one field every step, or
/// for a temporal rung two fields halo · K rows deep once per pass of K steps. 0 for one slab.
double halo_bytes_per_step(const Problem& p, const Variant& v, int slabs);

/// Runs a problem split into slabs on one or more devices of this process.
class SlabSolver {
 public:
  explicit SlabSolver(const SolverConfig& config);
  /// Enqueues `steps` steps on every slab's streams (asynchronous). A temporal rung takes them K at a
  /// time, and any left over one at a time with the same arithmetic.
  void advance(int steps);
  /// Waits for every slab's streams.
  void synchronize() const;
  /// u after all steps so far, as one nx × ny array (synchronous).
  std::vector<float> gather() const;
  /// Poisons what the next step must write (see Slab::poison_next); tests only.
  void poison_next();
  int steps_done() const { return steps_done_; }
  /// One line per neighbouring device pair: whether peer access is on (or copies are staged).
  const std::vector<std::string>& peer_report() const { return peer_report_; }

 private:
  SolverConfig config_;
  std::vector<std::unique_ptr<Slab>> slabs_;
  std::vector<HaloCopy> copies_;
  std::vector<std::string> peer_report_;
  int steps_done_ = 0;

  /// One pass of a temporal rung: steps n … n + K − 1 of the one slab.
  void advance_pass(int n);
  /// Steps n … n + steps − 1 (one step, or one pass of a temporal rung) of every slab, the exchange
  /// after them overlapped with the interior when config_.overlap.
  void advance_exchanged(int n, int steps);
};

/// Turns on peer access between `a` and `b` in both directions when the hardware allows it; returns a
/// line saying which (without it, cudaMemcpyPeerAsync stages the copies through host memory).
std::string enable_peer_access(int a, int b);

}  // namespace wave
