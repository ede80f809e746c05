// WRONG: 06.3 expect: slower than the reference because: a slot per stream and enough chunks, but both copies go to the legacy default stream (no stream argument): with the scenario's blocking streams every copy waits for all earlier work and all later work for it, so the ring is right and as slow as the sequential run
  const std::size_t slots = std::min<std::size_t>(streams.size(), ring.capacity);
  const std::size_t slot_capacity = ring.capacity / slots;
  const std::size_t chunk = std::min(slot_capacity, (n + 4 * slots - 1) / (4 * slots));
  std::size_t index = 0;
  for (std::size_t begin = 0; begin < n; begin += chunk, ++index) {
    const std::size_t slot = index % slots;
    const std::size_t count = std::min(chunk, n - begin);
    float* in = ring.in + slot * slot_capacity;
    float* out = ring.out + slot * slot_capacity;
    CUDA_CHECK(cudaMemcpyAsync(in, host_in + begin, count * sizeof(float), cudaMemcpyHostToDevice));
    launch_fma_chain(in, out, count, iterations, streams[slot]);
    CUDA_CHECK(cudaMemcpyAsync(host_out + begin, out, count * sizeof(float), cudaMemcpyDeviceToHost));
  }
  CUDA_CHECK(cudaDeviceSynchronize());
