#include "forces.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "partition.hpp"
#include "vector_clones.hpp"

namespace md {

void ForceWorkspace::prepare(int threads) {
  const auto t = static_cast<std::size_t>(threads);
  if (times.size() != t) times.assign(t, ThreadTimes{});
  if (per_thread.size() < t) per_thread.resize(t);
}

namespace {

/// Lennard-Jones F(r)/r for r² < Rc²: F·(dx, dy, dz) is the force on the first atom of the pair.
inline double force_over_r(double r2) noexcept {
  const double sr2 = 1.0 / r2, sr6 = sr2 * sr2 * sr2;
  return 48.0 * sr6 * (sr6 - 0.5) * sr2;
}

/// Minimum-image separation x_i − x_j in the periodic box: the same for every strategy.
inline Vec3 separation(const Vec3& xi, const Vec3& xj, double box, double half_box) noexcept {
  return {minimum_image(xi.x - xj.x, box, half_box), minimum_image(xi.y - xj.y, box, half_box),
          minimum_image(xi.z - xj.z, box, half_box)};
}

// [half_rows]
/// Walks rows [begin, end) of a half list and adds each pair's force to both atoms (Newton's third
/// law: one evaluation, two updates) in `f`, which may be the shared array or a thread's private one.
/// Pairs found without crossing the box take the plain difference; only the rest (a row's tail, from
/// list.image_from) take the minimum image.
void accumulate_half_rows(const ForceInput& in, std::size_t begin, std::size_t end, Vec3* __restrict f) {
  const Vec3* __restrict x = in.position.data();
  const std::size_t* offsets = in.list->offsets.data();
  const std::size_t* image_from = in.list->image_from.empty() ? offsets : in.list->image_from.data();
  const std::int32_t* neighbours = in.list->neighbours.data();
  const double box = in.box, half_box = 0.5 * box, cutoff2 = in.cutoff * in.cutoff;
  for (std::size_t i = begin; i < end; ++i) {
    const Vec3 xi = x[i];
    Vec3 fi{};
    const auto pair = [&](std::size_t j, double dx, double dy, double dz) {
      const double r2 = dx * dx + dy * dy + dz * dz;
      // Pairs in the skin are listed but do not interact yet. A select, not a branch: a third of the
      // pairs fail the test at random, and a mispredicted branch costs more than the arithmetic.
      const double fr = force_over_r(r2) * static_cast<double>(r2 < cutoff2);
      fi.x += dx * fr, fi.y += dy * fr, fi.z += dz * fr;
      f[j].x -= dx * fr, f[j].y -= dy * fr, f[j].z -= dz * fr;
    };
    for (std::size_t k = offsets[i]; k < image_from[i]; ++k) {
      const auto j = static_cast<std::size_t>(neighbours[k]);
      pair(j, xi.x - x[j].x, xi.y - x[j].y, xi.z - x[j].z);
    }
    for (std::size_t k = image_from[i]; k < offsets[i + 1]; ++k) {
      const auto j = static_cast<std::size_t>(neighbours[k]);
      const auto [dx, dy, dz] = separation(xi, x[j], box, half_box);
      pair(j, dx, dy, dz);
    }
    f[i].x += fi.x, f[i].y += fi.y, f[i].z += fi.z;
  }
}
// [half_rows]

double seconds_since(double t0) noexcept { return omp_get_wtime() - t0; }

/// Zeroes this thread's private array (allocating it on first use, by this thread: first touch).
Vec3* private_forces(ForceWorkspace& ws, int thread, std::size_t n) {
  auto& mine = ws.per_thread[static_cast<std::size_t>(thread)];
  if (mine.size() != n) mine.assign(n, Vec3{});
  else std::fill(mine.begin(), mine.end(), Vec3{});
  return mine.data();
}

void forces_serial(const ForceInput& in, std::span<Vec3> f, ForceWorkspace& ws, int) {
  ws.prepare(1);
  const double t0 = omp_get_wtime();
  ThreadTimes& times = ws.times[0];
  std::fill(f.begin(), f.end(), Vec3{});
  times.loop_begin = seconds_since(t0);
  accumulate_half_rows(in, 0, f.size(), f.data());
  times.compute_end = times.section_enter = times.section_exit = seconds_since(t0);
  times.particles = f.size();
}

// [critical_method]
/// The book's "critical method": private arrays, then one thread at a time adds its whole array into
/// the shared one. `bounds` decides who owns which rows: equal shares (critical) or the staircase
/// (triangle); the section is the same.
void forces_with_critical_section(const ForceInput& in, std::span<Vec3> f, ForceWorkspace& ws, int threads,
                                  const std::vector<std::size_t>& bounds) {
  const std::size_t n = f.size();
  ws.prepare(threads);
  const auto zero_share = equal_partition(n, threads);
  const double t0 = omp_get_wtime();
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    ThreadTimes& times = ws.times[static_cast<std::size_t>(t)];
    times.start = seconds_since(t0);
    Vec3* local = private_forces(ws, t, n);
    std::fill(f.begin() + static_cast<std::ptrdiff_t>(zero_share[t]), f.begin() + static_cast<std::ptrdiff_t>(zero_share[t + 1]), Vec3{});
#pragma omp barrier  // the shared array is zero before anyone adds into it
    times.loop_begin = seconds_since(t0);
    accumulate_half_rows(in, bounds[t], bounds[t + 1], local);
    times.compute_end = seconds_since(t0);
#pragma omp critical(md_force_sum)
    {
      times.section_enter = seconds_since(t0);
      for (std::size_t i = 0; i < n; ++i) f[i].x += local[i].x, f[i].y += local[i].y, f[i].z += local[i].z;
      times.section_exit = seconds_since(t0);
    }
    times.particles = bounds[t + 1] - bounds[t];
  }
}

void forces_critical(const ForceInput& in, std::span<Vec3> f, ForceWorkspace& ws, int threads) {
  forces_with_critical_section(in, f, ws, threads, equal_partition(f.size(), threads));
}
// [critical_method]

// [triangle_method]
void forces_triangle(const ForceInput& in, std::span<Vec3> f, ForceWorkspace& ws, int threads) {
  // Δ = Tc / t_p comes from measurement, once per team size: thread k then reaches the section
  // k·Tc after thread 0, just as thread k − 1 leaves it.
  if (ws.triangle_threads != threads) calibrate_triangle(in, f, ws, threads);
  forces_with_critical_section(in, f, ws, threads, triangle_partition(f.size(), threads, ws.triangle_step));
}
// [triangle_method]

// [atomic_method]
void forces_atomic(const ForceInput& in, std::span<Vec3> f, ForceWorkspace& ws, int threads) {
  const std::size_t n = f.size();
  ws.prepare(threads);
  const auto bounds = equal_partition(n, threads);
  const Vec3* x = in.position.data();
  const std::size_t* offsets = in.list->offsets.data();
  const std::int32_t* neighbours = in.list->neighbours.data();
  const double box = in.box, half_box = 0.5 * box, cutoff2 = in.cutoff * in.cutoff;
  const double t0 = omp_get_wtime();
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    ThreadTimes& times = ws.times[static_cast<std::size_t>(t)];
    times.start = seconds_since(t0);
    std::fill(f.begin() + static_cast<std::ptrdiff_t>(bounds[t]), f.begin() + static_cast<std::ptrdiff_t>(bounds[t + 1]), Vec3{});
#pragma omp barrier
    times.loop_begin = seconds_since(t0);
    for (std::size_t i = bounds[t]; i < bounds[t + 1]; ++i) {
      const Vec3 xi = x[i];
      Vec3 fi{};
      for (std::size_t k = offsets[i]; k < offsets[i + 1]; ++k) {
        const auto j = static_cast<std::size_t>(neighbours[k]);
        const auto [dx, dy, dz] = separation(xi, x[j], box, half_box);
        const double r2 = dx * dx + dy * dy + dz * dz;
        if (r2 >= cutoff2) continue;
        const double fr = force_over_r(r2);
        fi.x += dx * fr, fi.y += dy * fr, fi.z += dz * fr;
        // Atom j may belong to any thread: each update is an indivisible read-modify-write.
#pragma omp atomic
        f[j].x -= dx * fr;
#pragma omp atomic
        f[j].y -= dy * fr;
#pragma omp atomic
        f[j].z -= dz * fr;
      }
#pragma omp atomic
      f[i].x += fi.x;
#pragma omp atomic
      f[i].y += fi.y;
#pragma omp atomic
      f[i].z += fi.z;
    }
    times.compute_end = times.section_enter = times.section_exit = seconds_since(t0);
    times.particles = bounds[t + 1] - bounds[t];
  }
}
// [atomic_method]

