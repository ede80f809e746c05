// WRONG: 04.3 expect: is NOT correct because: the walk stops at the last whole wave: the elements past the largest multiple of the grid's thread count below n are never added
  Acc own = 0;
  const std::size_t whole = n / grid_threads * grid_threads;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + tid; i < whole; i += grid_threads)
    own += static_cast<Acc>(input[i]);
  s[tid] = own;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
    const SlotPair fold = interleaved_pair(tid, half);
    if (fold.dst >= 0) s[fold.dst] += s[fold.src];
    __syncthreads();
  }
