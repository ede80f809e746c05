// Grading probe of exercise 02.1 (common/probe.hpp): grid_stride_vector (src/grid_stride_map.hpp, the
// student's file, included as the tests and the naive rung include it) walked on the CPU as the kernel's
// loop walks it, on grids and lengths drawn from the grader's seed. It judges nothing: it writes raw
// outputs, and the grader compares them with the instructor build's for the same seed.
//
// The contract admits more than one mapping (any order of the grid's warps over the trips is correct), so
// the probe writes what every correct mapping shares, never the indices themselves:
//  - "copy": the destination after the walk has copied a random source into a poisoned destination. A
//    correct mapping leaves exactly the source; an int4 never copied stays -1, one copied twice becomes
//    -2, one reached by a thread whose indices did not grow becomes -3. Small lengths are written whole;
//    long ones at the edges, at places drawn from the seed, and as a 64-bit fingerprint of every element.
//  - "coalesced": for sampled (block, warp, trip), the largest distance of a lane's index from
//    (lane 0's index + lane), 0 for a warp on 32 neighbouring int4s (warps with a lane past the end: 0).
//  - "huge": at lengths up to 2^58, sampled trips: whether each sampled thread's next index grows, and the
//    same coalescing distance.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "common/probe.hpp"
#include "grid_stride_map.hpp"

