// WRONG: 02.2 expect: every byte in exactly one part because: the head is the distance to the boundary even when the copy is shorter than that, so bytes - head wraps around and the body count becomes enormous
  const auto dst_misalignment = reinterpret_cast<std::uintptr_t>(dst) % 16;
  if (dst_misalignment != reinterpret_cast<std::uintptr_t>(src) % 16) return {false, 0, 0, 0};
  const std::size_t head = (16 - dst_misalignment) % 16;
  const std::size_t vector_count = (bytes - head) / 16;
  return {true, head, vector_count, bytes - head - vector_count * 16};
