// Point-group operations from the lattice metric and the atoms, and the k-point stars they make.
#include "quasar/gw/symmetry.hpp"

#include <cmath>

#include "quasar/core/error.hpp"

namespace quasar::gw {

namespace {

constexpr double kTolerance = 1e-6;

// x - nearest integer, per component: zero when x is a lattice vector.
bool integer_vector(const Vec& x) {
  for (double c : x)
    if (std::abs(c - std::round(c)) > kTolerance) return false;
  return true;
}

Vec rotate(const IntMatrix3& r, const Vec& x) {
  Vec y{};
  for (int i = 0; i < 3; ++i) y[i] = r[i][0] * x[0] + r[i][1] * x[1] + r[i][2] * x[2];
  return y;
}

Vec rotate_transposed(const IntMatrix3& r, const Vec& x) {
  Vec y{};
  for (int i = 0; i < 3; ++i) y[i] = r[0][i] * x[0] + r[1][i] * x[1] + r[2][i] * x[2];
  return y;
}

// Whether R maps every atom onto an atom of its species after the translation t.
bool maps_atoms(const EpmInput& in, const IntMatrix3& r, const Vec& t) {
  for (const EpmAtom& a : in.atoms) {
    const Vec y = rotate(r, a.position);
    bool found = false;
    for (const EpmAtom& b : in.atoms)
      if (b.species == a.species &&
          integer_vector({y[0] + t[0] - b.position[0], y[1] + t[1] - b.position[1], y[2] + t[2] - b.position[2]}))
        found = true;
    if (!found) return false;
  }
  return true;
}

}  // namespace

std::vector<IntMatrix3> crystal_rotations(const EpmInput& in) {
  std::vector<IntMatrix3> out;
  for (const CrystalOperation& op : crystal_operations(in)) out.push_back(op.rotation);
  return out;
}

std::vector<CrystalOperation> crystal_operations(const EpmInput& in) {
  // The metric a_i . a_j, scaled to order 1 so that one tolerance fits every cell.
  std::array<std::array<double, 3>, 3> g{};
  double scale = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      for (int d = 0; d < 3; ++d) g[i][j] += in.lattice[i][d] * in.lattice[j][d];
      scale = std::max(scale, std::abs(g[i][j]));
    }
  if (!(scale > 0)) throw InputError(in.path, 0, "the lattice vectors have no length");
  std::vector<CrystalOperation> out;
  for (int code = 0; code < 19683; ++code) {  // 3^9 matrices with entries -1, 0, 1
    IntMatrix3 r{};
    int c = code;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j, c /= 3) r[i][j] = c % 3 - 1;
    // R^T G R = G.
    bool keeps = true;
    for (int i = 0; i < 3 && keeps; ++i)
      for (int j = 0; j < 3 && keeps; ++j) {
        double x = 0;
        for (int k = 0; k < 3; ++k)
          for (int l = 0; l < 3; ++l) x += r[k][i] * g[k][l] * r[l][j];
        keeps = std::abs(x - g[i][j]) <= 1e-8 * scale;
      }
    if (!keeps) continue;
    // A translation that takes the first atom onto one of its species, checked on all atoms.
    bool symmetric = in.atoms.empty();
    Vec t{};
    if (!symmetric) {
      const EpmAtom& first = in.atoms[0];
      const Vec y = rotate(r, first.position);
      for (const EpmAtom& b : in.atoms) {
        const Vec candidate{b.position[0] - y[0], b.position[1] - y[1], b.position[2] - y[2]};
        if (!symmetric && b.species == first.species && maps_atoms(in, r, candidate)) symmetric = true, t = candidate;
      }
    }
    // The translation modulo lattice vectors, in [0, 1) (a component within 1e-6 of 1 becomes 0).
    for (double& x : t) {
      x -= std::floor(x);
      if (x > 1 - kTolerance) x = 0;
    }
    if (symmetric) out.push_back({r, t});
  }
  return out;
}

std::vector<Vec> unfold_kpoints(const std::vector<Vec>& kpoints, const std::vector<IntMatrix3>& rotations, const Vec* fixed,
                                std::vector<int>* stars) {
  std::vector<Vec> out;
  if (stars) stars->clear();
  auto add = [&](const Vec& k) {
    for (const Vec& o : out)
      if (integer_vector({k[0] - o[0], k[1] - o[1], k[2] - o[2]})) return;
    out.push_back(k);
  };
  for (const Vec& k : kpoints) {
    const std::size_t before = out.size();
    for (const IntMatrix3& r : rotations) {
      if (fixed) {
        const Vec f = rotate_transposed(r, *fixed);
        if (std::abs(f[0] - (*fixed)[0]) + std::abs(f[1] - (*fixed)[1]) + std::abs(f[2] - (*fixed)[2]) > 1e-12) continue;
      }
      const Vec y = rotate_transposed(r, k);
      add(y);
      // Time reversal, -k, for the unshifted points only: the shifted list is reduced by the little
      // group of q alone (as BerkeleyGW's kgrid.x reduces WFNq), which its weights then show.
      if (!fixed) add({-y[0], -y[1], -y[2]});
    }
    if (stars) stars->push_back(static_cast<int>(out.size() - before));
  }
  return out;
}

EpmInput unfolded_input(const EpmInput& input, const Vec* fixed) {
  EpmInput out = input;
  std::vector<int> stars;
  out.kpoints = unfold_kpoints(input.kpoints, crystal_rotations(input), fixed, &stars);
  const double n = static_cast<double>(out.kpoints.size());
  out.weights.assign(out.kpoints.size(), 1.0 / n);
  if (out.kpoints.size() == input.kpoints.size()) return out;  // the list was whole
  for (std::size_t i = 0; i < stars.size(); ++i)
    if (std::abs(stars[i] / n - input.weights[i]) > 1e-6)
      throw InputError(input.path, 0, "KPointsList: k-point " + std::to_string(i + 1) + " has weight " +
                                          std::to_string(input.weights[i]) + " but its star is " + std::to_string(stars[i]) +
                                          " of the " + std::to_string(out.kpoints.size()) +
                                          " unfolded points: the list is not reduced by the crystal's point group" +
                                          (fixed ? " (the rotations that keep q0)" : ""));
  return out;
}

}  // namespace quasar::gw
