#include "quasar/io/n2p2_data.hpp"

#include <algorithm>
#include <fstream>

#include "quasar/core/units.hpp"
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

}  // namespace quasar::io
