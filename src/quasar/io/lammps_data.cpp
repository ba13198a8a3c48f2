#include "quasar/io/lammps_data.hpp"

#include <charconv>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>
#include <vector>

#include "quasar/core/error.hpp"
#include "quasar/io/text.hpp"

namespace quasar::io {

namespace {

const std::map<std::string, int> kSections = {{"Atoms", 1},      {"Velocities", 1},       {"Masses", 1},
                                              {"Pair Coeffs", 0}, {"Atom Type Labels", 1}, {"Bonds", 0},
                                              {"Angles", 0},      {"PairIJ Coeffs", 0}};

}  // namespace

Structure read_lammps_data(const std::string& path, const std::string& style_arg) {
  LineReader in(path);
  in.next_line();  // title line
  long natoms = -1;
  int ntypes = -1;
  LammpsBounds b{0, 0, 0, 0, 0, 0, 0, 0, 0};
  bool have_x = false, have_y = false, have_z = false;
  std::string line;
  // Header: keyword lines until the first section name.
  std::string section;
  while (in.next_nonblank(line)) {
    const auto w = split_words(strip_comment(line));
    if (w.empty()) continue;
    if (kSections.count(join(w))) {
      section = line;
      break;
    }
    if (w.size() == 2 && w[1] == "atoms") natoms = in.to_long(w[0], "the number of atoms");
    else if (w.size() == 3 && w[1] == "atom" && w[2] == "types") ntypes = static_cast<int>(in.to_long(w[0], "the number of atom types"));
    else if (w.size() == 4 && w[2] == "xlo") { b.xlo = in.to_double(w[0], "xlo"); b.xhi = in.to_double(w[1], "xhi"); have_x = true; }
    else if (w.size() == 4 && w[2] == "ylo") { b.ylo = in.to_double(w[0], "ylo"); b.yhi = in.to_double(w[1], "yhi"); have_y = true; }
    else if (w.size() == 4 && w[2] == "zlo") { b.zlo = in.to_double(w[0], "zlo"); b.zhi = in.to_double(w[1], "zhi"); have_z = true; }
    else if (w.size() == 6 && w[3] == "xy") {
      b.xy = in.to_double(w[0], "xy"); b.xz = in.to_double(w[1], "xz"); b.yz = in.to_double(w[2], "yz");
    } else if (w.size() >= 2 && (w.back() == "types" || w.back() == "bonds" || w.back() == "angles" ||
                                 w.back() == "dihedrals" || w.back() == "impropers")) {
      // counts of topology we do not use
    } else {
      in.fail("unknown header line '" + line + "'");
    }
  }
  if (natoms < 0) in.fail("the header does not give the number of atoms ('N atoms')");
  if (ntypes < 1) in.fail("the header does not give the number of atom types ('N atom types')");
  if (!have_x || !have_y || !have_z) in.fail("the header lacks one of the 'xlo xhi', 'ylo yhi', 'zlo zhi' lines");

  Structure s;
  s.box = box_from_lammps(b);
  s.type_names.resize(ntypes);
  for (int t = 0; t < ntypes; ++t) s.type_names[t] = std::to_string(t + 1);
  s.type_masses.assign(ntypes, 0.0);
  std::vector<bool> seen(static_cast<std::size_t>(natoms), false);
  s.positions.resize(natoms);
  s.types.resize(natoms);
  s.ids.resize(natoms);
  std::map<long, std::size_t> index_of;  // atom id -> position in the file
  bool have_atoms = false;

  while (!section.empty()) {
    const std::string name = join(split_words(strip_comment(section)));
    const std::string comment = section.find('#') != std::string::npos ? join(split_words(section.substr(section.find('#') + 1))) : "";
    const long header_line = in.line_number();
    std::string next;
    auto read_rows = [&](long rows, const std::function<void(const std::vector<std::string>&)>& row) {
      for (long r = 0; r < rows; ++r) {
        if (!in.next_nonblank(line)) in.fail("file ends inside the " + name + " section (" + std::to_string(r) + " of " + std::to_string(rows) + " lines read)");
        row(split_words(strip_comment(line)));
      }
    };
    if (name == "Masses") {
      read_rows(ntypes, [&](const std::vector<std::string>& w) {
        if (w.size() != 2) in.fail("expected 'type mass'");
        const long t = in.to_long(w[0], "the atom type");
        if (t < 1 || t > ntypes) in.fail("atom type " + w[0] + " out of range 1.." + std::to_string(ntypes));
        s.type_masses[t - 1] = in.to_double(w[1], "the mass");
      });
    } else if (name == "Atom Type Labels") {
      read_rows(ntypes, [&](const std::vector<std::string>& w) {
        if (w.size() != 2) in.fail("expected 'type label'");
        const long t = in.to_long(w[0], "the atom type");
        if (t < 1 || t > ntypes) in.fail("atom type " + w[0] + " out of range");
        s.type_names[t - 1] = w[1];
      });
    } else if (name == "Atoms") {
      const std::string style = !style_arg.empty() ? style_arg : (comment.empty() ? "atomic" : comment);
      if (style != "atomic" && style != "charge")
        throw InputError(path, header_line, "atom style '" + style + "' is not supported (atomic, charge)");
      const std::size_t first = style == "charge" ? 3 : 2;
      if (style == "charge") s.charges.resize(natoms);
      long k = 0;
      read_rows(natoms, [&](const std::vector<std::string>& w) {
        if (w.size() != first + 3 && w.size() != first + 6)
          in.fail("expected " + std::to_string(first + 3) + " or " + std::to_string(first + 6) + " values for atom style " + style + ", found " + std::to_string(w.size()));
        const long id = in.to_long(w[0], "the atom id");
        const long t = in.to_long(w[1], "the atom type");
        if (t < 1 || t > ntypes) in.fail("atom type " + w[1] + " out of range 1.." + std::to_string(ntypes));
        if (index_of.count(id)) in.fail("atom id " + w[0] + " appears twice");
        index_of[id] = static_cast<std::size_t>(k);
        Vec3 r{in.to_double(w[first], "x"), in.to_double(w[first + 1], "y"), in.to_double(w[first + 2], "z")};
        if (w.size() == first + 6)
          r += s.box.shift(static_cast<int>(in.to_long(w[first + 3], "image flag")),
                           static_cast<int>(in.to_long(w[first + 4], "image flag")),
                           static_cast<int>(in.to_long(w[first + 5], "image flag")));
        s.positions[k] = r;
        s.types[k] = static_cast<int>(t - 1);
        s.ids[k] = id;
        if (style == "charge") s.charges[k] = in.to_double(w[2], "the charge");
        ++k;
      });
      have_atoms = true;
    } else if (name == "Velocities") {
      if (!have_atoms) in.fail("the Velocities section must follow the Atoms section");
      s.velocities.resize(natoms);
      read_rows(natoms, [&](const std::vector<std::string>& w) {
        if (w.size() != 4) in.fail("expected 'id vx vy vz'");
        const long id = in.to_long(w[0], "the atom id");
        auto it = index_of.find(id);
        if (it == index_of.end()) in.fail("velocity for unknown atom id " + w[0]);
        s.velocities[it->second] = {in.to_double(w[1], "vx"), in.to_double(w[2], "vy"), in.to_double(w[3], "vz")};
      });
    } else {
      in.fail("section '" + name + "' is not supported in a structure file");
    }
    section.clear();
    while (in.next_nonblank(line)) {
      const auto w = split_words(strip_comment(line));
      if (w.empty()) continue;
      if (!kSections.count(join(w))) in.fail("expected a section name, found '" + line + "'");
      section = line;
      break;
    }
  }
  if (!have_atoms) in.fail("no Atoms section");
  for (int t = 0; t < ntypes; ++t)
    if (s.type_masses[t] == 0) s.type_masses[t] = element_mass(s.type_names[t]);
  s.validate(path);
  return s;
}

void write_lammps_data(const std::string& path, const Structure& s, const std::string& style) {
  if (style != "atomic" && style != "charge") throw Error("write_lammps_data: unknown atom style '" + style + "'");
  const LammpsBounds b = lammps_bounds(s.box);
  std::ofstream out(path);
  if (!out) throw Error("cannot write " + path);
  out << std::setprecision(17);
  out << "LAMMPS data file written by Quasar\n\n" << s.size() << " atoms\n" << s.type_names.size() << " atom types\n\n";
  out << b.xlo << " " << b.xhi << " xlo xhi\n" << b.ylo << " " << b.yhi << " ylo yhi\n" << b.zlo << " " << b.zhi << " zlo zhi\n";
  out << b.xy << " " << b.xz << " " << b.yz << " xy xz yz\n\nMasses\n\n";
  for (std::size_t t = 0; t < s.type_names.size(); ++t) out << t + 1 << " " << s.type_masses[t] << "\n";
  out << "\nAtoms # " << style << "\n\n";
  for (std::size_t i = 0; i < s.size(); ++i) {
    out << (s.ids.empty() ? static_cast<long>(i + 1) : s.ids[i]) << " " << s.types[i] + 1 << " ";
    if (style == "charge") out << (s.charges.empty() ? 0.0 : s.charges[i]) << " ";
    out << s.positions[i].x << " " << s.positions[i].y << " " << s.positions[i].z << "\n";
  }
  if (!s.velocities.empty()) {
    out << "\nVelocities\n\n";
    for (std::size_t i = 0; i < s.size(); ++i)
      out << (s.ids.empty() ? static_cast<long>(i + 1) : s.ids[i]) << " " << s.velocities[i].x << " "
          << s.velocities[i].y << " " << s.velocities[i].z << "\n";
  }
  if (!out) throw Error("error writing " + path);
}

}  // namespace quasar::io
