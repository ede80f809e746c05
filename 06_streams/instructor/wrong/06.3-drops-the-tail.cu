// WRONG: 06.3 expect: computes the CPU reference because: the loop runs while a whole chunk fits, so when the chunk size does not divide n the last, shorter chunk is never copied, computed or copied back (its outputs keep the poison)
  const std::size_t slots = std::min<std::size_t>(streams.size(), ring.capacity);
  const std::size_t slot_capacity = ring.capacity / slots;
  const std::size_t chunk = std::min(slot_capacity, (n + 4 * slots - 1) / (4 * slots));
  std::size_t index = 0;
  for (std::size_t begin = 0; begin + chunk <= n; begin += chunk, ++index) {
    const std::size_t slot = index % slots;
    cudaStream_t s = streams[slot];
    float* in = ring.in + slot * slot_capacity;
    float* out = ring.out + slot * slot_capacity;
    CUDA_CHECK(cudaMemcpyAsync(in, host_in + begin, chunk * sizeof(float), cudaMemcpyHostToDevice, s));
    launch_fma_chain(in, out, chunk, iterations, s);
    CUDA_CHECK(cudaMemcpyAsync(host_out + begin, out, chunk * sizeof(float), cudaMemcpyDeviceToHost, s));
  }
  for (std::size_t slot = 0; slot < slots; ++slot) CUDA_CHECK(cudaStreamSynchronize(streams[slot]));
