#pragma once
// The pair loop of the electrostatic terms: for each atom i, its partners k (pair_geometry.hpp)
// with the pair's exclusion-rule scale factors (multipole_setup.hpp; 1 for pairs without a rule) and
// their separation at the nearest image within the cutoff.
#include <cmath>
#include <cstddef>
#include <vector>

#include "quasar/potential/amoeba/multipole_setup.hpp"
#include "quasar/potential/amoeba/pair_geometry.hpp"

namespace quasar::amoeba {

// Atom i's partners' scale factors, set into per-atom scratch and reset after use.
struct ScaleScratch {
  std::vector<double> m, d, p, u;
  explicit ScaleScratch(std::size_t n) : m(n, 1.0), d(n, 1.0), p(n, 1.0), u(n, 1.0) {}
  void set(const ElectrostaticSystem& e, std::size_t i, bool on) {
    for (int k = e.scale_offset[i]; k < e.scale_offset[i + 1]; ++k) {
      const PairScale& s = e.scales[static_cast<std::size_t>(k)];
      const std::size_t j = static_cast<std::size_t>(s.partner);
      m[j] = on ? s.m : 1.0;
      d[j] = on ? s.d : 1.0;
      p[j] = on ? s.p : 1.0;
      u[j] = on ? s.u : 1.0;
    }
  }
};

// Calls pair(i, k, s, dist, scales) for each pair of g's partners (i, k) that keep(i, k, scales)
// takes (asked first, so that pairs known to contribute nothing cost no separation) and that lies
// within g's cutoff; s = r_i - r_k at the nearest image, dist its length.
template <class Keep, class Pair>
void for_each_scaled_pair(const ElectrostaticSystem& e, const PairGeometry& g, const std::vector<Vec3>& r,
                          Keep&& keep, Pair&& pair) {
  const std::size_t n = r.size();
  ScaleScratch sc(n);
  for (std::size_t i = 0; i < n; ++i) {
    sc.set(e, i, true);
    for (const std::size_t k : g.partners(i, n)) {
      if (!keep(i, k, sc)) continue;
      double s[3];
      if (!g.separation(r[i], r[k], s)) continue;
      pair(i, k, s, std::sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]), sc);
    }
    sc.set(e, i, false);
  }
}

}  // namespace quasar::amoeba