// BEGIN SOLUTION 01.3
#ifndef COURSE_STUB_01_3
/// What LAMMPS' OPENMP package does: private arrays as in the critical method, but no critical section:
/// after one barrier the threads sum the arrays together, each for its own block of particles.
void forces_thread_arrays(const ForceInput& in, std::span<Vec3> f, ForceWorkspace& ws, int threads) {
  const std::size_t n = f.size();
  ws.prepare(threads);
  const auto blocks = equal_partition(n, threads);
  const double t0 = omp_get_wtime();
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    const std::size_t first = blocks[t], end = blocks[t + 1];
    ThreadTimes& times = ws.times[static_cast<std::size_t>(t)];
    times.start = seconds_since(t0);
    Vec3* own = private_forces(ws, t, n);
    times.loop_begin = seconds_since(t0);
    accumulate_half_rows(in, first, end, own);
    times.compute_end = seconds_since(t0);
#pragma omp barrier  // every private array is complete
    times.section_enter = seconds_since(t0);
    // The workspace may hold the arrays of a larger team from an earlier call: sum this team's only.
    for (std::size_t i = first; i < end; ++i) {
      Vec3 sum{};
      for (std::size_t other = 0; other < static_cast<std::size_t>(threads); ++other) {
        const Vec3& part = ws.per_thread[other][i];
        sum.x += part.x, sum.y += part.y, sum.z += part.z;
      }
      f[i] = sum;
    }
    times.section_exit = seconds_since(t0);
    times.particles = end - first;
  }
}
#else
void forces_thread_arrays(const ForceInput& in, std::span<Vec3> f, ForceWorkspace& ws, int threads) {
  // TODO (exercise 01.3): exact and race-free, but every thread walks every row, so the team does the
  // serial work `threads` times over and is never faster than one thread. Give each thread its own
  // block of rows, keep the private arrays (no critical section, no atomics), and combine them after one
  // barrier, each thread summing the team's arrays over its own block. Target: within 1.2x of
  // `critical`'s force time in the same run.
  const std::size_t n = f.size();
  ws.prepare(threads);
  const auto bounds = equal_partition(n, threads);
  const double t0 = omp_get_wtime();
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    ThreadTimes& times = ws.times[static_cast<std::size_t>(t)];
    times.start = seconds_since(t0);
    Vec3* everything = private_forces(ws, t, n);
    times.loop_begin = seconds_since(t0);
    accumulate_half_rows(in, 0, n, everything);  // all rows: this array holds every atom's force
    times.compute_end = times.section_enter = seconds_since(t0);
    // Nobody else writes this block of the shared array: a plain copy, no synchronisation.
    std::copy(everything + bounds[t], everything + bounds[t + 1], f.begin() + static_cast<std::ptrdiff_t>(bounds[t]));
    times.section_exit = seconds_since(t0);
    times.particles = n;
  }
}
#endif
// END SOLUTION 01.3

