// The halo index math (the lab's part): checked on the CPU for thousands of (ny, slabs), and by a CPU
// simulation split into slabs that must equal the unsplit one bit for bit.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <vector>

#include "common/errors.hpp"
#include "decomposition.hpp"
#include "physics.hpp"
#include "stencil.hpp"

using namespace wave;

TEST_CASE("slabs cover every row once, in order, with sizes differing by at most one") {
  for (int ny = 1; ny <= 300; ++ny)
    for (int slabs = 1; slabs <= std::min(ny, 17); ++slabs) {
      int expected_begin = 0, smallest = ny, largest = 0;
      for (int s = 0; s < slabs; ++s) {
        const RowRange r = slab_rows(ny, slabs, s);
        INFO("ny " << ny << ", slabs " << slabs << ", slab " << s);
        REQUIRE(r.begin == expected_begin);
        REQUIRE(r.size() >= 1);
        expected_begin = r.end;
        smallest = std::min(smallest, r.size());
        largest = std::max(largest, r.size());
      }
      INFO("ny " << ny << ", slabs " << slabs);
      REQUIRE(expected_begin == ny);
      REQUIRE(largest - smallest <= 1);
    }
  // Large grids: no overflow in the index math.
  CHECK(slab_rows(1 << 19, 4096, 4095).end == 1 << 19);
  CHECK(slab_rows(1 << 19, 4096, 2048).begin == 1 << 18);
}

TEST_CASE("every inner ghost row receives exactly the global row it stands for") {
  for (int ny = 4; ny <= 200; ny += 3)
    for (int slabs = 1; slabs <= 9 && ny / slabs >= halo; ++slabs) {
      std::map<std::pair<int, int>, int> filled;  // (slab, local ghost row) -> times written
      for (const HaloCopy& c : halo_copies(ny, slabs)) {
        INFO("ny " << ny << ", slabs " << slabs << ", copy " << c.from_slab << " -> " << c.to_slab);
        REQUIRE(c.from_slab >= 0);
        REQUIRE(c.from_slab < slabs);
        REQUIRE(std::abs(c.to_slab - c.from_slab) == 1);
        REQUIRE(c.rows == halo);
        const RowRange from = slab_rows(ny, slabs, c.from_slab), to = slab_rows(ny, slabs, c.to_slab);
        for (int i = 0; i < c.rows; ++i) {
          REQUIRE(c.from_row + i >= 0);            // the sender owns the rows it sends
          REQUIRE(c.from_row + i < from.size());
          const int ghost = c.to_row + i;          // the receiver's ghost rows only
          REQUIRE((ghost < 0 || ghost >= to.size()));
          REQUIRE(ghost >= -halo);
          REQUIRE(ghost < to.size() + halo);
          REQUIRE(from.begin + c.from_row + i == to.begin + ghost);  // the same global row
          ++filled[{c.to_slab, ghost}];
        }
      }
      // Each slab's ghost rows inside the grid are filled once; those past the grid edge never.
      for (int s = 0; s < slabs; ++s) {
        const RowRange r = slab_rows(ny, slabs, s);
        for (int g = -halo; g < r.size() + halo; ++g) {
          if (g >= 0 && g < r.size()) continue;
          const int global = r.begin + g;
          const int expected = global >= 0 && global < ny ? 1 : 0;
          INFO("ny " << ny << ", slabs " << slabs << ", slab " << s << ", ghost row " << g);
          REQUIRE(filled[{s, g}] == expected);
        }
      }
    }
}

TEST_CASE("the step regions cover a slab's rows once, halo rows first") {
  for (int rows = 1; rows <= 30; ++rows) {
    const StepRegions r = split_rows(rows);
    CHECK(r.top.begin == 0);
    CHECK(r.top.end == r.interior.begin);
    CHECK(r.interior.end == r.bottom.begin);
    CHECK(r.bottom.end == rows);
    CHECK(r.interior.size() >= 0);
    // The interior reads no ghost row: it starts `halo` rows in and ends `halo` rows before the end.
    if (r.interior.size() > 0) {
      CHECK(r.interior.begin >= halo);
      CHECK(r.interior.end <= rows - halo);
    }
  }
}

