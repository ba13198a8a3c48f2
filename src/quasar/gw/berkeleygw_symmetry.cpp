// BerkeleyGW's EPM order of the space-group operations (see berkeleygw_symmetry.hpp). The floating-point
// steps that decide ties (the reduced basis's sort by length) are done in the same arithmetic order as
// that program, so that equal lengths stay in the same order.
#include "quasar/gw/berkeleygw_symmetry.hpp"

#include <cmath>

#include "quasar/core/error.hpp"

namespace quasar::gw {

namespace {

constexpr double kSymprec = 1e-5;  // BerkeleyGW's, in units of the first lattice vector's length

// Matrices here are [row][column]; a lattice matrix holds the vectors as columns.
using Real3 = std::array<std::array<double, 3>, 3>;

// The 26 candidate columns of a lattice rotation in the reduced basis, in the order that fixes
// BerkeleyGW's: the unit vectors, their negatives, the two-term sums, the three-term ones.
constexpr int kAxes[26][3] = {
    {1, 0, 0},  {0, 1, 0},  {0, 0, 1},   {-1, 0, 0}, {0, -1, 0}, {0, 0, -1}, {0, 1, 1},   {1, 0, 1},  {1, 1, 0},
    {0, -1, -1}, {-1, 0, -1}, {-1, -1, 0}, {0, 1, -1}, {-1, 0, 1}, {1, -1, 0}, {0, -1, 1}, {1, 0, -1}, {-1, 1, 0},
    {1, 1, 1},  {-1, -1, -1}, {-1, 1, 1}, {1, -1, 1}, {1, 1, -1}, {1, -1, -1}, {-1, 1, -1}, {-1, -1, 1}};

double det(const Real3& a) {
  return a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) + a[0][1] * (a[1][2] * a[2][0] - a[1][0] * a[2][2]) +
         a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
}
int det(const IntMatrix3& a) {
  return a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) + a[0][1] * (a[1][2] * a[2][0] - a[1][0] * a[2][2]) +
         a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
}
Real3 inverse(const Real3& a) {
  const double d = det(a);
  Real3 c{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      const int i1 = (i + 1) % 3, i2 = (i + 2) % 3, j1 = (j + 1) % 3, j2 = (j + 2) % 3;
      c[j][i] = (a[i1][j1] * a[i2][j2] - a[i1][j2] * a[i2][j1]) / d;  // the cofactor, transposed
    }
  return c;
}
Real3 product(const Real3& a, const Real3& b) {
  Real3 c{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) c[i][j] = a[i][0] * b[0][j] + a[i][1] * b[1][j] + a[i][2] * b[2][j];
  return c;
}
Real3 real(const IntMatrix3& a) {
  Real3 c{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) c[i][j] = a[i][j];
  return c;
}
// L^T L: the metric of the columns.
Real3 metric(const Real3& l) {
  Real3 t{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) t[i][j] = l[j][i];
  return product(t, l);
}
double norm2(const Vec& v) { return v[0] * v[0] + v[1] * v[1] + v[2] * v[2]; }
// Rounding half away from zero.
int nearest(double x) { return x < 0 ? static_cast<int>(x - 0.5) : static_cast<int>(x + 0.5); }

// Step 1: the reduced basis (columns) of the lattice `l` (columns), by Delaunay's reduction of the
// four vectors a, b, c, -(a+b+c) and the shortest three independent ones of seven sums of them.
Real3 reduced_basis(const Real3& l) {
  std::array<Vec, 4> b{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) b[i][j] = l[j][i];
  for (int i = 0; i < 3; ++i) b[3][i] = -l[i][0] - l[i][1] - l[i][2];
  for (bool changed = true; changed;) {
    changed = false;
    for (int i = 0; i < 4 && !changed; ++i)
      for (int j = i + 1; j < 4 && !changed; ++j) {
        const double d = b[i][0] * b[j][0] + b[i][1] * b[j][1] + b[i][2] * b[j][2];
        if (d <= kSymprec) continue;
        // An obtuse pair is needed throughout: add b_i to the other two and flip it.
        for (int k = 0; k < 4; ++k)
          if (k != i && k != j)
            for (int x = 0; x < 3; ++x) b[k][x] += b[i][x];
        for (int x = 0; x < 3; ++x) b[i][x] = -b[i][x];
        changed = true;
      }
  }
  std::array<Vec, 7> c{b[0], b[1], b[2], b[3]};
  for (int x = 0; x < 3; ++x) {
    c[4][x] = b[0][x] + b[1][x];
    c[5][x] = b[1][x] + b[2][x];
    c[6][x] = b[2][x] + b[0][x];
  }
  // Sorted by length with adjacent swaps of strictly longer vectors (six passes): ties keep their order.
  for (int pass = 0; pass < 6; ++pass)
    for (int j = 0; j < 6; ++j)
      if (norm2(c[j]) > norm2(c[j + 1])) std::swap(c[j], c[j + 1]);
  Real3 out{};
  for (int i = 2; i < 7; ++i) {
    Real3 m{};
    for (int x = 0; x < 3; ++x) m[x][0] = c[0][x], m[x][1] = c[1][x], m[x][2] = c[i][x];
    if (std::abs(det(m)) > kSymprec) {
      out = m;
      break;
    }
  }
  if (std::abs(det(out)) < kSymprec) throw Error("symmetry: the lattice vectors span no volume");
  if (det(out) < 0)
    for (auto& row : out)
      for (double& x : row) x = -x;
  return out;
}