/// A full list: each atom sums its own force from all its neighbours and writes only its own entry.
/// No shared writes, so no synchronisation at all, at the price of computing every pair twice.
void forces_full_list(const ForceInput& in, std::span<Vec3> f, ForceWorkspace& ws, int threads) {
  const std::size_t n = f.size();
  ws.prepare(threads);
  const Vec3* __restrict x = in.position.data();
  const std::size_t* offsets = in.list->offsets.data();
  const std::int32_t* neighbours = in.list->neighbours.data();
  const double box = in.box, half_box = 0.5 * box, cutoff2 = in.cutoff * in.cutoff;
  const double t0 = omp_get_wtime();
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    ThreadTimes& times = ws.times[static_cast<std::size_t>(t)];
    times.start = times.loop_begin = seconds_since(t0);
// BEGIN SOLUTION 01.1
#ifndef COURSE_STUB_01_1
    // Block boundaries n·t/threads: the blocks differ by one row at most and the last ends at n exactly.
    const auto team = static_cast<std::size_t>(threads), rank = static_cast<std::size_t>(t);
    const std::size_t first = n * rank / team, last = n * (rank + 1) / team;
#else
    // TODO (exercise 01.1): some forces come out wrong for some team sizes. Find out which, and fix it.
    // Thread t walks the rows of its block: every block has the same number of rows.
    const std::size_t rows_per_thread = n / static_cast<std::size_t>(threads);
    const std::size_t first = static_cast<std::size_t>(t) * rows_per_thread, last = first + rows_per_thread;
#endif
// END SOLUTION 01.1
    // [full_list_method]
    for (std::size_t i = first; i < last; ++i) {
      const Vec3 xi = x[i];
      Vec3 fi{};
      for (std::size_t k = offsets[i]; k < offsets[i + 1]; ++k) {
        const auto j = static_cast<std::size_t>(neighbours[k]);
        const auto [dx, dy, dz] = separation(xi, x[j], box, half_box);
        const double r2 = dx * dx + dy * dy + dz * dz;
        if (r2 >= cutoff2) continue;
        const double fr = force_over_r(r2);
        fi.x += dx * fr, fi.y += dy * fr, fi.z += dz * fr;
      }
      f[i] = fi;  // the only write: atom i is this thread's alone
    }
    // [full_list_method]
    times.compute_end = times.section_enter = times.section_exit = seconds_since(t0);
    times.particles = last - first;
  }
}

