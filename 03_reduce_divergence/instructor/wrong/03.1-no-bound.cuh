// WRONG: 03.1 expect: crash because: pair k goes to thread k, but threads past the last pair are not sent idle, so they add slots beyond the block
  (void)block;
  return static_cast<int>(2 * stride * tid);
