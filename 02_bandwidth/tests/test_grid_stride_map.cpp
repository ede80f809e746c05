// Exercise 02.1 on the CPU: grid_stride_vector (src/grid_stride_map.hpp), the index arithmetic of the
// naive grid-stride copy. Every (block, thread, trip) of a launch is walked as the kernel's loop walks
// it, without a GPU: every int4 copied once, each thread's indices growing, a warp's 32 threads on 32
// neighbouring int4s (coalesced), and no overflow at lengths far past any GPU's memory. The kernel's own
// output is checked on a GPU by the exercise's GPU case (test_copies.cu).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "exercise_inputs.hpp"
#include "grid_stride_map.hpp"

using bandwidth::grid_stride_vector;
using bandwidth::warp_size;

namespace {

struct Shape {
  std::size_t blocks, threads;
};

std::string describe(Shape g, std::size_t n) {
  std::ostringstream out;
  out << "grid of " << g.blocks << " blocks x " << g.threads << " threads, " << n << " int4s";
  return out.str();
}

// Walks every thread's loop as the kernel does and returns "" when every index in [0, n) was copied
// exactly once and each thread's indices grew, else what went wrong first. A thread that has not passed
// the end after n + 1 trips would loop for ever: that is reported too.
std::string walk(Shape g, std::size_t n) {
  std::vector<unsigned char> hits(n, 0);
  for (std::size_t b = 0; b < g.blocks; ++b)
    for (std::size_t t = 0; t < g.threads; ++t) {
      std::size_t previous = 0;
      for (std::size_t trip = 0;; ++trip) {
        if (trip > n) return describe(g, n) + ": block " + std::to_string(b) + " thread " + std::to_string(t) +
                             " never passes the end (its loop would not stop)";
        const std::size_t i = grid_stride_vector(b, t, trip, g.blocks, g.threads, n);
        if (i >= n) break;
        if (trip > 0 && i <= previous)
          return describe(g, n) + ": block " + std::to_string(b) + " thread " + std::to_string(t) + " goes from int4 " +
                 std::to_string(previous) + " on trip " + std::to_string(trip - 1) + " to " + std::to_string(i) +
                 " on trip " + std::to_string(trip) + ": a thread's indices must grow";
        if (hits[i]++ != 0)
          return describe(g, n) + ": int4 " + std::to_string(i) + " is copied twice (again by block " +
                 std::to_string(b) + " thread " + std::to_string(t) + " on trip " + std::to_string(trip) + ")";
        previous = i;
      }
    }
  const auto missed = std::find(hits.begin(), hits.end(), 0);
  if (missed != hits.end())
    return describe(g, n) + ": int4 " + std::to_string(missed - hits.begin()) + " is never copied";
  return "";
}

// The 128-byte lines that the 16-byte accesses at these int4 indices touch: what one warp-wide load
// instruction costs the memory system.
std::size_t lines_touched(const std::vector<std::size_t>& indices) {
  std::set<std::size_t> lines;
  for (const std::size_t i : indices) lines.insert(i * 16 / 128);
  return lines.size();
}

// "" when, on trips [first_trip, last_trip], every warp whose 32 indices are all below n has them
// consecutive, lane 0 the lowest; else the first warp that is not, with the lines it touches.
std::string check_coalesced(Shape g, std::size_t n, std::size_t first_trip, std::size_t last_trip,
                            const std::vector<std::size_t>& blocks) {
  for (const std::size_t b : blocks)
    for (std::size_t w = 0; w + warp_size <= g.threads; w += warp_size)
      for (std::size_t trip = first_trip; trip <= last_trip; ++trip) {
        std::vector<std::size_t> idx;
        for (std::size_t lane = 0; lane < warp_size; ++lane)
          idx.push_back(grid_stride_vector(b, w + lane, trip, g.blocks, g.threads, n));
        if (std::any_of(idx.begin(), idx.end(), [&](std::size_t i) { return i >= n; })) continue;
        for (std::size_t lane = 1; lane < warp_size; ++lane)
          if (idx[lane] != idx[0] + lane)
            return describe(g, n) + ": on trip " + std::to_string(trip) + " the warp of threads " + std::to_string(w) +
                   "-" + std::to_string(w + warp_size - 1) + " of block " + std::to_string(b) + " copies int4 " +
                   std::to_string(idx[0]) + " in lane 0 and " + std::to_string(idx[lane]) + " in lane " +
                   std::to_string(lane) + ": its load touches " + std::to_string(lines_touched(idx)) +
                   " 128-byte lines, where 32 neighbouring int4s touch 4";
      }
  return "";
}

// Grid shapes: one block, one warp, odd block counts, block sizes that are not powers of two (and, for
// the coverage walk only, not whole warps), and an H100-like grid of 8 blocks of 256 per SM.
const std::vector<Shape> shapes = {{1, 32}, {1, 256}, {2, 32}, {3, 96}, {7, 64}, {5, 1024}, {132 * 8, 256}};
const std::vector<Shape> odd_shapes = {{1, 1}, {4, 33}, {3, 100}};

// Lengths around the edges of one grid-wide trip, and a few more drawn from the grader's seed.
std::vector<std::size_t> lengths(Shape g, std::mt19937_64& rng) {
  const std::size_t trip = g.blocks * g.threads;
  std::vector<std::size_t> out = {0, 1, 31, 32, 33, 255, 257, trip - 1, trip, trip + 1, 3 * trip + 17};
  for (int k = 0; k < 3; ++k) out.push_back(rng() % (4 * trip + 1000));
  return out;
}

}  // namespace

