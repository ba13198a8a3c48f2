#include "quasar/potential/amoeba/multipole_term.hpp"

#include <chrono>
#include <cmath>

#include "quasar/core/units.hpp"
#include "quasar/potential/amoeba/mpole_gpu.hpp"
#include "quasar/potential/amoeba/multipole_frame.hpp"
#include "quasar/potential/amoeba/pme_gpu.hpp"
#include "quasar/potential/amoeba/scaled_pairs.hpp"

namespace quasar::amoeba {

std::vector<Vec3> input_positions(const AtomsRef& a) {
  std::vector<Vec3> r(static_cast<std::size_t>(a.n));
  for (int k = 0; k < a.n; ++k) {
    const int i = a.index_of[k];
    r[static_cast<std::size_t>(k)] = {a.x[i], a.y[i], a.z[i]};
  }
  return r;
}

void add_result(const ElectrostaticResult& r, const AtomsRef& a, const ComputeRequest& req, ForceOutput& out) {
  const double unit = units::kcal_mol;
  const std::size_t n = r.grad.size();
  for (std::size_t k = 0; k < n; ++k) {
    const int i = a.index_of[k];
    a.fx[i] -= unit * r.grad[k].x;
    a.fy[i] -= unit * r.grad[k].y;
    a.fz[i] -= unit * r.grad[k].z;
  }
  double* t = out.term_totals();
  t[0] += unit * r.energy;
  for (int c = 0; c < 9; ++c) t[1 + c] += unit * r.virial[c];
  if (req.per_atom)
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t at = static_cast<std::size_t>(a.index_of[k]);
      out.atom_energy[at] += unit * r.atom_energy[k];
      for (std::size_t c = 0; c < 9; ++c) out.atom_virial[c * n + at] += unit * r.atom_virial[9 * k + c];
    }
}

ElectrostaticResult empty_result(std::size_t n, bool per_atom) {
  ElectrostaticResult out;
  out.grad.assign(n, Vec3{});
  if (per_atom) {
    out.atom_energy.assign(n, 0);
    out.atom_virial.assign(9 * n, 0);
  }
  return out;
}

void add_pair_gradient(ElectrostaticResult& out, std::vector<std::array<double, 13>>& dM, std::size_t i, std::size_t k,
                       const double s[3], double f, const double g[3], const double dmi[13], const double dmk[13],
                       bool per_atom) {
  const Vec3 gi{f * g[0], f * g[1], f * g[2]};
  out.grad[i] += gi;
  out.grad[k] -= gi;
  for (int c = 0; c < 13; ++c) {
    dM[i][static_cast<std::size_t>(c)] += f * dmi[c];
    dM[k][static_cast<std::size_t>(c)] += f * dmk[c];
  }
  double w[9];
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) w[3 * a + b] = -s[a] * gi[b];
  for (int c = 0; c < 9; ++c) out.virial[c] += w[c];
  if (per_atom)
    for (std::size_t c = 0; c < 9; ++c) {
      out.atom_virial[9 * i + c] += w[c] / 2;
      out.atom_virial[9 * k + c] += w[c] / 2;
    }
}

void add_frame_gradients(const ElectrostaticSystem& e, const PairGeometry& g, const std::vector<Vec3>& r,
                         const std::vector<std::array<double, 13>>& dM, ElectrostaticResult& out, bool per_atom) {
  for (std::size_t i = 0; i < dM.size(); ++i) {
    double w[9] = {};
    add_frame_gradient(e, g, static_cast<int>(i), r, dM[i].data(), out.grad, w);
    for (int c = 0; c < 9; ++c) out.virial[c] += w[c];
    if (per_atom)
      for (std::size_t c = 0; c < 9; ++c) out.atom_virial[9 * i + c] += w[c];
  }
}

void add_multipole_self_energy(const ElectrostaticSystem& e, const std::vector<Moments>& M, double alpha, bool per_atom,
                               ElectrostaticResult& out) {
  const std::size_t n = M.size();
  if (alpha > 0)
    for (std::size_t i = 0; i < n; ++i) {
      const Moments& m = M[i];
      double dd = 0, qq = 0;
      for (int c = 1; c < 4; ++c) dd += m[static_cast<std::size_t>(c)] * m[static_cast<std::size_t>(c)];
      for (int c = 4; c < 13; ++c) qq += m[static_cast<std::size_t>(c)] * m[static_cast<std::size_t>(c)];
      const double a2 = alpha * alpha;
      const double self =
          -e.electric * alpha / std::sqrt(M_PI) * (m[0] * m[0] + 2 * a2 / 3 * dd + 8 * a2 * a2 / 5 * qq);
      out.energy += self;
      ++out.pairs;  // Tinker counts each site's self energy too
      if (per_atom) out.atom_energy[i] += self;
    }
}

