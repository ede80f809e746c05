// Chapter 00's claims, as tests: every kernel computes what the CPU computes, for every size, awkward
// ones included, and writes nothing outside its output; the grid-stride kernel is right on any grid; the
// strided copy reads every element once, neighbouring threads `stride` floats apart; the launch shape
// gives every element a thread and launches no empty block (exercise 00.1); the two transposes are
// exercises 00.2 and 00.3. Claims that rest on an exercise's code are that exercise's suite: a handout's
// stubs fail them, the chapter's own runs leave them out.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "levels.hpp"
#include "options.hpp"
#include "test_support.hpp"

using namespace first_kernel;
using namespace first_kernel::testing;

TEST_CASE("the ladder is well formed: unique names, a line of what each rung teaches, a CPU reference") {
  std::set<std::string> names;
  for (const Variant& v : variants()) {
    INFO(v.name);
    CHECK(names.insert(v.name).second);
    CHECK(std::string(v.teaches).size() > 10);
    CHECK((v.shape != nullptr && v.launch != nullptr && v.bytes != nullptr && v.on_cpu != nullptr));
    Problem p;
    CHECK(v.bytes(p) > 0);
  }
  CHECK(names.size() == 7);
}

TEST_CASE("copy_strided reads every element once, neighbouring threads stride floats apart") {
  for (const unsigned n : {1u, 7u, 31u, 32u, 33u, 1000u, 4099u, 65536u})
    for (const unsigned stride : {1u, 2u, 7u, 8u, 32u, 33u, 1000u}) {
      INFO("n = ", n, ", stride = ", stride);
      std::vector<unsigned> seen(n, 0);
      for (unsigned i = 0; i < n; ++i) ++seen[strided_source(i, n, stride)];
      CHECK(std::all_of(seen.begin(), seen.end(), [](unsigned c) { return c == 1; }));
      const unsigned m = n / stride;  // rows of the table read down its columns
      for (unsigned i = 0; i + 1 < m; ++i) CHECK(strided_source(i + 1, n, stride) - strided_source(i, n, stride) == stride);
    }
}

TEST_CASE("transposing twice on the CPU gives the matrix back; copy_2d's reference is a copy") {
  for (const auto& [w, h] : awkward_matrices()) {
    Problem p;
    p.width = w;
    p.height = h;
    std::vector<float> m(p.matrix_elements()), t(m.size()), back(m.size()), copy(m.size());
    fill_random(m, w * 7919u + h);
    rung("transpose_naive").on_cpu(p, m, t);
    Problem q = p;
    std::swap(q.width, q.height);
    rung("transpose_naive").on_cpu(q, t, back);
    rung("copy_2d").on_cpu(p, m, copy);
    CHECK(back == m);
    CHECK(copy == m);
    if (w > 1 && h > 1) CHECK(t[1] == m[w]);  // out(0, 1) = in(1, 0)
  }
}

TEST_CASE("the CPU comparison finds a wrong element, a NaN, and allows saxpy one rounding") {
  const std::vector<float> a{1.0f, 2.0f, 3.0f};
  std::vector<float> b = a;
  CHECK(first_difference(a, b, true).empty());
  b[2] = std::nextafter(3.0f, 4.0f);
  CHECK(first_difference(a, b, true).find("element 2") != std::string::npos);
  CHECK(first_difference(a, b, false).empty());
  b[1] = std::nanf("");
  CHECK(!first_difference(a, b, false).empty());
}

TEST_CASE("the latency chases follow one cycle through every slot") {
  for (const std::uint32_t count : {2u, 3u, 128u, 1024u}) {
    const auto next = random_cycle(count, 5);
    std::uint32_t at = 0;
    std::set<std::uint32_t> visited;
    for (std::uint32_t k = 0; k < count; ++k) {
      visited.insert(at);
      at = next[at];
    }
    CHECK(at == 0);
    CHECK(visited.size() == count);
    CHECK(walk(next, 0, count + 3) == walk(next, 0, 3));
  }
}

TEST_CASE("bad sizes, blocks and strides are refused before the GPU") {
  auto refused = [](auto change) {
    Options opt;
    change(opt);
    CHECK_THROWS_AS(check_options(opt), course::UsageError);
  };
  refused([](Options& o) { o.n = "2^31"; });
  refused([](Options& o) { o.width = "2^16"; o.height = "2^15"; });
  refused([](Options& o) { o.width = "1"; o.height = "2^21"; });  // 65,536 blocks down the rows
  refused([](Options& o) { o.block = "100"; });
  refused([](Options& o) { o.block = "2048"; });
  refused([](Options& o) { o.block = "0x20"; });
  refused([](Options& o) { o.stride = "0"; });
  refused([](Options& o) { o.stride = "-1"; });
  refused([](Options& o) { o.stride = "1.5"; });
  refused([](Options& o) { o.stride = " 8"; });
  refused([](Options& o) { o.stride = "010"; });
  refused([](Options& o) { o.block = "1e3"; });
  CHECK(parse_decimal("1024", "--block", 32, 1024) == 1024);
}

