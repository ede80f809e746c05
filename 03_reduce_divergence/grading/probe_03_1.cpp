// Grading probe of exercise 03.1 (common/probe.hpp): neighbored_less_slot (src/neighbored_less_slot.cuh,
// the student's file, through neighbored_less_slot_on_host of the chapter's library, as the tests call
// it). The task fixes the answer (pair k is added by thread k, every other thread idles), so the probe
// writes, raw and exactly:
//  - "slots": the slot every thread returns at every step, for blocks of 64 … 1024 threads (-1: idle);
//  - "tree": one block's shared memory after the whole tree has run with the rule on ints drawn from the
//    seed, the memory doubled and its upper half poisoned, so that an add into or from a slot past the
//    block shows (adds that would fall outside the doubled memory are skipped and leave a poison mark);
//  - "float tree": the block's float sum in the kernel's order, to the last bit (the same pairs give the
//    same bits).
// It judges nothing; the grader compares the values with the instructor build's for the same seed.
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "common/probe.hpp"
#include "reduce_divergence.hpp"

namespace {

using course::probe::mix;
using course::probe::Random;

constexpr unsigned blocks[] = {64, 128, 256, 512, 1024};
constexpr long long poison = -0x5a5a5a5a5a5aLL;
constexpr long long out_of_range_mark = 0x0dead0000000LL;

int body(int argc, char** argv) {
  const course::probe::Options options = course::probe::parse(argc, argv, "03.1", false);
  course::probe::Cases cases("03.1", options.seed);

  for (const unsigned block : blocks) {
    std::vector<long long> slots;
    for (unsigned stride = 1; stride < block; stride *= 2)
      for (unsigned tid = 0; tid < block; ++tid) slots.push_back(reduce::neighbored_less_slot_on_host(tid, stride, block));
    cases.add_exact("slots block=" + std::to_string(block) + " every stride, every thread", slots);
  }

  for (const unsigned block : blocks) {
    Random random(mix(options.seed, block));
    // The tree on ints, in the kernel's order (the pairs of one step are disjoint, so one thread after
    // another gives what the block gives).
    std::vector<long long> s(2 * std::size_t{block}, poison);
    for (unsigned i = 0; i < block; ++i) s[i] = static_cast<long long>(random.below(1u << 31)) - (1LL << 30);
    std::vector<float> f(block);
    for (auto& x : f) x = static_cast<float>(random.uniform(-1.0, 1.25));
    std::vector<long long> skipped;
    for (unsigned stride = 1; stride < block; stride *= 2)
      for (unsigned tid = 0; tid < block; ++tid) {
        const int slot = reduce::neighbored_less_slot_on_host(tid, stride, block);
        if (slot < 0) continue;
        const std::size_t into = static_cast<std::size_t>(slot);
        if (into + stride >= s.size()) {
          skipped.push_back(static_cast<long long>(tid) * 4096 + stride);  // outside even the doubled memory
          continue;
        }
        s[into] += s[into + stride];
        if (into + stride < block) f[into] += f[into + stride];
      }
    s.push_back(out_of_range_mark * static_cast<long long>(skipped.size()));
    cases.add_exact("tree block=" + std::to_string(block) + " ints drawn from the seed, memory doubled and poisoned", s);
    cases.add_exact("tree block=" + std::to_string(block) + " adds outside the doubled memory (thread*4096+stride)",
                    skipped);
    cases.add("float tree block=" + std::to_string(block) + " floats drawn from the seed: s[0]", std::vector<float>{f[0]},
              course::probe::Tolerance::exact());
  }
  cases.write(options.out);
  return course::exit_ok;
}

}  // namespace

int main(int argc, char** argv) { return course::run_main("probe_03_1", body, argc, argv); }
