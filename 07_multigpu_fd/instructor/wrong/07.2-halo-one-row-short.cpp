// WRONG: 07.2 expect: receives the global row it stands for because: each copy moves halo − 1 rows, so the outermost ghost row on each side of a boundary is never written and keeps an old step's values
std::vector<HaloCopy> halo_copies(std::span<const RowRange> slabs) {
  std::vector<HaloCopy> copies;
  const int count = static_cast<int>(slabs.size());
  for (int s = 0; s < count; ++s) {
    const int rows = slabs[static_cast<std::size_t>(s)].size();
    if (s > 0) copies.push_back({s, 0, s - 1, slabs[static_cast<std::size_t>(s - 1)].size(), halo - 1});
    if (s + 1 < count) copies.push_back({s, rows - (halo - 1), s + 1, -(halo - 1), halo - 1});
  }
  return copies;
}