TEST_CASE("decompositions with slabs thinner than the halo are refused") {
  CHECK_NOTHROW(validate_decomposition(16, 4));
  CHECK_THROWS_AS(validate_decomposition(15, 4), course::UsageError);
  CHECK_THROWS_AS(validate_decomposition(10, 0), course::UsageError);
  CHECK_THROWS_AS(validate_decomposition(3, 5), course::UsageError);
  CHECK_NOTHROW(validate_decomposition(1, 1));
}

TEST_CASE("slabs map to devices in contiguous groups that use every device") {
  for (int devices = 1; devices <= 8; ++devices)
    for (int slabs = devices; slabs <= 20; ++slabs) {
      int previous = 0;
      std::vector<int> used(static_cast<std::size_t>(devices), 0);
      for (int s = 0; s < slabs; ++s) {
        const int d = device_of_slab(s, slabs, devices);
        REQUIRE(d >= previous);
        REQUIRE(d < devices);
        previous = d;
        ++used[static_cast<std::size_t>(d)];
      }
      for (int u : used) REQUIRE(u >= 1);
    }
}

TEST_CASE("a CPU simulation split into slabs equals the unsplit one bit for bit") {
  for (const auto& [nx, ny, slabs] : {std::tuple{23, 41, 2}, std::tuple{17, 50, 3}, std::tuple{9, 37, 7},
                                      std::tuple{30, 16, 4}, std::tuple{12, 61, 5}}) {
    Problem p;
    p.nx = nx;
    p.ny = ny;
    p.sponge_width = 3;
    p.source_y = ny / slabs;  // on the first row of slab 1: a halo row
    p = resolve(p);
    const int steps = 40;
    const auto expected = cpu_simulate(p, steps);

    const auto courant2 = courant2_per_row(p);
    const auto damp_x = sponge_profile(p.nx, p.sponge_width);
    const auto damp_y = sponge_profile(p.ny, p.sponge_width);
    struct CpuSlab {
      RowRange rows;
      SlabLayout layout;
      std::vector<float> buf[3];
    };
    std::vector<CpuSlab> parts;
    for (int s = 0; s < slabs; ++s) {
      CpuSlab c{slab_rows(ny, slabs, s), SlabLayout::make(nx, slab_rows(ny, slabs, s).size()), {}};
      for (auto& b : c.buf) b.assign(c.layout.elements(), 0.0f);
      parts.push_back(std::move(c));
    }
    const auto copies = halo_copies(ny, slabs);
    for (int n = 0; n < steps; ++n) {
      for (auto& c : parts) {
        const auto slice = [&](const std::vector<float>& v) {
          return std::span<const float>(v).subspan(static_cast<std::size_t>(c.rows.begin),
                                                   static_cast<std::size_t>(c.rows.size()));
        };
        const bool here = p.source_y >= c.rows.begin && p.source_y < c.rows.end;
        const StepCoefficients k{slice(courant2), damp_x, slice(damp_y), p.source_x,
                                 here ? p.source_y - c.rows.begin : -1, source_value(p, n)};
        cpu_step(c.layout, c.buf[n % 3], c.buf[(n + 1) % 3], c.buf[(n + 2) % 3], k, 0, c.rows.size());
      }
      for (const HaloCopy& h : copies) {
        CpuSlab& from = parts[static_cast<std::size_t>(h.from_slab)];
        CpuSlab& to = parts[static_cast<std::size_t>(h.to_slab)];
        for (int i = 0; i < h.rows; ++i)
          std::copy_n(from.buf[(n + 2) % 3].begin() + static_cast<std::ptrdiff_t>(from.layout.index(0, h.from_row + i)), nx,
                      to.buf[(n + 2) % 3].begin() + static_cast<std::ptrdiff_t>(to.layout.index(0, h.to_row + i)));
      }
    }
    std::vector<float> got;
    for (auto& c : parts) {
      const auto part = compact(c.layout, c.buf[(steps + 1) % 3]);
      got.insert(got.end(), part.begin(), part.end());
    }
    INFO("nx " << nx << ", ny " << ny << ", slabs " << slabs);
    REQUIRE(got.size() == expected.size());
    CHECK(std::memcmp(got.data(), expected.data(), got.size() * sizeof(float)) == 0);
  }
}
