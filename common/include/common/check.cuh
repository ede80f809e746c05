/// \file check.cuh
/// \brief CUDA_CHECK and CUDA_CHECK_LAUNCH: every CUDA call and every launch is checked.
#pragma once
#include <cuda_runtime.h>

#include "common/errors.hpp"

namespace course::detail {
/// Throws CudaError naming the expression, the file and line, and the error's name and text.
[[noreturn]] void throw_cuda_error(cudaError_t err, const char* expr, const char* file, int line);
}  // namespace course::detail

/// Checks a CUDA runtime call; on failure throws course::CudaError with the expression, file, line and
/// error name. Programs end with exit code 1 through course::run_main.
#define CUDA_CHECK(expr)                                                                   \
  do {                                                                                     \
    const cudaError_t course_check_err_ = (expr);                                          \
    if (course_check_err_ != cudaSuccess)                                                  \
      ::course::detail::throw_cuda_error(course_check_err_, #expr, __FILE__, __LINE__);    \
  } while (0)

/// Checks the launch just made: cudaGetLastError always (bad configuration, too many resources);
/// in debug builds also a device synchronisation, so that a fault inside the kernel is reported at
/// its launch rather than at some later, unrelated call.
#ifdef NDEBUG
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())
#else
#define CUDA_CHECK_LAUNCH()                 \
  do {                                      \
    CUDA_CHECK(cudaGetLastError());         \
    CUDA_CHECK(cudaDeviceSynchronize());    \
  } while (0)
#endif
