// WRONG: 03.2 expect: no more because: always one block more than n / block: the sums are right, but when block divides n the last block has no element
  const std::size_t grid = n / block + 1;
