// The same trajectory as LAMMPS, not just the same step 0: from LAMMPS' own state of in.lj (positions and
// velocities written by LAMMPS, tests/data/lj864.data), this program's velocity-Verlet loop with the
// default configuration (in.lj's Rc, skin, dt and rebuild period) reaches LAMMPS' thermo to at least six
// significant digits at every step LAMMPS printed, up to step 100. LAMMPS is not needed: its output is
// committed (tests/data/lj864_thermo.json, with the commands and version; make_lammps_reference.sh).
// And read_lammps_data refuses, with one line naming the file and line, what it cannot honour.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "forces.hpp"
#include "lammps_data.hpp"
#include "md.hpp"
#include "simulation.hpp"

namespace {

const std::string data_dir = CVT_TEST_DATA;

/// Six significant digits: the relative difference must stay below half a unit in the sixth digit.
constexpr double six_digits = 5e-7;

struct LammpsThermo {
  int step = 0;
  double temp = 0, pe = 0, etotal = 0, press = 0;
};

std::vector<LammpsThermo> lammps_thermo() {
  std::ifstream in(data_dir + "/lj864_thermo.json");
  REQUIRE(in);
  const nlohmann::json doc = nlohmann::json::parse(in);
  std::vector<LammpsThermo> rows;
  for (const auto& row : doc.at("thermo"))
    rows.push_back({row.at("step").get<int>(), row.at("temp").get<double>(), row.at("poteng").get<double>(),
                    row.at("toteng").get<double>(), row.at("press").get<double>()});
  return rows;
}

/// This program's thermo after `steps` steps from the state, with `strategy` on `threads` threads.
md::Thermo ours_after(const md::Config& config, const char* strategy, int threads, int steps) {
  md::System system = md::make_system(config);
  md::ForceWorkspace workspace;
  std::vector<md::Vec3> force;
  md::run_md(system, config, *md::find_variant(strategy), threads, steps, workspace, force);
  // Measured on a list built on the current positions. At steps 0, 20, ..., 100 LAMMPS' list was built on them
  // too. Between rebuilds LAMMPS' list is the last one built and may miss a pair that has come within Rc since
  // (in.lj does not check): had that happened at a printed step, the comparison there would show it.
  const double reach = config.cutoff + config.skin;
  md::wrap_and_sort_by_cell(system, reach);
  return md::measure_thermo(system, md::build_neighbour_list(system, reach, md::ListKind::half, 1), config.cutoff);
}

double relative(double ours, double theirs) { return std::abs(ours - theirs) / std::abs(theirs); }

md::Config lammps_state() {
  md::Config config;  // the defaults are in.lj's: Rc 2.5, skin 0.3, dt 0.005, rebuilt every 20 steps
  config.initial = std::make_shared<const md::System>(md::read_lammps_data(data_dir + "/lj864.data"));
  config.data_file = "lj864.data";
  config.variants = {"serial"};
  return config;
}

void check_against_lammps(const md::Config& config, const char* strategy, int threads) {
  const std::vector<LammpsThermo> reference = lammps_thermo();
  REQUIRE(reference.size() >= 2);
  REQUIRE(reference.back().step == 100);
  for (const LammpsThermo& lammps : reference) {
    const md::Thermo ours = ours_after(config, strategy, threads, lammps.step);
    INFO(strategy << " on " << threads << " thread(s), step " << lammps.step << ": T " << ours.temperature << " vs "
                  << lammps.temp << ", E_pair/atom " << ours.potential_per_atom << " vs " << lammps.pe
                  << ", TotEng/atom " << ours.total_per_atom << " vs " << lammps.etotal << ", pressure "
                  << ours.pressure << " vs " << lammps.press);
    CHECK(relative(ours.temperature, lammps.temp) < six_digits);
    CHECK(relative(ours.potential_per_atom, lammps.pe) < six_digits);
    CHECK(relative(ours.total_per_atom, lammps.etotal) < six_digits);
    CHECK(relative(ours.pressure, lammps.press) < six_digits);
  }
}

/// A data file in a temporary folder, removed afterwards.
struct TempFile {
  std::filesystem::path path;
  explicit TempFile(const std::string& text) {
    static int count = 0;
    path = std::filesystem::temp_directory_path() /
           ("cvt_lammps_data_" + std::to_string(::getpid()) + "_" + std::to_string(count++) + ".data");
    std::ofstream(path) << text;
  }
  ~TempFile() { std::filesystem::remove(path); }
};

const char* const good_header = "title\n\n2 atoms\n1 atom types\n\n0 8 xlo xhi\n0 8 ylo yhi\n0 8 zlo zhi\n\n"
                                "Masses\n\n1 1\n\n";
const char* const good_atoms = "Atoms # atomic\n\n1 1 1 1 1 0 0 0\n2 1 3 3 3 0 0 0\n\n";
const char* const good_velocities = "Velocities\n\n1 0.5 0 0\n2 -0.5 0 0\n";

}  // namespace

