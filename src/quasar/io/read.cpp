#include "quasar/io/read.hpp"

#include <fstream>
#include <unistd.h>

#include "quasar/core/error.hpp"
#include "quasar/io/extxyz.hpp"
#include "quasar/io/lammps_data.hpp"
#include "quasar/io/lattice.hpp"

namespace quasar::io {

namespace {
bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}
}  // namespace

Structure read_structure(const std::string& path, const std::string& format) {
  std::string f = format;
  if (f == "auto") {
    if (ends_with(path, ".xyz") || ends_with(path, ".extxyz")) f = "extxyz";
    else if (ends_with(path, ".data") || ends_with(path, ".lmp") || ends_with(path, ".lammps")) f = "lammps-data";
    else throw InputError(path, 0, "cannot tell the format from the file name; give format = \"extxyz\" or \"lammps-data\"");
  }
  if (f == "extxyz") return read_extxyz(path).front();
  if (f == "lammps-data") return read_lammps_data(path);
  throw InputError(path, 0, "unknown structure format '" + format + "' (valid: auto, extxyz, lammps-data)");
}

Structure structure_from_config(const ConfigTable& t, const std::filesystem::path& base_dir) {
  if (t.has("file")) {
    t.allow_only({"file", "format", "atom_style"});
    std::filesystem::path p(t.get_string("file"));
    if (p.is_relative()) p = base_dir / p;
    if (!std::filesystem::exists(p)) t.fail("file", "structure file '" + p.string() + "' not found");
    const std::string format = t.get_string("format", "auto");
    if (t.has("atom_style")) return read_lammps_data(p.string(), t.get_string("atom_style"));
    return read_structure(p.string(), format);
  }
  if (!t.has("lattice")) t.fail("file", "give either file = \"...\" or lattice = \"fcc\" | \"bcc\" | \"sc\" | \"diamond\"");
  t.allow_only({"lattice", "element", "a", "repeat", "mass"});
  const auto rep = t.get_doubles("repeat");
  if (rep.size() != 3) t.fail("repeat", "expected three repeat counts [nx, ny, nz]");
  try {
    return make_lattice(t.get_string("lattice"), t.get_string("element"), t.get_double("a"),
                        {static_cast<int>(rep[0]), static_cast<int>(rep[1]), static_cast<int>(rep[2])},
                        t.get_double("mass", 0.0));
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
