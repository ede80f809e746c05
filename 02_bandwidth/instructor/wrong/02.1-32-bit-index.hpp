// WRONG: 02.1 expect: no overflow because: the index is kept in 32 bits, as `int i = blockIdx.x * blockDim.x + threadIdx.x` is in many first kernels: right below 2^32 int4s (64 GiB), but past it the index wraps to a small number and the copy writes over its own start
BANDWIDTH_HOST_DEVICE inline std::size_t grid_stride_vector(std::size_t block, std::size_t thread, std::size_t trip,
                                                            std::size_t blocks, std::size_t threads,
                                                            std::size_t vector_count) {
  (void)vector_count;
  const unsigned index = static_cast<unsigned>((trip * blocks + block) * threads + thread);
  return index;
}
