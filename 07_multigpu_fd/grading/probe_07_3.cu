// Grading probe of exercise 07.3 (the shared-memory tile): the student's shared_tile rung, run through the
// chapter's own slab (Slab, the padded storage the solver uses), written raw for the grader to compare with
// the answer's (common/probe.hpp).
//
// Verdict (--seed S --out F): the suite's awkward meshes (1 x 1, meshes narrower or shorter than a tile, a
// cell past a whole tile, the three regions of an overlapped step, the source where tiles meet) and two
// drawn from the seed, 40 steps each with every cell a step must write poisoned (0xFF bytes: NaN) before
// the step; the final field is written whole. Tolerance: exact (the rung keeps update_cell, so its bits
// equal every rung's and the CPU reference's; the suite compares bit for bit). The same cases run under
// compute-sanitizer racecheck (the suite keeps them too: they are small).
//
// Timed (--time exercise|reference|none): the perf run's mesh (8192 x 8192, the chapter's default problem:
// layered model, sponge 20, source in the centre) from a random field drawn from the seed. Each repetition
// writes new values into u at 64 cells chosen from (nonce, repetition) with a small kernel, advances
// `steps_per_rep` leapfrog steps with the variant's rung (exercise: shared_tile, reference: naive_global,
// none: no step), and returns u at those 64 cells and at 64 more chosen after the steps. The rungs are bit
// for bit equal, so exercise and reference agree exactly.
// Before the warm-up, the exercise's side records what one step enqueues (naive_global's, the other rungs'
// and the tuning candidates' kernels named as theirs; whether its own kernels use shared memory), carried as
// `ran` in the done records for the grader to compare with the answer's.
//
// The probe advances one slab of the whole mesh itself (no halo plan, no slab_rows): 07.1 and 07.2 do not
// enter this exercise's verdict.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "common/check.cuh"
#include "common/device.cuh"
#include "common/errors.hpp"
#include "common/probe.hpp"
#include "common/probe_record.cuh"
#include "decomposition.hpp"
#include "kernels.cuh"
#include "physics.hpp"
#include "solver.cuh"

namespace {

using course::probe::Cases;
using course::probe::Options;
using course::probe::Random;
using course::probe::Tolerance;
using namespace wave;

constexpr int verdict_steps = 40;     // the suite's
constexpr int steps_per_rep = 4;      // timed: leapfrog steps per repetition
constexpr int timed_mesh = 8192;      // exercises.json perf: --nx 8192 --ny 8192
constexpr int perturbed_cells = 64;
constexpr int sampled_cells = 64;

// One slab of the whole mesh, stepped with `v` on one stream. `overlap`: each step in the three regions of
// an overlapped step (top halo rows, interior, bottom halo rows: three launches with row_begin != 0), as
// the solver issues them.
class SingleSlab {
 public:
  SingleSlab(const Problem& p, int device) : problem_(p), slab_(p, device, RowRange{0, p.ny}, 0) {}

  void step(const Variant& v, bool overlap, cudaStream_t stream) {
    const int rows = slab_.layout().rows;
    if (overlap) {
      const StepRegions parts = split_rows(rows);
      for (const RowRange part : {parts.top, parts.interior, parts.bottom})
        if (part.size() > 0) v.launch(slab_.step_args(problem_, steps_, part), stream);
    } else {
      v.launch(slab_.step_args(problem_, steps_, RowRange{0, rows}), stream);
    }
    ++steps_;
  }
  Slab& slab() { return slab_; }
  int steps() const { return steps_; }
  /// What the next step (no overlap) gives its rung's launcher.
  StepArgs next_step_args() { return slab_.step_args(problem_, steps_, RowRange{0, slab_.layout().rows}); }

