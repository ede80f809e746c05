// WRONG: 02.2 expect: first 16-byte boundary because: the head is 16 - misalignment without the "mod 16", so aligned pointers copy their first 16 bytes one by one (every byte is still copied once, but the head is not under 16 bytes and the body starts one boundary late)
  const auto dst_misalignment = reinterpret_cast<std::uintptr_t>(dst) % 16;
  if (dst_misalignment != reinterpret_cast<std::uintptr_t>(src) % 16) return {false, 0, 0, 0};
  const std::size_t head = std::min<std::size_t>(bytes, 16 - dst_misalignment);
  const std::size_t vector_count = (bytes - head) / 16;
  return {true, head, vector_count, bytes - head - vector_count * 16};
