#include "quasar/potential/amoeba/induced_dipoles.hpp"

#include <algorithm>
#include <cmath>

#include "quasar/core/error.hpp"
#include "quasar/potential/amoeba/multipole_frame.hpp"
#include "quasar/potential/amoeba/pme_gpu.hpp"
#include "quasar/potential/amoeba/scaled_pairs.hpp"

namespace quasar::amoeba {

namespace {

constexpr double kDebye = 4.80321;  // e Å in Debye, Tinker's

Radial pair_radial(const ElectrostaticSystem& e, std::size_t i, std::size_t k, double r) {
  return thole_radial(r, e.thole_of(i, k), e.damp[i] * e.damp[k]);
}

// The u-scaled dipole field tensors of the pairs (i < k, row-major; the same both ways), stored
// while they take less than about 300 MB, else formed again at each product.
class DipoleField {
 public:
  DipoleField(const ElectrostaticSystem& e, const PairGeometry& g, const std::vector<Vec3>& r, bool store = true)
      : e_(e), g_(g), r_(r) {
    const double n = static_cast<double>(r.size());
    stored_ = store && n * (n - 1) / 2 <= 4e6;
    if (stored_)
      each([&](std::size_t i, std::size_t k, const std::array<double, 9>& m) {
        pairs_.push_back({static_cast<int>(i), static_cast<int>(k)});
        t_.push_back(m);
      });
  }
  // field_i = sum_k T_ik u_k.
  void apply(const std::vector<Vec3>& u, std::vector<Vec3>& field) const {
    std::fill(field.begin(), field.end(), Vec3{});
    auto add = [&](std::size_t i, std::size_t k, const std::array<double, 9>& m) {
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
          field[i][a] += m[static_cast<std::size_t>(3 * a + b)] * u[k][b];
          field[k][a] += m[static_cast<std::size_t>(3 * a + b)] * u[i][b];
        }
    };
    if (!stored_)
      each(add);
    else
      for (std::size_t q = 0; q < pairs_.size(); ++q)
        add(static_cast<std::size_t>(pairs_[q][0]), static_cast<std::size_t>(pairs_[q][1]), t_[q]);
    if (g_.ewald_alpha > 0) {
      std::vector<Moments> m(u.size());
      for (std::size_t i = 0; i < u.size(); ++i) m[i] = dipole_moments(u[i]);
      add_reciprocal_field(g_, r_, m, field);
      const double self = ewald_self_field(g_.ewald_alpha);
      for (std::size_t i = 0; i < u.size(); ++i) field[i] += self * u[i];
    }
  }

 private:
  template <class F>
  void each(F&& f) const {
    const bool ewald = g_.ewald_alpha > 0;
    PairTensors t;
    for_each_scaled_pair(
        e_, g_, r_,
        [&](std::size_t i, std::size_t k, const ScaleScratch& sc) {
          return !((sc.u[k] == 0 && !ewald) || (e_.alpha[i] == 0 && e_.alpha[k] == 0));
        },
        [&](std::size_t i, std::size_t k, const double s[3], double dist, const ScaleScratch& sc) {
          pair_tensors(s, pair_radial(e_, i, k, dist), {2, -1, -1}, t);
          std::array<double, 9> m;
          for (int c = 0; c < 9; ++c) m[static_cast<std::size_t>(c)] = sc.u[k] * t.t[0][2][static_cast<std::size_t>(c)];
          if (ewald) {  // Ewald's real-space kernel less the Coulomb one, unscaled
            pair_tensors(s, ewald_real_radial(dist, g_.ewald_alpha, 0), {2, -1, -1}, t);
            for (int c = 0; c < 9; ++c) m[static_cast<std::size_t>(c)] += t.t[0][2][static_cast<std::size_t>(c)];
          }
          f(i, k, m);
        });
  }

