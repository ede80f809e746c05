#include "common/check.cuh"

#include <cstdio>

namespace course {

namespace detail {
void throw_cuda_error(cudaError_t err, const char* expr, const char* file, int line) {
  char buf[1024];
  std::snprintf(buf, sizeof buf, "CUDA error %s (%s) at %s:%d in `%s`", cudaGetErrorName(err),
                cudaGetErrorString(err), file, line, expr);
  throw CudaError(buf);
}
}  // namespace detail

}  // namespace course
