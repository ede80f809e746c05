// WRONG: 06.2 expect: copies overlap the kernels because: cudaMemcpy for the copy out is still a command on the legacy default stream (and now the host waits for it too): the output is right, and the blocking streams still run one operation at a time
void enqueue_chunk_op(OpKind kind, ChunkRange r, const float* host_in, float* host_out, float* dev_in,
                      float* dev_out, int kernel_iterations, cudaStream_t stream) {
  const std::size_t bytes = r.count * sizeof(float);
  switch (kind) {
    case OpKind::h2d:
      CUDA_CHECK(cudaMemcpyAsync(dev_in + r.begin, host_in + r.begin, bytes, cudaMemcpyHostToDevice, stream));
      break;
    case OpKind::kernel:
      launch_fma_chain(dev_in + r.begin, dev_out + r.begin, r.count, kernel_iterations, stream);
      break;
    case OpKind::d2h:
      CUDA_CHECK(cudaMemcpy(host_out + r.begin, dev_out + r.begin, bytes, cudaMemcpyDeviceToHost));
      break;
  }
}