TEST_SUITE("exercise 02.1") {
  TEST_CASE("grid_stride_vector copies every int4 exactly once and each thread's indices grow, for awkward lengths and grid shapes") {
    std::mt19937_64 rng(bandwidth::exercise_inputs::seed(2026) ^ 0x62d1ull);
    std::vector<Shape> all = shapes;
    all.insert(all.end(), odd_shapes.begin(), odd_shapes.end());
    for (const Shape g : all)
      for (const std::size_t n : lengths(g, rng)) {
        const std::string problem = walk(g, n);
        INFO(problem);
        REQUIRE(problem.empty());
      }
  }

  TEST_CASE("grid_stride_vector is coalesced: on every trip a warp's 32 threads copy 32 neighbouring int4s") {
    std::mt19937_64 rng(bandwidth::exercise_inputs::seed(2026) ^ 0xc0a1ull);
    for (const Shape g : shapes)
      for (const std::size_t n : lengths(g, rng)) {
        std::vector<std::size_t> blocks;
        for (std::size_t b = 0; b < std::min<std::size_t>(g.blocks, 9); ++b) blocks.push_back(b);
        blocks.push_back(g.blocks - 1);
        const std::size_t trips = n / (g.blocks * g.threads) + 1;
        const std::string problem = check_coalesced(g, n, 0, trips, blocks);
        INFO(problem);
        REQUIRE(problem.empty());
      }
  }

  TEST_CASE("grid_stride_vector holds for lengths up to 2^58: indices grow and warps stay coalesced, no overflow") {
    // Far more int4s than any GPU holds: the arithmetic must stay in 64 bits. Trips are sampled (a walk
    // would take for ever), densely where a 32-bit index would wrap and near the end.
    const Shape g{132 * 8, 256};
    const std::size_t bt = g.blocks * g.threads;
    std::mt19937_64 rng(bandwidth::exercise_inputs::seed(2026) ^ 0xb16ull);
    for (const std::size_t n : {(std::size_t{1} << 32) + 5, (std::size_t{1} << 40) + 3, (std::size_t{1} << 58) - 1}) {
      const std::size_t last = n / bt;  // a trip every thread reaches or passes
      std::vector<std::size_t> trips = {0, 1, (std::size_t{1} << 32) / bt - 1, (std::size_t{1} << 32) / bt,
                                        (std::size_t{1} << 32) / bt + 1, last - 2, last - 1};
      for (int k = 0; k < 8; ++k) trips.push_back(rng() % last);
      for (const std::size_t trip : trips) {
        if (trip + 1 > last) continue;
        for (const std::size_t b : {std::size_t{0}, std::size_t{1}, g.blocks / 2, g.blocks - 1})
          for (const std::size_t t : {std::size_t{0}, std::size_t{31}, std::size_t{32}, g.threads - 1}) {
            const std::size_t now = grid_stride_vector(b, t, trip, g.blocks, g.threads, n);
            const std::size_t next = grid_stride_vector(b, t, trip + 1, g.blocks, g.threads, n);
            INFO(describe(g, n) << ": block " << b << " thread " << t << " copies int4 " << now << " on trip " << trip
                                << " and " << next << " on trip " << trip + 1);
            if (now < n) REQUIRE(next > now);  // a wrapped index would fall back to a small one
          }
        const std::string problem = check_coalesced(g, n, trip, trip, {0, g.blocks - 1});
        INFO(problem);
        REQUIRE(problem.empty());
      }
    }
  }
}
