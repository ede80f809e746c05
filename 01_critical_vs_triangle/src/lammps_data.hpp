/// \file lammps_data.hpp
/// \brief Starting from LAMMPS' own state: a LAMMPS data file (`write_data`, atom_style atomic) read into a
/// System, so that this program can run the very trajectory LAMMPS ran (tests/data/, `--data FILE`).
#pragma once
#include <string>

#include "md.hpp"

namespace md {

/// Reads a LAMMPS data file of one atom type with positions and velocities, as `write_data` writes it for
/// `atom_style atomic`: a title line; a header with "N atoms", "1 atom types" and the three "lo hi" box
/// lines (a cube, not tilted); the sections Masses (mass 1: this program's unit mass), Atoms ("id type x y z",
/// image flags allowed and ignored: the box is periodic) and Velocities ("id vx vy vz"). `#` starts a comment.
/// Atoms come back in id order, positions relative to the box's lower corner.
/// Throws std::invalid_argument with one line, "FILE:LINE: what is wrong", for anything else: a missing or
/// unreadable file, a header or section this program cannot honour (another atom type, mass or force field,
/// a tilted or non-cubic box), a malformed or non-finite number, an id missing, repeated or out of range,
/// atoms or velocities missing.
System read_lammps_data(const std::string& path);

}  // namespace md
