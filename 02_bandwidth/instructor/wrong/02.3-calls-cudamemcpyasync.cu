// WRONG: 02.3 region: 1 expect: kernels of its own because: hands the copy to cudaMemcpyAsync instead of doing it in a kernel: every byte is right and the time equals the reference's, but a stream capture records a memcpy node and no kernel
void launch_sm_copy(void* dst, const void* src, std::size_t bytes, cudaStream_t stream) {
  if (bytes == 0) return;
  CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream));
}
