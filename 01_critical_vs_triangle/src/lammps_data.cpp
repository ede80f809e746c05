#include "lammps_data.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace md {

namespace {

/// The largest file this reads: the program's own limit (--cells 100, four million atoms).
constexpr long long max_atoms = 4'000'000;

/// Where the reader is, so that every complaint names the file and the line.
struct Place {
  const std::string& path;
  long long line = 0;
  [[noreturn]] void fail(const std::string& what) const {
    throw std::invalid_argument(path + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " + what);
  }
};

std::vector<std::string_view> split(std::string_view text) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r')) ++i;
    const std::size_t begin = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\t' && text[i] != '\r') ++i;
    if (i > begin) words.push_back(text.substr(begin, i - begin));
  }
  return words;
}

double real(const Place& at, std::string_view word, const char* what) {
  double value = 0;
  const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), value);
  if (error != std::errc{} || end != word.data() + word.size())
    at.fail(std::string(what) + " '" + std::string(word) + "' is not a number");
  if (!std::isfinite(value)) at.fail(std::string(what) + " '" + std::string(word) + "' is not finite");
  return value;
}

long long whole(const Place& at, std::string_view word, const char* what) {
  long long value = 0;
  const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), value);
  if (error != std::errc{} || end != word.data() + word.size())
    at.fail(std::string(what) + " '" + std::string(word) + "' is not a whole number");
  return value;
}

std::string shown(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

}  // namespace

