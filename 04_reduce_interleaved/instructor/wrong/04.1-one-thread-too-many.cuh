// WRONG: 04.1 expect: exactly once because: thread `stride` is busy too: it reads s[2·stride], outside the live values (past the block at the first step), and writes s[stride], which thread 0 reads in the same step
  return tid <= stride ? SlotPair{static_cast<int>(tid), static_cast<int>(tid + stride)} : SlotPair{-1, -1};
