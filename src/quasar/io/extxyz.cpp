#include "quasar/io/extxyz.hpp"

#include <cmath>
#include <fstream>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "quasar/core/error.hpp"
#include "quasar/io/text.hpp"

namespace quasar::io {

std::map<std::string, std::string> parse_extxyz_header(const std::string& line) {
  std::map<std::string, std::string> kv;
  std::size_t i = 0;
  const std::size_t n = line.size();
  auto token = [&](std::string& out) {
    out.clear();
    if (i < n && (line[i] == '"' || line[i] == '\'')) {
      const char q = line[i++];
      while (i < n && line[i] != q) out += line[i++];
      if (i >= n) throw Error("unterminated quoted value");
      ++i;
    } else if (i < n && line[i] == '{') {
      while (i < n && line[i] != '}') out += line[i++];
      out = out.substr(1);
      if (i < n) ++i;
    } else {
      while (i < n && line[i] != '=' && line[i] != ' ' && line[i] != '\t') out += line[i++];
    }
  };
  while (i < n) {
    while (i < n && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i >= n) break;
    std::string key, value = "T";
    token(key);
    while (i < n && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i < n && line[i] == '=') {
      ++i;
      while (i < n && (line[i] == ' ' || line[i] == '\t')) ++i;
      token(value);
    }
    if (!key.empty()) kv[key] = value;
  }
  return kv;
}

namespace {

struct Column {
  std::string name;
  char kind;  // S, R, I, L
  int width;
};

std::vector<double> numbers_of(const LineReader& in, const std::string& text, const std::string& what) {
  std::vector<double> v;
  for (const auto& w : split_words(text)) v.push_back(in.to_double(w, what));
  return v;
}

bool truthy(const std::string& s) { return s == "T" || s == "True" || s == "true" || s == "1"; }

}  // namespace

std::vector<Structure> read_extxyz(const std::string& path) {
  LineReader in(path);
  std::vector<Structure> frames;
  std::string line;
  while (in.next_nonblank(line)) {
    const auto count_words = split_words(line);
    if (count_words.size() != 1) in.fail("expected the number of atoms, found '" + line + "'");
    const long natoms = in.to_long(count_words[0], "the number of atoms");
    if (natoms < 0) in.fail("negative number of atoms");
    const std::string header = in.next_line();
    std::map<std::string, std::string> kv;
    try {
      kv = parse_extxyz_header(header);
    } catch (const Error& e) {
      in.fail(e.what());
    }
    Structure s;
    // Columns.
    std::vector<Column> cols;
    {
      const std::string props = kv.count("Properties") ? kv["Properties"] : "species:S:1:pos:R:3";
      std::vector<std::string> parts;
      std::stringstream ss(props);
      std::string p;
      while (std::getline(ss, p, ':')) parts.push_back(p);
      if (parts.size() % 3 != 0) in.fail("Properties must be name:type:count triples, got '" + props + "'");
      for (std::size_t k = 0; k < parts.size(); k += 3) {
        const long w = in.to_long(parts[k + 2], "a Properties column count");
        if (parts[k + 1].size() != 1 || std::string("SRIL").find(parts[k + 1][0]) == std::string::npos)
          in.fail("unknown Properties column type '" + parts[k + 1] + "'");
        cols.push_back({parts[k], parts[k + 1][0], static_cast<int>(w)});
      }
    }
    bool has_pos = false, has_species = false;
    for (const auto& c : cols) {
      has_pos = has_pos || (c.name == "pos" || c.name == "positions");
      has_species = has_species || c.name == "species";
    }
    if (!has_pos) in.fail("Properties has no pos column");
    if (!has_species) in.fail("Properties has no species column");
    // Cell and periodicity.
    std::array<bool, 3> pbc{false, false, false};
    if (kv.count("Lattice")) {
      const auto v = numbers_of(in, kv["Lattice"], "Lattice");
      if (v.size() != 9) in.fail("Lattice needs 9 numbers, found " + std::to_string(v.size()));
      pbc = {true, true, true};
      if (kv.count("pbc")) {
        const auto w = split_words(kv["pbc"]);
        if (w.size() != 3) in.fail("pbc needs 3 values");
        for (int k = 0; k < 3; ++k) pbc[k] = truthy(w[k]);
      }
      try {
        s.box = Box::from_matrix({{{v[0], v[1], v[2]}, {v[3], v[4], v[5]}, {v[6], v[7], v[8]}}}, {}, pbc);
      } catch (const Error& e) {
        in.fail(e.what());
      }
    }
    std::vector<double> masses;
    for (long i = 0; i < natoms; ++i) {
      std::string row;
      if (!in.next(row)) in.fail("file ends after " + std::to_string(i) + " of " + std::to_string(natoms) + " atom lines");
      const auto w = split_words(row);
      std::size_t need = 0;
      for (const auto& c : cols) need += static_cast<std::size_t>(c.width);
      if (w.size() != need)
        in.fail("expected " + std::to_string(need) + " columns (Properties), found " + std::to_string(w.size()));
      std::size_t at = 0;
      for (const auto& c : cols) {
        auto num = [&](int k) { return in.to_double(w[at + k], c.name); };
        if (c.name == "species") {
          s.types.push_back(s.type_index(w[at]));
        } else if ((c.name == "pos" || c.name == "positions") && c.width == 3) {
          s.positions.push_back({num(0), num(1), num(2)});
        } else if ((c.name == "velocities" || c.name == "vel") && c.width == 3) {
          s.velocities.push_back({num(0), num(1), num(2)});
        } else if ((c.name == "forces" || c.name == "force") && c.width == 3) {
          s.forces.push_back({num(0), num(1), num(2)});
        } else if ((c.name == "charges" || c.name == "initial_charges") && c.width == 1) {
          s.charges.push_back(num(0));
        } else if (c.name == "masses" && c.width == 1) {
          masses.push_back(num(0));
        }
        at += static_cast<std::size_t>(c.width);
      }
    }
    // Per-atom masses set their type's mass and must agree within a type.
    std::vector<bool> mass_set(s.type_names.size(), false);
    for (std::size_t i = 0; i < masses.size(); ++i) {
      const int t = s.types[i];
      if (mass_set[t] && s.type_masses[t] != masses[i]) in.fail("atoms of type " + s.type_names[t] + " have different masses");
      s.type_masses[t] = masses[i];
      mass_set[t] = true;
    }
    if (!kv.count("Lattice")) s.box = Box::enclosing(s.positions);  // no cell: non-periodic
    if (kv.count("energy")) s.energy = in.to_double(kv["energy"], "energy");
    auto tensor = [&](const std::string& key) {
      const auto v = numbers_of(in, kv[key], key);
      if (v.size() == 9) return Mat3{{{v[0], v[1], v[2]}, {v[3], v[4], v[5]}, {v[6], v[7], v[8]}}};
      if (v.size() == 6)  // Voigt order xx yy zz yz xz xy
        return Mat3{{{v[0], v[5], v[4]}, {v[5], v[1], v[3]}, {v[4], v[3], v[2]}}};
      in.fail(key + " needs 9 or 6 numbers");
    };
    if (kv.count("virial")) s.virial = tensor("virial");
    else if (kv.count("stress")) s.virial = -s.box.volume() * tensor("stress");  // ASE: stress in eV/Å^3
    for (const auto& [k, v] : kv)
      if (k != "Lattice" && k != "Properties" && k != "pbc" && k != "energy" && k != "virial" && k != "stress") s.info[k] = v;
    try {
      s.validate(path);
    } catch (const Error& e) {
      in.fail(e.what());
    }
    frames.push_back(std::move(s));
  }
  if (frames.empty()) throw InputError(path, 0, "no frames in file");
  return frames;
}

void append_extxyz(std::ostream& out, const Structure& s, const std::map<std::string, std::string>& extra) {
  std::ostringstream o;
  o << std::setprecision(17);
  o << s.size() << "\n";
  const Mat3& h = s.box.h;
  bool periodic = s.box.periodic[0] || s.box.periodic[1] || s.box.periodic[2];
  if (periodic) {
    o << "Lattice=\"";
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) o << (r || c ? " " : "") << h(r, c);
    o << "\" ";
  }
  o << "Properties=species:S:1:pos:R:3";
  if (!s.velocities.empty()) o << ":velocities:R:3";
  if (!s.forces.empty()) o << ":forces:R:3";
  if (periodic)
    o << " pbc=\"" << (s.box.periodic[0] ? "T" : "F") << " " << (s.box.periodic[1] ? "T" : "F") << " "
      << (s.box.periodic[2] ? "T" : "F") << "\"";
  if (s.energy) o << " energy=" << *s.energy;
  if (s.virial) {
    o << " virial=\"";
    for (int c = 0; c < 9; ++c) o << (c ? " " : "") << (*s.virial)(c / 3, c % 3);
    o << "\"";
  }
  std::map<std::string, std::string> info = s.info;
  for (const auto& [k, v] : extra) info[k] = v;
  for (const auto& [k, v] : info) o << " " << k << "=" << (v.find(' ') != std::string::npos ? "\"" + v + "\"" : v);
  o << "\n";
  for (std::size_t i = 0; i < s.size(); ++i) {
    const Vec3& r = s.positions[i];
    o << s.type_names[s.types[i]] << " " << r.x << " " << r.y << " " << r.z;
    if (!s.velocities.empty()) o << " " << s.velocities[i].x << " " << s.velocities[i].y << " " << s.velocities[i].z;
    if (!s.forces.empty()) o << " " << s.forces[i].x << " " << s.forces[i].y << " " << s.forces[i].z;
    o << "\n";
  }
  out << o.str();
}

void write_extxyz(const std::string& path, const std::vector<Structure>& frames) {
  std::ofstream out(path);
  if (!out) throw Error("cannot write " + path);
  for (const auto& f : frames) append_extxyz(out, f);
  if (!out) throw Error("error writing " + path);
}

}  // namespace quasar::io
