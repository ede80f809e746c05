// WRONG: 00.1 expect: no block without an element because: always one block more than n / block: every element has a thread, but when block divides n the last block has none
  const std::size_t blocks = n / block + 1;