TEST_CASE("a grid past CUDA's limits is refused, not launched") {
  CHECK_THROWS_AS(blocks_for(std::size_t{1} << 40, 32), course::UsageError);
  CHECK_THROWS_AS(blocks_for_matrix(1, 1u << 22, 32, 32), course::UsageError);  // 131,072 blocks down the rows
}

TEST_SUITE("gpu") {
  TEST_CASE("saxpy, the copies and copy_2d match the CPU for every size and write nothing outside") {
    const std::uint64_t s = seed(1);
    for (const char* name : {"saxpy", "saxpy_grid_stride", "copy_coalesced", "copy_strided"})
      for (const unsigned block : {32u, 256u, 1024u})
        for (const std::size_t n : awkward_sizes(block))
          for (const unsigned stride : {1u, 8u, 33u}) {
            if (std::string(name) != "copy_strided" && stride != 1) continue;
            Problem p;
            p.n = n;
            p.block = block;
            p.stride = stride;
            const Variant& v = rung(name);
            INFO(name, ": n = ", n, ", block = ", block, ", stride = ", stride);
            const RunOutcome r = run_against_cpu(v, p, covering_shape(v, p), s + n);
            CHECK(r.difference == "");
            CHECK(!r.wrote_outside);
          }
    for (const auto& [w, h] : awkward_matrices()) {
      Problem p;
      p.width = w;
      p.height = h;
      const Variant& v = rung("copy_2d");
      INFO("copy_2d: ", w, " x ", h);
      const RunOutcome r = run_against_cpu(v, p, covering_shape(v, p), s + w + h);
      CHECK(r.difference == "");
      CHECK(!r.wrote_outside);
    }
  }

  TEST_CASE("the grid-stride kernel is right on any grid: one block, three, as many as elements") {
    const Variant& v = rung("saxpy_grid_stride");
    for (const std::size_t n : {std::size_t{1}, std::size_t{1000}, std::size_t{100003}, (std::size_t{1} << 22) + 5})
      for (const unsigned blocks : {1u, 3u, ceil_div(n, 256)}) {
        Problem p;
        p.n = n;
        INFO("n = ", n, ", ", blocks, " blocks of 256");
        const RunOutcome r = run_against_cpu(v, p, {dim3(blocks), dim3(256)}, n + blocks);
        CHECK(r.difference == "");
        CHECK(!r.wrote_outside);
      }
  }

  TEST_CASE("the memory levels are measured, and the chases end where the cycle says") {
    int threads_per_sm = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, 0));
    const course::DeviceInfo info = course::require_device(0);
    const auto levels = measure_levels(info.sm_count, threads_per_sm, {1, 2});  // throws on a wrong end
    REQUIRE(levels.size() == 3);
    CHECK(levels[0].ns_per_load > 0);
    CHECK(levels[1].ns_per_load > 0);
    CHECK(levels[2].gbs > 0);
  }
}

