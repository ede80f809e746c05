// WRONG: 07.1 expect: heights within one row because: every slab gets ny / slabs rows and the last one the whole remainder, up to slabs − 1 rows more than the others
RowRange slab_rows(int ny, int slabs, int slab) {
  const int height = ny / slabs;
  return {slab * height, slab + 1 == slabs ? ny : (slab + 1) * height};
}
