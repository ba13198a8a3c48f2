#include "quasar/io/espresso.hpp"

#include <fstream>
#include <sstream>

#include "quasar/core/error.hpp"
#include "quasar/io/text.hpp"

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

namespace {
// The numbers of `line` after the first `open` and before the next `close` ("" for the line's end),
// each checked; `count` of them at least.
std::vector<double> numbers_in(const LineReader& in, const std::string& line, const std::string& open,
                               const std::string& close, std::size_t count, const std::string& what) {
  const auto from = line.find(open);
  if (from == std::string::npos) in.fail("expected '" + open + "' in the line of " + what);
  const auto to = close.empty() ? std::string::npos : line.find(close, from + open.size());
  const auto words = split_words(line.substr(from + open.size(), to == std::string::npos ? to : to - from - open.size()));
  if (words.size() < count) in.fail("expected " + std::to_string(count) + " numbers for " + what + ", found '" + line + "'");
  std::vector<double> v;
  for (std::size_t k = 0; k < count; ++k) v.push_back(in.to_double(words[k], what));
  return v;
}
}  // namespace

Structure read_pw_output(const std::string& path) {
  LineReader in(path);
  Structure s;
  double alat = 0;
  long nat = 0;
  bool have_cell = false, converged = true;
  Mat3 h{};
  std::string line;
  auto need_nat = [&](const char* what) {
    if (nat == 0) in.fail(std::string(what) + " before 'number of atoms/cell'");
  };
  while (in.next(line)) {
    if (starts(line, "lattice parameter (alat)")) {
      alat = numbers_in(in, line, "=", "", 1, "the lattice parameter")[0] * kBohr;
      if (!(alat > 0)) in.fail("expected a positive lattice parameter");
    } else if (starts(line, "number of atoms/cell")) {
      const auto w = split_words(line.substr(line.find('=') == std::string::npos ? line.size() : line.find('=') + 1));
      if (w.empty()) in.fail("expected the number of atoms after '='");
      const long n = in.to_count(w[0], "atoms", 60);  // each has a position line of more than 60 bytes
      if (n < 1 || (nat != 0 && n != nat)) in.fail("expected the same positive number of atoms throughout, found " + w[0]);
      nat = n;
    } else if (starts(line, "crystal axes: (cart. coord. in units of alat)")) {
      if (!(alat > 0)) in.fail("crystal axes before the lattice parameter");
      for (int r = 0; r < 3; ++r) {
        const auto v = numbers_in(in, in.next_line(), "= (", ")", 3, "a crystal axis");
        h.r[r] = {alat * v[0], alat * v[1], alat * v[2]};
      }
      have_cell = true;
    } else if (starts(line, "site n.") && line.find("positions (alat units)") != std::string::npos) {
      need_nat("positions");
      if (!(alat > 0)) in.fail("positions before the lattice parameter");
      if (!s.positions.empty()) in.fail("a second block of positions: only scf outputs are read");
      for (long i = 0; i < nat; ++i) {
        const std::string l = in.next_line();
        const auto w = split_words(l);
        if (w.size() < 2) in.fail("expected a position line 'N name tau(N) = ( x y z )'");
        const auto v = numbers_in(in, l, "= (", ")", 3, "a position");
        s.types.push_back(s.type_index(w[1]));
        s.positions.push_back({alat * v[0], alat * v[1], alat * v[2]});
      }
    } else if (line.find("convergence NOT achieved") != std::string::npos) {
      converged = false;
    } else if (starts(line, "!")) {
      if (s.energy) in.fail("several energies: only scf outputs are read");
      s.energy = numbers_in(in, line, "=", "", 1, "the total energy")[0] * kRy;
    } else if (starts(line, "Forces acting on atoms")) {
      need_nat("forces");
      if (!s.forces.empty()) in.fail("a second block of forces: only scf outputs are read");
      for (long i = 0; i < nat; ++i) {
        if (!in.next_nonblank(line)) in.fail("file ends inside the forces");
        const auto v = numbers_in(in, line, "force =", "", 3, "a force");
        s.forces.push_back((kRy / kBohr) * Vec3{v[0], v[1], v[2]});
      }
    } else if (starts(line, "total   stress")) {
      Mat3 w{};
      for (int r = 0; r < 3; ++r) {
        const std::string l = in.next_line();
        const auto v = numbers_in(in, l, "", "", 3, "a stress row");
        for (int c = 0; c < 3; ++c) w(r, c) = v[c] * kRy / (kBohr * kBohr * kBohr);
      }
      s.virial = w;  // scaled by the volume below
    }
  }
  if (!converged) throw InputError(path, 0, "the SCF did not converge");
  if (!have_cell || nat == 0 || static_cast<long>(s.size()) != nat)
    throw InputError(path, 0, "no cell or positions (not a pw.x output?)");
  if (!s.energy) throw InputError(path, 0, "no final energy (run unfinished?)");
  if (static_cast<long>(s.forces.size()) != nat) throw InputError(path, 0, "no forces (set tprnfor = .true.)");
  try {
    s.box = Box::from_matrix(h);
  } catch (const Error& e) {
    throw InputError(path, 0, std::string("crystal axes: ") + e.what());
  }
  if (s.virial) {
    const double v = s.box.volume();
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) (*s.virial)(r, c) *= v;
  }
  if (const std::string p = s.problem(); !p.empty()) throw InputError(path, 0, p);
  return s;
}

}  // namespace quasar::io
