// WRONG: 02.1 expect: coalesced because: consecutive threads take int4s a whole grid of blocks apart (the block index varies fastest): every int4 is copied once and each thread's indices grow, but a warp's 32 loads land on 32 different 128-byte lines
BANDWIDTH_HOST_DEVICE inline std::size_t grid_stride_vector(std::size_t block, std::size_t thread, std::size_t trip,
                                                            std::size_t blocks, std::size_t threads,
                                                            std::size_t vector_count) {
  (void)vector_count;
  return (trip * threads + thread) * blocks + block;
}
