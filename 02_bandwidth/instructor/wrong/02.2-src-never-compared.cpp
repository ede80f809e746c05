// WRONG: 02.2 expect: disagree modulo 16 because: only dst's misalignment is looked at, so pointers that disagree modulo 16 get an int4 body that is aligned on dst's side and misaligned on src's (a misaligned 16-byte load on the GPU)
  const auto dst_misalignment = reinterpret_cast<std::uintptr_t>(dst) % 16;
  (void)src;
  const std::size_t head = std::min<std::size_t>(bytes, (16 - dst_misalignment) % 16);
  const std::size_t vector_count = (bytes - head) / 16;
  return {true, head, vector_count, bytes - head - vector_count * 16};