/// The rows' separations are padded to a multiple of this many lanes (8 doubles: one AVX-512 register, two of
/// AVX2, four of SSE2), so that the vector loop below runs whole vectors only.
constexpr std::size_t kRowPadding = 8;

/// `count` rounded up to a multiple of kRowPadding.
constexpr std::size_t padded_length(std::size_t count) noexcept {
  return (count + kRowPadding - 1) / kRowPadding * kRowPadding;
}

// [vector_rows]
/// Row i of a full list, packed: the separations x_i − x_j of its neighbours copied into three contiguous
/// arrays (sx, sy, sz), one neighbour at a time with plain loads, the pairs of the periodic-image tail (from
/// image_from) through the minimum image; then padded to a multiple of kRowPadding with the separation
/// (cutoff, cutoff, cutoff), whose r² = 3 cutoff² is outside the cut-off: its force is 0. Returns the padded
/// length. Inlined into each clone of the function below.
[[gnu::always_inline]] inline std::size_t pack_separations(const Vec3* __restrict x, std::size_t i, std::size_t first,
                                                            std::size_t image_from, std::size_t end,
                                                            const std::int32_t* __restrict neighbours, double box,
                                                            double cutoff, double* __restrict sx, double* __restrict sy,
                                                            double* __restrict sz) {
  const double half_box = 0.5 * box, xi = x[i].x, yi = x[i].y, zi = x[i].z;
  const std::size_t count = end - first, plain = image_from - first;
  for (std::size_t k = 0; k < count; ++k) {
    const Vec3& xj = x[neighbours[first + k]];
    sx[k] = xi - xj.x, sy[k] = yi - xj.y, sz[k] = zi - xj.z;
  }
  for (std::size_t k = plain; k < count; ++k)
    sx[k] = minimum_image(sx[k], box, half_box), sy[k] = minimum_image(sy[k], box, half_box),
    sz[k] = minimum_image(sz[k], box, half_box);
  const std::size_t padded = padded_length(count);
  for (std::size_t k = count; k < padded; ++k) sx[k] = sy[k] = sz[k] = cutoff;
  return padded;
}

