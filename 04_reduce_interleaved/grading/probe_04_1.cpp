// Grading probe of exercise 04.1 (issue 30; common/include/common/probe.hpp): the raw facts of the
// student's interleaved_pair rule, which the grader compares with the answer's for the same seed.
//
// Several rules are correct (a warp may read its run of slots in either order, s[tid] += s[2·stride − 1 − tid]
// folds as well as s[tid] += s[tid + stride]), so the probe writes only what every correct rule shares:
//  - the fold itself: the interleaved kernel's loop (interleaved.cu) run on the CPU with the rule, on random
//    64-bit values drawn from the seed, under three schedules of one step's threads (all reads before the
//    writes, threads in order, threads in reverse). A rule that folds a slot twice or never, reads or writes
//    outside the block, or lets one thread read a slot another writes in the same step ends with another
//    s[0] in at least one schedule (out-of-block reads see a poison value);
//  - the busy threads of every step (0 … stride − 1 for every correct rule; the handout's even threads are
//    not);
//  - each busy warp's source and destination slots, sorted and counted from their smallest: 0 … lanes − 1
//    when the warp reads and writes one run of consecutive slots, in any order;
//  - the global sectors of 32 bytes that warp 0's loads and stores touch on ints, in place (the book's
//    kernels), at strides 32 … 512: what the exercise's third test case counts.
// CPU only: the kernel adds exactly these pairs, so its sums follow from the fold above.
#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "common/probe.hpp"
#include "interleaved_pair.cuh"

