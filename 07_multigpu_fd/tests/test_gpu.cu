// GPU tests: every kernel against the CPU reference, and decomposed runs against one slab, bit for bit.
// Decomposed runs depend on slab_rows and halo_copies (exercises 07.1 and 07.2), so they are exercise
// 07.2's GPU cases; the shared_tile rung is exercise 07.3, checked by its own suite.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "common/buffers.cuh"
#include "common/check.cuh"
#include "common/device.cuh"
#include "common/errors.hpp"
#include "course_test_env.hpp"
#include "decomposition_checks.hpp"
#include "gpu_harness.cuh"

using namespace wave;
using namespace wave::testing;

namespace {


// Before a decomposed GPU run: the cut must be sound (slab_rows is exercise 07.1: without it the case is
// left out, with a message) and the halo plan must be (a broken one would copy outside the buffers).
bool decomposition_ready(int ny, int slabs) {
  if (const std::string why = partition_problem(ny, slabs); !why.empty()) {
    MESSAGE("slab_rows (exercise 07.1) does not cut the grid yet, so the GPU runs are left out: " << why);
    return false;
  }
  std::vector<RowRange> ranges;
  for (int s = 0; s < slabs; ++s) ranges.push_back(slab_rows(ny, slabs, s));
  const std::string plan = plan_problem(ranges, halo_copies(ny, slabs));
  INFO("the halo plan for ny " << ny << ", " << slabs << " slabs");
  REQUIRE(plan == "");
  return true;
}

}  // namespace

TEST_SUITE("gpu") {
  TEST_CASE("every kernel matches the CPU reference on awkward sizes") {
    // The CPU reference does the same IEEE operations in the same order (leapfrog_cell), so we expect
    // every bit to agree. The tolerance check beside it is what correctness needs: float32 rounding of
    // ~20 operations per cell per step, growing at worst linearly over 60 steps, stays far below 1e-4
    // of the peak amplitude.
    struct Size {
      int nx, ny, sponge;
      VelocityModel model;
    };
    for (const Size s : {Size{1, 1, 0, VelocityModel::constant}, Size{5, 3, 0, VelocityModel::layered},
                         Size{33, 31, 5, VelocityModel::layered}, Size{130, 67, 8, VelocityModel::constant},
                         Size{257, 40, 10, VelocityModel::layered}, Size{128, 129, 0, VelocityModel::layered}}) {
      const Problem p = make_problem(s.nx, s.ny, s.model, s.sponge);
      const int steps = 60;
      const auto expected = cpu_simulate(p, steps);
      for (const Variant& v : variants()) {
        if (std::string(v.name) == "shared_tile") continue;  // exercise 07.3: its own suite checks it
        const Difference d = compare(gpu_run(p, v, 1, false, steps), expected);
        INFO(v.name << " on " << s.nx << " x " << s.ny << ": " << d.cells << " cells differ, max |diff| " << d.max_abs
                    << ", peak " << d.peak);
        CHECK(d.max_abs <= 1e-4 * d.peak);
        CHECK(d.cells == 0);
      }
    }
  }

  TEST_CASE("every tuning candidate matches the CPU reference, with steps left over after whole passes") {
    // 61 steps: not a multiple of 2, 3 or 4, so every temporal rung also runs one-step remainders. Sources
    // on the edges of the candidates' block strips (504 or 496 columns, 32 … 256 rows) and sizes
    // around them.
    struct Case {
      int nx, ny, sponge;
      VelocityModel model;
      int source_x, source_y;
    };
    for (const Case c : {Case{1, 1, 0, VelocityModel::constant, 0, 0}, Case{7, 33, 2, VelocityModel::layered, 6, 32},
                         Case{1030, 140, 12, VelocityModel::layered, 504, 64},
                         Case{1001, 301, 20, VelocityModel::layered, 496, 256},
                         Case{509, 129, 0, VelocityModel::constant, 251, 128}}) {
      Problem q = make_problem(c.nx, c.ny, c.model, c.sponge);
      q.source_x = c.source_x;
      q.source_y = c.source_y;
      const Problem p = resolve(q);
      const int steps = 61;
      const auto expected = cpu_simulate(p, steps);
      for (const Variant& v : every_kernel()) {
        if (v.family == nullptr) continue;  // the rungs of fixed shape: the case above
        const Difference d = compare(gpu_run(p, v, 1, false, steps), expected);
        INFO(v.name << " on " << c.nx << " x " << c.ny << ", source (" << c.source_x << ", " << c.source_y
                    << "): " << d.cells << " cells differ, max |diff| " << d.max_abs << ", peak " << d.peak);
        CHECK(d.peak > 0);
        CHECK(d.cells == 0);
      }
    }
  }

  TEST_CASE("a temporal rung gives the same bits however the steps are grouped into advance calls") {
    const Problem p = make_problem(300, 211, VelocityModel::layered, 16);
    const auto expected = cpu_simulate(p, 40);
    for (const char* name : {"temporal_2", "temporal_3"}) {
      const Variant& v = find_variant(name);
      SlabSolver solver({p, 1, 1, true, &v, 0});
      for (const int chunk : {1, 5, 2, 7, 3, 11, 4, 6, 1}) solver.advance(chunk);  // 40 steps
      REQUIRE(solver.steps_done() == 40);
      const Difference d = compare(solver.gather(), expected);
      INFO(name << ": " << d.cells << " cells differ");
      CHECK(d.cells == 0);
    }
  }

  TEST_CASE("a temporal rung refuses slabs thinner than its pass's halo (halo · K rows)") {
    const Problem p = make_problem(64, 47, VelocityModel::constant, 0);
    CHECK_THROWS_AS(SlabSolver({p, 4, 1, true, &find_variant("temporal_3"), 0}), course::UsageError);  // 11 < 12
    CHECK_NOTHROW(SlabSolver({p, 3, 1, true, &find_variant("temporal_3"), 0}));                        // 15 >= 12
  }

  TEST_CASE("the stream ceiling kernel computes 2 cur - prev on every cell, and no other") {
    for (const std::size_t cells : {std::size_t{1}, std::size_t{31}, std::size_t{33}, std::size_t{4099}, std::size_t{1} << 20}) {
      std::vector<float> cur(cells + 8), prev(cells + 8);
      std::mt19937 rng(static_cast<unsigned>(cells));
      std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
      for (auto& x : cur) x = dist(rng);
      for (auto& x : prev) x = dist(rng);
      course::DeviceBuffer<float> d_cur(cur.size()), d_prev(prev.size());
      d_cur.upload(cur);
      d_prev.upload(prev);
      launch_stream_ceiling(d_cur.data(), d_prev.data(), cells, nullptr);
      CUDA_CHECK(cudaDeviceSynchronize());
      std::vector<float> got(prev.size());
      d_prev.download(std::span<float>(got));
      long long wrong = 0;
      for (std::size_t i = 0; i < got.size(); ++i) {
        const float want = i < cells ? 2.0f * cur[i] - prev[i] : prev[i];  // past the end: untouched
        wrong += std::memcmp(&got[i], &want, sizeof(float)) != 0;
      }
      INFO(cells << " cells: " << wrong << " wrong");
      CHECK(wrong == 0);
    }
  }

  TEST_CASE("a longer run stays within float32 tolerance of the CPU reference (and is in fact bit-equal)") {
    const Problem p = make_problem(200, 150, VelocityModel::layered, 20);
    const int steps = 300;
    const auto expected = cpu_simulate(p, steps);
    const Difference d = compare(gpu_run(p, find_variant("tiled_vec4"), 1, true, steps), expected);
    INFO(d.cells << " cells differ, max |diff| " << d.max_abs << ", peak " << d.peak);
    CHECK(d.peak > 1e-5);
    CHECK(d.max_abs <= 1e-4 * d.peak);
    CHECK(d.cells == 0);
  }
}