namespace {

// multipole_energy's pairs on the CPU, through the generic tensors (multipole_pair.hpp).
void add_pairs_cpu(const ElectrostaticSystem& e, const PairGeometry& g, const std::vector<Vec3>& r,
                   const std::vector<Moments>& M, double alpha, bool per_atom, ElectrostaticResult& out,
                   std::vector<std::array<double, 13>>& dM) {
  PairTensors t;
  for_each_scaled_pair(
      e, g, r, [&](std::size_t, std::size_t k, const ScaleScratch& sc) { return !(sc.m[k] == 0 && alpha == 0); },
      [&](std::size_t i, std::size_t k, const double s[3], double dist, const ScaleScratch& sc) {
        const double scale = sc.m[k];
        pair_tensors(s, alpha > 0 ? ewald_real_radial(dist, alpha, scale) : coulomb_radial(dist), {5, 3, 1}, t);
        Potential3 at_i, at_i1, at_k, at_k1;
        source_potential(M[k], t, 3, 0, false, at_i);
        source_potential(M[k], t, 1, 1, false, at_i1);
        source_potential(M[i], t, 2, 0, true, at_k);
        source_potential(M[i], t, 0, 1, true, at_k1);
        double grad[3], dmi[13], dmk[13];
        const double f = alpha > 0 ? e.electric : e.electric * scale;
        const double u = f * receive(M[i], at_i, at_i1, grad, dmi);
        receive(M[k], at_k, at_k1, nullptr, dmk);
        out.energy += u;
        // Tinker's count: pairs whose (unscaled by Ewald) interaction is not zero.
        if (u != 0 && scale != 0) ++out.pairs;
        add_pair_gradient(out, dM, i, k, s, f, grad, dmi, dmk, per_atom);
        if (per_atom) {
          out.atom_energy[i] += u / 2;
          out.atom_energy[k] += u / 2;
        }
      });
}

}  // namespace

ElectrostaticResult multipole_energy(const ElectrostaticSystem& e, const PairGeometry& g, const std::vector<Vec3>& r,
                                     bool per_atom, double alpha) {
  const std::size_t n = e.sites.size();
  const std::vector<Moments> M = lab_moments(e, g, r);
  ElectrostaticResult out = empty_result(n, per_atom);
  std::vector<std::array<double, 13>> dM(n, std::array<double, 13>{});
  if (g.mpole_gpu) g.mpole_gpu->add_real_space(e, g, r, M, alpha, per_atom, out, dM);
  else add_pairs_cpu(e, g, r, M, alpha, per_atom, out, dM);
  add_multipole_self_energy(e, M, alpha, per_atom, out);
  add_frame_gradients(e, g, r, dM, out, per_atom);
  return out;
}

ElectrostaticResult multipole_ewald(const ElectrostaticSystem& e, const PairGeometry& g, const std::vector<Vec3>& r,
                                    bool per_atom, EwaldTimes* times) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  const PmeGrid grid{g.pme_size, g.pme_order, g.ewald_alpha};
  ElectrostaticResult out = multipole_energy(e, g, r, per_atom, grid.alpha);
  const auto t1 = Clock::now();
  const std::vector<Moments> M = lab_moments(e, g, r);
  const PmeResult recip = reciprocal_pme(g, r, M, e.electric);
  const std::size_t n = r.size();
  out.energy += recip.energy;
  for (int c = 0; c < 9; ++c) out.virial[c] += recip.virial[c];
  // A net charge Q: Ewald's sum is that of Q neutralized by a uniform background, whose energy
  // -pi f Q^2 / (2 V alpha^2) Tinker adds (empole*.f, when |Q| > 1e-10, whatever the boundary). It
  // moves no atom; as 1/V its strain derivative is -E on the diagonal, so the virial gains +E there
  // (which Tinker leaves out of its virial). Per atom, equal shares.
  double net = 0;
  for (const Moments& m : M) net += m[0];
  double background = 0;
  if (std::abs(net) > 1e-10) {
    background = -M_PI * e.electric * net * net / (2 * g.box.volume() * grid.alpha * grid.alpha);
    out.energy += background;
    for (int c = 0; c < 9; c += 4) out.virial[c] += background;
  }
  double cell_part[9];
  for (std::size_t c = 0; c < 9; ++c) {
    cell_part[c] = recip.virial[c];
    for (std::size_t j = 0; j < n; ++j) cell_part[c] -= recip.site_virial[j][c];
  }
  for (std::size_t i = 0; i < n; ++i) {
    out.grad[i] += recip.grad[i];
    double w[9] = {};
    add_frame_gradient(e, g, static_cast<int>(i), r, recip.dM[i].data(), out.grad, w);
    for (int c = 0; c < 9; ++c) out.virial[c] += w[c];
    if (per_atom) {
      const double share = background / static_cast<double>(n);
      out.atom_energy[i] += recip.site_energy[i] + share;
      for (std::size_t c = 0; c < 9; ++c)
        out.atom_virial[9 * i + c] +=
            w[c] + recip.site_virial[i][c] + cell_part[c] / static_cast<double>(n) + (c % 4 == 0 ? share : 0);
    }
  }
  if (times) {
    times->real_space = std::chrono::duration<double>(t1 - t0).count();
    times->reciprocal = std::chrono::duration<double>(Clock::now() - t1).count();
  }
  return out;
}

}  // namespace quasar::amoeba