namespace {

using course::probe::Cases;
using reduce::interleaved_pair;
using reduce::SlotPair;

constexpr unsigned blocks[] = {64, 128, 256, 512, 1024};
constexpr int data_sets = 4;  // random value sets folded per block size and schedule

enum class Schedule { lockstep, in_order, reversed };
const char* schedule_name(Schedule schedule) {
  switch (schedule) {
    case Schedule::lockstep: return "all reads before the writes";
    case Schedule::in_order: return "threads in order";
    case Schedule::reversed: return "threads in reverse order";
  }
  return "";
}

// The kernel's loop, `for (stride = block/2; stride > 0; stride /= 2) s[dst] += s[src]`, with the step's
// threads run in `schedule`. Unsigned arithmetic: wrapping, never undefined, whatever the rule reads.
std::uint64_t fold(std::vector<std::uint64_t> s, unsigned block, Schedule schedule, std::uint64_t poison) {
  const auto read = [&](int slot) { return slot >= 0 && slot < static_cast<int>(block) ? s[slot] : poison; };
  for (unsigned stride = block / 2; stride > 0; stride /= 2) {
    std::vector<SlotPair> pairs(block);
    for (unsigned tid = 0; tid < block; ++tid) pairs[tid] = interleaved_pair(tid, stride);
    if (schedule == Schedule::lockstep) {
      std::vector<std::uint64_t> sums(block);
      for (unsigned tid = 0; tid < block; ++tid)
        if (pairs[tid].dst >= 0) sums[tid] = read(pairs[tid].dst) + read(pairs[tid].src);
      for (unsigned tid = 0; tid < block; ++tid)
        if (pairs[tid].dst >= 0 && pairs[tid].dst < static_cast<int>(block)) s[pairs[tid].dst] = sums[tid];
    } else {
      for (unsigned k = 0; k < block; ++k) {
        const unsigned tid = schedule == Schedule::in_order ? k : block - 1 - k;
        const SlotPair p = pairs[tid];
        if (p.dst < 0) continue;
        const std::uint64_t sum = read(p.dst) + read(p.src);
        if (p.dst < static_cast<int>(block)) s[p.dst] = sum;
      }
    }
  }
  return s[0];
}

void add_folds(Cases& cases, std::uint64_t seed) {
  course::probe::Random random(course::probe::mix(seed, 0x0401f01dULL));
  const std::uint64_t poison = random.next() | 1;
  for (const unsigned block : blocks) {
    std::vector<std::vector<std::uint64_t>> sets(data_sets, std::vector<std::uint64_t>(block));
    for (auto& set : sets)
      for (auto& value : set) value = random.next() >> 20;  // 44-bit values: no slot is zero by chance
    for (const Schedule schedule : {Schedule::lockstep, Schedule::in_order, Schedule::reversed}) {
      std::vector<long long> results;
      for (const auto& set : sets) results.push_back(static_cast<long long>(fold(set, block, schedule, poison)));
      cases.add_exact("fold: s[0] after the tree, block " + std::to_string(block) + ", " + schedule_name(schedule) +
                          ", " + std::to_string(data_sets) + " random sets",
                      results);
    }
  }
}

void add_busy_threads(Cases& cases) {
  for (const unsigned block : blocks)
    for (unsigned stride = block / 2; stride > 0; stride /= 2) {
      std::vector<long long> busy;
      for (unsigned tid = 0; tid < block; ++tid)
        if (interleaved_pair(tid, stride).dst >= 0) busy.push_back(tid);
      cases.add_exact("busy threads, block " + std::to_string(block) + ", stride " + std::to_string(stride), busy);
    }
}

// Per warp with a busy thread: warp index, busy lanes, then its sources and its destinations, each sorted
// and counted from the smallest.
void add_warp_slots(Cases& cases) {
  for (const unsigned block : blocks)
    for (unsigned stride = block / 2; stride > 0; stride /= 2) {
      std::vector<long long> values;
      for (unsigned warp = 0; warp < block / 32; ++warp) {
        std::vector<long long> sources, destinations;
        for (unsigned lane = 0; lane < 32; ++lane) {
          const SlotPair p = interleaved_pair(warp * 32 + lane, stride);
          if (p.dst < 0) continue;
          sources.push_back(p.src);
          destinations.push_back(p.dst);
        }
        if (sources.empty()) continue;
        values.push_back(warp);
        values.push_back(static_cast<long long>(sources.size()));
        for (auto* slots : {&sources, &destinations}) {
          std::sort(slots->begin(), slots->end());
          const long long first = slots->front();
          for (const long long slot : *slots) values.push_back(slot - first);
        }
      }
      cases.add_exact("busy warps' sorted source and destination slots, block " + std::to_string(block) +
                          ", stride " + std::to_string(stride),
                      values);
    }
}

long long sectors_of(const std::vector<long long>& ints) {
  std::set<long long> sectors;
  for (const long long i : ints) sectors.insert(i >= 0 ? i * 4 / 32 : -1 - (-i * 4) / 32);
  return static_cast<long long>(sectors.size());
}

void add_global_sectors(Cases& cases) {
  std::vector<long long> values;
  for (unsigned stride = 32; stride <= 512; stride *= 2) {
    std::vector<long long> destinations, sources;
    for (unsigned lane = 0; lane < 32; ++lane) {
      const SlotPair p = interleaved_pair(lane, stride);
      if (p.dst < 0) continue;  // an idle lane shows as fewer slots, hence (most likely) another count
      destinations.push_back(p.dst);
      sources.push_back(p.src);
    }
    values.push_back(static_cast<long long>(destinations.size()));
    values.push_back(sectors_of(destinations));
    values.push_back(sectors_of(sources));
  }
  cases.add_exact("warp 0 on global ints in place, strides 32..512: busy lanes, store sectors, load sectors", values);
}

int body(int argc, char** argv) {
  const course::probe::Options options = course::probe::parse(argc, argv, "04.1", false);
  if (options.timed()) throw course::UsageError("exercise 04.1 is not timed: use --out FILE");
  Cases cases("04.1", options.seed);
  add_folds(cases, options.seed);
  add_busy_threads(cases);
  add_warp_slots(cases);
  add_global_sectors(cases);
  cases.write(options.out);
  return course::exit_ok;
}

}  // namespace

int main(int argc, char** argv) { return course::run_main("probe_04_1", body, argc, argv); }
