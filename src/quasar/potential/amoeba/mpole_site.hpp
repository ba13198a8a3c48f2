#pragma once
// What one site gathers in the permanent multipoles' real-space kernel (mpole_kernels.cu), written for
// host and device so that the CPU tests run the same code on host arrays: the sum over its partners
// in ascending order (InducePartners, the induced-dipole code's pair data) of the pair formulas of
// mpole_forms.hpp, with the filters and cutoff of multipole_energy's loop. Each pair is evaluated
// from both ends; a site keeps half of the pair's energy and virial, its own gradient and its own
// moments' coefficients, so that summing over sites gives the CPU's totals without atomics.
#include "quasar/potential/amoeba/induce_forms.hpp"
#include "quasar/potential/amoeba/mpole_forms.hpp"

namespace quasar::amoeba {

struct MpoleArgs {
  InduceArgs pairs;                // positions, cell, cutoff, exclusion partners, pair list
  const double* scale_m = nullptr;  // the m factor of each of pairs' scale entries
  const double* moments = nullptr;  // lab-frame, 13 per site
  double electric = 0, alpha = 0;   // Tinker's electric, Ewald's alpha (0: Coulomb's kernel)
};

// One site's share: half its pairs' energy (kcal/mol) and virial (-s (x) dE/ds), dE/dr_i, dE/dM_i,
// and the pairs with a higher partner that Tinker counts.
struct MpoleSite {
  double energy = 0;
  double grad[3] = {};
  double dM[13] = {};
  double virial[9] = {};
  int pairs = 0;
};

// The sums in T (mixed_arith.hpp): double, or float pairs into fixed-point sums (mixed32).
template <class T>
QUASAR_HD void mpole_site_of(const MpoleArgs& a, int i, MpoleSite& out) {
  out = MpoleSite{};
  SumOf<T> energy, grad[3], dM[13], virial[9];
  T Mi[13];
  const double* Mi_in = a.moments + 13 * static_cast<long>(i);
  for (int c = 0; c < 13; ++c) Mi[c] = static_cast<T>(Mi_in[c]);
  const Vec3 ri = load3(a.pairs.position, i);
  InducePartners it(a.pairs, i);
  int k, sc;
  double r;
  Vec3 s;
  while (it.next(k, sc)) {
    const double m = sc < 0 ? 1.0 : a.scale_m[sc];
    if (m == 0 && a.alpha == 0) continue;
    if (!it.separation(ri, k, a.pairs.cutoff, s, r)) continue;
    T g[3], dmi[13], Mk[13];
    const double* Mk_in = a.moments + 13 * static_cast<long>(k);
    for (int c = 0; c < 13; ++c) Mk[c] = static_cast<T>(Mk_in[c]);
    const double f = mpole_prefactor(a.electric, a.alpha, m);
    const double u = f * static_cast<double>(mpole_pair(Mi, Mk, vec_as<T>(s), mpole_radial_at<T>(r, a.alpha, m), g, dmi));
    energy.add(u / 2);
    if (u != 0 && m != 0 && k > i) ++out.pairs;
    for (int c = 0; c < 3; ++c) grad[c].add(f * static_cast<double>(g[c]));
    for (int c = 0; c < 13; ++c) dM[c].add(f * static_cast<double>(dmi[c]));
    for (int p = 0; p < 3; ++p)
      for (int q = 0; q < 3; ++q) virial[3 * p + q].add(-(s[p] * (f * static_cast<double>(g[q])) / 2));
  }
  out.energy = energy.value();
  for (int c = 0; c < 3; ++c) out.grad[c] = grad[c].value();
  for (int c = 0; c < 13; ++c) out.dM[c] = dM[c].value();
  for (int c = 0; c < 9; ++c) out.virial[c] = virial[c].value();
}

// The double sums, or the mixed ones where the arguments ask for them (a.pairs.mixed).
QUASAR_HD void mpole_site(const MpoleArgs& a, int i, MpoleSite& out) {
  if (a.pairs.mixed) mpole_site_of<float>(a, i, out);
  else mpole_site_of<double>(a, i, out);
}

}  // namespace quasar::amoeba