// [slab_counts]
// Slabs per grid in the one-GPU decomposition test (the lesson quotes these lines). Primes, so that
// slab edges fall on different rows for every grid; 11 slabs of the 45-row grid are 4 or 5 rows thick,
// and 4 is the thinnest a slab may be.
constexpr int one_gpu_slab_counts[] = {2, 3, 5, 7, 11};
// [slab_counts]

// Exercise 07.2's GPU cases: the solver runs the plan on the GPU, with the streams and events of the
// overlapped exchange. Where no GPU is present they print a message and the CPU cases grade the plan.
TEST_SUITE("exercise 07.2") {
  TEST_CASE("N slabs on one GPU equal one slab bit for bit, with and without overlap") {
    if (!course::testing::gpu_present_for_cpu_exercise("the decomposed GPU runs are")) return;
    for (const auto& [nx, ny] : {std::pair{131, 203}, std::pair{64, 64}, std::pair{300, 45}}) {
      Problem p = make_problem(nx, ny, VelocityModel::layered, 6);
      const int steps = 25;
      for (const char* name : {"tiled_vec4", "wide_vec4_prefetch_r64", "shared_line_padded", "naive_global", "tiled_l1"}) {
        const Variant& v = find_variant(name);
        const auto one = gpu_run(p, v, 1, false, steps);
        for (int slabs : one_gpu_slab_counts) {
          REQUIRE(ny / slabs >= halo);  // every count runs on every grid: none is skipped unseen
          if (!decomposition_ready(ny, slabs)) return;
          for (bool overlap : {true, false}) {
            // Put the source on the first row of slab 1 too: the cell every exchange must carry.
            Problem q = p;
            for (int src_y : {ny / 2, static_cast<int>(static_cast<long long>(ny) / slabs)}) {
              q.source_y = src_y;
              const auto ref = src_y == p.source_y ? one : gpu_run(q, v, 1, false, steps);
              const Difference d = compare(gpu_run(q, v, slabs, overlap, steps), ref);
              INFO(name << ", " << nx << " x " << ny << ", " << slabs << " slabs, overlap " << overlap << ", source row "
                        << src_y << ": " << d.cells << " cells differ");
              CHECK(d.cells == 0);
            }
          }
        }
      }
    }
  }
}

