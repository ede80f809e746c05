// Grading probe of exercise 04.2 (issue 30; common/include/common/probe.hpp): the student's bank model,
// shared_wavefronts(slots, element_bytes), on the accesses the exercise's tests use and on accesses drawn
// from the grader's seed. The count is a function of the access alone (one right answer), so the probe
// writes every count raw and the grader compares them exactly with the answer's:
//  - the lesson's numbers (consecutive 8-byte sums, neighbored_less's strided reads at blocks 512 and 1024,
//    8-byte sums and 4-byte floats);
//  - every strided warp (4-, 8-, 16-byte elements, spacings 0 … 64, first slots from the seed), and warps
//    of 1 … 32 lanes at seed-drawn spacings;
//  - broadcasts (every lane one word; two words of one bank shared by half the lanes each);
//  - accesses built bank by bank from the seed in shuffled lane order (as the tests build them), and
//    accesses of uniformly drawn slots, dense (repeats, broadcasts) and sparse;
//  - what the model refuses: the empty access (0), other element sizes and 33 lanes (its exception).
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "bank_model.hpp"
#include "common/errors.hpp"
#include "common/probe.hpp"

namespace {

using course::probe::Cases;
using course::probe::Random;
using reduce::shared_wavefronts;

constexpr unsigned element_sizes[] = {4, 8, 16};

std::vector<unsigned> strided(unsigned first, unsigned spacing, unsigned lanes = 32) {
  std::vector<unsigned> slots;
  for (unsigned lane = 0; lane < lanes; ++lane) slots.push_back(first + lane * spacing);
  return slots;
}

long long count(const std::vector<unsigned>& slots, unsigned element_bytes) {
  return shared_wavefronts(slots, element_bytes);
}

std::string bytes(unsigned element_bytes) { return std::to_string(element_bytes) + "-byte elements"; }

// The reads of warp 0 of neighbored_less at one step (chapter 03): block / (2·stride) busy lanes, at most
// 32, their slots 2·stride apart from slot `stride`.
std::vector<unsigned> neighbored_less_reads(unsigned stride, unsigned block) {
  return strided(stride, 2 * stride, std::min(32u, block / (2 * stride)));
}

void add_lesson_numbers(Cases& cases) {
  cases.add_exact("lesson: 8-byte reads (first, spacing) = (32, 1), (1, 2), (2, 4), (16, 32)",
                  std::vector<long long>{count(strided(32, 1), 8), count(strided(1, 2), 8), count(strided(2, 4), 8),
                                         count(strided(16, 32), 8)});
  for (const unsigned element_bytes : {8u, 4u}) {
    std::vector<long long> values;
    for (unsigned stride = 1; stride < 512; stride *= 2)
      values.push_back(count(neighbored_less_reads(stride, 512), element_bytes));
    cases.add_exact("lesson: neighbored_less's reads at block 512, strides 1..256, " + bytes(element_bytes), values);
  }
  std::vector<long long> big_block;
  for (const unsigned element_bytes : element_sizes)
    for (unsigned stride = 1; stride < 1024; stride *= 2)
      big_block.push_back(count(neighbored_less_reads(stride, 1024), element_bytes));
  cases.add_exact("lesson: neighbored_less's reads at block 1024, strides 1..512, 4/8/16-byte elements", big_block);
}

void add_strided(Cases& cases, std::uint64_t seed) {
  Random random(course::probe::mix(seed, 0x0402a001ULL));
  for (const unsigned element_bytes : element_sizes) {
    std::vector<long long> aligned, drawn_first;
    for (unsigned spacing = 0; spacing <= 64; ++spacing) {
      aligned.push_back(count(strided(0, spacing), element_bytes));
      drawn_first.push_back(count(strided(static_cast<unsigned>(random.below(1u << 20)), spacing), element_bytes));
    }
    cases.add_exact("strided full warps from slot 0, spacings 0..64, " + bytes(element_bytes), aligned);
    cases.add_exact("strided full warps from seed-drawn slots, spacings 0..64, " + bytes(element_bytes), drawn_first);
    std::vector<long long> partial;
    for (int trial = 0; trial < 128; ++trial) {
      const auto lanes = static_cast<unsigned>(1 + random.below(32));
      const auto spacing = static_cast<unsigned>(random.below(65));
      const auto first = static_cast<unsigned>(random.below(1u << 16));
      partial.push_back(count(strided(first, spacing, lanes), element_bytes));
    }
    cases.add_exact("strided warps of 1..32 lanes, seed-drawn first slot and spacing, " + bytes(element_bytes),
                    partial);
  }
}

void add_broadcasts(Cases& cases, std::uint64_t seed) {
  Random random(course::probe::mix(seed, 0x0402b002ULL));
  for (const unsigned element_bytes : element_sizes) {
    const unsigned per_bank_cycle = 32 / (element_bytes / 4);  // slots s and s + this share their banks
    std::vector<long long> values;
    for (int trial = 0; trial < 16; ++trial) {
      const auto slot = static_cast<unsigned>(random.below(1u << 20));
      values.push_back(count(strided(slot, 0), element_bytes));               // all lanes one slot
      std::vector<unsigned> two(32, slot);                                    // two slots of the same banks
      for (unsigned lane = 16; lane < 32; ++lane) two[lane] = slot + per_bank_cycle * (1 + trial % 3);
      values.push_back(count(two, element_bytes));
      std::vector<unsigned> pairs;                                            // each slot read by two lanes
      for (unsigned lane = 0; lane < 32; ++lane) pairs.push_back(slot + lane / 2);
      values.push_back(count(pairs, element_bytes));
    }
    cases.add_exact("broadcasts: one slot, two slots of one bank, slots read in pairs, " + bytes(element_bytes),
                    values);
  }
}

// As the exercise's last test case builds them: per group of slots sharing their banks, a drawn number of
// distinct slots, each read by one to three lanes, then the lanes shuffled.
std::vector<unsigned> bank_by_bank(Random& random, unsigned element_bytes) {
  const unsigned groups = 32 / (element_bytes / 4);
  std::vector<unsigned> slots;
  for (unsigned group = 0; group < groups && slots.size() < 32; ++group) {
    const auto wanted = static_cast<unsigned>(random.below(5));
    for (unsigned k = 0; k < wanted && slots.size() < 32; ++k) {
      const unsigned slot = group + groups * static_cast<unsigned>(k * 7 + random.below(5) + 1);
      const auto readers = static_cast<unsigned>(1 + random.below(3));
      for (unsigned r = 0; r < readers && slots.size() < 32; ++r) slots.push_back(slot);
    }
  }
  for (std::size_t i = slots.size(); i > 1; --i) std::swap(slots[i - 1], slots[random.below(i)]);
  return slots;
}

void add_drawn_accesses(Cases& cases, std::uint64_t seed) {
  Random random(course::probe::mix(seed, 0x0402c003ULL));
  for (const unsigned element_bytes : element_sizes) {
    std::vector<long long> built, dense, sparse;
    for (int trial = 0; trial < 200; ++trial) built.push_back(count(bank_by_bank(random, element_bytes), element_bytes));
    for (int trial = 0; trial < 200; ++trial) {
      const auto lanes = static_cast<unsigned>(1 + random.below(32));
      std::vector<unsigned> few, many;
      for (unsigned lane = 0; lane < lanes; ++lane) {
        few.push_back(static_cast<unsigned>(random.below(96)));
        many.push_back(static_cast<unsigned>(random.below(1u << 24)));
      }
      dense.push_back(count(few, element_bytes));
      sparse.push_back(count(many, element_bytes));
    }
    cases.add_exact("accesses built bank by bank, shuffled lanes, 200 seed-drawn, " + bytes(element_bytes), built);
    cases.add_exact("1..32 lanes reading seed-drawn slots below 96, 200 accesses, " + bytes(element_bytes), dense);
    cases.add_exact("1..32 lanes reading seed-drawn slots below 2^24, 200 accesses, " + bytes(element_bytes), sparse);
  }
}

// The model's answer to an access it may refuse: its count, or the exception it throws.
std::string outcome(const std::vector<unsigned>& slots, unsigned element_bytes) {
  try {
    return "returns " + std::to_string(shared_wavefronts(slots, element_bytes));
  } catch (const std::invalid_argument&) {
    return "throws std::invalid_argument";
  }
}

void add_refusals(Cases& cases) {
  std::vector<std::string> values;
  for (const unsigned element_bytes : element_sizes) values.push_back(outcome({}, element_bytes));
  for (const unsigned element_bytes : {0u, 1u, 2u, 3u, 5u, 12u, 32u}) values.push_back(outcome(strided(0, 1), element_bytes));
  for (const unsigned element_bytes : element_sizes) values.push_back(outcome(strided(0, 1, 33), element_bytes));
  cases.add_exact("empty access (4/8/16 bytes); element sizes 0, 1, 2, 3, 5, 12, 32; 33 lanes (4/8/16 bytes)", values);
}

int body(int argc, char** argv) {
  const course::probe::Options options = course::probe::parse(argc, argv, "04.2", false);
  if (options.timed()) throw course::UsageError("exercise 04.2 is not timed: use --out FILE");
  Cases cases("04.2", options.seed);
  add_lesson_numbers(cases);
  add_strided(cases, options.seed);
  add_broadcasts(cases, options.seed);
  add_drawn_accesses(cases, options.seed);
  add_refusals(cases);
  cases.write(options.out);
  return course::exit_ok;
}

}  // namespace

int main(int argc, char** argv) { return course::run_main("probe_04_2", body, argc, argv); }
