// Sigma on the CPU in double (see sigma.hpp): matrix elements by direct plane-wave sums, then the
// exchange, the plasmon-pole (or static) screened exchange and Coulomb hole per q-point of the grid.
#include "quasar/gw/sigma.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>

#include "quasar/core/error.hpp"
#include "quasar/gw/band_sums.hpp"
#include "quasar/gw/coulomb_average.hpp"
#include "quasar/gw/epsilon_unfold.hpp"
#include "quasar/gw/gpp_kernels.hpp"
#include "quasar/gw/sigma_q_map.hpp"
#include "quasar/gw/symmetry.hpp"

namespace quasar::gw {

namespace {

using cplx = std::complex<double>;
constexpr double kTolSmall = 1e-6, kTolZero = 1e-12, kTolDegeneracy = 1e-6;
const double kPi = std::numbers::pi;

double dot(const Matrix3& m, const Vec3d& a, const Vec3d& b) {
  double e = 0;
  for (int i = 0; i < 3; ++i) e += a[i] * (m[i][0] * b[0] + m[i][1] * b[1] + m[i][2] * b[2]);
  return e;
}
double cell_volume(const Wavefunctions& w) {
  const auto& a = w.lattice;
  return std::abs(a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
                  a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]));
}
Vec3d plus(const Vec3d& q, const GVector& g) { return {q[0] + g[0], q[1] + g[1], q[2] + g[2]}; }


// A box of G-vectors [-r, r]^3 for dense lookups.
struct GBox {
  int r = 0, side = 0;
  explicit GBox(int radius) : r(radius), side(2 * radius + 1) {}
  std::size_t size() const { return static_cast<std::size_t>(side) * side * side; }
  long index(const GVector& g) const {
    for (int d = 0; d < 3; ++d)
      if (g[d] < -r || g[d] > r) return -1;
    return (static_cast<long>(g[0] + r) * side + (g[1] + r)) * side + (g[2] + r);
  }
};

cplx coefficient(const Wavefunctions& w, std::size_t k, int band, std::size_t g) {
  const std::size_t o = w.coefficient_offset(0, k, band) + g;
  return w.real ? cplx(w.real_coefficients[o], 0) : w.complex_coefficients[o];
}

// M_{n n1}(G) = sum_{G1} c_n(k_s; G1 + G - G0)^* c_n1(k_j; G1) for every G of the box:
// <n k_s| e^{i(q+G).r} |n1 k_j> with q = k_s - k_j - G0.
void pair_elements(const Wavefunctions& w, std::size_t ks, int n, std::size_t kj, int n1, const GVector& g0,
                   const GBox& box, std::vector<cplx>& out) {
  std::fill(out.begin(), out.end(), cplx{});
  const std::size_t os = w.kgvector_offset(ks), oj = w.kgvector_offset(kj);
  const int ns = w.gvector_counts[ks], nj = w.gvector_counts[kj];
  std::vector<cplx> cs(static_cast<std::size_t>(ns)), cj(static_cast<std::size_t>(nj));
  for (int i = 0; i < ns; ++i) cs[i] = std::conj(coefficient(w, ks, n, static_cast<std::size_t>(i)));
  for (int i = 0; i < nj; ++i) cj[i] = coefficient(w, kj, n1, static_cast<std::size_t>(i));
  for (int b = 0; b < nj; ++b) {
    if (cj[b] == cplx{}) continue;
    const GVector& g1 = w.kgvectors[oj + b];
    for (int a = 0; a < ns; ++a) {
      const GVector& g2 = w.kgvectors[os + a];
      const long at = box.index({g2[0] - g1[0] + g0[0], g2[1] - g1[1] + g0[1], g2[2] - g1[2] + g0[2]});
      if (at >= 0) out[static_cast<std::size_t>(at)] += cs[a] * cj[b];
    }
  }
}

int filled(const Wavefunctions& w) {
  int n = 0;
  for (int b = 0; b < w.bands; ++b) n += w.occupations[static_cast<std::size_t>(b)] == 1;
  return n;
}

Vec3d transpose_apply(const IntMatrix3& r, const Vec3d& x) {
  Vec3d y{};
  for (int i = 0; i < 3; ++i) y[i] = r[0][i] * x[0] + r[1][i] * x[1] + r[2][i] * x[2];
  return y;
}

