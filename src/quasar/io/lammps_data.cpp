#include "quasar/io/lammps_data.hpp"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "quasar/core/error.hpp"
#include "quasar/io/text.hpp"

namespace quasar::io {

namespace {

// What a section of a data file holds and how many rows it has: the header count it follows.
enum class Rows { atoms, atom_types, atom_type_pairs, bond_types, angle_types, dihedral_types, improper_types,
                  bonds, angles, dihedrals, impropers };
enum class Kind { atoms, velocities, masses, coeffs, bonded_coeffs, pair_ij, topology, labels, unsupported };
struct SectionKind {
  Kind kind;
  Rows rows;
};

const std::map<std::string, SectionKind> kSections = {
    {"Atoms", {Kind::atoms, Rows::atoms}},
    {"Velocities", {Kind::velocities, Rows::atoms}},
    {"Masses", {Kind::masses, Rows::atom_types}},
    {"Pair Coeffs", {Kind::coeffs, Rows::atom_types}},
    {"PairIJ Coeffs", {Kind::pair_ij, Rows::atom_type_pairs}},
    {"Bond Coeffs", {Kind::bonded_coeffs, Rows::bond_types}},
    {"Angle Coeffs", {Kind::bonded_coeffs, Rows::angle_types}},
    {"Dihedral Coeffs", {Kind::bonded_coeffs, Rows::dihedral_types}},
    {"Improper Coeffs", {Kind::bonded_coeffs, Rows::improper_types}},
    // class2 cross terms
    {"BondBond Coeffs", {Kind::coeffs, Rows::angle_types}},
    {"BondAngle Coeffs", {Kind::coeffs, Rows::angle_types}},
    {"MiddleBondTorsion Coeffs", {Kind::coeffs, Rows::dihedral_types}},
    {"EndBondTorsion Coeffs", {Kind::coeffs, Rows::dihedral_types}},
    {"AngleTorsion Coeffs", {Kind::coeffs, Rows::dihedral_types}},
    {"AngleAngleTorsion Coeffs", {Kind::coeffs, Rows::dihedral_types}},
    {"BondBond13 Coeffs", {Kind::coeffs, Rows::dihedral_types}},
    {"AngleAngle Coeffs", {Kind::coeffs, Rows::improper_types}},
    {"Bonds", {Kind::topology, Rows::bonds}},
    {"Angles", {Kind::topology, Rows::angles}},
    {"Dihedrals", {Kind::topology, Rows::dihedrals}},
    {"Impropers", {Kind::topology, Rows::impropers}},
    {"Atom Type Labels", {Kind::labels, Rows::atom_types}},
    {"Bond Type Labels", {Kind::labels, Rows::bond_types}},
    {"Angle Type Labels", {Kind::labels, Rows::angle_types}},
    {"Dihedral Type Labels", {Kind::labels, Rows::dihedral_types}},
    {"Improper Type Labels", {Kind::labels, Rows::improper_types}},
    {"Ellipsoids", {Kind::unsupported, Rows::atoms}},
    {"Lines", {Kind::unsupported, Rows::atoms}},
    {"Triangles", {Kind::unsupported, Rows::atoms}},
    {"Bodies", {Kind::unsupported, Rows::atoms}},
};

// Header counts: "N atoms", "N bond types", "N extra bond per atom", ... (-1: not given).
struct Header {
  std::map<std::string, long> count;
  LammpsBounds b{0, 0, 0, 0, 0, 0, 0, 0, 0};
  bool have[3] = {false, false, false};
  long get(const std::string& key) const {
    const auto it = count.find(key);
    return it == count.end() ? 0 : it->second;
  }
  long rows(Rows r) const {
    switch (r) {
      case Rows::atoms: return get("atoms");
      case Rows::atom_types: return get("atom types");
      case Rows::atom_type_pairs: return get("atom types") * (get("atom types") + 1) / 2;
      case Rows::bond_types: return get("bond types");
      case Rows::angle_types: return get("angle types");
      case Rows::dihedral_types: return get("dihedral types");
      case Rows::improper_types: return get("improper types");
      case Rows::bonds: return get("bonds");
      case Rows::angles: return get("angles");
      case Rows::dihedrals: return get("dihedrals");
      case Rows::impropers: return get("impropers");
    }
    return 0;
  }
};

// The fewest bytes a row of each counted thing takes ("1 1 0 0 0\n" for an atom), so that a count
// can be checked against the file's size; 0: not a count of rows (no bound from the size).
const std::map<std::string, long> kCounts = {
    {"atoms", 10},           {"bonds", 8},
    {"angles", 10},          {"dihedrals", 12},
    {"impropers", 12},       {"atom types", 1},
    {"bond types", 1},       {"angle types", 1},
    {"dihedral types", 1},   {"improper types", 1},
    {"extra bond per atom", 0}, {"extra angle per atom", 0},
    {"extra dihedral per atom", 0}, {"extra improper per atom", 0},
    {"extra special per atom", 0}, {"ellipsoids", 0},
    {"lines", 0},            {"triangles", 0},
    {"bodies", 0},
};

// A header line; false when it is not one.
bool read_header_line(const LineReader& in, const std::vector<std::string>& w, Header& h) {
  const std::string rest = w.size() > 1 ? join(std::vector<std::string>(w.begin() + 1, w.end())) : "";
  if (const auto c = kCounts.find(rest); c != kCounts.end()) {
    if (h.count.count(rest)) in.fail("'" + rest + "' is given twice");
    const long n = c->second > 0 ? in.to_count(w[0], rest, c->second) : in.to_int(w[0], rest, 0, INT_MAX);
    if (rest.find("types") != std::string::npos && n > INT_MAX) in.fail("too many " + rest);
    if ((rest == "ellipsoids" || rest == "lines" || rest == "triangles" || rest == "bodies") && n > 0)
      in.fail(rest + " are not supported (atom styles atomic, charge, bond, angle, molecular, full)");
    h.count[rest] = n;
    return true;
  }
  const char* axes[3][2] = {{"xlo", "xhi"}, {"ylo", "yhi"}, {"zlo", "zhi"}};
  double* bounds[3][2] = {{&h.b.xlo, &h.b.xhi}, {&h.b.ylo, &h.b.yhi}, {&h.b.zlo, &h.b.zhi}};
  for (int k = 0; k < 3; ++k)
    if (w.size() == 4 && w[2] == axes[k][0] && w[3] == axes[k][1]) {
      *bounds[k][0] = in.to_double(w[0], axes[k][0]);
      *bounds[k][1] = in.to_double(w[1], axes[k][1]);
      if (!(*bounds[k][1] > *bounds[k][0])) in.fail(std::string(axes[k][1]) + " must be larger than " + axes[k][0]);
      h.have[k] = true;
      return true;
    }
  if (w.size() == 6 && w[3] == "xy" && w[4] == "xz" && w[5] == "yz") {
    h.b.xy = in.to_double(w[0], "xy");
    h.b.xz = in.to_double(w[1], "xz");
    h.b.yz = in.to_double(w[2], "yz");
    return true;
  }
  return false;
}

// Column layout of an atom style's Atoms lines: id first; -1 for columns the style lacks.
struct AtomStyle {
  int mol, type, q, x, columns;
};
const std::map<std::string, AtomStyle> kAtomStyles = {
    {"atomic", {-1, 1, -1, 2, 5}},   {"charge", {-1, 1, 2, 3, 6}},    {"bond", {1, 2, -1, 3, 6}},
    {"angle", {1, 2, -1, 3, 6}},     {"molecular", {1, 2, -1, 3, 6}}, {"full", {1, 2, 3, 4, 7}},
};

// Which of the topology's four kinds a section holds (Bonds or Bond Coeffs: 0, Angles: 1, ...).
int topology_kind(const std::string& section) {
  for (int k = 0; k < 4; ++k) {
    const std::string noun = Topology::kKinds[static_cast<std::size_t>(k)].noun;
    if (section == Topology::kKinds[static_cast<std::size_t>(k)].section ||
        section == std::string(1, static_cast<char>(std::toupper(noun[0]))) + noun.substr(1) + " Coeffs")
      return k;
  }
  return -1;
}
const Rows kTypeRows[4] = {Rows::bond_types, Rows::angle_types, Rows::dihedral_types, Rows::improper_types};

}  // namespace

Structure read_lammps_data(const std::string& path, const std::string& style_arg) {
  LineReader in(path);
  in.next_line();  // title line
  Header h;
  std::string line, section;
  // Header: keyword lines until the first section name.
  while (in.next_nonblank(line)) {
    const auto w = split_words(strip_comment(line));
    if (w.empty()) continue;
    if (kSections.count(join(w))) {
      section = line;
      break;
    }
    if (!read_header_line(in, w, h))
      in.fail("unknown header line '" + line + "' (expected counts such as 'N atoms', 'N atom types', 'N bonds', "
              "bounds 'lo hi xlo xhi' or 'xy xz yz', or a section name)");
  }
  if (!h.count.count("atoms")) in.fail("the header does not give the number of atoms ('N atoms')");
  if (h.get("atom types") < 1) in.fail("the header does not give the number of atom types ('N atom types')");
  if (!h.have[0] || !h.have[1] || !h.have[2]) in.fail("the header lacks one of the 'xlo xhi', 'ylo yhi', 'zlo zhi' lines");
  for (const char* kind : {"bond", "angle", "dihedral", "improper"})
    if (h.get(std::string(kind) + "s") > 0 && h.get(std::string(kind) + " types") < 1)
      in.fail("the header gives " + std::string(kind) + "s but no '" + kind + " types'");
  const int ntypes = static_cast<int>(h.get("atom types"));

  Structure s;
  s.topology.file = path;
  for (int k = 0; k < 4; ++k) s.topology.set(k).num_types = static_cast<int>(h.rows(kTypeRows[k]));
  try {
    s.box = box_from_lammps(h.b);
  } catch (const Error& e) {
    in.fail(e.what());
  }
  std::vector<std::string> labels(ntypes), mass_comments(ntypes);
  s.type_masses.assign(ntypes, 0.0);
  std::map<long, std::size_t> index_of;  // atom id -> position in the file
  std::map<std::string, long> seen;      // section -> its header line
  while (!section.empty()) {
    const std::string name = join(split_words(strip_comment(section)));
    const SectionKind kind = kSections.at(name);
    if (seen.count(name)) in.fail("a second " + name + " section (the first is on line " + std::to_string(seen[name]) + ")");
    seen[name] = in.line_number();
    if ((kind.kind == Kind::velocities || kind.kind == Kind::topology) && !seen.count("Atoms"))
      in.fail("the " + name + " section must follow the Atoms section");
    const long rows = h.rows(kind.rows);
    auto read_rows = [&](const std::function<void(const std::vector<std::string>&)>& row) {
      for (long r = 0; r < rows; ++r) {
        if (!in.next_nonblank(line))
          in.fail("file ends inside the " + name + " section (" + std::to_string(r) + " of " + std::to_string(rows) + " lines read)");
        const auto w = split_words(strip_comment(line));
        if (w.empty()) in.fail("expected a line of the " + name + " section, found a comment");
        row(w);
      }
    };
    auto type_of = [&](const std::string& w, Rows count, const char* what) {
      return static_cast<int>(in.to_int(w, what, 1, h.rows(count))) - 1;
    };
    std::set<long> given;  // the types (or type pairs) of a per-type section, each once
    auto once = [&](long key, const std::string& what) {
      if (!given.insert(key).second) in.fail(what + " appears twice in the " + name + " section");
    };
    switch (kind.kind) {
      case Kind::masses:
        read_rows([&](const std::vector<std::string>& w) {
          if (w.size() != 2) in.fail("expected 'type mass', found '" + line + "'");
          const int t = type_of(w[0], Rows::atom_types, "an atom type");
          once(t, "atom type " + w[0]);
          s.type_masses[t] = in.to_double(w[1], "the mass");
          if (!(s.type_masses[t] > 0)) in.fail("expected a positive mass, found " + w[1]);
          const auto c = split_words(comment_of(line));
          if (c.size() == 1) mass_comments[t] = c[0];
        });
        break;
      case Kind::labels:
        read_rows([&](const std::vector<std::string>& w) {
          if (w.size() != 2) in.fail("expected 'type label', found '" + line + "'");
          const int t = type_of(w[0], kind.rows, "a type");
          once(t, "type " + w[0]);
          if (kind.rows != Rows::atom_types) return;
          for (const auto& l : labels)
            if (l == w[1]) in.fail("type label " + w[1] + " is given twice");
          labels[t] = w[1];
        });
        break;
      case Kind::coeffs:
        read_rows([&](const std::vector<std::string>& w) { once(type_of(w[0], kind.rows, "a type"), "type " + w[0]); });
        break;
      case Kind::bonded_coeffs: {
        // Kept for the bonded potentials, with the style the comment names; a hybrid style's lines
        // start with a sub-style's name, which no potential here takes: those are checked only.
        BondedSet& set = s.topology.set(topology_kind(name));
        const auto style = split_words(comment_of(section));
        set.style = style.empty() ? "" : style[0];
        set.coeffs_line = in.line_number();
        const bool hybrid = set.style == "hybrid";
        if (!hybrid) set.coeffs.assign(static_cast<std::size_t>(set.num_types), {});
        read_rows([&](const std::vector<std::string>& w) {
          const int t = type_of(w[0], kind.rows, "a type");
          once(t, "type " + w[0]);
          if (hybrid) return;
          for (std::size_t c = 1; c < w.size(); ++c)
            set.coeffs[static_cast<std::size_t>(t)].push_back(in.to_double(w[c], "coefficient " + std::to_string(c)));
        });
        break;
      }
      case Kind::pair_ij:
        read_rows([&](const std::vector<std::string>& w) {
          if (w.size() < 2) in.fail("expected 'type type coefficients...', found '" + line + "'");
          const int i = type_of(w[0], Rows::atom_types, "an atom type"), j = type_of(w[1], Rows::atom_types, "an atom type");
          if (j < i) in.fail("PairIJ Coeffs lines give i <= j, found " + w[0] + " " + w[1]);
          once(static_cast<long>(i) * ntypes + j, "type pair " + w[0] + " " + w[1]);
        });
        break;
      case Kind::atoms: {
        const std::string comment = comment_of(section);
        const std::string style = !style_arg.empty() ? style_arg : (comment.empty() ? "atomic" : comment);
        const auto st = kAtomStyles.find(style);
        if (st == kAtomStyles.end())
          in.fail("atom style '" + style + "' is not supported (atomic, charge, bond, angle, molecular, full)");
        const AtomStyle a = st->second;
        read_rows([&](const std::vector<std::string>& w) {
          if (static_cast<int>(w.size()) != a.columns && static_cast<int>(w.size()) != a.columns + 3)
            in.fail("expected " + std::to_string(a.columns) + " or " + std::to_string(a.columns + 3) + " values for atom style " +
                    style + ", found " + std::to_string(w.size()));
          const long id = in.to_int(w[0], "the atom id", 1, LONG_MAX);
          if (!index_of.emplace(id, s.positions.size()).second) in.fail("atom id " + w[0] + " appears twice");
          if (a.mol >= 0) s.topology.molecules.push_back(in.to_int(w[a.mol], "the molecule id", 0, LONG_MAX));
          s.types.push_back(type_of(w[a.type], Rows::atom_types, "the atom type"));
          if (a.q >= 0) s.charges.push_back(in.to_double(w[a.q], "the charge"));
          Vec3 r{in.to_double(w[a.x], "x"), in.to_double(w[a.x + 1], "y"), in.to_double(w[a.x + 2], "z")};
          if (static_cast<int>(w.size()) == a.columns + 3) {
            int n[3];
            for (int k = 0; k < 3; ++k) n[k] = static_cast<int>(in.to_int(w[a.x + 3 + k], "an image flag", INT_MIN, INT_MAX));
            r += s.box.shift(n[0], n[1], n[2]);  // unwrapped
            if (!std::isfinite(r.x) || !std::isfinite(r.y) || !std::isfinite(r.z)) in.fail("the unwrapped position is not finite");
          }
          s.positions.push_back(r);
          s.ids.push_back(id);
        });
        break;
      }
      case Kind::velocities:
        s.velocities.resize(s.size());
        read_rows([&](const std::vector<std::string>& w) {
          if (w.size() != 4) in.fail("expected 'id vx vy vz', found '" + line + "'");
          const auto it = index_of.find(in.to_long(w[0], "the atom id"));
          if (it == index_of.end()) in.fail("velocity for unknown atom id " + w[0]);
          once(static_cast<long>(it->second), "atom id " + w[0]);
          s.velocities[it->second] = {in.to_double(w[1], "vx"), in.to_double(w[2], "vy"), in.to_double(w[3], "vz")};
        });
        break;
      case Kind::topology: {
        const int k = topology_kind(name);
        BondedSet& set = s.topology.set(k);
        const std::size_t atoms = static_cast<std::size_t>(set.arity);
        set.atoms.reserve(atoms * static_cast<std::size_t>(rows));
        set.types.reserve(static_cast<std::size_t>(rows));
        read_rows([&](const std::vector<std::string>& w) {
          if (w.size() != atoms + 2)
            in.fail("expected 'id type' and " + std::to_string(atoms) + " atom ids, found '" + line + "'");
          in.to_int(w[0], "the " + name + " id", 1, LONG_MAX);
          set.types.push_back(type_of(w[1], kTypeRows[k], "the type"));
          const std::size_t first = set.atoms.size();
          for (std::size_t m = 0; m < atoms; ++m) {
            const auto it = index_of.find(in.to_long(w[2 + m], "an atom id"));
            if (it == index_of.end()) in.fail("unknown atom id " + w[2 + m]);
            for (std::size_t q = first; q < set.atoms.size(); ++q)
              if (set.atoms[q] == static_cast<int>(it->second)) in.fail("atom id " + w[2 + m] + " appears twice in one line");
            set.atoms.push_back(static_cast<int>(it->second));
          }
        });
        break;
      }
      case Kind::unsupported:
        in.fail("section '" + name + "' is not supported (atom styles atomic, charge, bond, angle, molecular, full)");
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
  if (h.get("atoms") > 0 && !seen.count("Atoms")) in.fail("no Atoms section");
  for (const char* needed : {"Bonds", "Angles", "Dihedrals", "Impropers"}) {
    std::string key = needed;
    key[0] = static_cast<char>(std::tolower(key[0]));
    if (h.get(key) > 0 && !seen.count(needed)) in.fail("the header announces " + key + " but there is no " + needed + " section");
  }
  // Names: the type label, else a one-word comment of the Masses line, else the number.
  for (int t = 0; t < ntypes; ++t) {
    s.type_names.push_back(!labels[t].empty() ? labels[t] : !mass_comments[t].empty() ? mass_comments[t] : std::to_string(t + 1));
    if (s.type_masses[t] == 0) s.type_masses[t] = element_mass(s.type_names[t]);
  }
  if (const std::string p = s.problem(); !p.empty()) in.fail(p);
  return s;
}

void write_lammps_data(const std::string& path, const Structure& s, const std::string& style) {
  const auto st = kAtomStyles.find(style);
  if (st == kAtomStyles.end())
    throw Error("write_lammps_data: unknown atom style '" + style + "' (atomic, charge, bond, angle, molecular, full)");
  const AtomStyle a = st->second;
  // The kinds of topology each style holds: bond (bonds), angle (and angles), molecular and full (all four).
  const int kinds = style == "bond" ? 1 : style == "angle" ? 2 : a.mol >= 0 ? 4 : 0;
  for (int k = kinds; k < 4; ++k)
    if (!s.topology.set(k).empty())
      throw Error("write_lammps_data: atom style " + style + " holds no " + Topology::kKinds[static_cast<std::size_t>(k)].noun +
                  "s, and the structure has " + std::to_string(s.topology.set(k).size()));
  if (const std::string p = s.topology.problem(s.size()); !p.empty()) throw Error("write_lammps_data: " + p);
  const LammpsBounds b = lammps_bounds(s.box);
  std::ofstream out(path);
  if (!out) throw Error("cannot write " + path);
  out << std::setprecision(17);
  out << "LAMMPS data file written by Quasar\n\n" << s.size() << " atoms\n" << s.type_names.size() << " atom types\n";
  for (int k = 0; k < kinds; ++k) {
    const BondedSet& set = s.topology.set(k);
    const std::string noun = Topology::kKinds[static_cast<std::size_t>(k)].noun;
    out << set.size() << " " << noun << "s\n" << set.num_types << " " << noun << " types\n";
  }
  out << "\n" << b.xlo << " " << b.xhi << " xlo xhi\n" << b.ylo << " " << b.yhi << " ylo yhi\n" << b.zlo << " " << b.zhi << " zlo zhi\n";
  out << b.xy << " " << b.xz << " " << b.yz << " xy xz yz\n";
  // LAMMPS takes only positive masses; the comment names the type (this reader takes it back).
  if (std::all_of(s.type_masses.begin(), s.type_masses.end(), [](double m) { return m > 0; })) {
    out << "\nMasses\n\n";
    for (std::size_t t = 0; t < s.type_names.size(); ++t) out << t + 1 << " " << s.type_masses[t] << " # " << s.type_names[t] << "\n";
  }
  for (int k = 0; k < kinds; ++k) {
    const BondedSet& set = s.topology.set(k);
    if (set.coeffs.empty()) continue;
    std::string noun = Topology::kKinds[static_cast<std::size_t>(k)].noun;
    noun[0] = static_cast<char>(std::toupper(noun[0]));
    out << "\n" << noun << " Coeffs" << (set.style.empty() ? "" : " # " + set.style) << "\n\n";
    for (std::size_t t = 0; t < set.coeffs.size(); ++t) {
      out << t + 1;
      for (double c : set.coeffs[t]) out << " " << c;
      out << "\n";
    }
  }
  auto id_of = [&](std::size_t i) { return s.ids.empty() ? static_cast<long>(i + 1) : s.ids[i]; };
  out << "\nAtoms # " << style << "\n\n";
  for (std::size_t i = 0; i < s.size(); ++i) {
    out << id_of(i) << " ";
    if (a.mol >= 0) out << (s.topology.molecules.empty() ? 0L : s.topology.molecules[i]) << " ";
    out << s.types[i] + 1 << " ";
    if (a.q >= 0) out << (s.charges.empty() ? 0.0 : s.charges[i]) << " ";
    out << s.positions[i].x << " " << s.positions[i].y << " " << s.positions[i].z << "\n";
  }
  if (!s.velocities.empty()) {
    out << "\nVelocities\n\n";
    for (std::size_t i = 0; i < s.size(); ++i)
      out << id_of(i) << " " << s.velocities[i].x << " " << s.velocities[i].y << " " << s.velocities[i].z << "\n";
  }
  for (int k = 0; k < kinds; ++k) {
    const BondedSet& set = s.topology.set(k);
    if (set.empty()) continue;
    out << "\n" << Topology::kKinds[static_cast<std::size_t>(k)].section << "\n\n";
    for (std::size_t e = 0; e < set.size(); ++e) {
      out << e + 1 << " " << set.types[e] + 1;
      for (int m = 0; m < set.arity; ++m) out << " " << id_of(static_cast<std::size_t>(set.entry(e)[m]));
      out << "\n";
    }
  }
  if (!out) throw Error("error writing " + path);
}

}  // namespace quasar::io
