// WRONG: 00.3 expect: no performance points without correctness because: the bounds check guards the load but not the store: at a matrix's right and bottom edges the swapped block writes past the end of out's rows and of out
namespace {

__global__ void transpose_shared_kernel(int width, int height, const float* in, float* out) {
  __shared__ float tile[tile_dim][tile_dim + 1];
  const int in_col = blockIdx.x * tile_dim + threadIdx.x;
  const int in_row = blockIdx.y * tile_dim + threadIdx.y;
  if (in_col < width && in_row < height) tile[threadIdx.y][threadIdx.x] = in[in_row * width + in_col];
  __syncthreads();
  const int out_col = blockIdx.y * tile_dim + threadIdx.x;
  const int out_row = blockIdx.x * tile_dim + threadIdx.y;
  out[out_row * height + out_col] = tile[threadIdx.x][threadIdx.y];
}

}  // namespace

void launch_transpose_shared(const Problem& p, const DeviceArrays& a, LaunchShape shape, cudaStream_t stream) {
  const int width = static_cast<int>(p.width);
  const int height = static_cast<int>(p.height);
  transpose_shared_kernel<<<shape.grid, shape.block, 0, stream>>>(width, height, a.in, a.out);
  CUDA_CHECK_LAUNCH();
}