  const ElectrostaticSystem& e_;
  const PairGeometry& g_;
  const std::vector<Vec3>& r_;
  bool stored_ = false;
  std::vector<std::array<int, 2>> pairs_;
  std::vector<std::array<double, 9>> t_;
};

// Tinker's preconditioner: z_i = 2 alpha_i r_i + sum_k alpha_i T_ik alpha_k r_k over the pairs within
// usolve-cutoff, T the u-scaled Thole-damped dipole tensor (no Ewald part): a first correction to
// the diagonal, so that the iterates follow Tinker's and stop where its do at the same polar-eps.
class Preconditioner {
 public:
  Preconditioner(const ElectrostaticSystem& e, const PairGeometry& g, const std::vector<Vec3>& r) : alpha_(e.alpha) {
    PairTensors t;
    PairGeometry near = g;
    near.cutoff = e.usolve_cutoff;
    for_each_scaled_pair(
        e, near, r,
        [&](std::size_t i, std::size_t k, const ScaleScratch& sc) {
          return !(sc.u[k] == 0 || e.alpha[i] == 0 || e.alpha[k] == 0);
        },
        [&](std::size_t i, std::size_t k, const double s[3], double dist, const ScaleScratch& sc) {
          pair_tensors(s, pair_radial(e, i, k, dist), {2, -1, -1}, t);
          std::array<double, 9> m;
          const double f = sc.u[k] * e.alpha[i] * e.alpha[k];
          for (int c = 0; c < 9; ++c) m[static_cast<std::size_t>(c)] = f * t.t[0][2][static_cast<std::size_t>(c)];
          pairs_.push_back({static_cast<int>(i), static_cast<int>(k)});
          m_.push_back(m);
        });
  }
  void apply(const std::vector<Vec3>& rs, std::vector<Vec3>& z) const {
    for (std::size_t i = 0; i < rs.size(); ++i) z[i] = 2 * alpha_[i] * rs[i];
    for (std::size_t q = 0; q < pairs_.size(); ++q) {
      const std::size_t i = static_cast<std::size_t>(pairs_[q][0]), k = static_cast<std::size_t>(pairs_[q][1]);
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
          z[i][a] += m_[q][static_cast<std::size_t>(3 * a + b)] * rs[k][b];
          z[k][a] += m_[q][static_cast<std::size_t>(3 * a + b)] * rs[i][b];
        }
    }
  }

 private:
  const std::vector<double>& alpha_;
  std::vector<std::array<int, 2>> pairs_;
  std::vector<std::array<double, 9>> m_;
};

double dot(const std::vector<Vec3>& a, const std::vector<Vec3>& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i].x * b[i].x + a[i].y * b[i].y + a[i].z * b[i].z;
  return s;
}

}  // namespace

double ewald_self_field(double alpha) { return 4 * alpha * alpha * alpha / (3 * std::sqrt(M_PI)); }

void add_reciprocal_field(const PairGeometry& g, const std::vector<Vec3>& r, const std::vector<Moments>& M,
                          std::vector<Vec3>& field) {
  add_reciprocal_pme_field(g, r, M, field);  // on g.pme_gpu when set
}

void direct_fields(const ElectrostaticSystem& e, const PairGeometry& g, const std::vector<Vec3>& r,
                   const std::vector<Moments>& M, std::vector<Vec3>& field_d, std::vector<Vec3>& field_p) {
  const std::size_t n = r.size();
  field_d.assign(n, Vec3{});
  field_p.assign(n, Vec3{});
  const bool ewald = g.ewald_alpha > 0;
  PairTensors t;
  for_each_scaled_pair(
      e, g, r,
      [&](std::size_t, std::size_t k, const ScaleScratch& sc) { return !(sc.d[k] == 0 && sc.p[k] == 0 && !ewald); },
      [&](std::size_t i, std::size_t k, const double s[3], double dist, const ScaleScratch& sc) {
        // The Thole-damped kernel times each scale, and with Ewald sums the real-space kernel less
        // the Coulomb one, unscaled.
        for (int part = 0; part < (ewald ? 2 : 1); ++part) {
          pair_tensors(s, part == 0 ? pair_radial(e, i, k, dist) : ewald_real_radial(dist, g.ewald_alpha, 0),
                       {3, 1, -1}, t);
          const double sd = part == 0 ? sc.d[k] : 1.0, sp = part == 0 ? sc.p[k] : 1.0;
          Potential3 at_i, at_k;
          source_potential(M[k], t, 1, 0, false, at_i);
          source_potential(M[i], t, 1, 0, true, at_k);
          for (int a = 0; a < 3; ++a) {  // the field is minus the potential's gradient
            field_d[i][a] -= sd * at_i.v[1 + a];
            field_p[i][a] -= sp * at_i.v[1 + a];
            field_d[k][a] -= sd * at_k.v[1 + a];
            field_p[k][a] -= sp * at_k.v[1 + a];
          }
        }
      });
  if (g.ewald_alpha > 0) {
    std::vector<Vec3> recip(n);
    add_reciprocal_field(g, r, M, recip);
    const double self = ewald_self_field(g.ewald_alpha);
    for (std::size_t i = 0; i < n; ++i) {
      const Vec3 f = recip[i] + self * Vec3{M[i][1], M[i][2], M[i][3]};
      field_d[i] += f;
      field_p[i] += f;
    }
  }
}

