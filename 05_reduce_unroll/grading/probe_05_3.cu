// Grading probe of exercise 05.3 (issue 30; common/include/common/probe.hpp): persistent_kernel's body loop
// (src/beyond.cu), linked exactly as the exercise's tests link it, through the rungs that run it.
//
// Verdict (--seed S --out FILE): the exact int64 sums of int4_grid_stride, single_pass_x4, single_pass_x8,
// single_pass_x8_b256 and single_pass_x8_fetch256 on the tests' awkward sizes, 6 sizes drawn from the seed
// and either side of the one-block grid (4 ints × 4 or 8 loads × block threads), every block of 64 … 1024
// threads, starts 0 … 3 ints past a 16-byte boundary, each run twice (the single-pass rungs must leave their
// ticket ready), result and partials poisoned first; their float sums (blocks 64, 256, 1024; starts +0, +3)
// within twice the tests' rounding bound; and what a single-pass launch records in a CUDA graph (node kinds
// and kernel names: one launch of persistent_kernel, no library kernel, no copy; release builds only, as in
// the tests).
//
// Timed (--time exercise|reference|none --reps R): the perf rule's run, `--n 2^28 --block 512`: exercise =
// single_pass_x8, reference = cub_device_reduce (exercises.json "reference_variant"), none = everything but
// the sum. Each repetition restores the previous repetition's places and sets 64 new ones chosen from
// (nonce, rep) (one small kernel), runs the variant, synchronises and copies the sum back: the check is the
// sum itself, exact (every perturbed place lands in it). Before the warm-up, the exercise's side records what
// one sum of the timed input enqueues (grading::recorded_rung: CUB's kernels and the book rungs' named as
// theirs), carried as `ran` in the done records for the grader to compare with the answer's.
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/buffers.cuh"
#include "common/check.cuh"
#include "common/device.cuh"
#include "common/errors.hpp"
#include "common/probe.hpp"
#include "common/probe_record.cuh"
#include "reduce_ladder/probe_cases.cuh"
#include "reduce_unroll.hpp"

