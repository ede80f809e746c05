// WRONG: 02.1 expect: exactly once because: the stride is one block's threads instead of the whole grid's, so block b on trip k copies what block b + 1 copied on trip k - 1: every int4 past the first block is copied several times
BANDWIDTH_HOST_DEVICE inline std::size_t grid_stride_vector(std::size_t block, std::size_t thread, std::size_t trip,
                                                            std::size_t blocks, std::size_t threads,
                                                            std::size_t vector_count) {
  (void)blocks;
  (void)vector_count;
  return (trip + block) * threads + thread;
}