// Step 2: the lattice's rotations (integer, acting on fractional coordinates of `l`) in the loop order.
std::vector<IntMatrix3> lattice_rotations(const Real3& l) {
  const Real3 reduced = reduced_basis(l);
  const Real3 g = metric(reduced);
  std::vector<IntMatrix3> found;
  for (int i = 0; i < 26; ++i)
    for (int j = 0; j < 26; ++j)
      for (int k = 0; k < 26; ++k) {
        IntMatrix3 a{};
        for (int x = 0; x < 3; ++x) a[x][0] = kAxes[i][x], a[x][1] = kAxes[j][x], a[x][2] = kAxes[k][x];
        const int d = det(a);
        if (d != 1 && d != -1) continue;
        const Real3 ga = metric(product(reduced, real(a)));
        bool keeps = true;
        for (int x = 0; x < 3; ++x)
          for (int y = 0; y < 3; ++y) keeps = keeps && !(std::abs(ga[x][y] - g[x][y]) > kSymprec);
        if (keeps) found.push_back(a);
        if (found.size() > 48) throw Error("symmetry: more than 48 lattice rotations (is the cell degenerate?)");
      }
  // Carried to the input basis: T = reduced^-1 l, R = T^-1 A T (kept where integer).
  const Real3 t = product(inverse(reduced), l);
  const Real3 t_inv = inverse(t);
  const double slack = std::abs(det(t)) / 10;
  std::vector<IntMatrix3> out;
  for (const IntMatrix3& a : found) {
    const Real3 r = product(t_inv, product(real(a), t));
    IntMatrix3 n{};
    bool integer = true;
    for (int x = 0; x < 3; ++x)
      for (int y = 0; y < 3; ++y) {
        n[x][y] = nearest(r[x][y]);
        integer = integer && !(std::abs(n[x][y] - r[x][y]) > slack);
      }
    if (integer) out.push_back(n);
  }
  return out;
}

struct Cell {
  Real3 lattice{};  // columns, scaled to a first vector of length 1
  std::vector<Vec> positions;
  std::vector<int> types;
};

// Whether x -> R x + t (R null: the identity) maps every atom onto one of its species within kSymprec.
bool maps_all_atoms(const Cell& c, const IntMatrix3* r, const Vec& t) {
  for (std::size_t i = 0; i < c.positions.size(); ++i) {
    Vec y = c.positions[i];
    if (r) {
      const Vec& p = c.positions[i];
      for (int x = 0; x < 3; ++x) y[x] = (*r)[x][0] * p[0] + (*r)[x][1] * p[1] + (*r)[x][2] * p[2];
    }
    for (int x = 0; x < 3; ++x) y[x] += t[x];
    bool found = false;
    for (std::size_t j = 0; j < c.positions.size() && !found; ++j) {
      if (c.types[i] != c.types[j]) continue;
      Vec d{};
      for (int x = 0; x < 3; ++x) {
        d[x] = y[x] - c.positions[j][x];
        d[x] -= nearest(d[x]);
      }
      Vec cart{};
      for (int x = 0; x < 3; ++x) cart[x] = c.lattice[x][0] * d[0] + c.lattice[x][1] * d[1] + c.lattice[x][2] * d[2];
      found = norm2(cart) < kSymprec * kSymprec;
    }
    if (!found) return false;
  }
  return true;
}

// The translations that make R a symmetry: each atom of the rarest species (the first such species
// in atom order) minus the image of that species' first atom, in atom order.
std::vector<Vec> translations(const Cell& c, const IntMatrix3* r) {
  const std::size_t n = c.positions.size();
  std::vector<int> count(n, 0);  // per first atom of each species
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j)
      if (c.types[i] == c.types[j]) {
        ++count[j];
        break;
      }
  std::size_t origin = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (count[i] > 0 && count[i] < count[origin]) origin = i;
  Vec image = c.positions[origin];
  if (r)
    for (int x = 0; x < 3; ++x) image[x] = (*r)[x][0] * c.positions[origin][0] + (*r)[x][1] * c.positions[origin][1] + (*r)[x][2] * c.positions[origin][2];
  std::vector<Vec> out;
  for (std::size_t i = 0; i < n; ++i) {
    if (c.types[i] != c.types[origin]) continue;
    const Vec t{c.positions[i][0] - image[0], c.positions[i][1] - image[1], c.positions[i][2] - image[2]};
    if (maps_all_atoms(c, r, t)) out.push_back(t);
  }
  return out;
}

