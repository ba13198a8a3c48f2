#pragma once
// AMOEBA's valence forms, written once for the CPU reference (valence_terms.cpp) and the CUDA
// kernels (valence_kernels.cu): each form is an entry's energy in Tinker's units (kcal/mol, Å,
// degrees) on forward-mode duals (dual.hpp), whose derivatives are the exact gradient. The forms are
// templates on the dual type: double for the reference and the GPU's double mode, float for its
// mixed mode (constants, parameters and torsion-torsion grid values are kept in double and rounded
// to float as they enter the arithmetic). evaluate_entry turns one entry into its energy, forces
// and virial in eV, on either side.
#include <array>
#include <cmath>
#include <type_traits>

#include "quasar/core/atoms.hpp"
#include "quasar/core/hd.hpp"
#include "quasar/core/units.hpp"
#include "quasar/potential/amoeba/dual.hpp"
#include "quasar/potential/amoeba/valence_setup.hpp"
#include "quasar/potential/bonded/bonded_forms.hpp"

namespace quasar::amoeba {

inline constexpr double kRadian = 180 / M_PI;

// The header's units and polynomial coefficients as plain numbers (the header holds strings and
// maps, which a kernel cannot take).
struct ValenceUnits {
  double bond, angle, strbnd, urey, opbend, torsion, pitors, tortor, angtor, strtor;
  double bond_cubic, bond_quartic, urey_cubic, urey_quartic;
  double angle_poly[4], opbend_poly[4];  // cubic, quartic, pentic, sextic
};
inline ValenceUnits valence_units(const ForceFieldHeader& h) {
  ValenceUnits u{h.bond_unit,   h.angle_unit,  h.strbnd_unit,  h.urey_unit,  h.opbend_unit,
                 h.torsion_unit, h.pitors_unit, h.tortor_unit, h.angtor_unit, h.strtor_unit,
                 h.bond_cubic,  h.bond_quartic, h.urey_cubic,  h.urey_quartic, {}, {}};
  for (int k = 0; k < 4; ++k) {
    u.angle_poly[k] = h.angle_poly[static_cast<std::size_t>(k)];
    u.opbend_poly[k] = h.opbend_poly[static_cast<std::size_t>(k)];
  }
  return u;
}

// A torsion-torsion grid by pointers (host vectors, or their copies on the device).
struct TorTorGridView {
  int nx, ny;
  const double *x, *y, *f, *fx, *fy, *fxy;
};
inline TorTorGridView grid_view(const TorTorGrid& g) {
  return {g.nx, g.ny, g.x.data(), g.y.data(), g.f.data(), g.fx.data(), g.fy.data(), g.fxy.data()};
}
// A torsion-torsion entry as the form takes it: the five atoms and the chirality atom (the centre
// again when there is none).
struct TorTorTerm {
  int atoms[6];
  bool chiral;
  TorTorGridView grid;
};
inline TorTorTerm tortor_term(const TorTorEntry& t, const TorTorGridView& grid) {
  return {{t.atoms[0], t.atoms[1], t.atoms[2], t.atoms[3], t.atoms[4], t.chiral >= 0 ? t.chiral : t.atoms[2]},
          t.chiral >= 0, grid};
}

// k dt^2 (1 + c3 dt + c4 dt^2 + c5 dt^3 + c6 dt^4): angle and out-of-plane bends (dt in degrees).
template <class T>
QUASAR_HD T sextic(const T& dt, double k, const double* c) {
  const T dt2 = dt * dt;
  T poly = 1.0 + c[0] * dt + c[1] * dt2 + c[2] * (dt2 * dt) + c[3] * (dt2 * dt2);
  return k * (dt2 * poly);
}
// k dr^2 (1 + c3 dr + c4 dr^2): bonds and Urey-Bradley.
template <class T>
QUASAR_HD T quartic(const T& dr, double k, double c3, double c4) {
  return k * (dr * dr * (1.0 + c3 * dr + c4 * (dr * dr)));
}
// The angle between two vectors, in degrees: atan2 of the cross and dot products, exact near 0 and 180.
template <class T>
QUASAR_HD T angle_between(const Vec3Of<T>& u, const Vec3Of<T>& v) {
  return kRadian * atan2(norm(cross(u, v)), dot(u, v));
}
// The dihedral angle of a-b-c-d (radians), Tinker's sign: that of ba . (cb x dc).
template <class T>
QUASAR_HD T dihedral(const Vec3Of<T>& a, const Vec3Of<T>& b, const Vec3Of<T>& c, const Vec3Of<T>& d) {
  const Vec3Of<T> ba = b - a, cb = c - b, dc = d - c;
  const Vec3Of<T> t = cross(ba, cb), u = cross(cb, dc);
  return atan2(norm(cb) * dot(ba, u), dot(t, u));
}
// sum_n k[first + n - 1] (1 + cos(n phi - phase_n)) over n = 1..3: the torsional factor of the
// angle- and stretch-torsions (phi in radians, phases in degrees).
template <class T>
QUASAR_HD T torsion_factor(const T& phi, const double* k, int first, const double* phase) {
  T f = 0.0;
  for (int n = 1; n <= 3; ++n)
    if (k[first + n - 1] != 0) f = f + k[first + n - 1] * (1.0 + cos(static_cast<double>(n) * phi - phase[n - 1] / kRadian));
  return f;
}

// The grid cell [axis[i], axis[i + 1]] holding v (the end cells beyond the axis).
QUASAR_HD int grid_cell(const double* axis, int n, double v) {
  int lo = 0, hi = n;  // the first node above v
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (axis[mid] <= v) lo = mid + 1;
    else hi = mid;
  }
  const int i = lo - 1;
  return i < 0 ? 0 : i > n - 2 ? n - 2 : i;
}
// Bicubic Hermite interpolation of a torsion-torsion grid at (x, y) degrees: the patch of the cell
// that matches the values, slopes and cross derivatives at its four corners.
template <class T>
QUASAR_HD T bicubic(const TorTorGridView& g, const T& x, const T& y) {
  const int i = grid_cell(g.x, g.nx, x.v), j = grid_cell(g.y, g.ny, y.v);
  const double hx = g.x[i + 1] - g.x[i], hy = g.y[j + 1] - g.y[j];
  const T tx = (x - g.x[i]) * T(1.0 / hx), ty = (y - g.y[j]) * T(1.0 / hy);
  // Hermite cubic basis on [0, 1]: the values at 0 and 1, the slopes at 0 and 1.
  const T tx2 = tx * tx, tx3 = tx2 * tx, ty2 = ty * ty, ty3 = ty2 * ty;
  const T bx[4] = {2.0 * tx3 - 3.0 * tx2 + 1.0, 3.0 * tx2 - 2.0 * tx3, tx3 - 2.0 * tx2 + tx, tx3 - tx2};
  const T by[4] = {2.0 * ty3 - 3.0 * ty2 + 1.0, 3.0 * ty2 - 2.0 * ty3, ty3 - 2.0 * ty2 + ty, ty3 - ty2};
  T e = 0.0;
  for (int cx = 0; cx < 2; ++cx)
    for (int cy = 0; cy < 2; ++cy) {
      const int k = (j + cy) * g.nx + i + cx;
      e = e + g.f[k] * (bx[cx] * by[cy]) + (hx * g.fx[k]) * (bx[2 + cx] * by[cy]) +
          (hy * g.fy[k]) * (bx[cx] * by[2 + cy]) + (hx * hy * g.fxy[k]) * (bx[2 + cx] * by[2 + cy]);
    }
  return e;
}

