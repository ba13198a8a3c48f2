#pragma once
// n2p2's training data (input.data): per structure `begin`, `comment ...`, zero or three
// `lattice ax ay az` lines, `atom x y z element charge n fx fy fz` lines, `energy E`, `charge Q`,
// `end`. n2p2 has no fixed units; the file's are converted to Å and eV with the given factors.
#include <string>
#include <vector>

#include "quasar/core/structure.hpp"

namespace quasar::io {

struct N2p2Units {
  double length = 1.0;  // Å per file length unit (bohr: 0.529177...)
  double energy = 1.0;  // eV per file energy unit (hartree: 27.2114...)
};

// "angstrom,ev" (the default), "bohr,hartree" and the other pairs of those names.
N2p2Units parse_n2p2_units(const std::string& spec);

// Whether the file's first word is `begin` (how input.data is told from a LAMMPS data file).
bool is_n2p2_data(const std::string& path);

// Every structure, with its energy and forces; structures without lattice lines are non-periodic.
std::vector<Structure> read_n2p2_data(const std::string& path, const N2p2Units& units = {});

}  // namespace quasar::io
