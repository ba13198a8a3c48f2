#pragma once
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "quasar/core/config.hpp"
#include "quasar/core/structure.hpp"

namespace quasar::io {

// format: "auto" (from the extension: .xyz/.extxyz -> extended XYZ, or Tinker's .xyz (tinker_xyz.hpp) when its
// first lines are Tinker's; .data/.lmp/.lammps -> LAMMPS data; .dump/.lammpstrj -> LAMMPS dump;
// any other name whose first lines are Tinker's -> Tinker), "extxyz", "lammps-data", "lammps-dump" or "tinker".
// type_names, when given, name LAMMPS's numbered types 1, 2, ... (data files and dumps).
std::string structure_format(const std::string& path, const std::string& format = "auto");
// The first frame of the file.
Structure read_structure(const std::string& path, const std::string& format = "auto",
                         const std::vector<std::string>& type_names = {});
// Every frame of the file (one for a LAMMPS data file). read_frames also takes the training-data
// formats "deepmd" (a deepmd/npy system folder, or a folder of them: every frame of every set) and
// "n2p2" (input.data in Å and eV); "auto" picks them for a folder and for a file whose first word
// is `begin`.
std::vector<Structure> read_frames(const std::string& path, const std::string& format = "auto",
                                   const std::vector<std::string>& type_names = {});

// The [structure] table of an input file: file = "..." (+ format, atom_style), or a generated
// lattice = "fcc" | "bcc" | "sc" | "diamond", element, a, repeat = [nx, ny, nz] (+ mass).
Structure structure_from_config(const ConfigTable& t, const std::filesystem::path& base_dir);
// The same table's every frame (one structure for a data file or a lattice).
std::vector<Structure> frames_from_config(const ConfigTable& t, const std::filesystem::path& base_dir);

// Writes through a temporary file in the same folder, renamed over `path` only once complete, so an
// interrupted write never leaves a truncated file.
void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write);

}  // namespace quasar::io
