// Chapter 01 driver: the Lennard-Jones benchmark (LAMMPS' in.lj) with every force strategy over a
// sweep of OpenMP team sizes. CLI → the serial reference and the sweep (sweep.cpp) → one table through
// course::RunReport (rows.cpp) → the per-thread timeline of one force evaluation as a text Gantt chart
// (gantt.cpp). --json writes all of it. A run that goes wrong stops with one line and exit 1, before
// any table or results file.
#include <omp.h>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/cli.hpp"
#include "common/errors.hpp"
#include "common/report.hpp"
#include "common/variants.hpp"
#include "forces.hpp"
#include "gantt.hpp"
#include "lammps_data.hpp"
#include "rows.hpp"
#include "simulation.hpp"
#include "stability.hpp"
#include "sweep.hpp"
#include "vector_clones.hpp"

namespace {

// LAMMPS' in.lj (32,000 atoms, T = 1.44): thermo output at step 0.
constexpr double lammps_potential_per_atom = -6.7733681;
constexpr double lammps_pressure = -5.0197073;

struct Options {
  md::Config config;
  course::CommonOptions common;
};

/// Plain digits that fit 64 bits: CLI11 would read "-1" into an unsigned seed as 2^64 - 1.
CLI::Validator seed_validator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
        if (!digits || text.size() > 20 || (text.size() == 20 && text > "18446744073709551615"))
          return "'" + text + "' is not a seed in 0 .. 18446744073709551615";
        return {};
      },
      "SEED", "seed");
}

Options parse_options(int argc, char** argv) {
  Options o;
  o.common.timing = {2, 10};
  md::Config& c = o.config;
  std::vector<std::string> threads{std::to_string(omp_get_num_procs())}, variants;
  CLI::App app{"Lennard-Jones MD (LAMMPS in.lj): OpenMP force strategies, critical section vs triangle partition"};
  CLI::Option* cells =
      app.add_option("--cells", c.cells, "fcc unit cells per side (4*cells^3 atoms; 20 -> 32,000)")->capture_default_str();
  app.add_option("--steps", c.steps, "timed MD steps per strategy and team size (0: force part only)")->capture_default_str();
  app.add_option("--reference-steps", c.reference_steps, "steps of the serial reference loop, whose end state the "
                 "forces are checked on (default: --steps)");
  course::add_list_option(app, "--threads", threads, "N: the sweep 1..N (N up to 4 x the logical cores); team "
                          "sizes like 1,2,4,8; or powers: 1,2,4,... up to the logical cores (the tour)");
  course::add_variants_option(app, variants)->description("force strategies to run (default: all): serial, critical, "
                                                          "triangle, atomic, thread_arrays, full_list, full_list_vectorized; comma-separate or repeat");
  app.add_option("--rebuild-every", c.rebuild_every, "neighbour-list rebuild period (steps)")->capture_default_str();
  app.add_option("--dt", c.dt, "timestep (tau); must stay below velocity Verlet's stability limit")->capture_default_str();
  CLI::Option* temperature = app.add_option("--temperature", c.temperature, "initial temperature")->capture_default_str();
  CLI::Option* density = app.add_option("--density", c.density, "reduced number density")->capture_default_str();
  app.add_option("--cutoff", c.cutoff, "Lennard-Jones cut-off Rc (sigma)")->capture_default_str();
  app.add_option("--skin", c.skin, "neighbour-list skin (sigma)")->capture_default_str();
  CLI::Option* seed =
      app.add_option("--seed", c.seed, "velocity seed (0 .. 2^64-1)")->check(seed_validator())->capture_default_str();
  app.add_option("--data", c.data_file, "start from a LAMMPS data file (write_data, atom_style atomic, one type of "
                 "mass 1, with velocities) instead of the lattice")
      ->excludes(cells)->excludes(temperature)->excludes(density)->excludes(seed);
  std::string minimum_image = "across-box";
  app.add_option("--minimum-image", minimum_image, "which listed pairs take the minimum image in the force loop: "
                 "across-box (only those found through a periodic image) or every-pair (all, as before that lesson "
                 "step)")->check(CLI::IsMember({"across-box", "every-pair"}))->capture_default_str();
  std::string list_build = "vectorized";
  app.add_option("--list-build", list_build, "the neighbour build's distance pass: vectorized (the CPU's widest "
                 "vectors) or baseline (built for the baseline x86-64 only, as before that lesson step)")
      ->check(CLI::IsMember({"vectorized", "baseline"}))->capture_default_str();
  course::add_common_options(app, o.common, course::Processor::cpu);
  course::parse_command_line(app, argc, argv);
  c.threads = md::parse_thread_list(threads, md::max_team_size(), omp_get_num_procs());
  c.minimum_image_every_pair = minimum_image == "every-pair";
  c.list_build = list_build == "baseline" ? md::ListBuildPass::baseline : md::ListBuildPass::vectorized;
  if (!c.data_file.empty()) {
    try {
      c.initial = std::make_shared<const md::System>(md::read_lammps_data(c.data_file));
    } catch (const std::invalid_argument& e) {
      throw course::UsageError(std::string("--data ") + e.what());
    }
    // The checks of validate_config read density and temperature: the file's, not the defaults.
    c.density = static_cast<double>(c.initial->size()) / (c.initial->box * c.initial->box * c.initial->box);
    c.temperature = md::temperature(*c.initial);
  }
  for (const md::Variant& v : course::select_variants(md::variants(), variants)) c.variants.emplace_back(v.name);
  md::validate_config(c);
  return o;
}

