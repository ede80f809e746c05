// GPU tests: every kernel against the CPU reference, and decomposed runs against one slab on one GPU, bit
// for bit. Slabs spread over two GPUs are tested by test_two_gpus.cu, its own binary.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "gpu_harness.cuh"

using namespace wave;
using namespace wave::testing;

// [slab_counts]
// Slabs per grid in the one-GPU decomposition test (the lesson quotes these lines). Primes, so that
// slab edges fall on different rows for every grid; 11 slabs of the 45-row grid are 4 rows thick, the
// thinnest a slab may be.
constexpr int one_gpu_slab_counts[] = {2, 3, 5, 7, 11};
// [slab_counts]

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
        const Difference d = compare(gpu_run(p, v, 1, false, steps), expected);
        INFO(v.name << " on " << s.nx << " x " << s.ny << ": " << d.cells << " cells differ, max |diff| " << d.max_abs
                    << ", peak " << d.peak);
        CHECK(d.max_abs <= 1e-4 * d.peak);
        CHECK(d.cells == 0);
      }
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

  TEST_CASE("N slabs on one GPU equal one slab bit for bit, with and without overlap") {
    for (const auto& [nx, ny] : {std::pair{131, 203}, std::pair{64, 64}, std::pair{300, 45}}) {
      Problem p = make_problem(nx, ny, VelocityModel::layered, 6);
      const int steps = 25;
      for (const char* name : {"tiled_vec4", "wide_vec4_prefetch_r64", "shared_line_padded", "naive_global", "tiled_l1"}) {
        const Variant& v = find_variant(name);
        const auto one = gpu_run(p, v, 1, false, steps);
        for (int slabs : one_gpu_slab_counts) {
          REQUIRE(ny / slabs >= halo);  // every count runs on every grid: none is skipped unseen
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
