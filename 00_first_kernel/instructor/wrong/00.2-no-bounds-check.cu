// WRONG: 00.2 expect: writes nothing outside because: no bounds check: the threads of the last blocks past the matrix's right edge write beyond the end of out
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  out[col * height + row] = in[row * width + col];
