// WRONG: 05.3 expect: is NOT correct because: vector loads with kLoads in flight, but the loads past the end (clamped to the last vector) are added too, so the last vector is counted several times
  for (std::size_t first = thread; first < vectors; first += threads * kLoads) {
    Vec v[kLoads];
#pragma unroll
    for (int k = 0; k < kLoads; ++k)
      v[k] = body[std::min(first + static_cast<std::size_t>(k) * threads, vectors - 1)];
#pragma unroll
    for (int k = 0; k < kLoads; ++k) {
      const Acc four = static_cast<Acc>(v[k].x) + static_cast<Acc>(v[k].y) + static_cast<Acc>(v[k].z) +
                       static_cast<Acc>(v[k].w);
      sum += four;
    }
  }