// Step 4's FFT test: the rotation's off-diagonal elements and the translation must map the grid onto itself.
bool fits_fft_grid(const IntMatrix3& r, const Vec& t, const std::array<int, 3>& n) {
  if (n[0] == 0 || n[1] == 0 || n[2] == 0) return true;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      if (a != b && (r[a][b] * n[a]) % n[b] != 0) return false;
  for (int x = 0; x < 3; ++x) {
    const double f = t[x] * n[x];
    if (!(std::abs(f - std::nearbyint(f)) / n[x] < kSymprec)) return false;
  }
  return true;
}

}  // namespace

BerkeleyGwSymmetries berkeleygw_symmetries(const std::array<Vec, 3>& lattice, const std::vector<Vec>& positions,
                                           const std::vector<int>& types, const std::array<int, 3>& fft_grid) {
  if (positions.empty() || positions.size() != types.size()) throw Error("symmetry: no atoms, or not one species per atom");
  Cell c;
  c.positions = positions;
  c.types = types;
  const Vec& a0 = lattice[0];
  const double length = std::sqrt(a0[0] * a0[0] + a0[1] * a0[1] + a0[2] * a0[2]);
  if (!(length > 0)) throw Error("symmetry: the first lattice vector has no length");
  for (int i = 0; i < 3; ++i)
    for (int x = 0; x < 3; ++x) c.lattice[x][i] = lattice[i][x] / length;

  BerkeleyGwSymmetries out;
  if (translations(c, nullptr).size() > 1) {
    // A supercell: BerkeleyGW's spglib works on the primitive cell and drops the operations with
    // fractional translations; that order is not derived here.
    out.exact = false;
    out.reason = "the cell is a supercell (it has pure translations): BerkeleyGW's order of its operations is not derived";
    EpmInput in;
    in.lattice = lattice;
    for (std::size_t i = 0; i < positions.size(); ++i) in.atoms.push_back({positions[i], types[i]});
    out.operations = crystal_operations(in);
    return out;
  }
  for (const IntMatrix3& r : lattice_rotations(c.lattice))
    for (Vec t : translations(c, &r)) {
      if (!fits_fft_grid(r, t, fft_grid)) continue;
      for (double& x : t) {
        x -= std::floor(x);
        if (x > 1 - 1e-9) x = 0;
      }
      out.operations.push_back({r, t});
    }
  const IntMatrix3 identity{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
  for (std::size_t i = 1; i < out.operations.size(); ++i)
    if (out.operations[i].rotation == identity) std::swap(out.operations[0], out.operations[i]);
  if (out.operations.empty() || out.operations[0].rotation != identity) throw Error("symmetry: the identity was not found");
  return out;
}

BerkeleyGwSymmetries berkeleygw_symmetries(const EpmInput& in) {
  std::vector<Vec> positions;
  std::vector<int> types;
  for (const EpmAtom& a : in.atoms) {
    positions.push_back(a.position);
    types.push_back(in.species.empty() ? a.species : in.species.at(static_cast<std::size_t>(a.species)).atomic_number);
  }
  // BerkeleyGW's EPM marks the first atom as a species of its own when antisymmetric form factors
  // (V3A, V4A, V11A) are given.
  if (in.form_factors && !types.empty()) {
    const auto& ff = *in.form_factors;
    if (std::abs(ff[3]) + std::abs(ff[4]) + std::abs(ff[5]) > 1e-12) types[0] += 1000;
  }
  return berkeleygw_symmetries(in.lattice, positions, types, in.fft_grid ? *in.fft_grid : std::array<int, 3>{0, 0, 0});
}

std::vector<IntMatrix3> reciprocal_matrices(const std::vector<CrystalOperation>& operations) {
  std::vector<IntMatrix3> out;
  for (const CrystalOperation& op : operations) {
    const IntMatrix3& r = op.rotation;
    const int d = det(r);
    IntMatrix3 m{};  // (R^-1)^T = cofactor(R) / det R
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        const int i1 = (i + 1) % 3, i2 = (i + 2) % 3, j1 = (j + 1) % 3, j2 = (j + 2) % 3;
        m[i][j] = (r[i1][j1] * r[i2][j2] - r[i1][j2] * r[i2][j1]) / d;
      }
    out.push_back(m);
  }
  return out;
}

}  // namespace quasar::gw
