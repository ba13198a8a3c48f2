#include "quasar/io/extxyz.hpp"

#include <cmath>
#include <fstream>
#include <iomanip>
#include <optional>
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
  char kind;  // S string, R real, I integer, L logical
  long width;
};

bool is_pos(const std::string& n) { return n == "pos" || n == "positions"; }
bool is_vel(const std::string& n) { return n == "velocities" || n == "vel"; }
bool is_force(const std::string& n) { return n == "forces" || n == "force"; }
bool is_charge(const std::string& n) { return n == "charges" || n == "initial_charges"; }

// The kind and width a column the reader uses must have (0 for other columns: any).
std::pair<char, long> required_shape(const std::string& n) {
  if (n == "species") return {'S', 1};
  if (is_pos(n) || is_vel(n) || is_force(n)) return {'R', 3};
  if (is_charge(n) || n == "masses") return {'R', 1};
  return {0, 0};
}

// Properties=name:kind:width:..., checked against what the file can hold.
std::vector<Column> parse_properties(const LineReader& in, const std::string& props) {
  std::vector<std::string> parts;
  std::stringstream ss(props);
  for (std::string p; std::getline(ss, p, ':');) parts.push_back(p);
  if (parts.empty() || parts.size() % 3 != 0)
    in.fail("Properties must be name:type:count triples, got '" + props + "'");
  std::vector<Column> cols;
  std::uintmax_t total = 0;
  bool has_pos = false, has_species = false;
  for (std::size_t k = 0; k < parts.size(); k += 3) {
    const std::string& name = parts[k];
    if (name.empty()) in.fail("a Properties column has no name in '" + props + "'");
    if (parts[k + 1].size() != 1 || std::string("SRIL").find(parts[k + 1][0]) == std::string::npos)
      in.fail("unknown Properties column type '" + parts[k + 1] + "' for " + name + " (expected S, R, I or L)");
    const long width = in.to_count(parts[k + 2], "values of Properties column " + name);
    if (width < 1) in.fail("Properties column " + name + " needs a count of at least 1, found " + parts[k + 2]);
    total += static_cast<std::uintmax_t>(width);
    if (total > in.file_size()) in.fail("the Properties columns need more values per atom line than the file holds");
    for (const auto& c : cols)
      if (c.name == name || (is_pos(c.name) && is_pos(name))) in.fail("Properties column " + name + " appears twice");
    const auto [kind, w] = required_shape(name);
    if (kind && (kind != parts[k + 1][0] || w != width))
      in.fail("Properties column " + name + " must be " + kind + ":" + std::to_string(w) + ", found " + parts[k + 1] + ":" +
              parts[k + 2]);
    has_pos = has_pos || is_pos(name);
    has_species = has_species || name == "species";
    cols.push_back({name, parts[k + 1][0], width});
  }
  if (!has_pos) in.fail("Properties has no pos column");
  if (!has_species) in.fail("Properties has no species column");
  return cols;
}

std::vector<double> numbers_of(const LineReader& in, const std::string& text, const std::string& what) {
  std::vector<double> v;
  for (const auto& w : split_words(text)) v.push_back(in.to_double(w, what));
  return v;
}

// ASE's logical values.
bool logical(const LineReader& in, const std::string& s, const std::string& what) {
  if (s == "T" || s == "True" || s == "true" || s == "1") return true;
  if (s == "F" || s == "False" || s == "false" || s == "0") return false;
  in.fail("expected T or F for " + what + ", found '" + s + "'");
}

Mat3 tensor(const LineReader& in, const std::string& text, const std::string& key) {
  const auto v = numbers_of(in, text, key);
  if (v.size() == 9) return Mat3{{{v[0], v[1], v[2]}, {v[3], v[4], v[5]}, {v[6], v[7], v[8]}}};
  if (v.size() == 6)  // Voigt order xx yy zz yz xz xy
    return Mat3{{{v[0], v[5], v[4]}, {v[5], v[1], v[3]}, {v[4], v[3], v[2]}}};
  in.fail(key + " needs 9 or 6 numbers, found " + std::to_string(v.size()));
}

// The cell (Lattice and pbc) of a frame; none: non-periodic, set once the positions are known.
void read_cell(const LineReader& in, std::map<std::string, std::string>& kv, Structure& s) {
  std::array<bool, 3> pbc{true, true, true};
  if (kv.count("pbc")) {
    const auto w = split_words(kv["pbc"]);
    if (w.size() != 3) in.fail("pbc needs 3 values (T or F), found '" + kv["pbc"] + "'");
    for (int k = 0; k < 3; ++k) pbc[k] = logical(in, w[k], "pbc");
    if (!kv.count("Lattice") && (pbc[0] || pbc[1] || pbc[2])) in.fail("pbc is periodic in some direction but there is no Lattice");
  }
  if (!kv.count("Lattice")) return;
  const auto v = numbers_of(in, kv["Lattice"], "Lattice");
  if (v.size() != 9) in.fail("Lattice needs 9 numbers, found " + std::to_string(v.size()));
  try {
    s.box = Box::from_matrix({{{v[0], v[1], v[2]}, {v[3], v[4], v[5]}, {v[6], v[7], v[8]}}}, {}, pbc);
  } catch (const Error& e) {
    in.fail(std::string("Lattice: ") + e.what());
  }
}

