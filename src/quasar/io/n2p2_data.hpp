#pragma once
// n2p2's training data (input.data): per structure `begin`, `comment ...`, zero or three
// `lattice ax ay az` lines, `atom x y z element charge n fx fy fz` lines, `energy E`, `charge Q`,
// `end`. n2p2 has no fixed units; the file's are converted to Å and eV with the given factors.
#include <iosfwd>
#include <string>
#include <vector>

#include "quasar/core/structure.hpp"
#include "quasar/core/units.hpp"

namespace quasar::io {

// Whether the file's first word is `begin` (how input.data is told from a LAMMPS data file).
bool is_n2p2_data(const std::string& path);

// Every structure, with its energy and forces; structures without lattice lines are non-periodic.
std::vector<Structure> read_n2p2_data(const std::string& path, const units::FileUnits& units = {});

// Writes labelled structures as input.data in the given units (round-trip precision): lattice lines
// for a periodic cell, none for a structure without periodic directions (a cell periodic in only
// some is an Error, n2p2 has no such structures), atom charges when the structure has them (else 0)
// and their sum as the total charge. The comment is info["comment"], else the info pairs as
// key=value. Every structure needs its energy and forces (an Error names the one without).
void append_n2p2_data(std::ostream& out, const Structure& s, const units::FileUnits& units = {});
void write_n2p2_data(const std::string& path, const std::vector<Structure>& frames, const units::FileUnits& units = {});

}  // namespace quasar::io