System read_lammps_data(const std::string& path) {
  Place at{path};
  std::ifstream in(path);
  if (!in) at.fail("cannot open the file");
  std::string text;
  if (!std::getline(in, text)) at.fail("empty file (a LAMMPS data file starts with a title line)");
  at.line = 1;

  enum class Section { header, masses, atoms, velocities } section = Section::header;
  long long atoms = -1, types = -1;
  std::array<double, 3> lo{}, hi{};
  std::array<bool, 3> have_box{};
  bool have_mass = false, have_atoms = false, have_velocities = false;
  std::vector<Vec3> position, velocity;
  std::vector<char> placed, moving;
  long long placed_count = 0, moving_count = 0;

  while (std::getline(in, text)) {
    ++at.line;
    std::string_view line = text, comment;
    if (const auto hash = line.find('#'); hash != std::string_view::npos) {
      comment = line.substr(hash + 1);
      line = line.substr(0, hash);
    }
    const std::vector<std::string_view> w = split(line);
    if (w.empty()) continue;
    const char first = w[0][0];
    if ((first >= 'A' && first <= 'Z') || (first >= 'a' && first <= 'z')) {  // a section keyword
      const std::vector<std::string_view> style = split(comment);
      if (w.size() == 1 && w[0] == "Masses") {
        section = Section::masses;
      } else if (w.size() == 1 && w[0] == "Atoms") {
        if (!style.empty() && !(style.size() == 1 && style[0] == "atomic"))
          at.fail("Atoms section of style '" + std::string(style[0]) + "': only atom_style atomic is read");
        if (atoms < 0) at.fail("Atoms section before the header's atom count");
        if (have_atoms) at.fail("a second Atoms section");
        section = Section::atoms;
        have_atoms = true;
      } else if (w.size() == 1 && w[0] == "Velocities") {
        if (atoms < 0) at.fail("Velocities section before the header's atom count");
        if (have_velocities) at.fail("a second Velocities section");
        section = Section::velocities;
        have_velocities = true;
      } else {
        std::string name(line.substr(0, line.find_last_not_of(" \t\r") + 1));
        if (name.size() > 40) name = name.substr(0, 40) + "...";
        at.fail("section '" + name + "' is not read here: one atom type of mass 1, positions and velocities; the force field is this "
                "program's own (lj/cut, epsilon = sigma = 1)");
      }
      if (section == Section::atoms || section == Section::velocities) {
        if (position.empty()) {
          position.resize(static_cast<std::size_t>(atoms));
          velocity.resize(static_cast<std::size_t>(atoms));
          placed.assign(static_cast<std::size_t>(atoms), 0);
          moving.assign(static_cast<std::size_t>(atoms), 0);
        }
      }
      continue;
    }
    switch (section) {
      case Section::header:
        if (w.size() == 2 && w[1] == "atoms") {
          atoms = whole(at, w[0], "the atom count");
          if (atoms < 1 || atoms > max_atoms)
            at.fail("the atom count must be in 1.." + std::to_string(max_atoms) + ", got " + std::string(w[0]));
        } else if (w.size() == 3 && w[1] == "atom" && w[2] == "types") {
          types = whole(at, w[0], "the number of atom types");
          if (types != 1) at.fail("this program has one atom type, the file " + std::string(w[0]));
        } else if (w.size() == 4 && w[2].size() == 3 && w[3].size() == 3 && w[2].substr(1) == "lo" &&
                   w[3].substr(1) == "hi" && w[2][0] == w[3][0] && w[2][0] >= 'x' && w[2][0] <= 'z') {
          const auto axis = static_cast<std::size_t>(w[2][0] - 'x');
          lo[axis] = real(at, w[0], "the box's lower bound");
          hi[axis] = real(at, w[1], "the box's upper bound");
          if (!(hi[axis] > lo[axis])) at.fail("the box's upper bound must exceed its lower bound");
          if (!std::isfinite(hi[axis] - lo[axis]))
            at.fail("the box's side " + std::string(w[1]) + " - (" + std::string(w[0]) + ") is not a finite number");
          have_box[axis] = true;
        } else if (w.size() == 6 && w[3] == "xy") {
          at.fail("a tilted (triclinic) box: only an orthogonal cube is read");
        } else {
          at.fail("header line not understood: '" + std::string(line) + "'");
        }
        break;
      case Section::masses: {
        if (w.size() != 2) at.fail("a Masses line is 'type mass'");
        if (whole(at, w[0], "the atom type") != 1) at.fail("a mass for an atom type other than 1");
        if (real(at, w[1], "the mass") != 1.0) at.fail("this program's atoms have unit mass, the file " + std::string(w[1]));
        have_mass = true;
        break;
      }
      case Section::atoms: {
        if (w.size() != 5 && w.size() != 8) at.fail("an Atoms line is 'id type x y z' (and three image flags)");
        const long long id = whole(at, w[0], "the atom id");
        if (id < 1 || id > atoms) at.fail("atom id " + std::to_string(id) + " outside 1.." + std::to_string(atoms));
        const auto i = static_cast<std::size_t>(id - 1);
        if (placed[i]) at.fail("atom id " + std::to_string(id) + " appears twice in Atoms");
        if (whole(at, w[1], "the atom type") != 1) at.fail("atom id " + std::to_string(id) + " is not of type 1");
        position[i] = {real(at, w[2], "x"), real(at, w[3], "y"), real(at, w[4], "z")};
        // write_data writes every atom inside the box: one outside it is a broken file, not something to
        // wrap silently (an atom at x = 1e300 would wrap onto another one).
        if (have_box[0] && have_box[1] && have_box[2]) {
          const double coordinate[3] = {position[i].x, position[i].y, position[i].z};
          for (std::size_t axis = 0; axis < 3; ++axis) {
            const double slack = 1e-9 * (hi[axis] - lo[axis]);
            if (coordinate[axis] < lo[axis] - slack || coordinate[axis] > hi[axis] + slack) {
              const std::string name(1, "xyz"[axis]);
              at.fail("atom id " + std::to_string(id) + ": " + name + " = " + std::string(w[2 + axis]) +
                      " lies outside the box (" + name + "lo " + shown(lo[axis]) + ", " + name + "hi " +
                      shown(hi[axis]) + "): a data file's atoms are inside its box");
            }
          }
        }
        for (std::size_t k = 5; k < w.size(); ++k) whole(at, w[k], "an image flag");  // periodic: not needed
        placed[i] = 1;
        ++placed_count;
        break;
      }
      case Section::velocities: {
        if (w.size() != 4) at.fail("a Velocities line is 'id vx vy vz'");
        const long long id = whole(at, w[0], "the atom id");
        if (id < 1 || id > atoms) at.fail("atom id " + std::to_string(id) + " outside 1.." + std::to_string(atoms));
        const auto i = static_cast<std::size_t>(id - 1);
        if (moving[i]) at.fail("atom id " + std::to_string(id) + " appears twice in Velocities");
        velocity[i] = {real(at, w[1], "vx"), real(at, w[2], "vy"), real(at, w[3], "vz")};
        // The kinetic energy squares each component: one past 1e150 would make the temperature infinite.
        const double component[3] = {velocity[i].x, velocity[i].y, velocity[i].z};
        for (std::size_t axis = 0; axis < 3; ++axis)
          if (!std::isfinite(component[axis] * component[axis]))
            at.fail("atom id " + std::to_string(id) + ": v" + std::string(1, "xyz"[axis]) + " = " + std::string(w[1 + axis]) +
                    " is too large (its square is not a finite number)");
        moving[i] = 1;
        ++moving_count;
        break;
      }
    }
  }
  at.line = 0;  // what follows is about the whole file
  if (in.bad()) at.fail("read error");
  if (atoms < 0) at.fail("no 'N atoms' line in the header");
  if (types < 0) at.fail("no 'N atom types' line in the header");
  if (!(have_box[0] && have_box[1] && have_box[2])) at.fail("the header lacks one of the xlo xhi, ylo yhi, zlo zhi lines");
  const double side = hi[0] - lo[0];
  for (int axis = 1; axis < 3; ++axis)
    if (std::abs((hi[axis] - lo[axis]) / side - 1) > 1e-12) at.fail("the box is not a cube: this program's box is");
  if (!have_mass) at.fail("no Masses section (this program needs mass 1 stated)");
  if (!have_atoms) at.fail("no Atoms section");
  if (!have_velocities) at.fail("no Velocities section: the trajectory needs LAMMPS' velocities too");
  if (placed_count != atoms)
    at.fail(std::to_string(atoms - placed_count) + " of " + std::to_string(atoms) + " atoms have no line in Atoms");
  if (moving_count != atoms)
    at.fail(std::to_string(atoms - moving_count) + " of " + std::to_string(atoms) + " atoms have no line in Velocities");

  System system;
  system.box = side;
  system.position = std::move(position);
  system.velocity = std::move(velocity);
  for (Vec3& p : system.position) p.x -= lo[0], p.y -= lo[1], p.z -= lo[2];
  return system;
}

}  // namespace md
