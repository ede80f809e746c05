#include "measurement.hpp"

#include <cstring>

#include "common/buffers.cuh"
#include "common/check.cuh"
#include "common/timing.cuh"

namespace wave {
namespace {

// A cell whose table text and JSON value differ in kind ("yes" / true, "99.7%" / 0.997, "-" / null):
// shown as text, then its JSON value replaced by the typed one.
void shown_as(course::Row& row, const std::string& header, const std::string& key, const std::string& text,
              nlohmann::json value) {
  row.text({header, key}, text).json(key, std::move(value));
}

}  // namespace

void record(course::Row& row, const Measurement& m, double ceiling_gbs) {
  const double cells = static_cast<double>(m.nx) * m.ny;
  const double gcells = cells / (m.ms_per_step * 1e6);
  const double gbs = course::gb_per_s(bytes_per_cell * cells, m.ms_per_step);
  row.json("table", m.table).text("variant", m.variant).text("backend", m.backend);
  row.integer("nx", m.nx).integer("ny", m.ny).integer("gpus", m.gpus).integer("slabs", m.slabs);
  shown_as(row, "overlap", "overlap", m.overlap ? "yes" : "no", m.overlap);
  row.fixed({"ms/step", "ms_per_step"}, m.ms_per_step, 3)
      .fixed({"Gcells/s", "gcells_per_s"}, gcells, 1)
      .fixed({"Mcells/s", "mcells_per_s"}, gcells * 1e3, 0)
      .fixed({"GB/s", "gb_per_s"}, gbs, 0)
      .fixed({"% roofline", "roofline_pct"}, 100.0 * gbs / (ceiling_gbs * m.gpus), 1);
  if (m.stream_gcells) row.fixed({"% ceiling", "ceiling_pct"}, 100.0 * gcells / (*m.stream_gcells * m.gpus), 1);
  else row.json("ceiling_pct", nullptr);
  // Shown only where measured; the JSON row always has the key (null: not measured).
  if (m.efficiency) shown_as(row, "efficiency", "efficiency", course::format_fixed(100.0 * *m.efficiency, 1) + "%", *m.efficiency);
  else row.json("efficiency", nullptr);
  if (m.bitwise) shown_as(row, "bitwise", "bitwise_equal", *m.bitwise ? "equal" : "DIFFERS", *m.bitwise);
  else row.json("bitwise_equal", nullptr);
  row.json("steps_per_pass", m.steps_per_pass);
  if (m.halo_bytes_per_step) row.json("halo_bytes_per_step", *m.halo_bytes_per_step);
  else row.json("halo_bytes_per_step", nullptr);
}

double time_solver(SlabSolver& solver, int steps, course::TimingOptions timing) {
  const course::Stats s = course::time_host(
      [&] {
        solver.advance(steps);
        solver.synchronize();
      },
      timing);
  return s.median / steps;
}

double time_stream_ceiling(int nx, int ny, int steps, course::TimingOptions timing) {
  const std::size_t cells = static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny);
  course::DeviceBuffer<float> cur(cells), prev(cells);
  cur.fill_bytes(0);
  prev.fill_bytes(0);
  const course::Stats s = course::time_host(
      [&] {
        for (int k = 0; k < steps; ++k) launch_stream_ceiling(cur.data(), prev.data(), cells, nullptr);
        CUDA_CHECK(cudaDeviceSynchronize());
      },
      timing);
  return s.median / steps;
}

bool bitwise_equal(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

std::vector<float> one_gpu_reference(const Problem& p, const Variant& v, int steps, int device) {
  SlabSolver reference({p, 1, 1, false, &v, device});
  reference.advance(steps);
  return reference.gather();
}

}  // namespace wave
