#include "quasar/potential/amoeba/mpole_gpu.hpp"

#include <algorithm>

#include "quasar/core/error.hpp"
#include "quasar/device/backend.hpp"
#include "quasar/potential/amoeba/mpole_launch.hpp"

namespace quasar::amoeba {

MpoleTables mpole_tables(const ElectrostaticSystem& e, const PairGeometry& g, const std::vector<Vec3>& r) {
  MpoleTables t{induce_tables(e, g, r), {}};
  const InduceTables& p = t.pairs;
  const std::size_t n = r.size();
  t.scale_m.assign(p.scale_partner.size(), 1.0);
  // The entries with a higher partner from the atom's own records in scratch (the last one wins, as
  // in ScaleScratch); then each entry with a lower partner copies the partner's entry for the pair.
  std::vector<double> m_of(n, 1.0);
  auto set = [&](std::size_t i, bool on) {
    for (int j = e.scale_offset[i]; j < e.scale_offset[i + 1]; ++j) {
      const PairScale& sc = e.scales[static_cast<std::size_t>(j)];
      m_of[static_cast<std::size_t>(sc.partner)] = on ? sc.m : 1.0;
    }
  };
  for (std::size_t i = 0; i < n; ++i) {
    set(i, true);
    for (int q = p.scale_offset[i]; q < p.scale_offset[i + 1]; ++q) {
      const std::size_t k = static_cast<std::size_t>(p.scale_partner[static_cast<std::size_t>(q)]);
      if (k > i) t.scale_m[static_cast<std::size_t>(q)] = m_of[k];
    }
    set(i, false);
  }
  for (std::size_t i = 0; i < n; ++i)
    for (int q = p.scale_offset[i]; q < p.scale_offset[i + 1]; ++q) {
      const int k = p.scale_partner[static_cast<std::size_t>(q)];
      if (static_cast<std::size_t>(k) > i) continue;
      const auto first = p.scale_partner.begin() + p.scale_offset[static_cast<std::size_t>(k)];
      const auto last = p.scale_partner.begin() + p.scale_offset[static_cast<std::size_t>(k) + 1];
      const auto at = std::lower_bound(first, last, static_cast<int>(i));
      if (at == last || *at != static_cast<int>(i)) throw Error("amoeba mpole_tables: a scale entry listed once");
      t.scale_m[static_cast<std::size_t>(q)] = t.scale_m[static_cast<std::size_t>(at - p.scale_partner.begin())];
    }
  return t;
}

MpoleArgs mpole_args(const MpoleTables& t, const ElectrostaticSystem& e, const PairGeometry& g, double alpha,
                     const double* moments) {
  MpoleArgs a;
  a.pairs = induce_args(t.pairs, e, g);
  a.scale_m = t.scale_m.data();
  a.moments = moments;
  a.electric = e.electric;
  a.alpha = alpha;
  return a;
}

namespace {
void resize_shares(MpoleShares& s, std::size_t n) {
  s.energy.resize(n);
  s.grad.resize(3 * n);
  s.dM.resize(13 * n);
  s.virial.resize(9 * n);
  s.pairs.resize(n);
}
}  // namespace

MpoleShares mpole_shares_host(const MpoleArgs& a) {
  const std::size_t n = static_cast<std::size_t>(a.pairs.n);
  MpoleShares s;
  resize_shares(s, n);
  for (std::size_t i = 0; i < n; ++i) {
    MpoleSite site;
    mpole_site(a, static_cast<int>(i), site);
    s.energy[i] = site.energy;
    std::copy_n(site.grad, 3, s.grad.begin() + static_cast<long>(3 * i));
    std::copy_n(site.dM, 13, s.dM.begin() + static_cast<long>(13 * i));
    std::copy_n(site.virial, 9, s.virial.begin() + static_cast<long>(9 * i));
    s.pairs[i] = site.pairs;
  }
  return s;
}

void add_mpole_shares(const MpoleShares& s, bool per_atom, ElectrostaticResult& out,
                      std::vector<std::array<double, 13>>& dM) {
  for (std::size_t i = 0; i < s.energy.size(); ++i) {
    out.energy += s.energy[i];
    out.pairs += s.pairs[i];
    out.grad[i] += Vec3{s.grad[3 * i], s.grad[3 * i + 1], s.grad[3 * i + 2]};
    for (std::size_t c = 0; c < 13; ++c) dM[i][c] += s.dM[13 * i + c];
    for (std::size_t c = 0; c < 9; ++c) out.virial[c] += s.virial[9 * i + c];
    if (per_atom) {
      out.atom_energy[i] += s.energy[i];
      for (std::size_t c = 0; c < 9; ++c) out.atom_virial[9 * i + c] += s.virial[9 * i + c];
    }
  }
}

#ifdef QUASAR_HAVE_CUDA

MpoleGpu::MpoleGpu() = default;

void MpoleGpu::add_real_space(const ElectrostaticSystem& e, const PairGeometry& g, const std::vector<Vec3>& r,
                              const std::vector<Moments>& M, double alpha, bool per_atom, ElectrostaticResult& out,
                              std::vector<std::array<double, 13>>& dM) {
  const std::size_t n = r.size();
  const MpoleTables t = mpole_tables(e, g, r);
  std::vector<double> flat(13 * n);
  for (std::size_t i = 0; i < n; ++i) std::copy(M[i].begin(), M[i].end(), flat.begin() + static_cast<long>(13 * i));
  position_.assign(t.pairs.position);
  scale_offset_.assign(t.pairs.scale_offset);
  scale_partner_.assign(t.pairs.scale_partner);
  scale_m_.assign(t.scale_m);
  pair_offset_.assign(t.pairs.pair_offset);
  pair_partner_.assign(t.pairs.pair_partner);
  moments_.assign(flat);
  energy_.resize(n);
  grad_.resize(3 * n);
  dM_.resize(13 * n);
  virial_.resize(9 * n);
  pairs_.resize(n);
  // The device's arrays in the arguments (the tables' host pointers replaced).
  MpoleArgs a = mpole_args(t, e, g, alpha, moments_.data());
  a.pairs.position = position_.data();
  a.pairs.alpha = a.pairs.damp = a.pairs.thole_table = nullptr;
  a.pairs.thole_class = nullptr;
  a.pairs.scale_offset = scale_offset_.data();
  a.pairs.scale_partner = scale_partner_.data();
  a.pairs.scale_d = a.pairs.scale_p = a.pairs.scale_u = nullptr;
  a.pairs.pair_offset = g.candidates ? pair_offset_.data() : nullptr;
  a.pairs.pair_partner = g.candidates ? pair_partner_.data() : nullptr;
  a.scale_m = scale_m_.data();
  launch_mpole_sites(a, energy_.data(), grad_.data(), dM_.data(), virial_.data(), pairs_.data());
  MpoleShares s{energy_.to_vector(), grad_.to_vector(), dM_.to_vector(), virial_.to_vector(), pairs_.to_vector()};
  add_mpole_shares(s, per_atom, out, dM);
  ++evaluations_;
}

#else

MpoleGpu::MpoleGpu() { throw_no_cuda("amoeba multipoles on the GPU"); }
void MpoleGpu::add_real_space(const ElectrostaticSystem&, const PairGeometry&, const std::vector<Vec3>&,
                              const std::vector<Moments>&, double, bool, ElectrostaticResult&,
                              std::vector<std::array<double, 13>>&) {
  throw_no_cuda("amoeba multipoles on the GPU");
}

#endif

}  // namespace quasar::amoeba
