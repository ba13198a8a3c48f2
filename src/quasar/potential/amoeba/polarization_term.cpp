#include "quasar/potential/amoeba/polarization_term.hpp"

#include <algorithm>
#include <cmath>

#include "quasar/potential/amoeba/multipole_frame.hpp"
#include "quasar/potential/amoeba/pme_gpu.hpp"
#include "quasar/potential/amoeba/scaled_pairs.hpp"

namespace quasar::amoeba {

ElectrostaticResult polarization_energy(const ElectrostaticSystem& e, const PairGeometry& geometry,
                                        const std::vector<Vec3>& r, const InducedDipoles& ind, bool per_atom,
                                        const PolarPairSums* pair_sums) {
  const std::size_t n = r.size();
  const std::vector<Moments> M = lab_moments(e, geometry, r);
  ElectrostaticResult out = empty_result(n, per_atom);
  const double half_f = e.electric / 2;
  for (std::size_t i = 0; i < n; ++i) {
    const double ei =
        -half_f * (ind.ud[i].x * ind.field_p[i].x + ind.ud[i].y * ind.field_p[i].y + ind.ud[i].z * ind.field_p[i].z);
    out.energy += ei;
    if (per_atom) out.atom_energy[i] = ei;
  }
  // The gradient: (f/2) d/dx of, per pair, U(M_i, D_k) + U(A_i, M_k) + u [U(up_i, ud_k) + U(ud_i, up_k)],
  // D = p ud + d up, A likewise, with the dipoles held fixed.
  std::vector<std::array<double, 13>> dM(n, std::array<double, 13>{});
  PairTensors t;
  const bool ewald = geometry.ewald_alpha > 0;
  if (pair_sums) {
    for (std::size_t i = 0; i < n; ++i) {
      for (int c = 0; c < 3; ++c) out.grad[i][c] += pair_sums->grad[3 * i + static_cast<std::size_t>(c)];
      for (std::size_t c = 0; c < 13; ++c) dM[i][c] += pair_sums->dM[13 * i + c];
      for (std::size_t c = 0; c < 9; ++c) {
        out.virial[c] += pair_sums->virial[9 * i + c];
        if (per_atom) out.atom_virial[9 * i + c] += pair_sums->virial[9 * i + c];
      }
    }
    out.pairs += pair_sums->pairs;
  }
  // Otherwise the CPU's loop over the pairs.
  if (!pair_sums)
    for_each_scaled_pair(
        e, geometry, r,
        [&](std::size_t i, std::size_t k, const ScaleScratch&) { return !(e.alpha[i] == 0 && e.alpha[k] == 0); },
        [&](std::size_t i, std::size_t k, const double s[3], double dist, const ScaleScratch& sc) {
          // The Thole-damped kernel with the pair's scales, and with Ewald sums the real-space kernel
          // less the Coulomb one, unscaled.
          double g[3] = {0, 0, 0}, dmi[13] = {}, dmk[13] = {}, pair = 0;
          for (int part = 0; part < (ewald ? 2 : 1); ++part) {
            pair_tensors(s,
                         part == 0 ? thole_radial(dist, e.thole_of(i, k), e.damp[i] * e.damp[k])
                                   : ewald_real_radial(dist, geometry.ewald_alpha, 0),
                         {4, 2, 0}, t);
            const double sp = part == 0 ? sc.p[k] : 1.0, sd = part == 0 ? sc.d[k] : 1.0, su = part == 0 ? sc.u[k] : 1.0;
            const Moments D_k = dipole_moments(sp * ind.ud[k] + sd * ind.up[k]);
            const Moments A_i = dipole_moments(sp * ind.ud[i] + sd * ind.up[i]);
            double gp[3], dm[13];
            Potential3 phi, phi1, none;
            // M_i in the field of D_k.
            source_potential(D_k, t, 3, 0, false, phi);
            source_potential(D_k, t, 1, 1, false, phi1);
            pair += receive(M[i], phi, phi1, gp, dm);
            for (int c = 0; c < 3; ++c) g[c] += gp[c];
            for (int c = 0; c < 13; ++c) dmi[c] += dm[c];
            // A_i in the field of M_k; and M_k in the field of A_i for M_k's frame.
            source_potential(M[k], t, 2, 0, false, phi);
            pair += receive(A_i, phi, none, gp, nullptr);
            for (int c = 0; c < 3; ++c) g[c] += gp[c];
            source_potential(A_i, t, 2, 0, true, phi);
            source_potential(A_i, t, 0, 1, true, phi1);
            receive(M[k], phi, phi1, nullptr, dm);
            for (int c = 0; c < 13; ++c) dmk[c] += dm[c];
            // The induced dipoles with each other.
            if (e.mutual && su != 0) {
              source_potential(dipole_moments(su * ind.ud[k]), t, 2, 0, false, phi);
              pair += receive(dipole_moments(ind.up[i]), phi, none, gp, nullptr);
              for (int c = 0; c < 3; ++c) g[c] += gp[c];
              source_potential(dipole_moments(su * ind.up[k]), t, 2, 0, false, phi);
              pair += receive(dipole_moments(ind.ud[i]), phi, none, gp, nullptr);
              for (int c = 0; c < 3; ++c) g[c] += gp[c];
            }
          }
          if (sc.p[k] != 0 && pair != 0) ++out.pairs;
          add_pair_gradient(out, dM, i, k, s, half_f, g, dmi, dmk, per_atom);
        });
  if (geometry.ewald_alpha > 0) {
    // Reciprocal part: (f/2) d/dx of (ud + up) K M + up K ud (the last for MUTUAL), K the reciprocal
    // interaction, from PME energies E(X) = X K X / 2 of sums of the moment sets; the self field's
    // part, -(f/2) c (ud + up) . d of each site, through its frame.
    std::vector<Moments> ud(n), up(n), sum(n), all(n);
    for (std::size_t i = 0; i < n; ++i) {
      ud[i] = dipole_moments(ind.ud[i]);
      up[i] = dipole_moments(ind.up[i]);
      sum[i] = dipole_moments(ind.ud[i] + ind.up[i]);
      all[i] = M[i];
      for (int c = 1; c < 4; ++c) all[i][static_cast<std::size_t>(c)] += sum[i][static_cast<std::size_t>(c)];
    }
    struct Part {
      const std::vector<Moments>* moments;
      double sign;
      bool permanent;  // its moment derivatives reach the frames
    };
    std::vector<Part> parts = {{&all, 1, true}, {&M, -1, true}};
    if (e.mutual) {
      parts.push_back({&ud, -1, false});
      parts.push_back({&up, -1, false});
    } else {
      parts.push_back({&sum, -1, false});
    }
    double cell[9] = {};
    for (const Part& part : parts) {
      const PmeResult pme = reciprocal_pme(geometry, r, *part.moments, 1.0);
      const double f = part.sign * half_f;
      for (std::size_t i = 0; i < n; ++i) {
        out.grad[i] += f * pme.grad[i];
        if (part.permanent)
          for (int c = 0; c < 13; ++c) dM[i][static_cast<std::size_t>(c)] += f * pme.dM[i][static_cast<std::size_t>(c)];
        if (per_atom)
          for (std::size_t c = 0; c < 9; ++c) out.atom_virial[9 * i + c] += f * pme.site_virial[i][c];
      }
      for (std::size_t c = 0; c < 9; ++c) {
        out.virial[c] += f * pme.virial[c];
        cell[c] += f * pme.virial[c];
        for (std::size_t i = 0; i < n; ++i) cell[c] -= f * pme.site_virial[i][c];
      }
    }
    if (per_atom)
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t c = 0; c < 9; ++c) out.atom_virial[9 * i + c] += cell[c] / static_cast<double>(n);
    const double self = ewald_self_field(geometry.ewald_alpha);
    for (std::size_t i = 0; i < n; ++i)
      for (int c = 0; c < 3; ++c)
        dM[i][static_cast<std::size_t>(1 + c)] -= half_f * self * (ind.ud[i][c] + ind.up[i][c]);
    out.pairs += static_cast<long>(n);  // Tinker counts each site's self term too
  }
  add_frame_gradients(e, geometry, r, dM, out, per_atom);
  return out;
}

}  // namespace quasar::amoeba