TEST_CASE("from LAMMPS' own state of in.lj, the thermo follows LAMMPS' to 6 significant digits up to step 100") {
  const md::Config config = lammps_state();
  REQUIRE(config.initial->size() == 864);
  check_against_lammps(config, "serial", 1);
}

TEST_CASE("the same trajectory with the critical method on two threads (another summation order)") {
  check_against_lammps(lammps_state(), "critical", 2);
}

TEST_CASE("read_lammps_data reads LAMMPS' file: ids in order, positions from the box's corner, velocities") {
  const md::System system = md::read_lammps_data(data_dir + "/lj864.data");
  REQUIRE(system.size() == 864);
  CHECK(system.box == doctest::Approx(6 * std::cbrt(4.0 / 0.8442)).epsilon(1e-14));
  CHECK(md::temperature(system) == doctest::Approx(1.44).epsilon(1e-13));  // `velocity ... create 1.44`
  const TempFile shifted(std::string("title\n\n2 atoms\n1 atom types\n\n-4 4 xlo xhi\n-4 4 ylo yhi\n-4 4 zlo zhi\n\n"
                                     "Masses\n\n1 1\n\nAtoms\n\n2 1 3 3 3\n1 1 -3 -2 -1\n\n") + good_velocities);
  const md::System two = md::read_lammps_data(shifted.path);
  CHECK(two.box == 8.0);
  CHECK(two.position[0].x == 1.0);  // id 1, moved to the box's corner
  CHECK(two.position[0].z == 3.0);
  CHECK(two.position[1].x == 7.0);
  CHECK(two.velocity[1].x == -0.5);
}

TEST_CASE("read_lammps_data refuses what it cannot honour, naming the file and the line") {
  const auto refuses = [](const std::string& text, const std::string& phrase) {
    const TempFile file(text);
    INFO("expected: " << phrase);
    try {
      md::read_lammps_data(file.path);
      FAIL("accepted: " << text);
    } catch (const std::invalid_argument& e) {
      const std::string message = e.what();
      INFO(message);
      CHECK(message.find(file.path.string()) == 0);
      CHECK(message.find(phrase) != std::string::npos);
      CHECK(message.find('\n') == std::string::npos);
    }
  };
  const std::string header = good_header, atoms = good_atoms, velocities = good_velocities;
  CHECK_NOTHROW(md::read_lammps_data(TempFile(header + atoms + velocities).path));
  refuses("", "empty file");
  refuses(header + atoms, "no Velocities section");
  refuses(header + velocities, "no Atoms section");
  refuses(header + "Atoms\n\n1 1 1 1 1\n\n" + velocities, "1 of 2 atoms have no line in Atoms");
  refuses(header + "Atoms\n\n1 1 1 1 1\n1 1 2 2 2\n\n" + velocities, ":17: atom id 1 appears twice");
  refuses(header + "Atoms\n\n1 1 1 1 1\n3 1 2 2 2\n\n" + velocities, "atom id 3 outside 1..2");
  refuses(header + "Atoms\n\n1 1 1 1 nan\n2 1 2 2 2\n\n" + velocities, "is not finite");
  refuses(header + "Atoms\n\n1 1 1 1 1x\n2 1 2 2 2\n\n" + velocities, "'1x' is not a number");
  refuses(header + "Atoms # charge\n\n1 1 0 1 1 1\n2 1 0 2 2 2\n\n" + velocities, "only atom_style atomic");
  refuses(header + atoms + "Velocities\n\n1 0.5 0 0\n", "1 of 2 atoms have no line in Velocities");
  refuses(header + atoms + "Pair Coeffs # lj/cut\n\n1 1 1\n\n" + velocities, "section 'Pair Coeffs' is not read here");
  refuses("title\n\n2 atoms\n2 atom types\n", "one atom type");
  refuses("title\n\n2 atoms\n1 atom types\n\n0 8 xlo xhi\n0 8 ylo yhi\n0 9 zlo zhi\n\nMasses\n\n1 1\n\n" + atoms +
              velocities, "not a cube");
  refuses("title\n\n2 atoms\n1 atom types\n\n0 8 xlo xhi\n0 8 ylo yhi\n0 8 zlo zhi\n1 0 0 xy xz yz\n", "tilted");
  refuses("title\n\n2 atoms\n1 atom types\n\n0 8 xlo xhi\n0 8 ylo yhi\n0 8 zlo zhi\n\nMasses\n\n1 2\n\n" + atoms +
              velocities, "unit mass");
  refuses("title\n\n0 atoms\n", "atom count must be in 1..");
  refuses("title\n\n2 atoms\n1 atom types\n\n0 8 xlo xhi\n0 8 ylo yhi\n\nMasses\n\n1 1\n\n" + atoms + velocities,
          "lacks one of the xlo xhi");
  CHECK_THROWS_AS(md::read_lammps_data("/nonexistent/lj.data"), std::invalid_argument);
}