namespace {

using bandwidth::grid_stride_vector;
using course::probe::mix;
using course::probe::Random;
constexpr std::size_t warp = bandwidth::warp_size;

struct Shape {
  std::size_t blocks, threads;
};

std::string label(Shape g, std::size_t n) {
  return "blocks=" + std::to_string(g.blocks) + " threads=" + std::to_string(g.threads) + " n=" + std::to_string(n);
}

constexpr long long never_copied = -1, copied_twice = -2, index_not_growing = -3;

// The kernel's loop for every thread of the grid, copying src into a poisoned destination.
std::vector<long long> walk(Shape g, std::size_t n, const std::vector<long long>& src) {
  std::vector<long long> dst(n, never_copied);
  for (std::size_t b = 0; b < g.blocks; ++b)
    for (std::size_t t = 0; t < g.threads; ++t) {
      std::size_t previous = 0;
      // A thread still below the end after n + 1 trips has copied some int4 twice (pigeonhole): stop it.
      for (std::size_t trip = 0; trip <= n + 1; ++trip) {
        const std::size_t i = grid_stride_vector(b, t, trip, g.blocks, g.threads, n);
        if (i >= n) break;
        dst[i] = dst[i] == never_copied ? src[i] : copied_twice;
        if (trip > 0 && i <= previous) dst[i] = index_not_growing;
        previous = i;
      }
    }
  return dst;
}

// 0 when the warp's lanes are on 32 neighbouring int4s, lane 0 the lowest (or a lane is past the end),
// else the largest distance of a lane from where it should be.
long long warp_distance(Shape g, std::size_t n, std::size_t b, std::size_t w, std::size_t trip) {
  std::size_t idx[warp];
  for (std::size_t lane = 0; lane < warp; ++lane) {
    idx[lane] = grid_stride_vector(b, w + lane, trip, g.blocks, g.threads, n);
    if (idx[lane] >= n) return 0;
  }
  std::size_t worst = 0;
  for (std::size_t lane = 1; lane < warp; ++lane) {
    const std::size_t want = idx[0] + lane;
    worst = std::max(worst, idx[lane] > want ? idx[lane] - want : want - idx[lane]);
  }
  return static_cast<long long>(std::min<std::size_t>(worst, std::size_t{1} << 62));
}

void add_copy_case(course::probe::Cases& cases, Shape g, std::size_t n, std::uint64_t seed) {
  Random random(mix(seed, mix(g.blocks * 4099 + g.threads, n)));
  std::vector<long long> src(n);
  for (auto& v : src) v = static_cast<long long>(random.next() >> 24);  // 40 bits, never negative
  const std::vector<long long> dst = walk(g, n, src);
  if (n <= 4096) {
    cases.add_exact("copy " + label(g, n), dst);
    return;
  }
  std::vector<long long> sampled(dst.begin(), dst.begin() + 64);
  sampled.insert(sampled.end(), dst.end() - 64, dst.end());
  for (int k = 0; k < 1024; ++k) sampled.push_back(dst[random.below(n)]);
  std::uint64_t fingerprint = mix(n, 0x636f7079);
  for (const long long v : dst) fingerprint = mix(fingerprint, static_cast<std::uint64_t>(v));
  sampled.push_back(static_cast<long long>(fingerprint >> 1));
  cases.add_exact("copy " + label(g, n) + " (edges, 1024 drawn places, fingerprint)", sampled);
}

void add_coalesced_case(course::probe::Cases& cases, Shape g, std::size_t n) {
  std::vector<std::size_t> blocks;
  for (std::size_t b = 0; b < std::min<std::size_t>(g.blocks, 9); ++b) blocks.push_back(b);
  blocks.push_back(g.blocks - 1);
  const std::size_t warps = g.threads / warp;
  std::vector<std::size_t> sampled_warps = {0, std::min<std::size_t>(1, warps - 1), warps / 2, warps - 1};
  std::sort(sampled_warps.begin(), sampled_warps.end());
  sampled_warps.erase(std::unique(sampled_warps.begin(), sampled_warps.end()), sampled_warps.end());
  const std::size_t trips = n / (g.blocks * g.threads) + 1;
  std::vector<long long> distances;
  for (const std::size_t b : blocks)
    for (const std::size_t w : sampled_warps)
      for (std::size_t trip = 0; trip <= trips; ++trip) distances.push_back(warp_distance(g, n, b, w * warp, trip));
  cases.add_exact("coalesced " + label(g, n), distances);
}

std::vector<std::size_t> lengths(Shape g, Random& random) {
  const std::size_t trip = g.blocks * g.threads;
  std::vector<std::size_t> out = {0, 1, 31, 32, 33, 255, 257, trip - 1, trip, trip + 1, 3 * trip + 17};
  for (int k = 0; k < 3; ++k) out.push_back(random.below(4 * trip + 1000));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

int body(int argc, char** argv) {
  const course::probe::Options options = course::probe::parse(argc, argv, "02.1", false);
  course::probe::Cases cases("02.1", options.seed);
  Random random(mix(options.seed, 0x0201));

  // The tests' grids (whole warps: coalescing is checked; not whole warps: coverage only), and two drawn.
  std::vector<Shape> warp_shapes = {{1, 32}, {1, 256}, {2, 32}, {3, 96}, {7, 64}, {5, 1024}, {132 * 8, 256}};
  warp_shapes.push_back({1 + random.below(40), 32 * (1 + random.below(16))});
  std::vector<Shape> odd_shapes = {{1, 1}, {4, 33}, {3, 100}};
  odd_shapes.push_back({1 + random.below(20), 1 + random.below(300)});

  for (const Shape g : warp_shapes)
    for (const std::size_t n : lengths(g, random)) {
      add_copy_case(cases, g, n, options.seed);
      add_coalesced_case(cases, g, n);
    }
  for (const Shape g : odd_shapes)
    for (const std::size_t n : lengths(g, random)) add_copy_case(cases, g, n, options.seed);

  // Lengths far past any GPU's memory: sampled trips (where a 32-bit index would wrap, near the end, and
  // drawn ones) must keep growing and stay coalesced.
  const Shape g{132 * 8, 256};
  const std::size_t bt = g.blocks * g.threads;
  for (const std::size_t n : {(std::size_t{1} << 32) + 5, (std::size_t{1} << 40) + 3, (std::size_t{1} << 58) - 1}) {
    const std::size_t last = n / bt;
    std::vector<std::size_t> trips = {0, 1, (std::size_t{1} << 32) / bt - 1, (std::size_t{1} << 32) / bt,
                                      (std::size_t{1} << 32) / bt + 1, last - 2, last - 1};
    for (int k = 0; k < 8; ++k) trips.push_back(random.below(last - 1));
    std::vector<long long> grows, distances;
    for (const std::size_t trip : trips) {
      for (const std::size_t b : {std::size_t{0}, std::size_t{1}, g.blocks / 2, g.blocks - 1})
        for (const std::size_t t : {std::size_t{0}, std::size_t{31}, std::size_t{32}, g.threads - 1}) {
          const std::size_t now = grid_stride_vector(b, t, trip, g.blocks, g.threads, n);
          const std::size_t next = grid_stride_vector(b, t, trip + 1, g.blocks, g.threads, n);
          grows.push_back(now >= n || next > now ? 1 : 0);
        }
      for (const std::size_t b : {std::size_t{0}, g.blocks - 1})
        for (std::size_t w = 0; w < g.threads; w += warp) distances.push_back(warp_distance(g, n, b, w, trip));
    }
    cases.add_exact("huge n=" + std::to_string(n) + ": sampled threads' next index grows", grows);
    cases.add_exact("huge n=" + std::to_string(n) + ": sampled warps' coalescing distance", distances);
  }
  cases.write(options.out);
  return course::exit_ok;
}

}  // namespace

int main(int argc, char** argv) { return course::run_main("probe_02_1", body, argc, argv); }
