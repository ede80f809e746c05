// Grading probe of exercise 07.2 (the halo one row off): the student's halo plan, applied, written raw for
// the grader to compare with the answer's (common/probe.hpp).
//
// A plan may list its copies in another order or split them into shorter copies and still be right, so
// the probe writes what every right plan shares: the result of applying it. Per cut (slab heights) it
// builds each slab's padded storage (rows −halo … rows+halo−1), fills every row a slab owns with the
// number of the global row it is, every ghost row with −1 (poison), applies the plan's copies (each reads
// the sender's storage as it was before the exchange, as the GPU's copies after a step do), and writes
//  - "rows": every stored row of every slab after the exchange: the global row it now holds, −1 where no
//    copy wrote it, −2 where a copy read outside its sender's storage;
//  - "writes": how many copies wrote each stored row (a right plan writes each ghost row inside the mesh
//    once, no owned row and no ghost row past the mesh's edge);
//  - "outside": (slab, row) of every write past a receiver's storage, and the copies that name a slab that
//    does not exist or move fewer than one row (none for a right plan).
// Cuts: the suite's awkward ones (slabs of exactly halo rows, equal and uneven neighbours) and cuts drawn
// from the seed. The plan is asked for explicit heights (halo_copies(span)), so 07.1 does not enter.
#include <cstdint>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "common/probe.hpp"
#include "decomposition.hpp"
#include "stencil.hpp"

namespace {

using course::probe::Cases;
using course::probe::Options;
using course::probe::Random;
using namespace wave;

constexpr long long unwritten = -1;    // a ghost row no copy wrote
constexpr long long read_outside = -2; // a copy read a row outside its sender's storage

std::vector<RowRange> ranges_of(const std::vector<int>& heights) {
  std::vector<RowRange> ranges;
  int begin = 0;
  for (const int h : heights) {
    ranges.push_back({begin, begin + h});
    begin += h;
  }
  return ranges;
}

std::string cut_name(const std::vector<int>& heights) {
  std::string text = "slabs of ";
  for (std::size_t i = 0; i < heights.size(); ++i) {
    if (i) text += ',';  // piece by piece: g++ 12 -Werror=restrict misreads `"," + std::to_string(...)`
    text += std::to_string(heights[i]);
  }
  return text + " rows";
}

void add_cut(Cases& cases, const std::vector<int>& heights) {
  const std::vector<RowRange> slabs = ranges_of(heights);
  const std::vector<HaloCopy> copies = halo_copies(slabs);
  const int count = static_cast<int>(slabs.size());

  // Stored rows of each slab, local row r at index r + halo.
  std::vector<std::vector<long long>> before(slabs.size()), after, writes(slabs.size());
  for (std::size_t s = 0; s < slabs.size(); ++s) {
    const int rows = slabs[s].size();
    before[s].assign(static_cast<std::size_t>(rows + 2 * halo), unwritten);
    writes[s].assign(static_cast<std::size_t>(rows + 2 * halo), 0);
    for (int r = 0; r < rows; ++r) before[s][static_cast<std::size_t>(r + halo)] = slabs[s].begin + r;
  }
  after = before;
  std::vector<long long> outside;
  for (const HaloCopy& c : copies) {
    if (c.from_slab < 0 || c.from_slab >= count || c.to_slab < 0 || c.to_slab >= count || c.rows < 1) {
      outside.insert(outside.end(), {-1, c.from_slab, c.to_slab, c.rows});
      continue;
    }
    const auto& source = before[static_cast<std::size_t>(c.from_slab)];
    auto& target = after[static_cast<std::size_t>(c.to_slab)];
    auto& written = writes[static_cast<std::size_t>(c.to_slab)];
    for (int i = 0; i < c.rows && i < 4096; ++i) {
      const long long from = static_cast<long long>(c.from_row) + i + halo;
      const long long to = static_cast<long long>(c.to_row) + i + halo;
      const long long value =
          from >= 0 && from < static_cast<long long>(source.size()) ? source[static_cast<std::size_t>(from)] : read_outside;
      if (to < 0 || to >= static_cast<long long>(target.size())) {
        outside.insert(outside.end(), {c.to_slab, to - halo});
        continue;
      }
      target[static_cast<std::size_t>(to)] = value;
      ++written[static_cast<std::size_t>(to)];
    }
  }
  std::vector<long long> rows_now, writes_now;
  for (std::size_t s = 0; s < slabs.size(); ++s) {
    rows_now.insert(rows_now.end(), after[s].begin(), after[s].end());
    writes_now.insert(writes_now.end(), writes[s].begin(), writes[s].end());
  }
  const std::string name = cut_name(heights);
  cases.add_exact(name + ": rows", rows_now);
  cases.add_exact(name + ": writes", writes_now);
  cases.add_exact(name + ": outside", outside);
}

int body(int argc, char** argv) {
  const Options options = course::probe::parse(argc, argv, "07.2", false);
  if (options.timed()) throw course::UsageError("exercise 07.2 has no timed mode");
  Cases cases("07.2", options.seed);
  Random random(options.seed);

  // The suite's awkward cuts: one slab, slabs of exactly halo rows, equal slabs, neighbours differing by
  // one row either way (what slab_rows makes of an uneven ny) or by many; and a few more of the same kinds.
  std::vector<std::vector<int>> cuts = {
      {9}, {4, 4}, {4, 5}, {5, 4}, {8, 8, 8}, {4, 4, 4, 4, 4}, {13, 14, 13, 14}, {14, 13, 13}, {7, 4, 30, 5, 4},
      {4}, {1}, {6, 6}, {6, 7, 6}, {4, 40}, {40, 4}, {5, 5, 4, 4, 5}};
  // Drawn from the seed: up to 12 slabs of halo … halo + 12 rows (the suite: up to 9 of halo … halo + 12),
  // and a few cuts of many slabs with taller ones.
  for (int draw = 0; draw < 300; ++draw) {
    std::vector<int> heights(1 + random.below(12));
    for (int& h : heights) h = halo + static_cast<int>(random.below(13));
    cuts.push_back(heights);
  }
  for (int draw = 0; draw < 10; ++draw) {
    std::vector<int> heights(20 + random.below(40));
    for (int& h : heights) h = halo + static_cast<int>(random.below(200));
    cuts.push_back(heights);
  }
  for (const auto& heights : cuts) add_cut(cases, heights);

  cases.write(options.out);
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return course::run_main("probe_07_2", body, argc, argv); }