// One atom line, by the columns; per-atom masses go to `masses`.
void read_atom(const LineReader& in, const std::string& row, const std::vector<Column>& cols, std::size_t need,
               Structure& s, std::vector<double>& masses) {
  const auto w = split_words(row);
  if (w.size() != need)
    in.fail("expected " + std::to_string(need) + " columns (Properties), found " + std::to_string(w.size()));
  std::size_t at = 0;
  for (const auto& c : cols) {
    auto num = [&](long k) { return in.to_double(w[at + k], c.name); };
    if (c.name == "species") s.types.push_back(s.type_index(w[at]));
    else if (is_pos(c.name)) s.positions.push_back({num(0), num(1), num(2)});
    else if (is_vel(c.name)) s.velocities.push_back({num(0), num(1), num(2)});
    else if (is_force(c.name)) s.forces.push_back({num(0), num(1), num(2)});
    else if (is_charge(c.name)) s.charges.push_back(num(0));
    else if (c.name == "masses") {
      masses.push_back(num(0));
      if (!(masses.back() > 0)) in.fail("expected a positive mass, found " + w[at]);
    } else if (c.kind == 'R') {
      // Other real columns are kept by name (Structure::columns), checked as numbers.
      auto& column = s.columns[c.name];
      column.width = static_cast<int>(c.width);
      for (long k = 0; k < c.width; ++k) column.values.push_back(num(k));
    } else {
      // Columns the reader does not use are still checked against their declared type.
      for (long k = 0; k < c.width; ++k) {
        if (c.kind == 'I') in.to_long(w[at + k], c.name);
        else if (c.kind == 'L') logical(in, w[at + k], c.name);
      }
    }
    at += static_cast<std::size_t>(c.width);
  }
}

}  // namespace

std::vector<Structure> read_extxyz(const std::string& path) {
  LineReader in(path);
  std::vector<Structure> frames;
  std::string line;
  while (in.next_nonblank(line)) {
    const auto count_words = split_words(line);
    if (count_words.size() != 1) in.fail("expected the number of atoms, found '" + line + "'");
    const long natoms = in.to_count(count_words[0], "atoms", 8);  // "H 0 0 0\n" at least
    const std::string header = in.next_line();
    std::map<std::string, std::string> kv;
    try {
      kv = parse_extxyz_header(header);
    } catch (const Error& e) {
      in.fail(e.what());
    }
    Structure s;
    const std::vector<Column> cols =
        parse_properties(in, kv.count("Properties") ? kv["Properties"] : "species:S:1:pos:R:3");
    std::size_t need = 0;
    for (const auto& c : cols) need += static_cast<std::size_t>(c.width);
    read_cell(in, kv, s);
    // The header's numbers, checked here so that errors name the header line.
    if (kv.count("energy")) s.energy = in.to_double(kv["energy"], "energy");
    std::optional<Mat3> virial, stress;
    if (kv.count("virial")) virial = tensor(in, kv["virial"], "virial");
    else if (kv.count("stress")) stress = tensor(in, kv["stress"], "stress");
    std::vector<double> masses;
    for (long i = 0; i < natoms; ++i) {
      std::string row;
      if (!in.next(row)) in.fail("file ends after " + std::to_string(i) + " of " + std::to_string(natoms) + " atom lines");
      read_atom(in, row, cols, need, s, masses);
    }
    // Per-atom masses set their type's mass and must agree within a type.
    std::vector<bool> mass_set(s.type_names.size(), false);
    for (std::size_t i = 0; i < masses.size(); ++i) {
      const int t = s.types[i];
      if (mass_set[t] && s.type_masses[t] != masses[i]) in.fail("atoms of type " + s.type_names[t] + " have different masses");
      s.type_masses[t] = masses[i];
      mass_set[t] = true;
    }
    if (!kv.count("Lattice")) {  // no cell: non-periodic
      try {
        s.box = Box::enclosing(s.positions);
      } catch (const Error& e) {
        in.fail(std::string("the box around the atoms: ") + e.what());
      }
    }
    if (virial) s.virial = virial;
    else if (stress) s.virial = -s.box.volume() * *stress;  // ASE: stress in eV/Å^3
    for (const auto& [k, v] : kv)
      if (k != "Lattice" && k != "Properties" && k != "pbc" && k != "energy" && k != "virial" && k != "stress") s.info[k] = v;
    if (const std::string p = s.problem(); !p.empty()) in.fail(p);
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
  for (const auto& [name, c] : s.columns) o << ":" << name << ":R:" << c.width;
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
    for (const auto& [name, c] : s.columns)
      for (int k = 0; k < c.width; ++k) o << " " << c.values[i * static_cast<std::size_t>(c.width) + k];
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
