// Slabs spread over two GPUs equal one slab on one GPU, bit for bit: the halo rows cross between devices
// (device to device with peer access, through the host without). Its own binary (two_gpu_main.cpp), so
// that a machine with fewer than two GPUs reports the test as skipped, never as passed.
#include <doctest/doctest.h>

#include "gpu_harness.cuh"

using namespace wave;
using namespace wave::testing;

// [slab_counts]
// Slabs spread over both GPUs: 2 is one per GPU, 3 puts two slabs on one device and one on the other
// (a copy between slabs of one GPU beside a copy between GPUs), 4 is two per GPU.
constexpr int two_gpu_slab_counts[] = {2, 3, 4};
// [slab_counts]

TEST_CASE("slabs on two GPUs equal one GPU bit for bit, with and without overlap") {
  const Problem p = make_problem(517, 389, VelocityModel::layered, 12);
  const Variant& v = find_variant("tiled_vec4");
  const auto one = gpu_run(p, v, 1, false, 30);
  for (int slabs : two_gpu_slab_counts)
    for (bool overlap : {true, false}) {
      const Difference d = compare(gpu_run(p, v, slabs, overlap, 30, 2), one);
      INFO(slabs << " slabs on 2 GPUs, overlap " << overlap << ": " << d.cells << " cells differ");
      CHECK(d.cells == 0);
    }
}
