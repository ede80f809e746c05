// WRONG: 03.3 expect: is NOT correct because: every thread loads only the first of its two elements: the second half of each tile is never added
  s[tid] = tile + tid < n ? static_cast<Acc>(input[tile + tid]) : Acc(0);
  __syncthreads();
  for (unsigned distance = 1; distance < blockDim.x; distance *= 2) {
    const int into = neighbored_less_slot(tid, distance, blockDim.x);
    if (into >= 0) s[into] += s[into + distance];
    __syncthreads();
  }