// Sums (Ry) of one element over q, at E (index 0) and E + dw (index 1).
struct Sums {
  cplx x, sx[2], ch[2], ch_static_bands, ch_exact;
};

}  // namespace

std::vector<double> valence_density(const Wavefunctions& w) {
  const int occ = filled(w);
  GBox box(0);
  int r = 0;
  for (const GVector& g : w.gvectors) r = std::max({r, std::abs(g[0]), std::abs(g[1]), std::abs(g[2])});
  box = GBox(r);
  std::vector<cplx> all(box.size()), m(box.size());
  for (std::size_t k = 0; k < w.kpoint_count(); ++k)
    for (int v = 0; v < occ; ++v) {
      pair_elements(w, k, v, k, v, {0, 0, 0}, box, m);
      for (std::size_t i = 0; i < m.size(); ++i) all[i] += m[i] * (2.0 * w.weights[k]);
    }
  std::vector<double> rho(w.gvectors.size());
  // rho(G) = sum c^*(G1 + G) c(G1) is the transform of |psi|^2 at -G; real and even with inversion.
  for (std::size_t i = 0; i < rho.size(); ++i) {
    const GVector& g = w.gvectors[i];
    rho[i] = all[static_cast<std::size_t>(box.index({-g[0], -g[1], -g[2]}))].real();
  }
  return rho;
}

double plasmon_omega2(const Wavefunctions& w, const std::vector<double>& rho, const Vec3d& q, const GVector& g,
                      const GVector& gp) {
  const Matrix3 m = reciprocal_metric(w);
  const double nelec = 2.0 * filled(w);
  const double wp2 = 16 * kPi * nelec / cell_volume(w);
  const GVector d{g[0] - gp[0], g[1] - gp[1], g[2] - gp[2]};
  double rho_d = 0;
  bool found = false;
  for (std::size_t i = 0; i < w.gvectors.size(); ++i)
    if (w.gvectors[i] == d) rho_d = rho[i], found = true;
  if (!found) return 0;
  const Vec3d qg = plus(q, g), qgp = plus(q, gp);
  const double l = norm2(m, qg);
  if (l < 1e-12) return (gp == GVector{0, 0, 0}) ? wp2 / nelec * rho_d : 0.0;
  return wp2 / nelec * rho_d * dot(m, qg, qgp) / l;
}

