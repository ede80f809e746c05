// Chapter 02's latency probe: the random cycle is one cycle through every line (else the chase would
// loop in a few cached lines and time the cache), the host's walk that checks the GPU, the options, and
// the GPU chase ending where the walk does, on awkward line counts.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/device.cuh"
#include "common/errors.hpp"
#include "latency.cuh"
#include "latency.hpp"

using namespace bandwidth;

namespace {
/// The length of the cycle through line 0, and whether it visits every line exactly once.
std::size_t cycle_length(const std::vector<std::uint32_t>& next) {
  std::vector<bool> seen(next.size(), false);
  std::uint32_t line = 0;
  std::size_t length = 0;
  while (!seen[line]) {
    seen[line] = true;
    line = next[line];
    ++length;
  }
  return line == 0 ? length : 0;  // 0: the walk fell into a cycle that skips line 0
}
}  // namespace

TEST_CASE("random_cycle is one cycle through every line, for awkward counts, and depends on its seed") {
  for (const std::size_t lines : {std::size_t{1}, std::size_t{2}, std::size_t{31}, std::size_t{33},
                                  std::size_t{1000}, std::size_t{65537}}) {
    const std::vector<std::uint32_t> next = random_cycle(lines, 7);
    REQUIRE(next.size() == lines);
    INFO("lines ", lines);
    CHECK(cycle_length(next) == lines);
    for (std::size_t i = 0; i < lines && lines > 1; ++i) CHECK(next[i] != i);  // no line points to itself
  }
  CHECK(random_cycle(1000, 7) == random_cycle(1000, 7));
  CHECK(random_cycle(1000, 7) != random_cycle(1000, 8));
  // Not the identity shifted by one: a stride a prefetcher could follow would time the prefetcher.
  const std::vector<std::uint32_t> next = random_cycle(4096, 1);
  std::size_t sequential = 0;
  for (std::size_t i = 0; i < next.size(); ++i) sequential += next[i] == (i + 1) % next.size();
  CHECK(sequential < 16);
  CHECK_THROWS_AS(random_cycle(0, 1), std::invalid_argument);
}

TEST_CASE("walk follows the cycle: steps that go round it come back, partial steps land where counted") {
  const std::vector<std::uint32_t> next = random_cycle(33, 3);
  CHECK(walk(next, 0, 0) == 0);
  CHECK(walk(next, 0, 1) == next[0]);
  CHECK(walk(next, 0, 2) == next[next[0]]);
  CHECK(walk(next, 0, 33) == 0);
  CHECK(walk(next, 0, 33 * 5 + 2) == walk(next, 0, 2));
}

TEST_CASE("--footprints and --loads: multiples of a line, within the limits, else a usage error") {
  CHECK(parse_footprints({"4MiB", "128", "1GiB"}) ==
        std::vector<std::uint64_t>{std::uint64_t{4} << 20, 128, std::uint64_t{1} << 30});
  CHECK_THROWS_AS(parse_footprints({"100"}), course::UsageError);
  CHECK_THROWS_AS(parse_footprints({"1TiB"}), course::UsageError);
  CHECK_THROWS_AS(parse_footprints({"0"}), course::UsageError);
  CHECK_NOTHROW(check_loads(1));
  CHECK_NOTHROW(check_loads(latency_max_loads));
  CHECK_THROWS_AS(check_loads(0), course::UsageError);
  CHECK_THROWS_AS(check_loads(latency_max_loads + 1), course::UsageError);
}

TEST_SUITE("gpu") {
  TEST_CASE("the GPU's chase ends on the line the host's walk of the same cycle gives") {
    for (const std::size_t lines : {std::size_t{1}, std::size_t{33}, std::size_t{4097}}) {
      PointerChase chase(lines * latency_line_bytes, 11);
      REQUIRE(chase.lines() == lines);
      const std::vector<std::uint32_t> next = random_cycle(lines, 11);
      CHECK(chase.position() == 0);
      std::uint64_t walked = 0;  // each chase goes on from where the last one stopped
      for (const std::uint64_t loads : {std::uint64_t{1}, std::uint64_t{31}, std::uint64_t{5000}}) {
        chase.launch(loads, nullptr);
        walked += loads;
        INFO("lines ", lines, ", loads ", loads);
        CHECK(chase.position() == walk(next, 0, walked));
      }
      // The timed path checks its own answer and reports a positive time per load.
      const course::Stats ns = chase.time_ns_per_load(1000, {1, 2});
      CHECK(ns.count == 2);
      CHECK(ns.median > 0);
    }
  }
}