// Temporal rungs cut into slabs: each pass exchanges halo · K rows of two fields once, then computes K
// steps of its rows and the ghost rows they need. Bit for bit the one-slab run, with steps left over after
// whole passes (one at a time, exchanged as deep), advance calls that split passes, the source on a slab's
// first row and in a neighbour's ghost rows. Built on halo_copies: exercise 07.2's suite.
TEST_SUITE("exercise 07.2") {
  TEST_CASE("a temporal rung in N slabs on one GPU equals one slab bit for bit, with and without overlap") {
    if (!course::testing::gpu_present_for_cpu_exercise("the decomposed GPU runs are")) return;
    for (const auto& [nx, ny] : {std::pair{131, 203}, std::pair{300, 97}}) {
      const Problem p = make_problem(nx, ny, VelocityModel::layered, 6);
      const int steps = 25;  // not a multiple of 2, 3 or 4
      for (const char* name : {"temporal_2", "temporal_3", "temporal_4", "temporal_3_b128_s6_r128_m4"}) {
        const Variant& v = find_variant(name);
        const int depth = halo * v.steps_per_pass;
        for (int slabs : {2, 3, 5}) {
          if (ny / slabs < depth) continue;  // refused: the case above
          if (!decomposition_ready(ny, slabs)) return;
          const int first_of_slab_1 = static_cast<int>(static_cast<long long>(ny) / slabs);
          for (int src_y : {ny / 2, first_of_slab_1, first_of_slab_1 - 1}) {
            Problem q = p;
            q.source_y = src_y;
            const auto ref = gpu_run(q, v, 1, false, steps);
            for (bool overlap : {true, false}) {
              const Difference d = compare(gpu_run(q, v, slabs, overlap, steps), ref);
              INFO(name << ", " << nx << " x " << ny << ", " << slabs << " slabs, overlap " << overlap
                        << ", source row " << src_y << ": " << d.cells << " cells differ");
              CHECK(d.peak > 0);
              CHECK(d.cells == 0);
            }
          }
          // Steps grouped into advance calls that cut passes apart (a call of 1 runs one step, exchanged
          // as deep as a pass's, so the next pass finds its ghost rows whole).
          SlabSolver solver({p, slabs, 1, true, &v, 0});
          for (const int chunk : {1, 5, 2, 7, 3, 4, 3}) solver.advance(chunk);  // 25 steps
          const Difference d = compare(solver.gather(), gpu_run(p, v, 1, false, steps));
          INFO(name << ", " << slabs << " slabs, advance in chunks: " << d.cells << " cells differ");
          CHECK(d.cells == 0);
        }
      }
    }
  }
}

// Exercise 07.3: the shared_tile rung. Its tiles end at awkward places: grids narrower or shorter than
// one tile, a cell past a whole tile, the three regions of an overlapped step (the first 4 rows, the
// interior, the last 4), the source on a tile's corner; and sizes drawn from COURSE_SEED.
TEST_SUITE("exercise 07.3") {
  TEST_CASE("shared_tile matches the CPU reference bit for bit on awkward sizes") {
    struct Case {
      int nx, ny, sponge;
      VelocityModel model;
      bool overlap;
      int source_x = -1, source_y = -1;  // −1: the centre
    };
    std::vector<Case> cases = {{1, 1, 0, VelocityModel::constant, false},   {5, 3, 0, VelocityModel::layered, false},
                               {33, 31, 5, VelocityModel::layered, false},  {31, 17, 0, VelocityModel::constant, true},
                               {64, 48, 8, VelocityModel::layered, false, 32, 16},
                               {75, 41, 6, VelocityModel::layered, true, 31, 15},
                               {130, 67, 8, VelocityModel::constant, false, 96, 47},
                               {97, 70, 0, VelocityModel::layered, true, 64, 32}};
    auto rng = seeded_rng(733);
    for (int draw = 0; draw < 2; ++draw) {
      const int nx = std::uniform_int_distribution<int>(1, 150)(rng), ny = std::uniform_int_distribution<int>(1, 100)(rng);
      cases.push_back({nx, ny, std::min(4, std::min(nx, ny) / 3), VelocityModel::layered, draw == 1});
    }
    const Variant& v = find_variant("shared_tile");
    for (const Case& c : cases) {
      Problem p;
      p.nx = c.nx;
      p.ny = c.ny;
      p.model = c.model;
      p.sponge_width = c.sponge;
      p.source_x = c.source_x;
      p.source_y = c.source_y;
      p = resolve(p);
      const int steps = 40;
      const Difference d = compare(gpu_run(p, v, 1, c.overlap, steps), cpu_simulate(p, steps));
      INFO("shared_tile on " << c.nx << " x " << c.ny << ", source (" << p.source_x << ", " << p.source_y << "), overlap "
                             << c.overlap << ": " << d.cells << " cells differ, max |diff| " << d.max_abs << ", peak "
                             << d.peak);
      CHECK(d.cells == 0);
    }
  }
}
