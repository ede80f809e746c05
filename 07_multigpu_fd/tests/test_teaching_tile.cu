// The lesson's teaching kernel (the 2-D tile with its halo on a 5-point star) against the CPU, on meshes
// smaller than a tile, a tile exactly, a cell past whole tiles and larger ones, outputs poisoned first.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

#include "common/buffers.cuh"
#include "teaching_tile.cuh"

using namespace wave::teaching;

TEST_SUITE("gpu") {
  TEST_CASE("the tiled 5-point Laplacian matches the CPU on awkward meshes") {
    struct Mesh {
      int nx, ny;
    };
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    for (const Mesh m : {Mesh{1, 1}, Mesh{31, 7}, Mesh{32, 8}, Mesh{33, 9}, Mesh{100, 37}, Mesh{257, 65},
                         Mesh{1024, 3}, Mesh{3, 1024}}) {
      std::vector<float> in(static_cast<std::size_t>(m.nx) * m.ny);
      std::generate(in.begin(), in.end(), [&] { return value(rng); });
      course::DeviceBuffer<float> d_in(in.size()), d_out(in.size());
      d_in.upload(in);
      d_out.fill_bytes(0xff);  // NaN everywhere: a cell the kernel forgets cannot pass
      launch_laplacian5_tiled(d_in.data(), d_out.data(), m.nx, m.ny, nullptr);
      std::vector<float> got(in.size());
      d_out.download(got);
      const std::vector<float> want = laplacian5_reference(in, m.nx, m.ny);
      // The compiler may contract −4·centre into an FMA, so the last bit may differ: |value| ≤ 8 here.
      int wrong = 0;
      for (std::size_t i = 0; i < want.size(); ++i)
        if (!(std::fabs(got[i] - want[i]) <= 1e-5f)) ++wrong;
      INFO(m.nx << " x " << m.ny << ": " << wrong << " cells differ");
      CHECK(wrong == 0);
    }
  }
}
