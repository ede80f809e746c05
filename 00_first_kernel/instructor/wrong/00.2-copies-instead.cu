// WRONG: 00.2 expect: CPU transpose because: writes element (row, col) to row * width + col: a copy, not a transpose (right only for 1 x 1 matrices)
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (col < width && row < height) out[row * width + col] = in[row * width + col];