SigmaResult compute_sigma(const SigmaSettings& s, const Wavefunctions& w, const EpsilonResult* screening,
                          const SigmaProgress& progress, const std::vector<double>* density, device::Context* ctx) {
  device::Context cpu(Backend::Cpu);
  device::Context& context = ctx ? *ctx : cpu;
  Array<double> d_ieps(context.backend()), d_wt(context.backend()), d_vc(context.backend()), d_wx(context.backend());
  Array<cplx> d_ma(context.backend()), d_mb(context.backend()), d_sx(context.backend()), d_ch(context.backend());
  if (w.spins != 1) throw Error("sigma: one spin only");
  if (s.model != SigmaModel::HartreeFock && !screening) throw Error("sigma: the screened models need eps^-1");
  const int occ = filled(w);
  const std::size_t nk = w.kpoint_count();
  for (std::size_t k = 0; k < nk; ++k)
    if (std::abs(w.weights[k] - 1.0 / static_cast<double>(nk)) > 1e-9)
      throw Error("sigma: the inner mean field must hold the whole grid (equal weights)");
  const int nbands = s.model == SigmaModel::HartreeFock ? occ : s.bands;
  if (nbands > w.bands || s.band_max > w.bands) throw Error("sigma: more bands asked for than the mean field holds");
  const Matrix3 metric = reciprocal_metric(w);
  const double omega = cell_volume(w), ry = kRydbergEv;
  std::array<int, 3> qgrid = s.qgrid;
  if (qgrid == std::array<int, 3>{0, 0, 0}) qgrid = w.kgrid;
  if (qgrid[0] * qgrid[1] * qgrid[2] != static_cast<int>(nk))
    throw Error("sigma: the q-grid " + std::to_string(qgrid[0]) + "x" + std::to_string(qgrid[1]) + "x" +
                std::to_string(qgrid[2]) + " does not have the inner grid's " + std::to_string(nk) + " points");
  SigmaResult out;
  out.model = s.model;
  out.qpoints = static_cast<int>(nk);
  const MiniZoneCoulomb minizone(metric, omega, qgrid);
  const std::vector<IntMatrix3> rotations = s.symmetric_q_grid ? q_map_rotations(w, s.operations) : std::vector<IntMatrix3>{};
  const bool screened = screening && s.model != SigmaModel::HartreeFock;
  const std::vector<IntMatrix3> q_map = screened ? q_map_operations(s.operations, w, progress) : std::vector<IntMatrix3>{};
  const std::vector<CrystalOperation> crystal_ops = screened ? crystal_operations_of(w) : std::vector<CrystalOperation>{};
  // The dielectric file's q-points in its order (q -> 0 as 0), unless given.
  std::vector<Vec3d> dielectric_qpoints = s.dielectric_qpoints;
  if (dielectric_qpoints.empty() && screened)
    for (const EpsilonOfQ& e : screening->q) dielectric_qpoints.push_back(e.q0 ? Vec3d{0, 0, 0} : e.q);
  out.coulomb_head = minizone.average({0, 0, 0});
  const double nelec = 2.0 * occ;
  out.plasma_frequency2 = 16 * kPi * nelec / omega;
  const std::vector<double> rho = density ? *density : valence_density(w);
  const double bare_cut = s.bare_cutoff_ry > 0 ? s.bare_cutoff_ry : w.cutoff_ry;
  // The plasmon-pole sums run in eV, as BerkeleyGW's (its tolerances are in eV).
  const double dw = s.finite_difference_ev, gamma2 = s.broadening_ev * s.broadening_ev;
  const double factor = 1.0 / (static_cast<double>(nk) * omega);
  double ch_cut = bare_cut;
  if (screening)
    for (const EpsilonOfQ& e : screening->q)
      for (const GVector& g : e.gvectors)
        if (e.q0) ch_cut = std::max(ch_cut, norm2(metric, {double(g[0]), double(g[1]), double(g[2])}));

  int radius = 0;
  for (const GVector& g : w.gvectors) radius = std::max({radius, std::abs(g[0]), std::abs(g[1]), std::abs(g[2])});
  GBox box(radius + 2);
  std::vector<long> rho_index(box.size(), -1);
  for (std::size_t i = 0; i < w.gvectors.size(); ++i) rho_index[static_cast<std::size_t>(box.index(w.gvectors[i]))] = static_cast<long>(i);

  // eps^-1 at the grid's q-points that the file lacks, unfolded from its points (epsilon_unfold.hpp).
  std::vector<EpsilonOfQ> unfolded;
  if (screened) {
    std::vector<Vec3d> needed = w.kpoints;  // the grid's own representatives first
    for (const Vec3d& k : s.kpoints)
      for (const Vec3d& kj : w.kpoints) needed.push_back({k[0] - kj[0], k[1] - kj[1], k[2] - kj[2]});
    unfolded = unfold_epsilon(*screening, needed, crystal_ops, q_map, metric, w.gvectors);
    if (progress && !unfolded.empty())
      progress("eps^-1 unfolded to " + std::to_string(unfolded.size()) + " q-points of the grid by the crystal's operations");
  }

  for (std::size_t ik = 0; ik < s.kpoints.size(); ++ik) {
    std::size_t ks = nk;
    GVector kshift{};
    for (std::size_t k = 0; k < nk && ks == nk; ++k)
      if (integer_difference(s.kpoints[ik], w.kpoints[k], kshift)) ks = k;  // Sigma is periodic in k
    if (ks == nk) throw Error("sigma: k-point " + std::to_string(ik + 1) + " is not a point of the inner grid");
    // The elements: diagonal (n, n, n) and the off-diagonal ones (n, m, l), 0-based.
    struct Want { int n, m, l; bool diagonal; };
    std::vector<Want> wants;
    for (int b = s.band_min - 1; b < s.band_max; ++b) wants.push_back({b, b, b, true});
    for (const SigmaOffDiagonal& o : s.offdiagonal) wants.push_back({o.n - 1, o.m - 1, o.l - 1, false});
    std::vector<int> sbands;
    for (const Want& x : wants) sbands.push_back(x.n), sbands.push_back(x.m);
    std::sort(sbands.begin(), sbands.end());
    sbands.erase(std::unique(sbands.begin(), sbands.end()), sbands.end());
    std::vector<int> slot(static_cast<std::size_t>(w.bands), -1);
    for (std::size_t i = 0; i < sbands.size(); ++i) slot[static_cast<std::size_t>(sbands[i])] = static_cast<int>(i);
    std::vector<Sums> sums(wants.size());
    const int n1max = std::max(nbands, occ);
    // M[slot][n1][box], reused per q.
    std::vector<std::vector<cplx>> mel(sbands.size() * static_cast<std::size_t>(n1max), std::vector<cplx>(box.size()));

    // The exact static CH needs <n k| e^{i G.r} |m k> at the same k.
    std::vector<std::vector<cplx>> same(wants.size(), std::vector<cplx>(box.size()));
    if (s.exact_static_ch && s.model != SigmaModel::HartreeFock)
      for (std::size_t i = 0; i < wants.size(); ++i) pair_elements(w, ks, wants[i].n, ks, wants[i].m, {0, 0, 0}, box, same[i]);

    // With the symmetric q-grid: for each grid q (as a point of the inner grid, in its order) the map S
    // (an inverse rotation of the little group of k) that takes it to its star's first point.
    std::vector<IntMatrix3> qmap(nk);
    for (auto& r : qmap) r = IntMatrix3{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
    if (s.symmetric_q_grid) {
      std::vector<IntMatrix3> little;
      for (const IntMatrix3& r : rotations) {
        GVector d{};
        if (integer_difference(transpose_apply(r, w.kpoints[ks]), w.kpoints[ks], d)) little.push_back(r);
      }
      // The q order: the grid's, each listed point moved to the head of its star's block.
      std::vector<std::size_t> order;
      for (std::size_t j = 0; j < nk; ++j) order.push_back(j);
      for (const Vec3d& listed : s.listed_kpoints)
        for (std::size_t j = 0; j < nk; ++j) {
          GVector d{};
          if (!integer_difference(listed, w.kpoints[j], d)) continue;
          // The first grid point of the same full star before j.
          std::size_t head = 0;
          bool found = false;
          for (std::size_t i = 0; i < order.size() && !found; ++i)
            for (const IntMatrix3& r : rotations)
              if (integer_difference(transpose_apply(r, w.kpoints[j]), w.kpoints[order[i]], d)) {
                head = i, found = true;
                break;
              }
          const auto at = std::find(order.begin(), order.end(), j) - order.begin();
          if (found && static_cast<std::size_t>(at) > head) {
            order.erase(order.begin() + at);
            order.insert(order.begin() + static_cast<long>(head), j);
          }
        }
      std::vector<std::size_t> reps;
      for (std::size_t j : order) {
        bool found = false;
        for (std::size_t rep : reps) {
          for (const IntMatrix3& r : little) {
            GVector d{};
            if (integer_difference(transpose_apply(r, w.kpoints[rep]), w.kpoints[j], d)) {
              // S = (R^T)^-1 = (R^-1)^T: the group element whose product with R is the identity.
              for (const IntMatrix3& inv : rotations) {
                IntMatrix3 prod{};
                for (int a = 0; a < 3; ++a)
                  for (int b = 0; b < 3; ++b)
                    for (int c = 0; c < 3; ++c) prod[a][b] += inv[a][c] * r[c][b];
                if (prod == IntMatrix3{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}) qmap[j] = inv;
              }
              found = true;
              break;
            }
          }
          if (found) break;
        }
        if (!found) reps.push_back(j);
      }
    }

    for (std::size_t kj = 0; kj < nk; ++kj) {
      const Vec3d q{w.kpoints[ks][0] - w.kpoints[kj][0], w.kpoints[ks][1] - w.kpoints[kj][1], w.kpoints[ks][2] - w.kpoints[kj][2]};
      GVector g0{};
      const bool q_zero = integer_difference(q, {0, 0, 0}, g0);
      Vec3d qe{};  // the q of v(q+G) and of eps^-1: 0 for q -> 0
      const EpsilonOfQ* eps = nullptr;
      if (screening) {
        const std::vector<EpsilonOfQ>* lists[] = {&screening->q, &unfolded};  // the file's own matrices first
        for (const std::vector<EpsilonOfQ>* list : lists)
          for (const EpsilonOfQ& e : *list) {
            GVector d{};
            if (!eps && (q_zero ? e.q0 : (!e.q0 && integer_difference(q, e.q, d)))) {
              eps = &e;
              if (!q_zero) g0 = d, qe = e.q;
            }
          }
        if (!eps && s.model != SigmaModel::HartreeFock)
          throw Error("sigma: the dielectric matrices lack q = (" + std::to_string(q[0]) + ", " + std::to_string(q[1]) + ", " +
                      std::to_string(q[2]) + ") of the grid" + (q_zero ? ": compute eps^-1 at the q -> 0 point" : ""));
      }
      if (!eps && !q_zero) {
        qe = {q[0] - std::floor(q[0] + 0.5 - 1e-9), q[1] - std::floor(q[1] + 0.5 - 1e-9), q[2] - std::floor(q[2] + 0.5 - 1e-9)};
        integer_difference(q, qe, g0);
      }
      for (std::size_t i = 0; i < sbands.size(); ++i)
        for (int n1 = 0; n1 < n1max; ++n1)
          pair_elements(w, ks, sbands[i], kj, n1, g0, box, mel[i * static_cast<std::size_t>(n1max) + static_cast<std::size_t>(n1)]);
      auto M = [&](int band, int n1) -> const std::vector<cplx>& {
        return mel[static_cast<std::size_t>(slot[static_cast<std::size_t>(band)]) * static_cast<std::size_t>(n1max) +
                   static_cast<std::size_t>(n1)];
      };
      // The grid point that q is (modulo G), for the symmetric q-grid's map.
      std::size_t qj = 0;
      for (std::size_t j = 0; j < nk; ++j) {
        GVector d{};
        if (integer_difference(q, w.kpoints[j], d)) qj = j;
      }
      auto mapped = [&](const Vec3d& p) { return transpose_apply(qmap[qj], p); };
      auto coulomb = [&](const GVector& g) {
        const Vec3d p = mapped(plus(qe, g));
        return norm2(metric, p) < kTolZero ? out.coulomb_head : minizone.average(p);
      };
      // Bare exchange over the sphere |q+G|^2 < bare cutoff.
      std::vector<std::pair<long, double>> xs;
      for (const GVector& g : w.gvectors)
        if (norm2(metric, plus(qe, g)) <= bare_cut) xs.push_back({box.index(g), coulomb(g)});
      for (std::size_t i = 0; i < wants.size(); ++i)
        for (int v = 0; v < occ; ++v) {
          const auto &a = M(wants[i].n, v), &b = M(wants[i].m, v);
          cplx t{};
          for (const auto& [at, vc] : xs) t += a[static_cast<std::size_t>(at)] * std::conj(b[static_cast<std::size_t>(at)]) * vc;
          sums[i].x -= t * factor;
        }
      if (s.model == SigmaModel::HartreeFock) continue;

      // Screening: I = delta - eps^-1 (wings zero at q -> 0), v(G'), and the plasmon-pole modes.
      const std::size_t ng = eps->size();
      std::vector<long> at(ng);
      std::vector<double> vc(ng);
      for (std::size_t g = 0; g < ng; ++g) at[g] = box.index(eps->gvectors[g]), vc[g] = coulomb(eps->gvectors[g]);
      std::vector<double> ieps(ng * ng, 0.0), wt(ng * ng, 0.0);  // column-major (G, G')
      std::vector<double> epsm1(ng * ng);
      // At q -> 0 with BerkeleyGW's operation list: eps^-1 rotated by its last operation (sigma_q_map.hpp).
      RotatedIndex rot;
      if (eps->q0) {
        rot = rotated_index(q_map.back(), crystal_ops, eps->gvectors);
      } else {
        rot.from.resize(ng), rot.phase.assign(ng, 1.0);
        for (std::size_t g = 0; g < ng; ++g) rot.from[g] = g;
      }
      for (std::size_t gp = 0; gp < ng; ++gp)
        for (std::size_t g = 0; g < ng; ++g) {
          double e = rot.phase[g] * rot.phase[gp] * eps->at(eps->epsilon_inverse, rot.from[g], rot.from[gp]).real();
          if (eps->q0 && (g == 0) != (gp == 0)) e = 0;
          epsm1[g + gp * ng] = e;
        }
      const bool qnz = norm2(metric, qe) > 1e-12;
      // The wings of eps^-1 at q != 0 rescaled as BerkeleyGW does for W averaged over the mini zone:
      // eps^-1(0, G') by |q| <8 pi/|q|>/(8 pi), eps^-1(G, 0) by <8 pi/|q|> / (v_1 |q|), v_1 being the
      // (averaged) Coulomb element of the first sorted G-vector.
      if (qnz) {
        // BerkeleyGW's image of q in [0, 1), the head's image and v_1 (sigma_q_map.hpp).
        const Vec3d r = reduced_qpoint(mapped(qe));
        const Vec3d head = head_image(q_map, dielectric_qpoints, metric, r, mapped(qe));
        std::size_t i0 = ng;
        for (std::size_t g = 0; g < ng; ++g) {
          GVector d{};
          if (integer_difference(mapped(plus(qe, eps->gvectors[g])), head, d) && d == GVector{0, 0, 0}) i0 = g;
        }
        if (i0 < ng) {
          const double qlen = std::sqrt(norm2(metric, qe));
          const double oneoverq = minizone.average_inverse_length(r);
          const double v1 = minizone.average(first_sorted(metric, r));
          for (std::size_t gp = 0; gp < ng; ++gp)
            if (gp != i0) epsm1[i0 + gp * ng] *= oneoverq * qlen / (8 * kPi);
          for (std::size_t g = 0; g < ng; ++g)
            if (g != i0) epsm1[g + i0 * ng] *= oneoverq / (v1 * qlen);
        }
      }
      for (std::size_t gp = 0; gp < ng; ++gp)
        for (std::size_t g = 0; g < ng; ++g) {
          const double I = (g == gp ? 1.0 : 0.0) - epsm1[g + gp * ng];
          if (s.model == SigmaModel::Cohsex) { ieps[g + gp * ng] = -I; continue; }
          if (std::abs(I) < kTolSmall) continue;
          ieps[g + gp * ng] = I;
          const GVector& G = eps->gvectors[g];
          const GVector& Gp = eps->gvectors[gp];
          const long d = box.index({G[0] - Gp[0], G[1] - Gp[1], G[2] - Gp[2]});
          const long ri = d < 0 ? -1 : rho_index[static_cast<std::size_t>(d)];
          double omega2 = 0;
          if (ri >= 0) {
            const double r = rho[static_cast<std::size_t>(ri)];
            const bool g_zero = G == GVector{0, 0, 0};
            if (!g_zero || qnz) {
              const Vec3d qg = plus(qe, G), qgp = plus(qe, Gp);
              omega2 = out.plasma_frequency2 / nelec * r * dot(metric, qgp, qg) * vc[g] / (8 * kPi);  // v averaged, as BerkeleyGW
            } else if (Gp == GVector{0, 0, 0}) {
              omega2 = out.plasma_frequency2 / nelec * r;
            }
          }
          omega2 *= ry * ry;  // eV^2: BerkeleyGW's thresholds below are in eV
          if (std::abs(omega2) < kTolSmall) continue;
          const double w2 = omega2 / I;
          if (std::abs(w2) < kTolSmall) continue;
          double wtilde;
          if (w2 < 0) {
            switch (s.invalid_gpp_mode) {
              case 0: wtilde = 0; break;
              case 2: wtilde = 2.0 * ry; break;
              case 1: throw Error("sigma: invalid_gpp_mode 1 (imaginary mode frequencies) needs complex arithmetic: not provided");
              default: wtilde = 1.0 / kTolZero;
            }
          } else {
            wtilde = std::sqrt(w2);
          }
          wt[g + gp * ng] = wtilde;
        }

      d_ieps.assign(ieps);
      if (s.model == SigmaModel::Gpp) d_wt.assign(wt), d_vc.assign(vc);
      for (std::size_t i = 0; i < wants.size(); ++i) {
        const Want& x = wants[i];
        Sums& sm = sums[i];
        // The exact static CH: 1/2 sum_{G G'} <n|e^{i(G-G')r}|m> (eps^-1 - delta)_{GG'} v(G').
        if (s.exact_static_ch) {
          cplx t{};
          for (std::size_t gp = 0; gp < ng; ++gp) {
            cplx col{};
            for (std::size_t g = 0; g < ng; ++g) {
              const double e = epsm1[g + gp * ng] - (g == gp ? 1.0 : 0.0);
              if (std::abs(e) < kTolSmall) continue;
              const GVector& G = eps->gvectors[g];
              const GVector& Gp = eps->gvectors[gp];
              const long d = box.index({G[0] - Gp[0], G[1] - Gp[1], G[2] - Gp[2]});
              if (d < 0) continue;
              // BerkeleyGW keeps G - G' within the sphere of the first q-point (q -> 0) of radius
              // max(bare, screened cutoff).
              const GVector dg{G[0] - Gp[0], G[1] - Gp[1], G[2] - Gp[2]};
              if (norm2(metric, {double(dg[0]), double(dg[1]), double(dg[2])}) > ch_cut) continue;
              col += same[i][static_cast<std::size_t>(d)] * e;
            }
            t += col * vc[gp] * 0.5;
          }
          sm.ch_exact += t * factor;
        }
        const double el = w.energy(0, ks, x.l) * ry;
        // M_n and M_m at eps^-1's G-vectors per band n1.
        std::vector<cplx> ma(static_cast<std::size_t>(nbands) * ng), mb(ma.size());
        for (int n1 = 0; n1 < nbands; ++n1) {
          const auto &a = M(x.n, n1), &b = M(x.m, n1);
          for (std::size_t g = 0; g < ng; ++g) {
            ma[static_cast<std::size_t>(n1) * ng + g] = a[static_cast<std::size_t>(at[g])];
            mb[static_cast<std::size_t>(n1) * ng + g] = b[static_cast<std::size_t>(at[g])];
          }
        }
        // sum M_n W M_m^* v per band: COHSEX's sums (W = -I = eps^-1 - delta), or the plasmon-pole
        // model's static CH per band (W = I), for its remainder.
        const std::vector<cplx> per_band = band_sums(context, static_cast<int>(ng), nbands, d_ieps, ma, mb, vc);
        if (s.model == SigmaModel::Cohsex) {
          for (int n1 = 0; n1 < nbands; ++n1) {
            const cplx t = per_band[static_cast<std::size_t>(n1)];
            const cplx sx = n1 < occ ? -t : cplx{}, ch = 0.5 * t;
            sm.sx[0] += sx * factor, sm.sx[1] += sx * factor;
            if (!s.exact_static_ch) sm.ch[0] += ch * factor, sm.ch[1] += ch * factor;
          }
          continue;
        }
        for (int n1 = 0; n1 < nbands; ++n1) sm.ch_static_bands += -0.5 * per_band[static_cast<std::size_t>(n1)] * factor;
        // GPP: the energies E - E_n1 (eV).
        const int iws = x.diagonal ? 2 : 1;
        std::vector<double> wx(static_cast<std::size_t>(nbands * iws));
        for (int n1 = 0; n1 < nbands; ++n1)
          for (int iw = 0; iw < iws; ++iw) {
            double e = el + dw * iw - w.energy(0, kj, n1) * ry;
            if (std::abs(e) < kTolZero) e = kTolZero;
            wx[static_cast<std::size_t>(n1 * iws + iw)] = e;
          }
        d_ma.assign(ma);
        d_mb.assign(mb);
        d_wx.assign(wx);
        GppSizes sizes;
        sizes.gvectors = static_cast<int>(ng);
        sizes.bands = nbands;
        sizes.energies = iws;
        sizes.filled = occ;
        sizes.gamma2 = gamma2;
        sizes.sexcut = s.sexcut;
        gpp_sums(context, sizes, d_ieps, d_wt, d_vc, d_ma, d_mb, d_wx, d_sx, d_ch);
        const std::vector<cplx> sx = d_sx.to_vector(), ch = d_ch.to_vector();
        for (int n1 = 0; n1 < nbands; ++n1)
          for (int iw = 0; iw < iws; ++iw) {
            sm.sx[iw] += sx[static_cast<std::size_t>(n1 * iws + iw)] * factor;
            sm.ch[iw] += ch[static_cast<std::size_t>(n1 * iws + iw)] * factor;
          }
      }
      if (progress)
        progress("k-point " + std::to_string(ik + 1) + " of " + std::to_string(s.kpoints.size()) + ": q-point " +
                 std::to_string(kj + 1) + " of " + std::to_string(nk));
    }

    // Degenerate diagonal bands: average every sum over each set (1e-6 Ry).
    SigmaOfK res;
    res.k = s.kpoints[ik];
    std::size_t first = 0;
    const std::size_t ndiag = static_cast<std::size_t>(s.band_max - s.band_min + 1);
    while (first < ndiag) {
      std::size_t last = first + 1;
      while (last < ndiag && std::abs(w.energy(0, ks, wants[last].n) - w.energy(0, ks, wants[first].n)) < kTolDegeneracy) ++last;
      Sums avg{};
      for (std::size_t i = first; i < last; ++i) {
        avg.x += sums[i].x, avg.ch_exact += sums[i].ch_exact, avg.ch_static_bands += sums[i].ch_static_bands;
        for (int iw = 0; iw < 2; ++iw) avg.sx[iw] += sums[i].sx[iw], avg.ch[iw] += sums[i].ch[iw];
      }
      const double inv = 1.0 / static_cast<double>(last - first);
      for (std::size_t i = first; i < last; ++i) {
        sums[i].x = avg.x * inv, sums[i].ch_exact = avg.ch_exact * inv, sums[i].ch_static_bands = avg.ch_static_bands * inv;
        for (int iw = 0; iw < 2; ++iw) sums[i].sx[iw] = avg.sx[iw] * inv, sums[i].ch[iw] = avg.ch[iw] * inv;
      }
      first = last;
    }
    // The size of each band's degenerate set at this k (1e-6 Ry), for the off-diagonal rule.
    auto degeneracy = [&](int band) {
      int n = 0;
      for (int b = 0; b < w.bands; ++b) n += std::abs(w.energy(0, ks, b) - w.energy(0, ks, band)) < kTolDegeneracy;
      return n;
    };
    for (std::size_t i = 0; i < wants.size(); ++i) {
      const Want& x = wants[i];
      if (!x.diagonal && s.offdiagonal_symmetry && degeneracy(x.n) != degeneracy(x.m)) sums[i] = Sums{};
      const Sums& sm = sums[i];
      SigmaElement e;
      e.n = x.n + 1, e.m = x.m + 1, e.l = x.l + 1;
      e.emf = w.energy(0, ks, x.l) * ry;
      e.x = sm.x.real() * ry;
      double remainder = 0;
      if (s.model == SigmaModel::Gpp && s.exact_static_ch) remainder = 0.5 * (sm.ch_exact.real() - sm.ch_static_bands.real());
      const double ch0 = (s.model == SigmaModel::Cohsex && s.exact_static_ch) ? sm.ch_exact.real() : sm.ch[0].real();
      e.sx = s.model == SigmaModel::HartreeFock ? 0 : sm.sx[0].real() * ry;
      e.ch_partial = s.model == SigmaModel::HartreeFock ? 0 : ch0 * ry;
      e.ch = e.ch_partial + remainder * ry;
      e.sig = e.x + e.sx + e.ch;
      e.sig_partial = e.x + e.sx + e.ch_partial;
      e.vxc = 0;
      e.eqp0 = e.emf + e.sig - e.vxc;
      e.eqp0_partial = e.emf + e.sig_partial - e.vxc;
      double slope = 0;
      if (x.diagonal && s.model == SigmaModel::Gpp)
        slope = ry * ((sm.sx[1].real() + sm.ch[1].real()) - (sm.sx[0].real() + sm.ch[0].real())) / dw;
      e.znk = 1.0 / (1.0 - slope);
      e.eqp1 = e.eqp0 + slope * (e.eqp0 - e.emf) / (1.0 - slope);
      e.eqp1_partial = e.eqp0_partial + slope * (e.eqp0_partial - e.emf) / (1.0 - slope);
      (x.diagonal ? res.diagonal : res.offdiagonal).push_back(e);
    }
    out.k.push_back(std::move(res));
  }
  return out;
}

}  // namespace quasar::gw
