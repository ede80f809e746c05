// WRONG: 01.3 expect: is NOT correct because: the reduction sums every private array the workspace holds, not this team's: after a larger team, its arrays (never zeroed again) are added too
void forces_thread_arrays(const ForceInput& in, std::span<Vec3> f, ForceWorkspace& ws, int threads) {
  const std::size_t n = f.size();
  ws.prepare(threads);
  const auto bounds = equal_partition(n, threads);
  const double t0 = omp_get_wtime();
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    ThreadTimes& times = ws.times[static_cast<std::size_t>(t)];
    times.start = seconds_since(t0);
    Vec3* mine = private_forces(ws, t, n);
    times.loop_begin = seconds_since(t0);
    accumulate_half_rows(in, bounds[t], bounds[t + 1], mine);
    times.compute_end = seconds_since(t0);
#pragma omp barrier
    times.section_enter = seconds_since(t0);
    for (std::size_t i = bounds[t]; i < bounds[t + 1]; ++i) {
      Vec3 sum{};
      for (const std::vector<Vec3>& array : ws.per_thread) {
        if (array.size() != n) continue;
        sum.x += array[i].x, sum.y += array[i].y, sum.z += array[i].z;
      }
      f[i] = sum;
    }
    times.section_exit = seconds_since(t0);
    times.particles = bounds[t + 1] - bounds[t];
  }
}
