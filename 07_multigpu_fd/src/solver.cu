#include "solver.cuh"

#include <algorithm>

#include "common/check.cuh"
#include "common/errors.hpp"

namespace wave {
namespace {
int make_current(int device) {
  CUDA_CHECK(cudaSetDevice(device));
  return device;
}
}  // namespace

int buffers_for(const Variant& v) { return std::max(3, v.steps_per_pass + 2); }

Slab::Slab(const Problem& p, int device, RowRange global_rows, int high_priority, int buffers, int ghost)
    : device_(make_current(device)),
      global_rows_(global_rows),
      layout_(SlabLayout::make(p.nx, global_rows.size(), ghost)),
      source_x_(p.source_x),
      // Local, also where the source lies in a ghost row: a temporal pass recomputes those rows.
      source_y_(p.source_y >= global_rows.begin - ghost && p.source_y < global_rows.end + ghost
                    ? p.source_y - global_rows.begin
                    : no_source_row),
      halo_stream_(cudaStreamNonBlocking, high_priority),
      interior_stream_(cudaStreamNonBlocking, 0) {
  buffers_.resize(static_cast<std::size_t>(buffers));
  for (auto& b : buffers_) {
    b = course::DeviceBuffer<float>(layout_.elements());
    b.fill_bytes(0);  // at rest, and the margins and edge ghost rows are the rigid wall
  }
  const auto all_courant2 = courant2_per_row(p);
  const auto all_damp_y = sponge_profile(p.ny, p.sponge_width);
  auto damp_x = sponge_profile(p.nx, p.sponge_width);
  damp_x.resize(static_cast<std::size_t>(layout_.pitch), 0.0f);  // float4 loads may read past nx
  // The per-row coefficients of the slab's rows and its ghost rows (a temporal pass computes those
  // too); rows outside the grid get 0 and are never used (the wall is zero).
  const auto slice = [&](const std::vector<float>& v) {
    std::vector<float> rows(static_cast<std::size_t>(global_rows.size() + 2 * ghost), 0.0f);
    for (int r = 0; r < static_cast<int>(rows.size()); ++r) {
      const int g = global_rows.begin - ghost + r;
      if (g >= 0 && g < p.ny) rows[static_cast<std::size_t>(r)] = v[static_cast<std::size_t>(g)];
    }
    return rows;
  };
  courant2_ = course::DeviceBuffer<float>(static_cast<std::size_t>(global_rows.size() + 2 * ghost));
  courant2_.upload(slice(all_courant2));
  damp_y_ = course::DeviceBuffer<float>(static_cast<std::size_t>(global_rows.size() + 2 * ghost));
  damp_y_.upload(slice(all_damp_y));
  damp_x_ = course::DeviceBuffer<float>(damp_x.size());
  damp_x_.upload(damp_x);
}

Slab::~Slab() { cudaSetDevice(device_); }  // the members are released on their own device

StepArgs Slab::step_args(const Problem& p, int n, RowRange rows) {
  StepArgs a;
  a.prev = field(n, -1);
  a.cur = field(n, 0);
  a.next = field(n, +1);
  a.layout = layout_;
  a.courant2 = courant2_.data() + layout_.ghost;  // indexed by local row, ghost rows negative
  a.damp_x = damp_x_.data();
  a.damp_y = damp_y_.data() + layout_.ghost;
  a.row_begin = rows.begin;
  a.row_end = rows.end;
  a.global_row0 = global_rows_.begin;
  a.ny_global = p.ny;
  a.source_x = source_x_;
  a.source_y = source_y_;
  a.source = source_value(p, n);  // computed once on the host: identical for every decomposition
  return a;
}

void Slab::download(int n, float* out) const {
  CUDA_CHECK(cudaSetDevice(device_));
  const float* src = buffers_[static_cast<std::size_t>((n + 1) % static_cast<int>(buffers_.size()))].data() +
                     layout_.index(0, 0);
  CUDA_CHECK(cudaMemcpy2D(out, sizeof(float) * static_cast<std::size_t>(layout_.nx), src,
                          sizeof(float) * static_cast<std::size_t>(layout_.pitch),
                          sizeof(float) * static_cast<std::size_t>(layout_.nx),
                          static_cast<std::size_t>(layout_.rows), cudaMemcpyDeviceToHost));
}

void Slab::poison_next(int n, bool ghosts_above, bool ghosts_below) {
  CUDA_CHECK(cudaSetDevice(device_));
  const int first = ghosts_above ? -layout_.ghost : 0;
  const int last = layout_.rows + (ghosts_below ? layout_.ghost : 0);
  // Every buffer but u_prev and u: a temporal pass writes the ones K − 1 and K steps ahead.
  for (int offset = 1; offset + 1 < static_cast<int>(buffers_.size()); ++offset) {
    float* next = field(n, offset) + layout_.index(0, first);
    CUDA_CHECK(cudaMemset2D(next, sizeof(float) * static_cast<std::size_t>(layout_.pitch), 0xFF,
                            sizeof(float) * static_cast<std::size_t>(layout_.nx), static_cast<std::size_t>(last - first)));
  }
  CUDA_CHECK(cudaDeviceSynchronize());
}

std::string enable_peer_access(int a, int b) {
  int ab = 0, ba = 0;
  CUDA_CHECK(cudaDeviceCanAccessPeer(&ab, a, b));
  CUDA_CHECK(cudaDeviceCanAccessPeer(&ba, b, a));
  const std::string pair = "GPU " + std::to_string(a) + " <-> GPU " + std::to_string(b);
  if (!ab || !ba) return pair + ": peer access unavailable, halo copies staged through host memory";
  for (const auto& [from, to] : {std::pair{a, b}, std::pair{b, a}}) {
    CUDA_CHECK(cudaSetDevice(from));
    const cudaError_t err = cudaDeviceEnablePeerAccess(to, 0);
    if (err == cudaErrorPeerAccessAlreadyEnabled) (void)cudaGetLastError();  // clear the sticky-free error
    else CUDA_CHECK(err);
  }
  return pair + ": peer access enabled, halo copies go device to device";
}

void enqueue_steps(const Problem& p, Slab& slab, const Variant& v, int n, int steps, RowRange rows,
                   cudaStream_t stream) {
  StepArgs args = slab.step_args(p, n, rows);
  if (steps == 1) {
    v.launch(args, stream);
    return;
  }
  args.next = slab.field(n, steps);  // u after n + K steps
  PassTargets targets;
  targets.next_prev = slab.field(n, steps - 1);
  for (int s = 0; s < steps; ++s) targets.sources[s] = source_value(p, n + s);
  v.pass(args, targets, stream);
}

std::vector<int> written_fields(int steps) { return steps == 1 ? std::vector<int>{1} : std::vector<int>{steps - 1, steps}; }

SlabSolver::SlabSolver(const SolverConfig& config) : config_(config) {
  const Problem& p = config_.problem;
  if (config_.variant == nullptr) throw course::UsageError("no kernel variant chosen");
  const int depth = exchange_depth(*config_.variant, config_.slabs);
  validate_decomposition(p.ny, config_.slabs, depth);
  int present = 0;
  CUDA_CHECK(cudaGetDeviceCount(&present));
  if (config_.devices < 1 || config_.first_device < 0 || config_.first_device + config_.devices > present)
    throw course::UsageError("asked for " + std::to_string(config_.devices) + " GPU(s) from device " +
                             std::to_string(config_.first_device) + " but " + std::to_string(present) + " are present");
  if (config_.devices > config_.slabs)
    throw course::UsageError("more GPUs (" + std::to_string(config_.devices) + ") than slabs (" +
                             std::to_string(config_.slabs) + ")");
  for (int s = 0; s < config_.slabs; ++s) {
    const int device = config_.first_device + device_of_slab(s, config_.slabs, config_.devices);
    CUDA_CHECK(cudaSetDevice(device));
    int least = 0, greatest = 0;  // "greatest" priority is the numerically smallest
    CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    slabs_.push_back(std::make_unique<Slab>(p, device, slab_rows(p.ny, config_.slabs, s), greatest,
                                            buffers_for(*config_.variant), depth));
  }
  copies_ = deepened(halo_copies(p.ny, config_.slabs), depth);
  for (int d = 0; d + 1 < config_.devices; ++d)
    peer_report_.push_back(enable_peer_access(config_.first_device + d, config_.first_device + d + 1));
}

double halo_bytes_per_step(const Problem& p, const Variant& v, int slabs) {
  if (slabs < 2) return 0;
  const int depth = exchange_depth(v, slabs);
  const double row_bytes = sizeof(float) * static_cast<double>(SlabLayout::make(p.nx, 1).pitch);
  double bytes = 0;
  for (const HaloCopy& c : deepened(halo_copies(p.ny, slabs), depth)) bytes += row_bytes * c.rows;
  const int unit = v.steps_per_pass;  // what SlabSolver::advance takes at a time between exchanges
  return bytes * static_cast<double>(written_fields(unit).size()) / unit;
}

// [step_loop]
void SlabSolver::advance(int steps) {
  const int per_pass = config_.variant->steps_per_pass;
  // A temporal rung takes the steps K at a time while K are left, then one at a time (same arithmetic).
  for (int k = 0; k < steps;) {
    const int unit = per_pass > 1 && k + per_pass <= steps ? per_pass : 1;
    if (unit > 1 && slabs_.size() == 1) advance_pass(steps_done_ + k);
    else advance_exchanged(steps_done_ + k, unit);
    k += unit;
  }
  steps_done_ += steps;
}

void SlabSolver::advance_exchanged(int n, int steps) {
  const Problem& p = config_.problem;
  const Variant& v = *config_.variant;
  const int count = static_cast<int>(slabs_.size());
  // Phase 1: every wait of these steps, before any of their events is recorded, so each wait refers to
  // the steps before. The halo stream needs the neighbours' rows (their halo_done: copies into our ghost
  // rows finished) and our own interior of the steps before; the interior needs our edge rows.
  for (int s = 0; s < count; ++s) {
    Slab& slab = *slabs_[static_cast<std::size_t>(s)];
    CUDA_CHECK(cudaSetDevice(slab.device()));
    if (s > 0) CUDA_CHECK(cudaStreamWaitEvent(slab.halo_stream(), slabs_[static_cast<std::size_t>(s - 1)]->halo_done()));
    if (s + 1 < count)
      CUDA_CHECK(cudaStreamWaitEvent(slab.halo_stream(), slabs_[static_cast<std::size_t>(s + 1)]->halo_done()));
    if (config_.overlap) {
      CUDA_CHECK(cudaStreamWaitEvent(slab.halo_stream(), slab.interior_done()));
      CUDA_CHECK(cudaStreamWaitEvent(slab.interior_stream(), slab.halo_done()));
    }
  }
  // Phase 2: the edge rows the neighbours need (ghost-depth rows each side) first on the
  // (high-priority) halo stream, then send them; the interior meanwhile on its own stream. Without
  // overlap: all rows, then the copies, on one stream.
  for (int s = 0; s < count; ++s) {
    Slab& slab = *slabs_[static_cast<std::size_t>(s)];
    CUDA_CHECK(cudaSetDevice(slab.device()));
    const StepRegions parts = split_rows(slab.layout().rows, slab.layout().ghost);
    if (config_.overlap) {
      enqueue_steps(p, slab, v, n, steps, parts.top, slab.halo_stream());
      enqueue_steps(p, slab, v, n, steps, parts.bottom, slab.halo_stream());
    } else {
      enqueue_steps(p, slab, v, n, steps, {0, slab.layout().rows}, slab.halo_stream());
    }
    for (const HaloCopy& c : copies_) {
      if (c.from_slab != s) continue;
      Slab& to = *slabs_[static_cast<std::size_t>(c.to_slab)];
      const std::size_t bytes = sizeof(float) * static_cast<std::size_t>(c.rows) * slab.layout().pitch;
      for (const int field : written_fields(steps))
        CUDA_CHECK(cudaMemcpyPeerAsync(to.field(n, field) + to.layout().index(-x_origin, c.to_row), to.device(),
                                       slab.field(n, field) + slab.layout().index(-x_origin, c.from_row),
                                       slab.device(), bytes, slab.halo_stream()));
    }
    CUDA_CHECK(cudaEventRecord(slab.halo_done(), slab.halo_stream()));
    if (config_.overlap) {
      enqueue_steps(p, slab, v, n, steps, parts.interior, slab.interior_stream());
      CUDA_CHECK(cudaEventRecord(slab.interior_done(), slab.interior_stream()));
    }
  }
}
// [step_loop]

// [temporal_pass]
void SlabSolver::advance_pass(int n) {
  Slab& slab = *slabs_.front();  // one slab: its ghost rows are the wall, no exchange
  CUDA_CHECK(cudaSetDevice(slab.device()));
  // After whatever ran before on either stream (a one-step remainder may have used both), and before
  // whatever runs next on either.
  CUDA_CHECK(cudaStreamWaitEvent(slab.halo_stream(), slab.interior_done()));
  enqueue_steps(config_.problem, slab, *config_.variant, n, config_.variant->steps_per_pass,
                {0, slab.layout().rows}, slab.halo_stream());
  CUDA_CHECK(cudaEventRecord(slab.halo_done(), slab.halo_stream()));
  CUDA_CHECK(cudaEventRecord(slab.interior_done(), slab.halo_stream()));
}
// [temporal_pass]

void SlabSolver::synchronize() const {
  for (const auto& slab : slabs_) {
    CUDA_CHECK(cudaSetDevice(slab->device()));
    CUDA_CHECK(cudaStreamSynchronize(slab->halo_stream()));
    CUDA_CHECK(cudaStreamSynchronize(slab->interior_stream()));
  }
}

std::vector<float> SlabSolver::gather() const {
  synchronize();
  const Problem& p = config_.problem;
  std::vector<float> field(static_cast<std::size_t>(p.nx) * static_cast<std::size_t>(p.ny));
  for (const auto& slab : slabs_)
    slab->download(steps_done_, field.data() + static_cast<std::size_t>(slab->global_rows().begin) * p.nx);
  return field;
}

void SlabSolver::poison_next() {
  synchronize();
  const int count = static_cast<int>(slabs_.size());
  for (int s = 0; s < count; ++s) slabs_[static_cast<std::size_t>(s)]->poison_next(steps_done_, s > 0, s + 1 < count);
}

}  // namespace wave