 private:
  Problem problem_;
  Slab slab_;
  int steps_ = 0;
};

// ---------------------------------------------------------------------------------------------------------
// verdict

struct MeshCase {
  int nx, ny, sponge;
  VelocityModel model;
  bool overlap;
  int source_x = -1, source_y = -1;  // −1: the centre
};

std::string case_name(const MeshCase& c, const Problem& p) {
  return std::to_string(c.nx) + "x" + std::to_string(c.ny) + " sponge " + std::to_string(c.sponge) + " " +
         to_string(c.model) + (c.overlap ? " overlapped" : " whole") + " source (" + std::to_string(p.source_x) + "," +
         std::to_string(p.source_y) + ") " + std::to_string(verdict_steps) + " steps";
}

void add_mesh_case(Cases& cases, const MeshCase& c, const Variant& v, int device) {
  Problem p;
  p.nx = c.nx;
  p.ny = c.ny;
  p.model = c.model;
  p.sponge_width = c.sponge;
  p.source_x = c.source_x;
  p.source_y = c.source_y;
  p = resolve(p);
  SingleSlab mesh(p, device);
  course::Stream stream(cudaStreamNonBlocking);
  for (int n = 0; n < verdict_steps; ++n) {
    mesh.slab().poison_next(n, false, false);  // synchronous: every cell step n must write is NaN
    mesh.step(v, c.overlap, stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  std::vector<float> field(static_cast<std::size_t>(p.nx) * static_cast<std::size_t>(p.ny));
  mesh.slab().download(mesh.steps(), field.data());
  cases.add(case_name(c, p), field, Tolerance::exact());
}

void verdict(const Options& options, int device) {
  Cases cases("07.3", options.seed);
  Random random(options.seed);
  const Variant& v = find_variant("shared_tile");
  std::vector<MeshCase> meshes = {{1, 1, 0, VelocityModel::constant, false},
                                  {5, 3, 0, VelocityModel::layered, false},
                                  {33, 31, 5, VelocityModel::layered, false},
                                  {31, 17, 0, VelocityModel::constant, true},
                                  {64, 48, 8, VelocityModel::layered, false, 32, 16},
                                  {75, 41, 6, VelocityModel::layered, true, 31, 15},
                                  {130, 67, 8, VelocityModel::constant, false, 96, 47},
                                  {97, 70, 0, VelocityModel::layered, true, 64, 32},
                                  {1, 40, 0, VelocityModel::layered, true},
                                  {70, 1, 0, VelocityModel::constant, false},
                                  {161, 9, 3, VelocityModel::layered, true}};
  for (int draw = 0; draw < 2; ++draw) {
    const int nx = 1 + static_cast<int>(random.below(150)), ny = 1 + static_cast<int>(random.below(100));
    meshes.push_back({nx, ny, std::min(4, std::min(nx, ny) / 3), VelocityModel::layered, draw == 1});
  }
  for (const MeshCase& c : meshes) add_mesh_case(cases, c, v, device);
  cases.write(options.out);
}

// ---------------------------------------------------------------------------------------------------------
// timed

// splitmix64's finaliser, as course::probe::mix: the initial field is the same in every build.
__device__ std::uint64_t device_mix(std::uint64_t a, std::uint64_t b) {
  std::uint64_t z = a + 0x9e3779b97f4a7c15ULL * (b + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// u and u_prev at every cell of the mesh: small random values (a stable leapfrog keeps them bounded).
__global__ void fill_random_field(float* field, SlabLayout layout, std::uint64_t seed) {
  const std::size_t cells = static_cast<std::size_t>(layout.nx) * static_cast<std::size_t>(layout.rows);
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < cells;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const int x = static_cast<int>(i % static_cast<std::size_t>(layout.nx));
    const int y = static_cast<int>(i / static_cast<std::size_t>(layout.nx));
    const double unit = static_cast<double>(device_mix(seed, i) >> 11) * 0x1.0p-53;
    field[layout.index(x, y)] = static_cast<float>((unit - 0.5) * 1e-2);
  }
}

struct CellValues {
  std::uint64_t offset[perturbed_cells];
  float value[perturbed_cells];
};

struct CellOffsets {
  std::uint64_t offset[perturbed_cells + sampled_cells];
};

__global__ void write_cells(float* field, CellValues cells) {
  const int i = static_cast<int>(threadIdx.x);
  if (i < perturbed_cells) field[cells.offset[i]] = cells.value[i];
}

__global__ void read_cells(const float* field, CellOffsets cells, float* out) {
  const int i = static_cast<int>(threadIdx.x);
  if (i < perturbed_cells + sampled_cells) out[i] = field[cells.offset[i]];
}

// What one shared_tile step of the timed mesh enqueues (common/probe_record.cuh: a stream capture, not run),
// with naive_global's kernel (the reference) and every other rung's and tuning candidate's named as theirs, and
// whether a kernel of its own uses shared memory, as the task prescribes: the `ran` the grader compares with
// the answer's.
std::vector<std::string> recorded_step(const StepArgs& args) {
  course::Stream stream(cudaStreamNonBlocking);
  const auto kernels_of = [&](StepLauncher launch) {
    return course::probe::kernels_enqueued(stream.get(), [&] { launch(args, stream.get()); });
  };
  std::vector<course::probe::KnownKernels> known{{"a kernel of the reference (naive_global)", {}},
                                                 {"a kernel of another rung of the ladder", {}}};
  const StepLauncher exercise = find_variant("shared_tile").launch;
  for (const Variant& v : variants()) {
    if (v.launch == exercise) continue;
    known[std::string_view(v.name) == "naive_global" ? 0 : 1].kernels.merge(kernels_of(v.launch));
    if (v.candidates != nullptr)
      for (const Variant& candidate : v.candidates())
        if (candidate.launch != exercise) known[1].kernels.merge(kernels_of(candidate.launch));
  }
  return course::probe::record_call(stream.get(), [&] { exercise(args, stream.get()); }, known, true);
}

void timed(const Options& options, int device) {
  const Variant* variant = nullptr;
  if (options.time_variant == "exercise") variant = &find_variant("shared_tile");
  if (options.time_variant == "reference") variant = &find_variant("naive_global");
  Problem p;  // the chapter's default problem on the perf run's mesh
  p.nx = timed_mesh;
  p.ny = timed_mesh;
  p = resolve(p);
  SingleSlab mesh(p, device);
  const SlabLayout layout = mesh.slab().layout();
  course::Stream stream(cudaStreamNonBlocking);
  for (int offset : {-1, 0}) {
    fill_random_field<<<1024, 256, 0, stream>>>(mesh.slab().field(0, offset), layout,
                                                 course::probe::mix(options.seed, static_cast<std::uint64_t>(offset + 2)));
    CUDA_CHECK_LAUNCH();
  }
  course::DeviceBuffer<float> samples(perturbed_cells + sampled_cells);
  course::PinnedBuffer<float> host_samples(perturbed_cells + sampled_cells);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  const std::uint64_t cells = static_cast<std::uint64_t>(p.nx) * static_cast<std::uint64_t>(p.ny);
  const auto offset_of = [&](std::uint64_t cell) {
    return static_cast<std::uint64_t>(layout.index(static_cast<int>(cell % static_cast<std::uint64_t>(p.nx)),
                                                   static_cast<int>(cell / static_cast<std::uint64_t>(p.nx))));
  };

  const std::vector<std::string> ran =
      options.time_variant == "exercise" ? recorded_step(mesh.next_step_args()) : std::vector<std::string>{};

  course::probe::run_timed(options, Tolerance::exact(), [&](std::uint64_t nonce, int rep) {
    // New values in u (the field the next step reads) at cells chosen from (nonce, rep).
    const auto perturbed = course::probe::places(nonce, rep, 0x7031ULL, cells, perturbed_cells);
    Random values(course::probe::mix(nonce, static_cast<std::uint64_t>(rep) + 0x7032ULL));
    CellValues write{};
    for (int i = 0; i < perturbed_cells; ++i) {
      write.offset[i] = offset_of(perturbed[static_cast<std::size_t>(i)]);
      write.value[i] = static_cast<float>(values.uniform(-1e-2, 1e-2));
    }
    write_cells<<<1, perturbed_cells, 0, stream>>>(mesh.slab().field(mesh.steps(), 0), write);
    CUDA_CHECK_LAUNCH();
    if (variant != nullptr)
      for (int k = 0; k < steps_per_rep; ++k) mesh.step(*variant, false, stream);
    // u after the steps at the perturbed cells and at cells chosen now, after the work was issued.
    const auto sampled = course::probe::places(nonce, rep, 0x7033ULL, cells, sampled_cells);
    CellOffsets read{};
    for (int i = 0; i < perturbed_cells; ++i) read.offset[i] = offset_of(perturbed[static_cast<std::size_t>(i)]);
    for (int i = 0; i < sampled_cells; ++i)
      read.offset[perturbed_cells + i] = offset_of(sampled[static_cast<std::size_t>(i)]);
    read_cells<<<1, perturbed_cells + sampled_cells, 0, stream>>>(mesh.slab().field(mesh.steps(), 0), read,
                                                                   samples.data());
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpyAsync(host_samples.data(), samples.data(), samples.bytes(), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    return std::vector<double>(host_samples.data(), host_samples.data() + host_samples.size());
  }, ran);
}

int body(int argc, char** argv) {
  const Options options = course::probe::parse(argc, argv, "07.3", true);
  course::require_device(options.device);  // NoDeviceError: exit 77
  if (options.timed()) timed(options, options.device);
  else verdict(options, options.device);
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return course::run_main("probe_07_3", body, argc, argv); }
