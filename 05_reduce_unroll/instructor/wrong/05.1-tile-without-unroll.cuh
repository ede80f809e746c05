// WRONG: 05.1 expect: every element once because: the loads of a warp are coalesced, but the block offset forgets the unroll factor: neighbouring blocks' tiles overlap, elements are read twice and the end of the array never
  return block_index * block_dim + tid + std::size_t{k} * block_dim;
