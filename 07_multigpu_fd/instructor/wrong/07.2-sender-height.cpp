// WRONG: 07.2 expect: receives the global row it stands for because: the rows sent up land at the sender's height instead of the receiver's, right only when neighbours are equally tall; on an uneven cut they overwrite the receiver's own last row or write one row past its storage
std::vector<HaloCopy> halo_copies(std::span<const RowRange> slabs) {
  std::vector<HaloCopy> copies;
  const int count = static_cast<int>(slabs.size());
  for (int s = 0; s < count; ++s) {
    const int rows = slabs[static_cast<std::size_t>(s)].size();
    if (s > 0) copies.push_back({s, 0, s - 1, rows, halo});
    if (s + 1 < count) copies.push_back({s, rows - halo, s + 1, -halo, halo});
  }
  return copies;
}
