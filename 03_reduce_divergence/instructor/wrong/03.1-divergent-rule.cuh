// WRONG: 03.1 expect: neighbored_less because: the book's divergent rule in other words (a bit mask for the modulo): the same pairs, the same split warps
  (void)block;
  return (tid & (2 * stride - 1)) == 0 ? static_cast<int>(tid) : -1;