namespace {

using namespace reduce;

constexpr std::size_t timed_n = std::size_t{1} << 28;  // exercises.json "perf": --n 2^28
constexpr unsigned timed_block = 512;                  // --block 512

const Variant& rung(std::span<const Variant> table, const char* name) {
  for (const auto& v : table)
    if (std::strcmp(v.name, name) == 0) return v;
  throw std::logic_error(std::string("probe_05_3: no rung named ") + name);
}

std::vector<Variant> persistent_rungs() {
  std::vector<Variant> rungs;
  for (const char* name : {"int4_grid_stride", "single_pass_x4", "single_pass_x8", "single_pass_x8_b256",
                           "single_pass_x8_fetch256"})
    rungs.push_back(rung(beyond_book_variants(), name));
  return rungs;
}

// What one single-pass launch records in a graph: "kernel <name>" per kernel node, "node type <t>" for
// anything else (a copy, a memset). Stream capture cannot hold a debug build's synchronising launch check.
// A kernel in an anonymous namespace has a mangled name that carries its translation unit's own id
// (`41_GLOBAL__N__d51cb...`: the length, then an id nvcc derives from the file's path), which differs between
// the student's build and the instructor's. The id's characters are blanked, its length kept.
std::string without_unit_id(std::string name) {
  const std::string marker = "_GLOBAL__N__";
  for (std::size_t at = name.find(marker); at != std::string::npos; at = name.find(marker, at + 1)) {
    std::size_t digits = at;
    while (digits > 0 && name[digits - 1] >= '0' && name[digits - 1] <= '9') --digits;
    if (digits == at) continue;
    const std::size_t length = std::stoul(name.substr(digits, at - digits));
    for (std::size_t i = at + marker.size(); i < at + length && i < name.size(); ++i) name[i] = 'x';
  }
  return name;
}

std::vector<std::string> recorded_launch(const Variant& v, int sm_count) {
#ifndef NDEBUG
  (void)v;
  (void)sm_count;
  return {"not recorded: debug build"};
#else
  const std::size_t n = (std::size_t{1} << 20) + 3;
  course::DeviceBuffer<int> input(n);
  CUDA_CHECK(cudaMemset(input.data(), 0, input.bytes()));
  course::DeviceBuffer<long long> result(1);
  course::Stream stream;
  const LaunchShape shape = v.shape(n, 512, sm_count);
  Workspace workspace(scratch_bytes_for(v, n, shape));
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<course::probe::RecordedNode> nodes;
  if (!course::probe::record_nodes(stream.get(), [&] { v.sum_int(input.data(), n, result.data(), shape, workspace, stream.get()); },
                                   cudaStreamCaptureModeThreadLocal, nodes))
    return {"not recorded: the launch could not be captured"};
  std::vector<std::string> recorded;
  for (const course::probe::RecordedNode& node : nodes)
    recorded.push_back(node.kernel == nullptr ? "node type " + std::to_string(static_cast<int>(node.type))
                                              : "kernel " + without_unit_id(course::probe::kernel_name(node.kernel)));
  return recorded;
#endif
}

void verdict(const course::probe::Options& options, int sm_count) {
  course::probe::Cases cases("05.3", options.seed);
  const std::vector<Variant> rungs = persistent_rungs();
  std::vector<std::size_t> extra = grading::drawn_sizes(options.seed, 6, grading::big);
  // Either side of the one-block grid (one trip of one block: 4 ints × loads × block threads).
  for (const std::size_t block : {64u, 256u, 512u, 1024u})
    for (const std::size_t loads : {4u, 8u})
      for (const std::size_t n : {4 * loads * block - 1, 4 * loads * block, 4 * loads * block + 1}) extra.push_back(n);
  std::vector<std::vector<std::size_t>> int_sizes;
  for (const unsigned block : grading::all_blocks) {
    int_sizes.push_back(grading::awkward_sizes(block, true));
    int_sizes.back().insert(int_sizes.back().end(), extra.begin(), extra.end());
  }
  grading::add_int_sums(cases, rungs, grading::all_blocks, int_sizes, course::probe::mix(options.seed, 1), sm_count);
  const unsigned float_blocks[] = {64, 256, 1024};
  std::vector<std::vector<std::size_t>> float_sizes;
  for (const unsigned block : float_blocks) float_sizes.push_back(grading::awkward_sizes(block, true));
  grading::add_float_sums(cases, rungs, float_blocks, float_sizes, course::probe::mix(options.seed, 2), sm_count);
  for (const auto& v : rungs)
    if (std::strncmp(v.name, "single_pass", 11) == 0)
      cases.add_exact(std::string("graph of one launch: ") + v.name + ", n = 2^20 + 3, block 512",
                      recorded_launch(v, sm_count));
  cases.write(options.out);
}

void timed(const course::probe::Options& options, int sm_count) {
  // The rungs the marked loop could hand its work to: the book's (the beyond-the-book rungs share the
  // exercise's own kernel, persistent_kernel) and the library's.
  const std::span<const Variant> tables[] = {unroll_variants(), library_variants()};
  grading::run_timed_sum(options, rung(beyond_book_variants(), "single_pass_x8"),
                         rung(library_variants(), "cub_device_reduce"), tables, timed_n, timed_block, sm_count);
}

int body(int argc, char** argv) {
  const course::probe::Options options = course::probe::parse(argc, argv, "05.3", true);
  const course::DeviceInfo device = course::require_device(options.device);
  if (options.timed())
    timed(options, device.sm_count);
  else
    verdict(options, device.sm_count);
  return course::exit_ok;
}

}  // namespace

int main(int argc, char** argv) { return course::run_main("probe_05_3", body, argc, argv); }
