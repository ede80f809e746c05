// WRONG: 01.3 expect: which the task forbids because: the critical method copied into thread_arrays under no forbidden name (issue 40): right forces and the reference's speed, but the task says no critical section; the grader refuses the pragma before anything is built
void forces_thread_arrays(const ForceInput& in, std::span<Vec3> f, ForceWorkspace& ws, int threads) {
  const std::size_t n = f.size();
  ws.prepare(threads);
  const auto blocks = equal_partition(n, threads);
  const double t0 = omp_get_wtime();
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    ThreadTimes& times = ws.times[static_cast<std::size_t>(t)];
    times.start = seconds_since(t0);
    Vec3* local = private_forces(ws, t, n);
    std::fill(f.begin() + static_cast<std::ptrdiff_t>(blocks[t]), f.begin() + static_cast<std::ptrdiff_t>(blocks[t + 1]), Vec3{});
#pragma omp barrier
    times.loop_begin = seconds_since(t0);
    accumulate_half_rows(in, blocks[t], blocks[t + 1], local);
    times.compute_end = seconds_since(t0);
#pragma omp critical(thread_arrays_sum)
    {
      times.section_enter = seconds_since(t0);
      for (std::size_t i = 0; i < n; ++i) f[i].x += local[i].x, f[i].y += local[i].y, f[i].z += local[i].z;
      times.section_exit = seconds_since(t0);
    }
    times.particles = blocks[t + 1] - blocks[t];
  }
}