TEST_SUITE("exercise 00.1") {
  TEST_CASE("blocks_for gives every element a thread, the last partial block included") {
    const std::uint64_t s = seed(101);
    for (const unsigned block : {1u, 3u, 32u, 100u, 256u, 1024u}) {
      std::vector<std::size_t> sizes = awkward_sizes(block);
      for (const std::size_t n : random_sizes(s + block, 20, std::size_t{1} << 32)) sizes.push_back(n);
      sizes.push_back(std::size_t{1} << 32);
      for (const std::size_t n : sizes) {
        if (n == 0 || n / block >= max_blocks_x) continue;  // past CUDA's grid limit blocks_for throws
        const std::size_t blocks = blocks_for(n, block);
        INFO("n = ", n, ", block = ", block, ", blocks = ", blocks);
        CHECK(blocks * block >= n);
      }
    }
  }

  TEST_CASE("blocks_for launches no block without an element") {
    const std::uint64_t s = seed(102);
    for (const unsigned block : {1u, 3u, 32u, 100u, 256u, 1024u}) {
      std::vector<std::size_t> sizes = awkward_sizes(block);
      for (const std::size_t n : random_sizes(s + block, 20, std::size_t{1} << 32)) sizes.push_back(n);
      for (const std::size_t k : {1u, 2u, 1000u}) sizes.push_back(k * block);  // block divides n
      for (const std::size_t n : sizes) {
        if (n == 0 || n / block >= max_blocks_x) continue;  // past CUDA's grid limit blocks_for throws
        const std::size_t blocks = blocks_for(n, block);
        INFO("n = ", n, ", block = ", block, ", blocks = ", blocks);
        CHECK(blocks >= 1);
        CHECK((blocks - 1) * block < n);
      }
    }
  }

  TEST_CASE("blocks_for_matrix gives every element of a matrix a thread, with no empty row or column of blocks") {
    const std::uint64_t s = seed(103);
    std::vector<std::pair<unsigned, unsigned>> shapes = awkward_matrices();
    const auto drawn = random_sizes(s, 20, 5000);
    for (std::size_t i = 0; i + 1 < drawn.size(); i += 2)
      shapes.emplace_back(static_cast<unsigned>(drawn[i]), static_cast<unsigned>(drawn[i + 1]));
    for (const auto& [w, h] : shapes)
      for (const auto& [bx, by] : std::vector<std::pair<unsigned, unsigned>>{{32, 32}, {32, 8}, {16, 16}, {1, 1}}) {
        const Blocks2D b = blocks_for_matrix(w, h, bx, by);
        INFO(w, " x ", h, " in blocks of ", bx, " x ", by, ": grid ", b.x, " x ", b.y);
        CHECK(std::size_t{b.x} * bx >= w);
        CHECK(std::size_t{b.y} * by >= h);
        CHECK(b.x >= 1);
        CHECK(b.y >= 1);
        CHECK(std::size_t{b.x - 1} * bx < w);
        CHECK(std::size_t{b.y - 1} * by < h);
      }
  }

  TEST_CASE("the host ritual and every rung give the CPU's answer on the chapter's grid (on a GPU, when there is one)") {
    if (!gpu_present_for_cpu_exercise()) return;
    const std::uint64_t s = seed(104);
    for (const std::size_t n : {std::size_t{1}, std::size_t{31}, std::size_t{33}, std::size_t{100003}}) {
      std::vector<float> x(n), y(n), expected(n);
      fill_random(x, s + n);
      fill_random(y, s + n + 1);
      for (std::size_t i = 0; i < n; ++i) expected[i] = std::fma(3.0f, x[i], y[i]);
      INFO("saxpy_on_gpu, n = ", n);
      CHECK(first_difference(saxpy_on_gpu(3.0f, x, y), expected, false) == "");
    }
    for (const Variant& v : variants()) {
      const std::string name = v.name;
      if (name == "transpose_naive" || name == "transpose_shared") continue;  // exercises 00.2 and 00.3
      Problem p;
      p.n = 70001;
      p.width = 1000;
      p.height = 999;
      p.sm_count = 4;  // a grid-stride grid smaller than the array
      p.max_threads_per_sm = 1024;
      INFO(name, " on the chapter's grid");
      const RunOutcome r = run_against_cpu(v, p, v.shape(p), s + 7);
      CHECK(r.difference == "");
      CHECK(!r.wrote_outside);
    }
  }
}

namespace {
// A transpose exercise's runs: awkward matrices and matrices drawn from the seed, each run twice on the
// same output; `claim` picks what is checked of each run.
template <class Claim>
void check_transpose(const char* name, std::uint64_t s, Claim claim) {
  std::vector<std::pair<unsigned, unsigned>> shapes = awkward_matrices();
  const auto drawn = random_sizes(s, 6, 1500);
  for (std::size_t i = 0; i + 1 < drawn.size(); i += 2)
    shapes.emplace_back(static_cast<unsigned>(drawn[i]), static_cast<unsigned>(drawn[i + 1]));
  const Variant& v = rung(name);
  for (const auto& [w, h] : shapes) {
    Problem p;
    p.width = w;
    p.height = h;
    INFO(name, ": ", w, " x ", h);
    claim(run_against_cpu(v, p, covering_shape(v, p), s + w * 31u + h, 2));
  }
}
void nothing_outside(const RunOutcome& r) { CHECK(!r.wrote_outside); }
void same_as_cpu(const RunOutcome& r) { CHECK(r.difference == ""); }
}  // namespace

// The cases run in file order: a kernel without its bounds check is named by the first one.
TEST_SUITE("exercise 00.2") {
  TEST_CASE("transpose_naive writes nothing outside its output") {
    check_transpose("transpose_naive", seed(201), nothing_outside);
  }
  TEST_CASE("transpose_naive gives the CPU transpose for every size") {
    check_transpose("transpose_naive", seed(202), same_as_cpu);
  }
}

TEST_SUITE("exercise 00.3") {
  TEST_CASE("transpose_shared writes nothing outside its output") {
    check_transpose("transpose_shared", seed(301), nothing_outside);
  }
  TEST_CASE("transpose_shared gives the CPU transpose for every size") {
    check_transpose("transpose_shared", seed(302), same_as_cpu);
  }
}
