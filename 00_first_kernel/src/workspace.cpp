#include "workspace.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "common/check.cuh"
#include "common/timing.cuh"

namespace first_kernel {
namespace {

std::uint64_t splitmix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

bool uses(std::span<const Variant> chosen, Layout layout) {
  for (const auto& v : chosen)
    if (v.layout == layout) return true;
  return false;
}

}  // namespace

void fill_random(std::span<float> out, std::uint64_t seed) {
  const std::uint64_t base = splitmix64(seed);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const auto bits = static_cast<std::uint32_t>(splitmix64(base + i) >> 40);  // 24 random bits
    out[i] = static_cast<float>(bits) * (2.0f / 16777216.0f) - 1.0f;             // exact in a float
  }
}

std::string first_difference(std::span<const float> got, std::span<const float> expected, bool exact) {
  if (got.size() != expected.size()) return "sizes differ";
  for (std::size_t i = 0; i < got.size(); ++i) {
    const float g = got[i], e = expected[i];
    const bool same = exact ? std::bit_cast<std::uint32_t>(g) == std::bit_cast<std::uint32_t>(e)
                            : std::fabs(g - e) <= 4 * std::numeric_limits<float>::epsilon() * (std::fabs(e) + 1.0f);
    if (!same) {
      std::ostringstream out;
      out.precision(9);
      out << "element " << i << ": got " << g << ", expected " << e;
      return out.str();
    }
  }
  return {};
}

std::size_t device_bytes_needed(const Problem& p, std::span<const Variant> chosen) {
  std::size_t bytes = 0;
  if (uses(chosen, Layout::vector)) bytes += 2 * p.n * sizeof(float);
  if (uses(chosen, Layout::matrix)) bytes += 2 * p.matrix_elements() * sizeof(float);
  return bytes;
}

Workspace::Workspace(const Problem& p, std::span<const Variant> chosen) : p_(p) {
  if (uses(chosen, Layout::vector)) {
    x_host_.resize(p.n);
    y_host_.resize(p.n);
    fill_random(x_host_, 1);
    fill_random(y_host_, 2);
    x_ = course::DeviceBuffer<float>(p.n);
    y_ = course::DeviceBuffer<float>(p.n);
    x_.upload(x_host_);
  }
  if (uses(chosen, Layout::matrix)) {
    matrix_host_.resize(p.matrix_elements());
    fill_random(matrix_host_, 3);
    in_ = course::DeviceBuffer<float>(p.matrix_elements());
    out_ = course::DeviceBuffer<float>(p.matrix_elements());
    in_.upload(matrix_host_);
  }
}

void Workspace::check(const Variant& v) {
  const bool vector = v.layout == Layout::vector;
  std::vector<float> expected = vector ? y_host_ : std::vector<float>(p_.matrix_elements());
  if (vector) y_.upload(y_host_);
  else out_.fill_bytes(0xff);  // a NaN in every element: one the kernel forgets cannot pass
  v.launch(p_, arrays(), v.shape(p_), nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> got(expected.size());
  (vector ? y_ : out_).download(got);
  v.on_cpu(p_, vector ? std::span<const float>(x_host_) : std::span<const float>(matrix_host_), expected);
  if (const std::string diff = first_difference(got, expected, v.exact); !diff.empty())
    throw std::runtime_error(std::string(v.name) + " is wrong at " + diff);
}

course::Stats Workspace::time(const Variant& v, course::TimingOptions opts) {
  const LaunchShape shape = v.shape(p_);
  const DeviceArrays a = arrays();
  return course::time_gpu([&](cudaStream_t stream) { v.launch(p_, a, shape, stream); }, opts);
}

}  // namespace first_kernel