std::vector<Vec3> mutual_field(const ElectrostaticSystem& e, const PairGeometry& g, const std::vector<Vec3>& r,
                               const std::vector<Vec3>& u, bool store_tensors) {
  std::vector<Vec3> field(r.size());
  DipoleField(e, g, r, store_tensors).apply(u, field);
  return field;
}

InducedDipoles induce(const ElectrostaticSystem& e, const PairGeometry& g, const std::vector<Vec3>& r) {
  const std::size_t n = r.size();
  InducedDipoles out;
  direct_fields(e, g, r, lab_moments(e, g, r), out.field_d, out.field_p);
  out.ud.assign(n, Vec3{});
  out.up.assign(n, Vec3{});
  std::size_t polar = 0;
  for (std::size_t i = 0; i < n; ++i) {
    out.ud[i] = e.alpha[i] * out.field_d[i];
    out.up[i] = e.alpha[i] * out.field_p[i];
    polar += e.alpha[i] > 0;
  }
  if (!e.mutual || polar == 0) return out;
  const DipoleField T(e, g, r);
  const Preconditioner precondition(e, g, r);
  // Per field: residual rs = E + T u - u/alpha, preconditioned z, direction p.
  std::vector<Vec3>* x[2] = {&out.ud, &out.up};
  std::vector<Vec3> rs[2], z[2], p[2], Ap(n), Tp(n);
  double rz[2];
  for (int f = 0; f < 2; ++f) {
    T.apply(*x[f], Tp);
    rs[f].assign(n, Vec3{});
    z[f].assign(n, Vec3{});
    for (std::size_t i = 0; i < n; ++i)
      if (e.alpha[i] > 0) rs[f][i] = Tp[i];  // E - u/alpha vanishes for the direct start
    precondition.apply(rs[f], z[f]);
    p[f] = z[f];
    rz[f] = dot(rs[f], z[f]);
  }
  auto rms = [&] {
    const double worst = std::max(dot(rs[0], rs[0]), dot(rs[1], rs[1]));
    return kDebye * std::sqrt(worst / static_cast<double>(polar));
  };
  out.residual = rms();
  while (out.residual >= e.polar_eps) {
    if (out.iterations >= e.polar_iter)
      throw Error("amoeba polarization: the induced dipoles did not converge to polar-eps " +
                  std::to_string(e.polar_eps) + " in " + std::to_string(e.polar_iter) + " steps (RMS residual " +
                  std::to_string(out.residual) + " Debye); raise polar-iter or polar-eps");
    for (int f = 0; f < 2; ++f) {
      if (rz[f] == 0) continue;
      T.apply(p[f], Tp);
      for (std::size_t i = 0; i < n; ++i) Ap[i] = e.alpha[i] > 0 ? (1 / e.alpha[i]) * p[f][i] - Tp[i] : Vec3{};
      const double step = rz[f] / dot(p[f], Ap);
      for (std::size_t i = 0; i < n; ++i) {
        (*x[f])[i] += step * p[f][i];
        rs[f][i] -= step * Ap[i];
      }
      precondition.apply(rs[f], z[f]);
      const double next = dot(rs[f], z[f]);
      const double beta = next / rz[f];
      rz[f] = next;
      for (std::size_t i = 0; i < n; ++i) p[f][i] = z[f][i] + beta * p[f][i];
    }
    ++out.iterations;
    out.residual = rms();
  }
  return out;
}

}  // namespace quasar::amoeba
