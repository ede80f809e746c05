// WRONG: 00.2 expect: CPU transpose because: takes the column from the y coordinates and the row from the x ones: the warp reads down a column, and every non-square matrix comes out wrong
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  const int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (col < width && row < height) out[col * height + row] = in[row * width + col];
