// Exercise 02.2: split_for_vectors, the head / int4 body / tail cut that every SM copy makes
// (src/vector_split.cpp). Pointer values only, nothing dereferenced: it runs on the CPU. The copies that
// rely on it are checked on a GPU in test_sm_copy.cu (the same suite).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>

#include "exercise_inputs.hpp"
#include "vector_split.hpp"

using namespace bandwidth;

namespace {

// Addresses as a GPU gives them (cudaMalloc returns 256-byte aligned ones), never dereferenced.
const void* address(std::uintptr_t value) { return reinterpret_cast<const void*>(value); }

struct Copy {
  std::uintptr_t dst, src;
  std::size_t bytes;
};

std::string describe(const Copy& c, const VectorSplit& s) {
  std::ostringstream out;
  out << "dst % 16 = " << c.dst % 16 << ", src % 16 = " << c.src % 16 << ", " << c.bytes << " bytes -> vectorizable "
      << s.vectorizable << ", head " << s.head_bytes << ", " << s.vector_count << " int4s, tail " << s.tail_bytes;
  return out.str();
}

// Runs `property` (empty string: holds) on every copy of `copies`; returns how many broke it and the
// first one that did.
template <class Copies, class Property>
std::pair<std::size_t, std::string> count_broken(const Copies& copies, Property property) {
  std::size_t broken = 0;
  std::string first;
  copies([&](const Copy& c) {
    const VectorSplit s = split_for_vectors(address(c.dst), address(c.src), c.bytes);
    const std::string why = property(c, s);
    if (!why.empty() && broken++ == 0) first = why + ": " + describe(c, s);
  });
  return {broken, first};
}

// Every size from 0 to 4 KiB + 64 at every pair of misalignments (0 … 15 each), from two unrelated
// base addresses drawn from the seed.
struct EverySmallCopy {
  std::uint64_t seed;
  template <class Visit>
  void operator()(Visit visit) const {
    std::mt19937_64 rng(seed);
    const std::uintptr_t dst_base = (std::uintptr_t{0x7f00'0000'0000} + (rng() % (1u << 20)) * 256);
    const std::uintptr_t src_base = (std::uintptr_t{0x7e00'0000'0000} + (rng() % (1u << 20)) * 256);
    for (std::uintptr_t dst_offset = 0; dst_offset < 16; ++dst_offset)
      for (std::uintptr_t src_offset = 0; src_offset < 16; ++src_offset)
        for (std::size_t bytes = 0; bytes <= 4096 + 64; ++bytes)
          visit(Copy{dst_base + dst_offset, src_base + src_offset, bytes});
  }
};

// Sizes up to 2^40 and addresses anywhere, drawn from the seed; half of the pairs agree modulo 16.
struct DrawnCopies {
  std::uint64_t seed;
  template <class Visit>
  void operator()(Visit visit) const {
    std::mt19937_64 rng(seed);
    for (int i = 0; i < 100'000; ++i) {
      const std::uintptr_t dst = rng() >> 16;
      std::uintptr_t src = rng() >> 16;
      if (i % 2 == 0) src = src - src % 16 + dst % 16;
      const std::size_t bytes = static_cast<std::size_t>(rng() >> (24 + rng() % 40));
      visit(Copy{dst, src, bytes});
    }
    // The largest copies: no step of the arithmetic may wrap around.
    for (const std::size_t bytes : {SIZE_MAX, SIZE_MAX - 5, SIZE_MAX / 2 + 3})
      for (std::uintptr_t offset = 0; offset < 16; ++offset) visit(Copy{0x1000 + offset, 0x9000 + offset, bytes});
  }
};

std::string every_byte_once(const Copy& c, const VectorSplit& s) {
  if (!s.vectorizable) return "";  // the caller copies byte by byte
  // head + 16·body + tail = bytes, computed without wrapping around.
  if (s.vector_count > c.bytes / 16) return "more int4s than the copy holds";
  const std::size_t rest = c.bytes - 16 * s.vector_count;
  if (s.head_bytes > rest || rest - s.head_bytes != s.tail_bytes) return "head + 16 x body + tail != bytes";
  return "";
}

std::string disagreeing_pointers_get_no_body(const Copy& c, const VectorSplit& s) {
  const bool agree = c.dst % 16 == c.src % 16;
  if (agree && !s.vectorizable) return "the pointers agree modulo 16, yet no int4 body";
  if (!agree && (s.vectorizable || s.head_bytes || s.vector_count || s.tail_bytes))
    return "the pointers disagree modulo 16, yet not {false, 0, 0, 0}";
  return "";
}

std::string body_on_first_boundary(const Copy& c, const VectorSplit& s) {
  if (!s.vectorizable) return "";
  if (s.head_bytes >= 16) return "head of 16 bytes or more";
  if (s.tail_bytes >= 16) return "tail of 16 bytes or more";
  const std::size_t to_boundary = (16 - c.dst % 16) % 16;
  if (s.head_bytes != std::min(c.bytes, to_boundary)) return "the body does not start at dst's first 16-byte boundary";
  if (s.vector_count > 0 && ((c.dst + s.head_bytes) % 16 != 0 || (c.src + s.head_bytes) % 16 != 0))
    return "the body is not 16-byte aligned on both sides";
  return "";
}

}  // namespace

TEST_SUITE("exercise 02.2") {
  TEST_CASE("split_for_vectors puts every byte in exactly one part: every size to 4 KiB + 64, every pair of misalignments") {
    const std::uint64_t seed = exercise_inputs::seed(16);
    INFO("seed " << seed << " (COURSE_SEED)");
    const auto [broken, first] = count_broken(EverySmallCopy{seed}, every_byte_once);
    INFO("first: " << first);
    CHECK(broken == 0);
  }

  TEST_CASE("split_for_vectors gives pointers that disagree modulo 16 no body, and those that agree one") {
    const std::uint64_t seed = exercise_inputs::seed(16);
    INFO("seed " << seed << " (COURSE_SEED)");
    const auto [broken, first] = count_broken(EverySmallCopy{seed}, disagreeing_pointers_get_no_body);
    INFO("first: " << first);
    CHECK(broken == 0);
  }

  TEST_CASE("split_for_vectors starts the body at the first 16-byte boundary; head and tail are under 16 bytes") {
    const std::uint64_t seed = exercise_inputs::seed(16);
    INFO("seed " << seed << " (COURSE_SEED)");
    const auto [broken, first] = count_broken(EverySmallCopy{seed}, body_on_first_boundary);
    INFO("first: " << first);
    CHECK(broken == 0);
  }

  TEST_CASE("split_for_vectors holds all three for sizes up to 2^40 and addresses drawn from the seed, and at SIZE_MAX") {
    const std::uint64_t seed = exercise_inputs::seed(16) ^ 0x5b117ull;
    INFO("seed " << seed << " (COURSE_SEED)");
    for (const auto property : {every_byte_once, disagreeing_pointers_get_no_body, body_on_first_boundary}) {
      const auto [broken, first] = count_broken(DrawnCopies{seed}, property);
      INFO("first: " << first);
      CHECK(broken == 0);
    }
  }
}