/// Rows [begin, end) of a full list, each in two passes: pack its separations (above), then one SIMD lane
/// per neighbour computes the pair force from those contiguous arrays and keeps it only inside the cut-off
/// (a select, so every lane runs the same instructions); the lanes' sums are added once per row. Nothing is
/// written but f[i], so nothing conflicts and nothing needs a scatter. `row` holds 3 × `capacity` doubles,
/// capacity ≥ the longest row rounded up to kRowPadding.
MD_VECTOR_CLONES
void accumulate_full_rows_vectorized(const Vec3* __restrict x, const std::size_t* __restrict offsets,
                                     const std::size_t* __restrict image_from, const std::int32_t* __restrict neighbours,
                                     double box, double cutoff, std::size_t begin, std::size_t end, double* __restrict row,
                                     std::size_t capacity, Vec3* __restrict f) {
  const double cutoff2 = cutoff * cutoff;
  double* __restrict sx = row;
  double* __restrict sy = row + capacity;
  double* __restrict sz = row + 2 * capacity;
  for (std::size_t i = begin; i < end; ++i) {
    const std::size_t lanes =
        pack_separations(x, i, offsets[i], image_from[i], offsets[i + 1], neighbours, box, cutoff, sx, sy, sz);
    double fx = 0, fy = 0, fz = 0;
#pragma omp simd reduction(+ : fx, fy, fz)
    for (std::size_t k = 0; k < lanes; ++k) {
      const double dx = sx[k], dy = sy[k], dz = sz[k];
      const double r2 = dx * dx + dy * dy + dz * dz;
      const double sr2 = 1.0 / r2, sr6 = sr2 * sr2 * sr2;
      const double fr = r2 < cutoff2 ? 48.0 * sr6 * (sr6 - 0.5) * sr2 : 0.0;
      fx += dx * fr, fy += dy * fr, fz += dz * fr;
    }
    f[i] = {fx, fy, fz};
  }
}
// [vector_rows]

/// full_list's work shared the same way, each thread's rows through the vectorized loop above, packed into
/// the thread's own buffer (kept in the workspace, allocated by the thread that uses it).
void forces_full_list_vectorized(const ForceInput& in, std::span<Vec3> f, ForceWorkspace& ws, int threads) {
  const std::size_t n = f.size();
  ws.prepare(threads);
  if (ws.row_buffers.size() < static_cast<std::size_t>(threads)) ws.row_buffers.resize(static_cast<std::size_t>(threads));
  const NeighbourList& list = *in.list;
  // No split (a list built without it, or a small box): every pair takes the minimum image, from the row's start.
  const std::size_t* image_from = list.image_from.empty() ? list.offsets.data() : list.image_from.data();
  const auto bounds = equal_partition(n, threads);
  const double t0 = omp_get_wtime();
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    ThreadTimes& times = ws.times[static_cast<std::size_t>(t)];
    times.start = times.loop_begin = seconds_since(t0);
    std::size_t longest = 0;
    for (std::size_t i = bounds[t]; i < bounds[t + 1]; ++i) longest = std::max(longest, list.offsets[i + 1] - list.offsets[i]);
    const std::size_t capacity = padded_length(longest);
    std::vector<double>& row = ws.row_buffers[static_cast<std::size_t>(t)];
    if (row.size() < 3 * capacity) row.resize(3 * capacity);
    accumulate_full_rows_vectorized(in.position.data(), list.offsets.data(), image_from, list.neighbours.data(), in.box,
                                    in.cutoff, bounds[t], bounds[t + 1], row.data(), capacity, f.data());
    times.compute_end = times.section_enter = times.section_exit = seconds_since(t0);
    times.particles = bounds[t + 1] - bounds[t];
  }
}

constexpr Variant variant_table[] = {
    {"serial", "the reference: one thread, half list, Newton's third law", forces_serial, ListKind::half, false},
    {"critical", "private arrays summed in a critical section: idle time Nth(Nth-1)Tc", forces_critical,
     ListKind::half, true},
    {"triangle", "staircase shares so threads reach the section in turn: idle Nth(Nth-1)Tc/2", forces_triangle,
     ListKind::half, true},
    {"atomic", "no private arrays: every update of a shared force is an atomic add", forces_atomic, ListKind::half,
     false},
    {"thread_arrays", "private arrays reduced in parallel by particle blocks (LAMMPS OPENMP): no section",
     forces_thread_arrays, ListKind::half, false},
    {"full_list", "full list, no Newton's third law: twice the pairs, no conflicting writes", forces_full_list,
     ListKind::full, false},
    {"full_list_vectorized", "full list, each row packed, then one SIMD lane per neighbour (omp simd, a clone per "
     "vector width): no gather, no scatter, no conflicts", forces_full_list_vectorized, ListKind::full, false, true},
};

}  // namespace

