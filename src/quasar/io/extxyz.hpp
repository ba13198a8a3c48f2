#pragma once
// Extended XYZ as ASE reads and writes it: a count line, a key=value header (Lattice, Properties,
// pbc, energy, stress or virial, anything else kept in Structure::info) and one line per atom. Real
// columns that no Structure field holds are kept in Structure::columns, and written back.
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "quasar/core/structure.hpp"

namespace quasar::io {

std::vector<Structure> read_extxyz(const std::string& path);
// Writes positions, velocities (when present), forces (when present), the further columns with
// round-trip precision,
// the energy, the virial and the info pairs (with `extra` added).
void append_extxyz(std::ostream& out, const Structure& s, const std::map<std::string, std::string>& extra = {});
void write_extxyz(const std::string& path, const std::vector<Structure>& frames);

// The header's key=value pairs (quoted values unquoted; a bare key means "T").
std::map<std::string, std::string> parse_extxyz_header(const std::string& line);

}  // namespace quasar::io
