/// \file vector_clones.hpp
/// \brief MD_VECTOR_CLONES: build a function once per x86 vector width and let the loader pick.
#pragma once

/// Put before a function whose loops should use the CPU's widest vectors: GCC compiles it three times,
/// for AVX-512 (x86-64-v4), AVX2 (x86-64-v3) and the baseline every x86-64 has (SSE2: two doubles, and no
/// vector compare of doubles into bytes), and the dynamic loader binds the widest one the CPU runs. The
/// binary stays portable, unlike a build with -march=native. Elsewhere (another compiler or CPU) it is
/// nothing: the loops are then vectorized for the baseline, or not at all.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#define MD_VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define MD_VECTOR_CLONES
#endif