std::span<const Variant> variants() { return variant_table; }

const Variant* find_variant(std::string_view name) {
  for (const Variant& v : variant_table)
    if (v.name == name) return &v;
  return nullptr;
}

double pair_force_scale(const ForceInput& in) {
  const NeighbourList& list = *in.list;
  const double box = in.box, half_box = 0.5 * box, cutoff2 = in.cutoff * in.cutoff;
  double largest = 0;
  for (std::size_t i = 0; i < list.size(); ++i)
    for (std::size_t k = list.offsets[i]; k < list.offsets[i + 1]; ++k) {
      const auto [dx, dy, dz] = separation(in.position[i], in.position[static_cast<std::size_t>(list.neighbours[k])],
                                           box, half_box);
      const double r2 = dx * dx + dy * dy + dz * dz;
      if (r2 < cutoff2) largest = std::max(largest, std::abs(force_over_r(r2)) * std::sqrt(r2));
    }
  return largest;
}

double force_error(std::span<const Vec3> f, std::span<const Vec3> ref, double floor) {
  double diff = 0, scale = floor;
  for (std::size_t i = 0; i < f.size(); ++i) {
    const double dx = std::abs(f[i].x - ref[i].x), dy = std::abs(f[i].y - ref[i].y), dz = std::abs(f[i].z - ref[i].z);
    if (!(std::isfinite(dx) && std::isfinite(dy) && std::isfinite(dz)))  // std::max would pass a NaN over
      return std::numeric_limits<double>::infinity();
    diff = std::max({diff, dx, dy, dz});
    scale = std::max({scale, std::abs(ref[i].x), std::abs(ref[i].y), std::abs(ref[i].z)});
  }
  return scale > 0 ? diff / scale : diff;
}

void calibrate_triangle(const ForceInput& input, std::span<Vec3> scratch, ForceWorkspace& ws, int threads, int reps) {
  std::vector<double> section, particle;
  for (int r = 0; r < std::max(1, reps); ++r) {
    forces_critical(input, scratch, ws, threads);
    const IdleSummary s = summarize(ws.times);
    section.push_back(s.section_mean_s);
    particle.push_back(s.particle_s);
  }
  const auto median = [](std::vector<double>& v) {
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    return v[v.size() / 2];
  };
  ws.calibrated_section_s = median(section);
  ws.calibrated_particle_s = median(particle);
  ws.triangle_step = ws.calibrated_particle_s > 0 ? ws.calibrated_section_s / ws.calibrated_particle_s : 0.0;
  ws.triangle_threads = threads;
}

IdleSummary summarize(std::span<const ThreadTimes> times) {
  IdleSummary s;
  if (times.empty()) return s;
  double loop_s = 0, section_s = 0;
  std::size_t particles = 0;
  for (const ThreadTimes& t : times) s.span_s = std::max(s.span_s, t.section_exit);
  for (const ThreadTimes& t : times) {
    s.idle_before_s += t.section_enter - t.compute_end;
    s.idle_after_s += s.span_s - t.section_exit;
    section_s += t.section_exit - t.section_enter;
    loop_s += t.compute_end - t.loop_begin;
    particles += t.particles;
  }
  s.section_mean_s = section_s / static_cast<double>(times.size());
  s.particle_s = particles > 0 ? loop_s / static_cast<double>(particles) : 0.0;
  return s;
}

double model_idle_s(const Variant& strategy, int threads, double section_s) {
  if (!strategy.critical_section) return 0.0;
  const double pairs_of_threads = static_cast<double>(threads) * (threads - 1.0);
  return strategy.name == "triangle" ? pairs_of_threads * section_s / 2.0 : pairs_of_threads * section_s;
}

}  // namespace md
