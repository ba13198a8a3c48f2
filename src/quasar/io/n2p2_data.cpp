#include "quasar/io/n2p2_data.hpp"

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "quasar/core/units.hpp"
#include "quasar/io/read.hpp"
#include "quasar/io/text.hpp"

namespace quasar::io {

bool is_n2p2_data(const std::string& path) {
  std::ifstream in(path);
  std::string word;
  return static_cast<bool>(in >> word) && word == "begin";
}

std::vector<Structure> read_n2p2_data(const std::string& path, const units::FileUnits& units) {
  LineReader in(path);
  std::vector<Structure> out;
  std::string line;
  const double force_unit = units.energy / units.length;
  while (in.next_nonblank(line)) {
    auto w = split_words(line);
    if (w[0] != "begin") in.fail("expected 'begin' (a new structure), found '" + w[0] + "'");
    Structure s;
    std::vector<Vec3> lattice;
    bool ended = false;
    while (!ended && in.next_nonblank(line)) {
      w = split_words(line);
      const std::string& key = w[0];
      auto number = [&](std::size_t k, const char* what) { return in.to_double(w.at(k), what); };
      auto need = [&](std::size_t n) {
        if (w.size() != n) in.fail("'" + key + "' needs " + std::to_string(n - 1) + " values, found " + std::to_string(w.size() - 1));
      };
      if (key == "comment") {
        if (w.size() > 1) s.info["comment"] = join(std::vector<std::string>(w.begin() + 1, w.end()));
      } else if (key == "lattice") {
        need(4);
        if (lattice.size() == 3) in.fail("more than three lattice lines");
        lattice.push_back(units.length * Vec3{number(1, "lattice x"), number(2, "lattice y"), number(3, "lattice z")});
      } else if (key == "atom") {
        need(10);
        s.positions.push_back(units.length * Vec3{number(1, "x"), number(2, "y"), number(3, "z")});
        s.types.push_back(s.type_index(w[4]));
        s.charges.push_back(number(5, "charge"));
        number(6, "the unused column n");
        s.forces.push_back(force_unit * Vec3{number(7, "fx"), number(8, "fy"), number(9, "fz")});
      } else if (key == "energy") {
        need(2);
        s.energy = units.energy * number(1, "energy");
      } else if (key == "charge") {
        need(2);
        number(1, "charge");
      } else if (key == "end") {
        ended = true;
      } else if (key == "begin") {
        in.fail("'begin' before the previous structure's 'end'");
      } else {
        in.fail("unknown keyword '" + key + "' (expected comment, lattice, atom, energy, charge or end)");
      }
    }
    if (!ended) in.fail("the file ends inside a structure (no 'end')");
    if (s.positions.empty()) in.fail("structure without atoms");
    if (!s.energy) in.fail("structure without an energy line");
    if (lattice.size() != 0 && lattice.size() != 3)
      in.fail("a structure needs zero or three lattice lines, this one has " + std::to_string(lattice.size()));
    try {
      s.box = lattice.empty() ? Box::enclosing(s.positions) : Box::from_matrix({{lattice[0], lattice[1], lattice[2]}});
    } catch (const Error& e) {
      in.fail(std::string(lattice.empty() ? "the box around the atoms: " : "lattice: ") + e.what());
    }
    if (const std::string p = s.problem(); !p.empty()) in.fail(p);  // also values out of range after the unit conversion
    out.push_back(std::move(s));
  }
  if (out.empty()) throw InputError(path, 0, "no structure (n2p2 input.data starts each with 'begin')");
  return out;
}

namespace {
// Why n2p2 cannot hold the structure ("" when it can).
std::string n2p2_problem(const Structure& s) {
  if (!s.energy) return "a structure without an energy";
  if (s.forces.size() != s.size()) return "a structure without forces";
  const int periodic = s.box.periodic[0] + s.box.periodic[1] + s.box.periodic[2];
  if (periodic != 0 && periodic != 3)
    return "a cell periodic in " + std::to_string(periodic) + " directions (n2p2 takes three or none)";
  return "";
}
}  // namespace

void append_n2p2_data(std::ostream& out, const Structure& s, const units::FileUnits& units) {
  if (const std::string p = n2p2_problem(s); !p.empty()) throw Error("n2p2 input.data: " + p);
  const double length = units.length, force = units.energy / units.length;
  std::ostringstream o;
  o << std::setprecision(17) << "begin\n";
  std::string comment;
  if (const auto c = s.info.find("comment"); c != s.info.end()) {
    comment = c->second;
  } else {
    for (const auto& [k, v] : s.info) comment += (comment.empty() ? "" : " ") + k + "=" + v;
  }
  std::replace(comment.begin(), comment.end(), '\n', ' ');
  if (!comment.empty()) o << "comment " << comment << "\n";
  if (s.box.periodic[0])
    for (int r = 0; r < 3; ++r)
      o << "lattice " << s.box.h(r, 0) / length << " " << s.box.h(r, 1) / length << " " << s.box.h(r, 2) / length << "\n";
  double total_charge = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const Vec3& r = s.positions[i];
    const Vec3& f = s.forces[i];
    const double q = s.charges.empty() ? 0.0 : s.charges[i];
    total_charge += q;
    o << "atom " << r.x / length << " " << r.y / length << " " << r.z / length << " "
      << s.type_names[static_cast<std::size_t>(s.types[i])] << " " << q << " 0 " << f.x / force << " " << f.y / force
      << " " << f.z / force << "\n";
  }
  o << "energy " << *s.energy / units.energy << "\ncharge " << total_charge << "\nend\n";
  out << o.str();
}

void write_n2p2_data(const std::string& path, const std::vector<Structure>& frames, const units::FileUnits& units) {
  for (std::size_t k = 0; k < frames.size(); ++k)  // before anything is written
    if (const std::string p = n2p2_problem(frames[k]); !p.empty())
      throw Error(path + ": frame " + std::to_string(k) + ": " + p);
  write_file_atomically(path, [&](std::ostream& out) {
    for (const auto& f : frames) append_n2p2_data(out, f, units);
  });
}

}  // namespace quasar::io
