#include "quasar/io/read.hpp"

#include <climits>
#include <cmath>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "quasar/core/error.hpp"
#include "quasar/io/extxyz.hpp"
#include "quasar/io/lammps_data.hpp"
#include "quasar/io/lammps_dump.hpp"
#include "quasar/io/lattice.hpp"
#include "quasar/io/deepmd_npy.hpp"
#include "quasar/io/n2p2_data.hpp"
#include "quasar/io/tinker_xyz.hpp"

namespace quasar::io {

namespace {
std::string number_text(double v) {
  std::ostringstream o;
  o << v;
  return o.str();
}
bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}
}  // namespace

std::string structure_format(const std::string& path, const std::string& format) {
  if (format == "extxyz" || format == "lammps-data" || format == "lammps-dump" || format == "tinker") return format;
  if (format != "auto")
    throw InputError(path, 0, "unknown structure format '" + format + "' (valid: auto, extxyz, lammps-data, lammps-dump, tinker)");
  if (ends_with(path, ".xyz") && is_tinker_xyz(path)) return "tinker";
  if (ends_with(path, ".xyz") || ends_with(path, ".extxyz")) return "extxyz";
  if (ends_with(path, ".data") || ends_with(path, ".lmp") || ends_with(path, ".lammps")) return "lammps-data";
  if (ends_with(path, ".dump") || ends_with(path, ".lammpstrj")) return "lammps-dump";
  if (is_tinker_xyz(path)) return "tinker";  // Tinker's coordinates go by any name (.xyz, .amoeba, .001)
  throw InputError(path, 0, "cannot tell the format from the file name; give the format: extxyz, lammps-data, lammps-dump or tinker");
}

namespace {
// Types renamed by the names given for LAMMPS's numbered types.
Structure renamed(Structure s, const std::string& path, const std::vector<std::string>& type_names) {
  if (type_names.empty()) return s;
  if (type_names.size() != s.type_names.size())
    throw InputError(path, 0, "the file has " + std::to_string(s.type_names.size()) + " atom types, but " +
                                  std::to_string(type_names.size()) + " type names are given");
  for (std::size_t t = 0; t < type_names.size(); ++t) {
    s.type_names[t] = type_names[t];
    if (s.type_masses[t] == 0) s.type_masses[t] = element_mass(type_names[t]);
  }
  return s;
}
}  // namespace

std::vector<Structure> read_frames(const std::string& path, const std::string& format,
                                   const std::vector<std::string>& type_names) {
  // Training-data formats: a deepmd/npy system (or a folder of them) and n2p2's input.data.
  std::error_code ec;
  const bool folder = std::filesystem::is_directory(path, ec);
  const bool n2p2 = format == "n2p2" || (format == "auto" && !folder && is_n2p2_data(path));
  if (format == "deepmd" || (format == "auto" && folder) || n2p2) {
    if (!type_names.empty()) throw InputError(path, 0, "type names are for LAMMPS files; this format names its types");
    if (n2p2) return read_n2p2_data(path);
    if (!folder) throw InputError(path, 0, "a deepmd/npy system is a folder");
    return read_labelled_frames(path);
  }
  const std::string f = structure_format(path, format);
  if (f == "lammps-dump") return read_lammps_dump(path, type_names);
  if (f == "lammps-data") return {renamed(read_lammps_data(path), path, type_names)};
  if (!type_names.empty()) throw InputError(path, 0, "type names are for LAMMPS files; XYZ files name their types");
  if (f == "tinker") return {read_tinker_xyz(path)};
  return read_extxyz(path);
}

Structure read_structure(const std::string& path, const std::string& format, const std::vector<std::string>& type_names) {
  return std::move(read_frames(path, format, type_names).front());
}

namespace {
// The [structure] table's file and format, checked.
std::pair<std::filesystem::path, std::string> structure_file(const ConfigTable& t, const std::filesystem::path& base_dir) {
  t.allow_only({"file", "format", "atom_style"});
  std::filesystem::path p(t.get_string("file"));
  if (p.is_relative()) p = base_dir / p;
  if (!std::filesystem::exists(p)) t.fail("file", "structure file '" + p.string() + "' not found");
  const std::string format = t.get_string("format", "auto");
  if (format != "auto" && format != "extxyz" && format != "lammps-data" && format != "lammps-dump" && format != "tinker")
    t.fail("format", "expected auto, extxyz, lammps-data, lammps-dump or tinker, found '" + format + "'");
  return {p, format};
}
}  // namespace

std::vector<Structure> frames_from_config(const ConfigTable& t, const std::filesystem::path& base_dir) {
  if (!t.has("file") || t.has("atom_style")) return {structure_from_config(t, base_dir)};
  const auto [p, format] = structure_file(t, base_dir);
  return read_frames(p.string(), format);
}

Structure structure_from_config(const ConfigTable& t, const std::filesystem::path& base_dir) {
  if (t.has("file")) {
    const auto [p, format] = structure_file(t, base_dir);
    if (t.has("atom_style")) return read_lammps_data(p.string(), t.get_string("atom_style"));
    return read_structure(p.string(), format);
  }
  if (!t.has("lattice")) t.fail("file", "give either file = \"...\" or lattice = \"fcc\" | \"bcc\" | \"sc\" | \"diamond\"");
  t.allow_only({"lattice", "element", "a", "repeat", "mass"});
  const auto rep = t.get_doubles("repeat");
  if (rep.size() != 3) t.fail("repeat", "expected three repeat counts [nx, ny, nz]");
  std::array<int, 3> n{};
  for (int k = 0; k < 3; ++k) {
    if (!(rep[k] >= 1 && rep[k] <= INT_MAX) || rep[k] != std::floor(rep[k]))
      t.fail("repeat", "expected whole numbers of at least 1, found " + number_text(rep[k]));
    n[k] = static_cast<int>(rep[k]);
  }
  const double a = t.get_double("a"), mass = t.get_double("mass", 0.0);
  if (!(a > 0) || !std::isfinite(a)) t.fail("a", "expected a positive finite lattice constant (Å)");
  if (!(mass >= 0) || !std::isfinite(mass)) t.fail("mass", "expected a finite non-negative mass (amu)");
  if (t.get_string("element").empty()) t.fail("element", "expected an element or type name");
  try {
    return make_lattice(t.get_string("lattice"), t.get_string("element"), a, n, mass);
  } catch (const InputError&) {
    throw;
  } catch (const Error& e) {
    t.fail("lattice", e.what());
  }
}

void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary);
    if (!out) throw Error("cannot write " + tmp);
    write(out);
    out.flush();
    if (!out) {
      std::filesystem::remove(tmp);
      throw Error("error writing " + tmp);
    }
  }
  std::filesystem::rename(tmp, path);
}

}  // namespace quasar::io
