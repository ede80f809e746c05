// WRONG: 02.3 region: 1 expect: copies any size because: the grid is vector_count / tile rounded down (at least one block), so the int4s of a last, partial tile are never copied once the body is longer than one tile
namespace {

constexpr int copy_threads = 256;
constexpr std::size_t tile_vectors = copy_threads;

__global__ void __launch_bounds__(copy_threads)
    sm_copy_kernel(unsigned char* __restrict__ dst, const unsigned char* __restrict__ src,
                   std::size_t head_bytes, std::size_t vector_count, std::size_t tail_bytes) {
  int4* __restrict__ dst_vec = reinterpret_cast<int4*>(dst + head_bytes);
  const int4* __restrict__ src_vec = reinterpret_cast<const int4*>(src + head_bytes);
  const std::size_t i = std::size_t{blockIdx.x} * tile_vectors + threadIdx.x;
  if (i < vector_count) dst_vec[i] = src_vec[i];
  if (blockIdx.x == 0) {
    if (threadIdx.x < head_bytes) dst[threadIdx.x] = src[threadIdx.x];
    const std::size_t tail_begin = head_bytes + vector_count * 16;
    if (threadIdx.x < tail_bytes) dst[tail_begin + threadIdx.x] = src[tail_begin + threadIdx.x];
  }
}

}  // namespace

void launch_sm_copy(void* dst, const void* src, std::size_t bytes, cudaStream_t stream) {
  if (bytes == 0) return;
  const VectorSplit split = split_for_vectors(dst, src, bytes);
  if (!split.vectorizable) {
    launch_byte_copy(dst, src, bytes, stream);
    return;
  }
  const std::size_t grid = std::max<std::size_t>(1, split.vector_count / tile_vectors);
  sm_copy_kernel<<<static_cast<unsigned>(grid), copy_threads, 0, stream>>>(
      static_cast<unsigned char*>(dst), static_cast<const unsigned char*>(src), split.head_bytes, split.vector_count,
      split.tail_bytes);
  CUDA_CHECK_LAUNCH();
}
