// The ladder as data: every rung, slowest first, with what it changes and how its kernel is launched
// (each rung's kernel is in src/rungs/<rung>.cu), and the lookups the driver and the tests use.
#include <algorithm>
#include <iterator>
#include <string>

#include "common/errors.hpp"
#include "kernels.cuh"
#include "rungs/rungs.hpp"

namespace wave {
namespace {

// [variant_table]
constexpr Variant variant_table[] = {
    {.name = "naive_global", .launch = rungs::naive_global,
     .teaches = "one thread per cell; 17 global loads, each behind a bounds check", .reads_memory = "global",
     .facts = rungs::naive_global_facts},
    {.name = "shared_tile", .launch = launch_shared_tile,
     .teaches = "the textbook stencil: each block stages its tile of cells and their 4-cell border in shared memory",
     .reads_memory = "shared (2-D tile)"},
    {.name = "shared_line", .launch = rungs::shared_line,
     .teaches = "the book's kernel: 32-thread blocks march down all rows; x from a shared line, y from a register "
                "window",
     .reads_memory = "shared + registers", .facts = rungs::shared_line_facts},
    {.name = "shared_line_ldg", .launch = rungs::shared_line_ldg,
     .teaches = "+ loads through the read-only cache (__ldg)", .reads_memory = "shared + registers",
     .facts = rungs::shared_line_ldg_facts},
    {.name = "shared_line_padded", .launch = rungs::shared_line_padded,
     .teaches = "+ padded arrays: the zero boundary is stored, no bounds checks", .reads_memory = "shared + registers",
     .facts = rungs::shared_line_padded_facts},
    {.name = "shared_line_tuned", .launch = rungs::shared_line_tuned,
     .teaches = "+ the rows split among blocks (128 threads x 64 rows): enough blocks to fill every SM",
     .reads_memory = "shared + registers", .facts = rungs::shared_line_tuned_facts},
    {.name = "tiled_l1", .launch = rungs::tiled_l1,
     .teaches = "2-D blocks, 16 rows per thread, x-neighbours straight from L1: no shared memory, no barrier",
     .reads_memory = "L1 + registers", .facts = rungs::tiled_l1_facts},
    {.name = "tiled_vec4", .launch = rungs::tiled_vec4,
     .teaches = "+ float4: 4 columns per thread, 3 aligned loads give all x-neighbours",
     .reads_memory = "L1 (float4) + registers", .facts = rungs::tiled_vec4_facts},
    {.name = "tiled_vec4_prefetch", .launch = rungs::tiled_vec4_prefetch,
     .teaches = "+ the next row's loads issued before this row's arithmetic; short strips, many blocks per SM (shape "
                "tuned)",
     .reads_memory = "L1 (float4) + registers", .family = "tiled_vec4_prefetch",
     .facts = rungs::tiled_vec4_prefetch_facts, .candidates = rungs::tiled_vec4_prefetch_candidates},
    {.name = "pipelined", .launch = rungs::pipelined,
     .teaches = "+ cp.async into a ring of shared-memory rows: many rows in flight per block while it computes; "
                "shape tuned",
     .reads_memory = "cp.async ring + registers", .family = "pipelined", .facts = rungs::pipelined_facts,
     .candidates = rungs::pipelined_candidates},
    {.name = "temporal_2", .launch = rungs::pipelined,
     .teaches = "+ 2 time steps per pass over memory: the first step's rows stay on chip for the second (16 bytes "
                "per 2 steps)",
     .reads_memory = "cp.async ring + registers", .steps_per_pass = 2, .pass = rungs::temporal_2,
     .family = "temporal_2", .facts = rungs::temporal_2_facts, .candidates = rungs::temporal_2_candidates},
    {.name = "temporal_3", .launch = rungs::pipelined,
     .teaches = "+ 3 time steps per pass (16 bytes per 3 steps); each step recomputes a wider halo",
     .reads_memory = "cp.async ring + registers", .steps_per_pass = 3, .pass = rungs::temporal_3,
     .family = "temporal_3", .facts = rungs::temporal_3_facts, .candidates = rungs::temporal_3_candidates},
    {.name = "temporal_4", .launch = rungs::pipelined,
     .teaches = "+ 4 time steps per pass (16 bytes per 4 steps); four levels of registers per thread",
     .reads_memory = "cp.async ring + registers", .steps_per_pass = 4, .pass = rungs::temporal_4,
     .family = "temporal_4", .facts = rungs::temporal_4_facts, .candidates = rungs::temporal_4_candidates},
};
// [variant_table]

}  // namespace

std::span<const Variant> variants() { return variant_table; }

std::vector<Variant> tuning_candidates() {
  std::vector<Variant> all;
  for (const Variant& rung : variant_table)
    if (rung.candidates != nullptr)
      for (const Variant& c : rung.candidates()) all.push_back(c);
  return all;
}

std::vector<Variant> every_kernel() {
  std::vector<Variant> all(std::begin(variant_table), std::end(variant_table));
  for (const Variant& v : tuning_candidates()) all.push_back(v);
  return all;
}

std::vector<Variant> candidates_of(const Variant& rung) {
  std::vector<Variant> found;
  const bool is_rung = std::any_of(std::begin(variant_table), std::end(variant_table),
                                   [&](const Variant& v) { return std::string_view(v.name) == rung.name; });
  if (rung.family == nullptr || !is_rung) return found;
  for (const Variant& v : every_kernel())
    if (v.family != nullptr && std::string_view(v.family) == rung.family &&
        std::string_view(v.name) != rung.name)
      found.push_back(v);
  return found;
}

const Variant& find_variant(std::string_view name) {
  std::string names;
  for (const Variant& v : variant_table) {
    if (name == v.name) return v;
    names += names.empty() ? "" : ", ";
    names += v.name;
  }
  for (const Variant& rung : variant_table)
    if (rung.candidates != nullptr)
      for (const Variant& v : rung.candidates())
        if (name == v.name) return v;
  throw course::UsageError("unknown variant '" + std::string(name) + "' (choose from: " + names +
                           ", or a --tune candidate)");
}

std::string shape_words(const LaunchFacts& f) {
  std::string out = std::to_string(f.block_x * f.block_y) + " threads";
  if (f.ring > 0) out += ", ring " + std::to_string(f.ring) + ", " + std::to_string(f.rows_per_block) + " rows";
  else if (f.rows_per_thread > 0) out += ", " + std::to_string(f.rows_per_thread) + " rows";
  if (f.min_blocks_per_sm > 1) out += ", " + std::to_string(f.min_blocks_per_sm) + " blocks/SM";
  if (f.ring_window) out += ", window ring";
  return out;
}

std::string grid_formula(const LaunchFacts& f) {
  return "ceil(nx / " + std::to_string(f.cells_x) + ") x " +
         (f.rows_per_block > 0 ? "ceil(rows / " + std::to_string(f.rows_per_block) + ")" : std::string("1"));
}

std::string shape_of(const Variant& v) {
  return v.family != nullptr && v.facts != nullptr ? shape_words(v.facts()) : std::string();
}

}  // namespace wave
