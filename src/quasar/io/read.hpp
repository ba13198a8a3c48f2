#pragma once
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <string>

#include "quasar/core/config.hpp"
#include "quasar/core/structure.hpp"

namespace quasar::io {

// format: "auto" (from the extension: .xyz/.extxyz -> extended XYZ, first frame; .data/.lmp/.lammps
// -> LAMMPS data), "extxyz" or "lammps-data".
Structure read_structure(const std::string& path, const std::string& format = "auto");

// The [structure] table of an input file: file = "..." (+ format, atom_style), or a generated
// lattice = "fcc" | "bcc" | "sc" | "diamond", element, a, repeat = [nx, ny, nz] (+ mass).
Structure structure_from_config(const ConfigTable& t, const std::filesystem::path& base_dir);

// Writes through a temporary file in the same folder, renamed over `path` only once complete, so an
// interrupted write never leaves a truncated file.
void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write);

}  // namespace quasar::io
