// WRONG: 06.2 expect: copies overlap the kernels because: the copy out now goes to its stream, but the copy in lost its stream argument: each H2D on the legacy default stream waits for everything issued before it in every blocking stream, so the chunks still run one after another
void enqueue_chunk_op(OpKind kind, ChunkRange r, const float* host_in, float* host_out, float* dev_in,
                      float* dev_out, int kernel_iterations, cudaStream_t stream) {
  const std::size_t bytes = r.count * sizeof(float);
  switch (kind) {
    case OpKind::h2d:
      CUDA_CHECK(cudaMemcpyAsync(dev_in + r.begin, host_in + r.begin, bytes, cudaMemcpyHostToDevice));
      break;
    case OpKind::kernel:
      launch_fma_chain(dev_in + r.begin, dev_out + r.begin, r.count, kernel_iterations, stream);
      break;
    case OpKind::d2h:
      CUDA_CHECK(cudaMemcpyAsync(host_out + r.begin, dev_out + r.begin, bytes, cudaMemcpyDeviceToHost, stream));
      break;
  }
}
