#include "quasar/io/tinker_xyz.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <utility>

#include "quasar/io/text.hpp"

namespace quasar::io {

namespace {
bool whole_number(const std::string& w) {
  if (w.empty() || w.size() > 18) return false;
  const std::size_t start = (w[0] == '-' || w[0] == '+') ? 1 : 0;
  return start < w.size() && std::all_of(w.begin() + static_cast<long>(start), w.end(), [](char c) { return c >= '0' && c <= '9'; });
}
bool all_numbers(const std::vector<std::string>& w) {
  double v = 0;
  return std::all_of(w.begin(), w.end(), [&](const std::string& s) { return parse_finite(s, v); });
}
}  // namespace

Box tinker_cell(const double c[6]) {
  const double deg = M_PI / 180;
  const double ca = std::cos(c[3] * deg), cb = std::cos(c[4] * deg), cg = std::cos(c[5] * deg), sg = std::sin(c[5] * deg);
  const double cx = cb, cy = (ca - cb * cg) / sg, cz2 = 1 - cx * cx - cy * cy;
  if (!(cz2 > 0)) throw Error("the box angles do not make a cell");
  return Box::from_matrix({{{c[0], 0, 0}, {c[1] * cg, c[1] * sg, 0}, {c[2] * cx, c[2] * cy, c[2] * std::sqrt(cz2)}}});
}
bool is_tinker_xyz(const std::string& path) {
  std::ifstream in(path);
  std::string first, second;
  if (!std::getline(in, first)) return false;
  const std::vector<std::string> w = split_words(first);
  if (w.empty() || !whole_number(w[0])) return false;
  if (w.size() > 1) return true;  // extended XYZ's first line is the count alone
  if (!std::getline(in, second)) return false;
  const std::vector<std::string> a = split_words(second);
  // An atom record: index, name, x, y, z, type (and bonds), every word but the name a number.
  if (a.size() < 6 || !whole_number(a[0]) || !whole_number(a[5])) return false;
  double v = 0;
  return parse_finite(a[2], v) && parse_finite(a[3], v) && parse_finite(a[4], v);
}

Structure read_tinker_xyz(const std::string& path) {
  LineReader r(path);
  std::string line;
  if (!r.next_nonblank(line)) r.fail("empty file: expected the atom count and a title");
  const std::vector<std::string> head = split_words(line);
  const long n = r.to_count(head[0], "the atom count", 12);
  if (n == 0) r.fail("the atom count is 0");
  Structure s;
  s.topology.file = path;
  s.positions.reserve(static_cast<std::size_t>(n));
  std::vector<std::vector<long>> bonded(static_cast<std::size_t>(n));
  std::vector<long> lines(static_cast<std::size_t>(n));
  bool periodic = false;
  for (long i = 0; i < n; ++i) {
    if (!r.next(line)) r.fail("expected " + std::to_string(n) + " atoms, found " + std::to_string(i));
    std::vector<std::string> w = split_words(line);
    // The optional box line comes before the first atom: six numbers, no atom name.
    if (i == 0 && w.size() == 6 && all_numbers(w) && !whole_number(w[0])) {
      double c[6];
      for (int k = 0; k < 6; ++k) c[k] = r.to_double(w[static_cast<std::size_t>(k)], "the box");
      for (int k = 0; k < 3; ++k)
        if (!(c[k] > 0)) r.fail("the box lengths must be positive");
      for (int k = 3; k < 6; ++k)
        if (!(c[k] > 0 && c[k] < 180)) r.fail("the box angles must lie between 0 and 180 degrees");
      try {
        s.box = tinker_cell(c);
      } catch (const Error& e) {
        r.fail(e.what());
      }
      periodic = true;
      --i;
      continue;
    }
    if (w.size() < 6) r.fail("expected an atom: index, name, x, y, z, atom type and bonded atoms");
    if (r.to_int(w[0], "the atom index", 1, n) != i + 1)
      r.fail("atom " + w[0] + " where atom " + std::to_string(i + 1) + " was expected (atoms are numbered in order)");
    const Vec3 x{r.to_double(w[2], "x"), r.to_double(w[3], "y"), r.to_double(w[4], "z")};
    const long type = r.to_int(w[5], "the atom type", 0, 1000000);
    s.positions.push_back(x);
    s.types.push_back(s.type_index(std::to_string(type)));
    lines[static_cast<std::size_t>(i)] = r.line_number();
    for (std::size_t k = 6; k < w.size(); ++k) {
      const long j = r.to_int(w[k], "a bonded atom", 1, n);
      if (j == i + 1) r.fail("atom " + std::to_string(i + 1) + " is bonded to itself");
      bonded[static_cast<std::size_t>(i)].push_back(j - 1);
    }
  }
  if (!periodic) s.box = Box::enclosing(s.positions);
  while (r.next(line))
    if (!split_words(line).empty()) r.fail("text after the last atom (one structure per file)");
  // Every bond once, as the first of its two atoms lists it; both atoms must list it.
  for (long i = 0; i < n; ++i) {
    const auto& mine = bonded[static_cast<std::size_t>(i)];
    if (std::set<long>(mine.begin(), mine.end()).size() != mine.size())
      throw InputError(path, lines[static_cast<std::size_t>(i)], "atom " + std::to_string(i + 1) + " lists a bonded atom twice");
    for (long j : mine) {
      const auto& theirs = bonded[static_cast<std::size_t>(j)];
      if (std::find(theirs.begin(), theirs.end(), i) == theirs.end())
        throw InputError(path, lines[static_cast<std::size_t>(i)], "atom " + std::to_string(i + 1) + " is bonded to atom " +
                                                                       std::to_string(j + 1) + ", which does not list it");
      if (i < j) s.topology.bonds.add({static_cast<int>(i), static_cast<int>(j)}, 0);
    }
  }
  if (!s.topology.bonds.empty()) s.topology.bonds.num_types = 1;
  for (double& m : s.type_masses) m = 0;  // the parameter file's
  if (const std::string p = s.problem(); !p.empty()) throw InputError(path, 0, p);
  return s;
}

}  // namespace quasar::io