// The forms. Each gives its atoms (input indices) and its energy (kcal/mol) at positions p.
// A stretch of two atoms, k dr^2 (1 + c3 dr + c4 dr^2): bonds and Urey-Bradley's 1-3 distances,
// which differ only in their entries and in which of the header's unit and coefficients they take.
template <class E, double ValenceUnits::*kUnit, double ValenceUnits::*kCubic, double ValenceUnits::*kQuartic>
struct StretchForm {
  static constexpr int kAtoms = 2;
  using Entry = E;
  ValenceUnits u;
  QUASAR_HD static void atoms(const Entry& e, int* out) { out[0] = e.atoms[0], out[1] = e.atoms[1]; }
  template <class T>
  QUASAR_HD T operator()(const Vec3Of<T>* p, const Entry& e) const {
    return quartic(norm(p[1] - p[0]) - e.r0, u.*kUnit * e.k, u.*kCubic, u.*kQuartic);
  }
};
using BondForm = StretchForm<BondEntry, &ValenceUnits::bond, &ValenceUnits::bond_cubic, &ValenceUnits::bond_quartic>;
using UreyForm = StretchForm<UreyEntry, &ValenceUnits::urey, &ValenceUnits::urey_cubic, &ValenceUnits::urey_quartic>;
// An angle of three atoms: Fourier (2 k (180/pi / fold)^2 (1 + cos(fold theta - shift))) or the
// polynomial.
struct AngleForm {
  static constexpr int kAtoms = 3;
  using Entry = AngleEntry;
  ValenceUnits u;
  QUASAR_HD static void atoms(const Entry& e, int* out) {
    for (int m = 0; m < 3; ++m) out[m] = e.atoms[static_cast<std::size_t>(m)];
  }
  template <class T>
  QUASAR_HD T operator()(const Vec3Of<T>* p, const Entry& e) const {
    const T theta = angle_between(p[0] - p[1], p[2] - p[1]);
    if (e.fold > 0) {
      const double factor = 2 * u.angle * (kRadian / e.fold) * (kRadian / e.fold) * e.k;
      return factor * (1.0 + cos((e.fold * theta - e.theta0) * (1 / kRadian)));
    }
    return sextic(theta - e.theta0, u.angle * e.k, u.angle_poly);
  }
};
// In-plane: the centre projected into the plane of its three neighbours.
struct InPlaneAngleForm {
  static constexpr int kAtoms = 4;
  using Entry = AngleEntry;
  ValenceUnits u;
  QUASAR_HD static void atoms(const Entry& e, int* out) {
    for (int m = 0; m < 3; ++m) out[m] = e.atoms[static_cast<std::size_t>(m)];
    out[3] = e.fourth;
  }
  template <class T>
  QUASAR_HD T operator()(const Vec3Of<T>* p, const Entry& e) const {
    const Vec3Of<T> t = cross(p[0] - p[3], p[2] - p[3]);
    const T delta = -(dot(t, p[1] - p[3]) / dot(t, t));
    const Vec3Of<T> proj = p[1] + t * delta;
    return sextic(angle_between(p[0] - proj, p[2] - proj) - e.theta0, u.angle * e.k, u.angle_poly);
  }
};
struct StretchBendForm {
  static constexpr int kAtoms = 3;
  using Entry = StretchBendEntry;
  ValenceUnits u;
  QUASAR_HD static void atoms(const Entry& e, int* out) {
    for (int m = 0; m < 3; ++m) out[m] = e.atoms[static_cast<std::size_t>(m)];
  }
  template <class T>
  QUASAR_HD T operator()(const Vec3Of<T>* p, const Entry& e) const {
    const T dt = angle_between(p[0] - p[1], p[2] - p[1]) - e.theta0;
    const T dr1 = norm(p[0] - p[1]) - e.r1, dr2 = norm(p[2] - p[1]) - e.r2;
    return u.strbnd * ((e.k1 * dr1 + e.k2 * dr2) * dt);
  }
};
// Allinger's angle between the bond to the atom out of the plane and the plane of the others.
struct OutOfPlaneForm {
  static constexpr int kAtoms = 4;
  using Entry = OutOfPlaneEntry;
  ValenceUnits u;
  QUASAR_HD static void atoms(const Entry& e, int* out) {
    for (int m = 0; m < 4; ++m) out[m] = e.atoms[static_cast<std::size_t>(m)];
  }
  template <class T>
  QUASAR_HD T operator()(const Vec3Of<T>* p, const Entry& e) const {
    const Vec3Of<T> ab = p[0] - p[1], cb = p[2] - p[1], db = p[3] - p[1], ad = p[0] - p[3], cd = p[2] - p[3];
    const T ee = dot(ab, cross(cb, db)), ad_cd = dot(ad, cd);
    const T cc = dot(ad, ad) * dot(cd, cd) - ad_cd * ad_cd;
    T bkk2 = dot(db, db) - ee * ee / cc;
    if (bkk2.v < 0) bkk2 = 0.0;
    const T angle = kRadian * atan2(abs(ee) / sqrt(cc), sqrt(bkk2));
    return sextic(angle, u.opbend * e.k, u.opbend_poly);
  }
};
struct TorsionForm {
  static constexpr int kAtoms = 4;
  using Entry = TorsionEntry;
  ValenceUnits u;
  QUASAR_HD static void atoms(const Entry& e, int* out) {
    for (int m = 0; m < 4; ++m) out[m] = e.atoms[static_cast<std::size_t>(m)];
  }
  template <class T>
  QUASAR_HD T operator()(const Vec3Of<T>* p, const Entry& t) const {
    const T phi = dihedral(p[0], p[1], p[2], p[3]);
    T e = 0.0;
    for (int n = 1; n <= 6; ++n) {
      const double vn = t.v[static_cast<std::size_t>(n - 1)];
      if (vn != 0) e = e + vn * (1.0 + cos(static_cast<double>(n) * phi - t.phase[static_cast<std::size_t>(n - 1)] / kRadian));
    }
    return u.torsion * e;
  }
};
// The torsion between the p orbitals of two trigonal atoms: each atom's orbital axis is the normal
// of the plane of its three neighbours (its two others and the bond partner), placed at the atom.
struct PiTorsionForm {
  static constexpr int kAtoms = 6;
  using Entry = PiTorsionEntry;
  ValenceUnits u;
  QUASAR_HD static void atoms(const Entry& e, int* out) {
    for (int m = 0; m < 6; ++m) out[m] = e.atoms[static_cast<std::size_t>(m)];
  }
  template <class T>
  QUASAR_HD T operator()(const Vec3Of<T>* p, const Entry& t) const {
    const Vec3Of<T> c = p[2], d = p[3];
    const Vec3Of<T> pc = cross(p[0] - d, p[1] - d) + c, qd = cross(p[4] - c, p[5] - c) + d;
    return u.pitors * (t.k * (1.0 - cos(2.0 * dihedral(pc, c, d, qd))));
  }
};
struct TorsionTorsionForm {
  static constexpr int kAtoms = 6;
  using Entry = TorTorTerm;
  ValenceUnits u;
  QUASAR_HD static void atoms(const Entry& e, int* out) {
    for (int m = 0; m < 6; ++m) out[m] = e.atoms[m];
  }
  template <class T>
  QUASAR_HD T operator()(const Vec3Of<T>* p, const Entry& t) const {
    T x = kRadian * dihedral(p[0], p[1], p[2], p[3]), y = kRadian * dihedral(p[1], p[2], p[3], p[4]);
    if (t.chiral) {
      // Tinker's chirality test at the centre, reproduced term by term: its sign flips both
      // angles, so that a mirror-image residue reads the grid mirrored.
      const Vec3Of<double> ac{p[5].x.v - p[2].x.v, p[5].y.v - p[2].y.v, p[5].z.v - p[2].z.v};
      const Vec3Of<double> bc{p[1].x.v - p[2].x.v, p[1].y.v - p[2].y.v, p[1].z.v - p[2].z.v};
      const Vec3Of<double> dc{p[3].x.v - p[2].x.v, p[3].y.v - p[2].y.v, p[3].z.v - p[2].z.v};
      const double vol = ac.x * cross(bc, dc).x + bc.x * cross(dc, ac).x + dc.x * cross(ac, bc).x;
      if (vol < 0) {
        x = -x;
        y = -y;
      }
    }
    return u.tortor * bicubic(t.grid, x, y);
  }
};
// Each angle deviation (degrees) times the torsional factor.
struct AngleTorsionForm {
  static constexpr int kAtoms = 4;
  using Entry = AngleTorsionEntry;
  ValenceUnits u;
  QUASAR_HD static void atoms(const Entry& e, int* out) {
    for (int m = 0; m < 4; ++m) out[m] = e.atoms[static_cast<std::size_t>(m)];
  }
  template <class T>
  QUASAR_HD T operator()(const Vec3Of<T>* p, const Entry& t) const {
    const T phi = dihedral(p[0], p[1], p[2], p[3]);
    const T dt1 = angle_between(p[0] - p[1], p[2] - p[1]) - t.theta0[0];
    const T dt2 = angle_between(p[1] - p[2], p[3] - p[2]) - t.theta0[1];
    return u.angtor * (dt1 * torsion_factor(phi, t.k.data(), 0, t.phase.data()) +
                       dt2 * torsion_factor(phi, t.k.data(), 3, t.phase.data()));
  }
};
// Each bond deviation (Å) times the torsional factor.
struct StretchTorsionForm {
  static constexpr int kAtoms = 4;
  using Entry = StretchTorsionEntry;
  ValenceUnits u;
  QUASAR_HD static void atoms(const Entry& e, int* out) {
    for (int m = 0; m < 4; ++m) out[m] = e.atoms[static_cast<std::size_t>(m)];
  }
  template <class T>
  QUASAR_HD T operator()(const Vec3Of<T>* p, const Entry& t) const {
    const T phi = dihedral(p[0], p[1], p[2], p[3]);
    T e = 0.0;
    for (int b = 0; b < 3; ++b)
      e = e + (norm(p[b + 1] - p[b]) - t.r0[static_cast<std::size_t>(b)]) * torsion_factor(phi, t.k.data(), 3 * b, t.phase.data());
    return u.strtor * e;
  }
};

