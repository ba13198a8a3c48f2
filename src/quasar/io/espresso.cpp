#include "quasar/io/espresso.hpp"

#include <fstream>
#include <sstream>

#include "quasar/core/error.hpp"

namespace quasar::io {

namespace {
constexpr double kRy = 13.605693122994;    // eV
constexpr double kBohr = 0.529177210903;   // Å

bool starts(const std::string& line, const std::string& text) {
  const auto p = line.find_first_not_of(' ');
  return p != std::string::npos && line.compare(p, text.size(), text) == 0;
}
}  // namespace

bool is_pw_output(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  for (int k = 0; k < 40 && std::getline(in, line); ++k)
    if (line.find("Program PWSCF") != std::string::npos) return true;
  return false;
}

Structure read_pw_output(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, 0, "cannot open");
  Structure s;
  double alat = 0;
  int nat = 0;
  bool have_cell = false, converged = true;
  Mat3 h{};
  std::string line;
  long no = 0;
  auto next = [&](const char* what) {
    if (!std::getline(in, line)) throw InputError(path, no, std::string("file ends inside ") + what);
    ++no;
    return line;
  };
  auto numbers = [&](const std::string& l, std::size_t from) {
    std::istringstream ss(l.substr(from));
    std::vector<double> v;
    for (double x; ss >> x;) v.push_back(x);
    return v;
  };
  while (std::getline(in, line)) {
    ++no;
    if (starts(line, "lattice parameter (alat)")) {
      alat = numbers(line, line.find('=') + 1).at(0) * kBohr;
    } else if (starts(line, "number of atoms/cell")) {
      nat = static_cast<int>(numbers(line, line.find('=') + 1).at(0));
    } else if (starts(line, "crystal axes: (cart. coord. in units of alat)")) {
      for (int r = 0; r < 3; ++r) {
        const std::string l = next("the crystal axes");
        const auto v = numbers(l, l.find("= (") + 3);
        if (l.find("= (") == std::string::npos || v.size() < 3) throw InputError(path, no, "expected three cell components");
        h.r[r] = {alat * v[0], alat * v[1], alat * v[2]};
      }
      have_cell = true;
    } else if (starts(line, "site n.") && line.find("positions (alat units)") != std::string::npos) {
      for (int i = 0; i < nat; ++i) {
        const std::string l = next("the positions");
        std::istringstream ss(l);
        std::string site, name;
        ss >> site >> name;
        const auto v = numbers(l, l.find("= (") + 3);
        if (l.find("= (") == std::string::npos || v.size() < 3) throw InputError(path, no, "expected a position");
        s.types.push_back(s.type_index(name));
        s.positions.push_back({alat * v[0], alat * v[1], alat * v[2]});
      }
    } else if (line.find("convergence NOT achieved") != std::string::npos) {
      converged = false;
    } else if (starts(line, "!")) {
      if (s.energy) throw InputError(path, no, "several energies: only scf outputs are read");
      s.energy = numbers(line, line.find('=') + 1).at(0) * kRy;
    } else if (starts(line, "Forces acting on atoms")) {
      next("the forces");
      for (int i = 0; i < nat; ++i) {
        const std::string l = next("the forces");
        const auto v = numbers(l, l.find('=') + 1);
        if (v.size() < 3) throw InputError(path, no, "expected a force");
        s.forces.push_back((kRy / kBohr) * Vec3{v[0], v[1], v[2]});
      }
    } else if (starts(line, "total   stress")) {
      Mat3 w{};
      for (int r = 0; r < 3; ++r) {
        const auto v = numbers(next("the stress"), 0);
        if (v.size() < 3) throw InputError(path, no, "expected a stress row");
        for (int c = 0; c < 3; ++c) w(r, c) = v[c] * kRy / (kBohr * kBohr * kBohr);
      }
      s.virial = w;  // scaled by the volume below
    }
  }
  if (!converged) throw InputError(path, 0, "the SCF did not converge");
  if (!have_cell || nat == 0 || static_cast<int>(s.size()) != nat) throw InputError(path, 0, "no cell or positions (not a pw.x output?)");
  if (!s.energy) throw InputError(path, 0, "no final energy (run unfinished?)");
  if (static_cast<int>(s.forces.size()) != nat) throw InputError(path, 0, "no forces (set tprnfor = .true.)");
  s.box = Box::from_matrix(h);
  if (s.virial) {
    const double v = s.box.volume();
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) (*s.virial)(r, c) *= v;
  }
  return s;
}

}  // namespace quasar::io
