// Grading probe of exercise 07.1 (cut the mesh into slabs): what the student's slab_rows gives, written raw
// for the grader to compare with the answer's (common/probe.hpp).
//
// Several cuts are correct (slab s may begin at floor(s·ny/slabs), or the first ny % slabs slabs may take
// the extra row, or any other order of the tall and short slabs), so the probe writes what every correct
// cut shares, per (ny, slabs), taken from slab_rows' own begin and end of every slab:
//  - "edges": slab 0's begin and the last slab's end (0 and ny);
//  - "seams": begin(s) − end(s − 1) for s = 1 … slabs − 1, run-length encoded as (value, run) pairs (one
//    pair (0, slabs − 1) for a cut with neither gap nor overlap; the first 8 runs and the number of runs);
//  - "heights": the slabs' heights sorted, run-length encoded the same way (ny % slabs slabs of
//    ceil(ny / slabs) rows and the others of floor(ny / slabs), for every correct cut).
// Shapes: every slab count of every ny up to 300 (one case per ny), the largest meshes of the suite (2^20
// rows cut into up to 2^20 slabs: int overflow), and (ny, slabs) drawn from the seed.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/errors.hpp"
#include "common/probe.hpp"
#include "decomposition.hpp"

namespace {

using course::probe::Cases;
using course::probe::Options;
using course::probe::Random;
using namespace wave;

constexpr std::size_t runs_written = 8;

// (value, run length) pairs of the first `runs_written` runs of `values`, then the number of runs.
void append_runs(std::vector<long long>& out, const std::vector<long long>& values) {
  std::size_t runs = 0;
  for (std::size_t i = 0; i < values.size();) {
    std::size_t j = i;
    while (j < values.size() && values[j] == values[i]) ++j;
    if (runs < runs_written) {
      out.push_back(values[i]);
      out.push_back(static_cast<long long>(j - i));
    }
    ++runs;
    i = j;
  }
  out.push_back(static_cast<long long>(runs));
}

// Edges, seams and sorted heights of the cut of `ny` rows into `slabs` slabs (see the file comment).
std::vector<long long> cut_facts(int ny, int slabs) {
  std::vector<long long> seams, heights;
  seams.reserve(static_cast<std::size_t>(slabs));
  heights.reserve(static_cast<std::size_t>(slabs));
  long long first_begin = 0, previous_end = 0;
  for (int s = 0; s < slabs; ++s) {
    const RowRange r = slab_rows(ny, slabs, s);
    if (s == 0) first_begin = r.begin;
    else seams.push_back(static_cast<long long>(r.begin) - previous_end);
    heights.push_back(static_cast<long long>(r.end) - r.begin);
    previous_end = r.end;
  }
  std::sort(heights.begin(), heights.end());
  std::vector<long long> facts = {first_begin, previous_end};
  append_runs(facts, seams);
  append_runs(facts, heights);
  return facts;
}

std::string shape_name(int ny, int slabs) { return "ny=" + std::to_string(ny) + " slabs=" + std::to_string(slabs); }

int body(int argc, char** argv) {
  const Options options = course::probe::parse(argc, argv, "07.1", false);
  if (options.timed()) throw course::UsageError("exercise 07.1 has no timed mode");
  Cases cases("07.1", options.seed);
  Random random(options.seed);

  // Every slab count of every ny up to 300: one case per ny, the slab counts one after another.
  for (int ny = 1; ny <= 300; ++ny) {
    std::vector<long long> values;
    for (int slabs = 1; slabs <= ny; ++slabs) {
      const std::vector<long long> facts = cut_facts(ny, slabs);
      values.insert(values.end(), facts.begin(), facts.end());
    }
    cases.add_exact("ny=" + std::to_string(ny) + " slabs=1.." + std::to_string(ny), values);
  }

  // The largest meshes: slab · ny passes 2^31 from slab 2048 of a 2^20-row mesh on.
  for (const int ny : {1 << 20, (1 << 20) - 1, 1000003, 999999})
    for (const int slabs : {2, 3, 7, 2048, 4097, 65521, 1 << 19, ny}) cases.add_exact(shape_name(ny, slabs), cut_facts(ny, slabs));

  // Drawn from the seed: ny up to 2^20, up to min(ny, 5000) slabs like the suite's draws, and a few with
  // many more slabs (where 32-bit products wrap).
  for (int draw = 0; draw < 400; ++draw) {
    const int ny = 1 + static_cast<int>(random.below(1 << 20));
    const int slabs = 1 + static_cast<int>(random.below(static_cast<std::uint64_t>(std::min(ny, 5000))));
    cases.add_exact(shape_name(ny, slabs), cut_facts(ny, slabs));
  }
  for (int draw = 0; draw < 8; ++draw) {
    const int ny = (1 << 19) + static_cast<int>(random.below(1 << 19));
    const int slabs = 2048 + static_cast<int>(random.below(static_cast<std::uint64_t>(ny - 2048)));
    cases.add_exact(shape_name(ny, slabs), cut_facts(ny, slabs));
  }

  cases.write(options.out);
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return course::run_main("probe_07_1", body, argc, argv); }