// One entry: its atoms' current indices, positions at the nearest images of the first atom's, and
// from the energy's duals the energy (eV), the force on each atom and the virial sum r_a f_b.
// S is the arithmetic of the form: double (the reference), or float for the GPU's mixed mode, where
// the positions enter relative to the first atom's (the displacements formed in double), so that
// float rounds the entry's own geometry and not the coordinates' distance from the origin; the
// virial is then sum (r_a - r_0) f_b, equal to the same sum since an entry's forces add up to zero.
template <class S = double, class Form>
QUASAR_HD void evaluate_entry(const Form& form, const typename Form::Entry& entry, const AtomsRef& a,
                              int (&idx)[Form::kAtoms], double& energy, double (&w)[9], Vec3 (&f)[Form::kAtoms]) {
  constexpr int A = Form::kAtoms;
  using D = Dual<3 * A, S>;
  int input[A];
  Form::atoms(entry, input);
  BondedGeometry<A> g{a, {}};
  for (int m = 0; m < A; ++m) g.idx[m] = a.index_of[input[m]];
  Vec3 r[A];
  if constexpr (std::is_same_v<S, double>) {
    r[0] = {a.x[g.idx[0]], a.y[g.idx[0]], a.z[g.idx[0]]};
    for (int m = 1; m < A; ++m) r[m] = r[0] + g.delta(m, 0);
  } else {
    r[0] = {0, 0, 0};
    for (int m = 1; m < A; ++m) r[m] = g.delta(m, 0);
  }
  Vec3Of<D> p[A];
  for (int m = 0; m < A; ++m)
    p[m] = {D::variable(r[m].x, 3 * m), D::variable(r[m].y, 3 * m + 1), D::variable(r[m].z, 3 * m + 2)};
  const D e = form(p, entry);
  const double scale = units::kcal_mol;
  for (int c = 0; c < 9; ++c) w[c] = 0;
  for (int m = 0; m < A; ++m) {
    idx[m] = g.idx[m];
    f[m] = Vec3{-scale * e.d[3 * m], -scale * e.d[3 * m + 1], -scale * e.d[3 * m + 2]};
    for (int al = 0; al < 3; ++al)
      for (int be = 0; be < 3; ++be) w[3 * al + be] += r[m][al] * f[m][be];
  }
  energy = scale * e.v;
}

}  // namespace quasar::amoeba
