#include "quasar/potential/amoeba/valence_terms.hpp"

#include <algorithm>
#include <cmath>

#include "quasar/core/error.hpp"
#include "quasar/core/units.hpp"
#include "quasar/potential/amoeba/dual.hpp"
#include "quasar/potential/bonded/bonded_forms.hpp"

namespace quasar::amoeba {

namespace {

constexpr double kRadian = 180 / M_PI;

// One entry of A atoms: positions at the nearest images of the first atom's, the energy (kcal/mol)
// as duals, then forces, virial and per-atom shares in eV.
template <int A, class Energy>
void add_entry(const AtomsRef& a, const std::array<int, A>& atoms, const ComputeRequest& req, ForceOutput& out,
               double (&sums)[10], Energy&& energy) {
  using D = Dual<3 * A>;
  BondedGeometry<A> g{a, {}};
  for (int m = 0; m < A; ++m) g.idx[m] = a.index_of[atoms[static_cast<std::size_t>(m)]];
  Vec3 r[A];
  r[0] = {a.x[g.idx[0]], a.y[g.idx[0]], a.z[g.idx[0]]};
  for (int m = 1; m < A; ++m) r[m] = r[0] + g.delta(m, 0);
  std::array<Vec3Of<D>, A> p;
  for (int m = 0; m < A; ++m)
    p[static_cast<std::size_t>(m)] = {D::variable(r[m].x, 3 * m), D::variable(r[m].y, 3 * m + 1),
                                      D::variable(r[m].z, 3 * m + 2)};
  const D e = energy(p);
  const double scale = units::kcal_mol;
  double w[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  for (int m = 0; m < A; ++m) {
    const Vec3 f{-scale * e.d[3 * m], -scale * e.d[3 * m + 1], -scale * e.d[3 * m + 2]};
    a.fx[g.idx[m]] += f.x;
    a.fy[g.idx[m]] += f.y;
    a.fz[g.idx[m]] += f.z;
    for (int al = 0; al < 3; ++al)
      for (int be = 0; be < 3; ++be) w[3 * al + be] += r[m][al] * f[be];
  }
  sums[0] += scale * e.v;
  for (int c = 0; c < 9; ++c) sums[1 + c] += w[c];
  if (!req.per_atom) return;
  const std::size_t n = static_cast<std::size_t>(a.n);
  for (int m = 0; m < A; ++m) {
    const std::size_t i = static_cast<std::size_t>(g.idx[m]);
    out.atom_energy[i] += scale * e.v / A;
    for (int c = 0; c < 9; ++c) out.atom_virial[static_cast<std::size_t>(c) * n + i] += w[c] / A;
  }
}

// k dt^2 (1 + c3 dt + c4 dt^2 + c5 dt^3 + c6 dt^4): angle and out-of-plane bends (dt in degrees).
template <class T>
T sextic(const T& dt, double k, const std::array<double, 4>& c) {
  const T dt2 = dt * dt;
  T poly = 1.0 + c[0] * dt + c[1] * dt2 + c[2] * (dt2 * dt) + c[3] * (dt2 * dt2);
  return k * (dt2 * poly);
}
// k dr^2 (1 + c3 dr + c4 dr^2): bonds and Urey-Bradley.
template <class T>
T quartic(const T& dr, double k, double c3, double c4) {
  return k * (dr * dr * (1.0 + c3 * dr + c4 * (dr * dr)));
}
// The angle between two vectors, in degrees.
template <class T>
T angle_between(const Vec3Of<T>& u, const Vec3Of<T>& v) {
  return kRadian * atan2(norm(cross(u, v)), dot(u, v));
}
// The dihedral angle of a-b-c-d (radians), Tinker's sign: that of ba . (cb x dc).
template <class T>
T dihedral(const Vec3Of<T>& a, const Vec3Of<T>& b, const Vec3Of<T>& c, const Vec3Of<T>& d) {
  const Vec3Of<T> ba = b - a, cb = c - b, dc = d - c;
  const Vec3Of<T> t = cross(ba, cb), u = cross(cb, dc);
  return atan2(norm(cb) * dot(ba, u), dot(t, u));
}

// Hermite cubic basis on [0, 1]: the values at 0 and 1, the slopes at 0 and 1.
template <class T>
std::array<T, 4> hermite(const T& t) {
  const T t2 = t * t, t3 = t2 * t;
  return {2.0 * t3 - 3.0 * t2 + 1.0, 3.0 * t2 - 2.0 * t3, t3 - 2.0 * t2 + t, t3 - t2};
}

// Bicubic interpolation of a torsion-torsion grid at (x, y) degrees: the bicubic patch of the cell
// that matches the values, slopes and cross derivatives at its four corners.
template <class T>
T bicubic(const TorTorGrid& g, const T& x, const T& y) {
  auto cell = [](const std::vector<double>& axis, double v) {
    const auto it = std::upper_bound(axis.begin(), axis.end(), v);
    const long i = static_cast<long>(it - axis.begin()) - 1;
    return static_cast<std::size_t>(std::clamp<long>(i, 0, static_cast<long>(axis.size()) - 2));
  };
  const std::size_t i = cell(g.x, x.v), j = cell(g.y, y.v), nx = static_cast<std::size_t>(g.nx);
  const double hx = g.x[i + 1] - g.x[i], hy = g.y[j + 1] - g.y[j];
  const std::array<T, 4> bx = hermite((x - g.x[i]) * T(1.0 / hx)), by = hermite((y - g.y[j]) * T(1.0 / hy));
  T e = 0.0;
  for (std::size_t cx = 0; cx < 2; ++cx)
    for (std::size_t cy = 0; cy < 2; ++cy) {
      const std::size_t k = (j + cy) * nx + i + cx;
      e = e + g.f[k] * (bx[cx] * by[cy]) + (hx * g.fx[k]) * (bx[2 + cx] * by[cy]) +
          (hy * g.fy[k]) * (bx[cx] * by[2 + cy]) + (hx * hy * g.fxy[k]) * (bx[2 + cx] * by[2 + cy]);
    }
  return e;
}

}  // namespace

// sum_n k[first + n - 1] (1 + cos(n phi - phase_n)) over n = 1..3: the torsional factor of the
// angle- and stretch-torsions (phi in radians, phases in degrees).
template <class T, std::size_t K>
T torsion_factor(const T& phi, const std::array<double, K>& k, std::size_t first, const std::array<double, 3>& phase) {
  T f = 0.0;
  for (std::size_t n = 1; n <= 3; ++n)
    if (k[first + n - 1] != 0) f = f + k[first + n - 1] * (1.0 + cos(static_cast<double>(n) * phi - phase[n - 1] / kRadian));
  return f;
}

bool is_valence_term(Term term) { return static_cast<int>(term) <= static_cast<int>(Term::StretchTorsion); }

void add_valence_term(Term term, const ValenceEntries& v, const ForceFieldHeader& h, const AtomsRef& a,
                      const ComputeRequest& req, ForceOutput& out) {
  double s[10] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  switch (term) {
    case Term::Bond:
      for (const BondEntry& b : v.bonds)
        add_entry<2>(a, b.atoms, req, out, s, [&](const auto& p) {
          return quartic(norm(p[1] - p[0]) - b.r0, h.bond_unit * b.k, h.bond_cubic, h.bond_quartic);
        });
      break;
    case Term::Angle:
      for (const AngleEntry& e : v.angles) {
        if (e.fold > 0) {  // Fourier: 2 k (180/pi / fold)^2 (1 + cos(fold theta - shift))
          add_entry<3>(a, e.atoms, req, out, s, [&](const auto& p) {
            const auto theta = angle_between(p[0] - p[1], p[2] - p[1]);
            const double factor = 2 * h.angle_unit * (kRadian / e.fold) * (kRadian / e.fold) * e.k;
            return factor * (1.0 + cos((e.fold * theta - e.theta0) * (1 / kRadian)));
          });
          continue;
        }
        if (e.fourth < 0) {
          add_entry<3>(a, e.atoms, req, out, s, [&](const auto& p) {
            return sextic(angle_between(p[0] - p[1], p[2] - p[1]) - e.theta0, h.angle_unit * e.k, h.angle_poly);
          });
          continue;
        }
        // In-plane: the centre projected into the plane of its three neighbours.
        const std::array<int, 4> atoms4{e.atoms[0], e.atoms[1], e.atoms[2], e.fourth};
        add_entry<4>(a, atoms4, req, out, s, [&](const auto& p) {
          const auto t = cross(p[0] - p[3], p[2] - p[3]);
          const auto delta = -(dot(t, p[1] - p[3]) / dot(t, t));
          const auto proj = p[1] + t * delta;
          return sextic(angle_between(p[0] - proj, p[2] - proj) - e.theta0, h.angle_unit * e.k, h.angle_poly);
        });
      }
      break;
    case Term::StretchBend:
      for (const StretchBendEntry& e : v.strbnds)
        add_entry<3>(a, e.atoms, req, out, s, [&](const auto& p) {
          const auto dt = angle_between(p[0] - p[1], p[2] - p[1]) - e.theta0;
          const auto dr1 = norm(p[0] - p[1]) - e.r1, dr2 = norm(p[2] - p[1]) - e.r2;
          return h.strbnd_unit * ((e.k1 * dr1 + e.k2 * dr2) * dt);
        });
      break;
    case Term::Urey:
      for (const UreyEntry& u : v.ureys)
        add_entry<2>(a, u.atoms, req, out, s, [&](const auto& p) {
          return quartic(norm(p[1] - p[0]) - u.r0, h.urey_unit * u.k, h.urey_cubic, h.urey_quartic);
        });
      break;
    case Term::OutOfPlane:
      // Allinger's angle between the bond to the atom out of the plane and the plane of the others.
      for (const OutOfPlaneEntry& o : v.opbends)
        add_entry<4>(a, o.atoms, req, out, s, [&](const auto& p) {
          using T = std::decay_t<decltype(p[0].x)>;
          const auto ab = p[0] - p[1], cb = p[2] - p[1], db = p[3] - p[1], ad = p[0] - p[3], cd = p[2] - p[3];
          const T ee = dot(ab, cross(cb, db)), ad_cd = dot(ad, cd);
          const T cc = dot(ad, ad) * dot(cd, cd) - ad_cd * ad_cd;
          T bkk2 = dot(db, db) - ee * ee / cc;
          if (bkk2.v < 0) bkk2 = 0.0;
          const T angle = kRadian * atan2(abs(ee) / sqrt(cc), sqrt(bkk2));
          return sextic(angle, h.opbend_unit * o.k, h.opbend_poly);
        });
      break;
    case Term::Torsion:
      for (const TorsionEntry& t : v.torsions)
        add_entry<4>(a, t.atoms, req, out, s, [&](const auto& p) {
          using T = std::decay_t<decltype(p[0].x)>;
          const T phi = dihedral(p[0], p[1], p[2], p[3]);
          T e = 0.0;
          for (int n = 1; n <= 6; ++n) {
            const double vn = t.v[static_cast<std::size_t>(n - 1)];
            if (vn != 0) e = e + vn * (1.0 + cos(static_cast<double>(n) * phi - t.phase[static_cast<std::size_t>(n - 1)] / kRadian));
          }
          return h.torsion_unit * e;
        });
      break;
    case Term::PiTorsion:
      // The torsion between the p orbitals of two trigonal atoms: each atom's orbital axis is the
      // normal of the plane of its three neighbours (its two others and the bond partner), placed
      // at the atom.
      for (const PiTorsionEntry& t : v.pitors)
        add_entry<6>(a, t.atoms, req, out, s, [&](const auto& p) {
          const auto c = p[2], d = p[3];
          const auto pc = cross(p[0] - d, p[1] - d) + c, qd = cross(p[4] - c, p[5] - c) + d;
          return h.pitors_unit * (t.k * (1.0 - cos(2.0 * dihedral(pc, c, d, qd))));
        });
      break;
    case Term::TorsionTorsion:
      for (const TorTorEntry& t : v.tortors) {
        const std::array<int, 6> atoms6{t.atoms[0], t.atoms[1], t.atoms[2], t.atoms[3], t.atoms[4],
                                         t.chiral >= 0 ? t.chiral : t.atoms[2]};
        add_entry<6>(a, atoms6, req, out, s, [&](const auto& p) {
          using T = std::decay_t<decltype(p[0].x)>;
          T x = kRadian * dihedral(p[0], p[1], p[2], p[3]), y = kRadian * dihedral(p[1], p[2], p[3], p[4]);
          if (t.chiral >= 0) {
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
          return h.tortor_unit * bicubic(*t.grid, x, y);
        });
      }
      break;
    case Term::AngleTorsion:
      for (const AngleTorsionEntry& t : v.angtors)
        add_entry<4>(a, t.atoms, req, out, s, [&](const auto& p) {
          const auto phi = dihedral(p[0], p[1], p[2], p[3]);
          const auto dt1 = angle_between(p[0] - p[1], p[2] - p[1]) - t.theta0[0];
          const auto dt2 = angle_between(p[1] - p[2], p[3] - p[2]) - t.theta0[1];
          return h.angtor_unit * (dt1 * torsion_factor(phi, t.k, 0, t.phase) + dt2 * torsion_factor(phi, t.k, 3, t.phase));
        });
      break;
    case Term::StretchTorsion:
      for (const StretchTorsionEntry& t : v.strtors)
        add_entry<4>(a, t.atoms, req, out, s, [&](const auto& p) {
          const auto phi = dihedral(p[0], p[1], p[2], p[3]);
          using T = std::decay_t<decltype(phi)>;
          T e = 0.0;
          for (std::size_t b = 0; b < 3; ++b)
            e = e + (norm(p[b + 1] - p[b]) - t.r0[b]) * torsion_factor(phi, t.k, 3 * b, t.phase);
          return h.strtor_unit * e;
        });
      break;
    default:
      throw Error(std::string("not a valence term: ") + term_name(term));
  }
  double* totals = out.term_totals();
  for (int c = 0; c < 10; ++c) totals[c] += s[c];
}

}  // namespace quasar::amoeba
