// WRONG: 00.1 expect: every element a thread because: patches only n < block; for larger n that block does not divide, the last partial block is still dropped
  const std::size_t blocks = n < block ? 1 : n / block;
