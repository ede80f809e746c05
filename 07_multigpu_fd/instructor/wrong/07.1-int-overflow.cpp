// WRONG: 07.1 expect: no int overflow because: slab · ny is computed in int, which wraps past 2^31 once a 2^20-row grid is cut into 2048 slabs or more
RowRange slab_rows(int ny, int slabs, int slab) {
  // Even split, remainder spread: slab s begins at s·ny/slabs.
  return {slab * ny / slabs, (slab + 1) * ny / slabs};
}