void print_header(std::ostream& info, const md::Config& c) {
  const int max_threads = c.threads.back();
  char line[256];
  std::snprintf(line, sizeof line, "CPU: %s, %d logical cores (OpenMP: %d); CPU-only chapter, no GPU used\n",
                course::host_cpu_name().c_str(), omp_get_num_procs(), omp_get_max_threads());
  info << line;
  std::string extensions;  // what Question 8 asks about: the vectors the CPU has and the clone that runs
  for (const std::string& name : md::cpu_vector_extensions()) extensions += (extensions.empty() ? "" : " ") + name;
  info << "vector extensions: " << (extensions.empty() ? "none recognised" : extensions) << "; the loader bound the "
       << md::bound_clone_isa() << " clone of the vectorized loops\n";
  if (max_threads > omp_get_num_procs()) {
    std::snprintf(line, sizeof line, "note: teams of up to %d threads on %d cores are oversubscribed: timings will not "
                  "follow the model\n", max_threads, omp_get_num_procs());
    info << line;
  }
}

bool is_lammps_input(const md::Config& c) {
  return !c.initial && c.density == 0.8442 && c.temperature == 1.44 && c.cutoff == 2.5 && c.cells == 20;
}

void print_thermo(std::ostream& info, const md::Config& c, const md::Reference& ref) {
  char line[512];
  std::snprintf(line, sizeof line, "%zu atoms, box %.4f, Rc %.2f + skin %.2f, dt %.4f, list rebuilt every %d steps\n",
                ref.initial.size(), ref.initial.box, c.cutoff, c.skin, c.dt, c.rebuild_every);
  info << line;
  std::snprintf(line, sizeof line, "step 0: T %.6f  E_pair/atom %.7f  TotEng/atom %.7f  pressure %.7f\n",
                ref.step0.temperature, ref.step0.potential_per_atom, ref.step0.total_per_atom, ref.step0.pressure);
  info << line;
  if (is_lammps_input(c)) {
    std::snprintf(line, sizeof line, "LAMMPS: E_pair/atom %.7f  pressure %.7f  (relative differences %.1e, %.1e)\n",
                  lammps_potential_per_atom, lammps_pressure,
                  std::abs(ref.step0.potential_per_atom / lammps_potential_per_atom - 1),
                  std::abs(ref.step0.pressure / lammps_pressure - 1));
    info << line;
  }
  if (ref.serial.loop.steps > 0) {
    std::snprintf(line, sizeof line, "step %d (serial loop): T %.6f  TotEng/atom %.7f (drift %.1e per atom, bound "
                  "checked: %.0f%% of |E_pair| + KE at step 0)\n", ref.serial.loop.steps, ref.end.temperature, ref.end.total_per_atom,
                  std::abs(ref.serial.loop.end_energy - ref.serial.loop.start_energy), 100 * md::max_energy_drift);
    info << line;
  }
}

int run(int argc, char** argv) {
  const Options o = parse_options(argc, argv);
  const md::Config& config = o.config;
  omp_set_dynamic(0);  // a team of N threads means N threads: the idle-time model counts them
  course::RunReport report("01_critical_vs_triangle", argc, argv, o.common);
  std::ostream& info = report.info();
  print_header(info, config);

  const int max_threads = config.threads.back();
  const md::Reference ref = md::measure_reference(config, o.common.timing, max_threads);
  print_thermo(info, config, ref);
  std::vector<const md::Variant*> chosen;
  for (const auto& name : config.variants)
    if (name != "serial") chosen.push_back(md::find_variant(name));
  const std::vector<md::Measurement> rows = md::sweep(config, o.common.timing, ref, chosen);

  const std::size_t atoms = ref.initial.size();
  report.results().set_host_cpu();
  md::record_cpu(report.results());
  report.results().config() = md::config_json(config, atoms, o.common.timing);
  report.results().extra()["step0"] = md::thermo_json(ref.step0);
  if (is_lammps_input(config))
    report.results().extra()["lammps_step0"] = {{"potential_per_atom", lammps_potential_per_atom},
                                                {"pressure", lammps_pressure}};
  course::RowTable& table = report.table();
  md::record_row(table, config, atoms, o.common.timing.reps, ref.serial, ref.serial.force.ms);
  nlohmann::json timelines = nlohmann::json::array();
  std::vector<const md::Measurement*> charted;
  for (const md::Measurement& m : rows) {
    md::record_row(table, config, atoms, o.common.timing.reps, m, ref.serial.force.ms);
    const std::string_view name = m.variant->name;
    if (m.threads != max_threads || name == "atomic" || name.starts_with("full_list")) continue;  // no section to see
    timelines.push_back({{"strategy", name}, {"threads", m.threads}, {"cells", config.cells},
                         {"section_us", m.force.idle.section_mean_s * 1e6}, {"particle_ns", m.force.idle.particle_s * 1e9},
                         {"timeline", md::timeline_json(m.force.timeline)}});
    charted.push_back(&m);
  }
  report.results().extra()["timelines"] = timelines;

  info << '\n';
  report.finish(std::cout);
  for (const md::Measurement* m : charted)
    md::print_gantt(info, std::string(m->variant->name) + " x" + std::to_string(m->threads), m->force.timeline);
  if (!o.common.json_path.empty()) info << "\nwrote " << o.common.json_path << '\n';
  return course::exit_ok;
}

}  // namespace

int main(int argc, char** argv) { return course::run_main("critical_vs_triangle", run, argc, argv); }
