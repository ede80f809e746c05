// WRONG: 05.3 expect: does not compile because: hands the body to the library instead of doing the work; cub::DeviceReduce is host code and this region is inside the kernel, so it cannot even be called from here
  std::size_t temp_bytes = 0;
  cub::DeviceReduce::Sum(nullptr, temp_bytes, input + head, &sum, 4 * vectors);
  (void)body;
