// Epsilon per q-point: the G-vectors, the matrix elements of every (k, v, c) by batched FFTs, chi0 as
// one matrix product per k-point, epsilon and its inverse. The same code runs on either backend: the
// FFTs, GEMM and the inversion through the device wrappers, the element-wise steps through
// pair_kernels.
#include "quasar/gw/epsilon.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <numbers>

#include "quasar/core/error.hpp"
#include "quasar/device/fft.hpp"
#include "quasar/device/linalg.hpp"
#include "quasar/gw/mean_field.hpp"
#include "quasar/gw/pair_kernels.hpp"

namespace quasar::gw {

namespace {

constexpr double kSortTolerance = 1e-12;    // BerkeleyGW's TOL_Zero in its G-vector sort
constexpr double kDegeneracy = 1e-6;        // Ry: states this close are one degenerate level
constexpr std::size_t kProductBytes = std::size_t{1} << 29;  // the pair grids of one batch



double volume(const Wavefunctions& w) {
  const auto& a = w.lattice;
  return std::abs(a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
                  a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]));
}

// The number of filled bands, the same at every k-point; metals (fractional occupations) are refused.
int filled_bands(const Wavefunctions& w, const char* name) {
  int filled = -1;
  for (std::size_t k = 0; k < w.kpoint_count(); ++k) {
    int n = 0;
    for (int b = 0; b < w.bands; ++b) {
      const double f = w.occupations[k * static_cast<std::size_t>(w.bands) + static_cast<std::size_t>(b)];
      if (f != 0 && f != 1) throw Error(std::string(name) + ": fractional occupations (a metal): Epsilon handles insulators only");
      if (f == 1 && n != b) throw Error(std::string(name) + ": the filled bands are not the lowest ones");
      n += f == 1;
    }
    if (filled >= 0 && n != filled) throw Error(std::string(name) + ": the number of filled bands differs between k-points");
    filled = n;
  }
  return filled;
}

// The k-point of `w` equal to k up to a reciprocal-lattice vector: k = w.kpoints[i] + shift.
struct Found {
  std::size_t index = 0;
  GVector shift{};
};
Found find_kpoint(const Wavefunctions& w, const Vec3d& k, const char* name) {
  for (std::size_t i = 0; i < w.kpoint_count(); ++i) {
    GVector shift{};
    bool same = true;
    for (int d = 0; d < 3; ++d) {
      const double diff = k[d] - w.kpoints[i][d];
      shift[d] = static_cast<int>(std::lround(diff));
      same = same && std::abs(diff - shift[d]) < 1e-6;
    }
    if (same) return {i, shift};
  }
  char text[160];
  std::snprintf(text, sizeof text, "%s has no k-point at (%.6f, %.6f, %.6f): it must hold every point of the grid", name,
                k[0], k[1], k[2]);
  throw Error(text);
}

// Bands [first, first + count) of k-point k as complex coefficients, band after band.
std::vector<Complex> coefficients(const Wavefunctions& w, std::size_t k, int first, int count) {
  const std::size_t n = static_cast<std::size_t>(w.gvector_counts[k]);
  std::vector<Complex> out(n * static_cast<std::size_t>(count));
  for (int b = 0; b < count; ++b) {
    const std::size_t at = w.coefficient_offset(0, k, first + b);
    for (std::size_t g = 0; g < n; ++g)
      out[static_cast<std::size_t>(b) * n + g] = w.real ? Complex(w.real_coefficients[at + g]) : w.complex_coefficients[at + g];
  }
  return out;
}

int smooth_size(int n) {
  auto smooth = [](int m) {
    for (int p : {2, 3, 5})
      while (m % p == 0) m /= p;
    return m == 1;
  };
  while (!smooth(n)) ++n;
  return n;
}

int grid_index(const GVector& g, const std::array<int, 3>& n) {
  int at = 0;
  for (int d = 0; d < 3; ++d) at = at * n[d] + ((g[d] % n[d]) + n[d]) % n[d];
  return at;
}

}  // namespace

std::vector<GVector> epsilon_gvectors(const Wavefunctions& wfn, const Vec3d& q, bool q0, double cutoff_ry) {
  const Matrix3 m = reciprocal_metric(wfn);
  std::vector<std::pair<double, GVector>> all;
  for (const GVector& g : wfn.gvectors) {
    const Vec3d qg{(q0 ? 0 : q[0]) + g[0], (q0 ? 0 : q[1]) + g[1], (q0 ? 0 : q[2]) + g[2]};
    all.push_back({norm2(m, qg), g});
  }
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
    if (std::abs(a.first - b.first) > kSortTolerance) return a.first < b.first;
    return a.second < b.second;
  });
  std::vector<GVector> out;
  for (const auto& [e, g] : all)
    if (e < cutoff_ry) out.push_back(g);
  return out;
}

namespace {

// One k-point of the sum: the conduction states at WFN's point k, the valence states at k + q, which
// is `source`'s point kq plus the umklapp vector (its G-vectors G' become G' - umklapp).
struct KPair {
  std::size_t k = 0, kq = 0;
  GVector umklapp{};
};

std::vector<KPair> kpairs(const Wavefunctions& wfn, const Wavefunctions& source, const Vec3d& q, const char* name) {
  std::vector<KPair> out;
  for (std::size_t k = 0; k < wfn.kpoint_count(); ++k) {
    const Found f = find_kpoint(source, {wfn.kpoints[k][0] + q[0], wfn.kpoints[k][1] + q[1], wfn.kpoints[k][2] + q[2]}, name);
    out.push_back({k, f.index, f.shift});
  }
  return out;
}

// The smallest 2^a 3^b 5^c grid on which no product of a valence and a conduction state aliases onto
// a kept G: with D = G_v - G_c spanning [dmin, dmax] over every pair and the kept G [gmin, gmax],
// n > max(dmax - gmin, gmax - dmin) per direction.
std::array<int, 3> alias_free_grid(const Wavefunctions& wfn, const Wavefunctions& source, const std::vector<KPair>& pairs,
                                   const std::vector<GVector>& gvectors) {
  constexpr int kBig = 1 << 30;
  std::array<int, 3> dmin{}, dmax{}, gmin{}, gmax{}, grid{};
  dmin.fill(kBig), dmax.fill(-kBig), gmin.fill(kBig), gmax.fill(-kBig);
  for (const GVector& g : gvectors)
    for (int d = 0; d < 3; ++d) gmin[d] = std::min(gmin[d], g[d]), gmax[d] = std::max(gmax[d], g[d]);
  for (const KPair& p : pairs) {
    std::array<int, 3> vlo{}, vhi{}, clo{}, chi{};
    vlo.fill(kBig), vhi.fill(-kBig), clo.fill(kBig), chi.fill(-kBig);
    for (std::size_t g = 0; g < static_cast<std::size_t>(source.gvector_counts[p.kq]); ++g)
      for (int d = 0; d < 3; ++d) {
        const int x = source.kgvectors[source.kgvector_offset(p.kq) + g][d] - p.umklapp[d];
        vlo[d] = std::min(vlo[d], x), vhi[d] = std::max(vhi[d], x);
      }
    for (std::size_t g = 0; g < static_cast<std::size_t>(wfn.gvector_counts[p.k]); ++g)
      for (int d = 0; d < 3; ++d) {
        const int x = wfn.kgvectors[wfn.kgvector_offset(p.k) + g][d];
        clo[d] = std::min(clo[d], x), chi[d] = std::max(chi[d], x);
      }
    for (int d = 0; d < 3; ++d) dmin[d] = std::min(dmin[d], vlo[d] - chi[d]), dmax[d] = std::max(dmax[d], vhi[d] - clo[d]);
  }
  for (int d = 0; d < 3; ++d) grid[d] = smooth_size(std::max(dmax[d] - gmin[d], gmax[d] - dmin[d]) + 1);
  return grid;
}

// chi0 of one q-point, accumulated k-point by k-point on the context's backend.
class ChiSum {
 public:
  ChiSum(device::Context& ctx, const EpsilonOfQ& e, int valence, int conduction, double factor)
      : ctx_(ctx), n_(e.fft_grid), points_(static_cast<std::size_t>(n_[0]) * n_[1] * n_[2]), nv_(valence),
        nc_(conduction), ng_(static_cast<int>(e.size())), factor_(factor),
        states_plan_(ctx, {n_[0], n_[1], n_[2]}, valence + conduction), states_(ctx.backend()),
        products_(ctx.backend()), b_(ctx.backend()), chi_(ctx.backend(), static_cast<std::size_t>(ng_) * ng_),
        coefficients_(ctx.backend()), index_(ctx.backend()), gindex_(ctx.backend()), scale_(ctx.backend()),
        head_(static_cast<std::size_t>(conduction)), gmax_(static_cast<std::size_t>(conduction)) {
    std::vector<int> gi;
    for (const GVector& g : e.gvectors) gi.push_back(grid_index(g, n_));
    gindex_.assign(gi);
    // Valence bands per batch of pair products, so that a batch's grids stay within kProductBytes.
    vbatch_ = static_cast<int>(std::clamp<std::size_t>(kProductBytes / (points_ * sizeof(Complex) * static_cast<std::size_t>(nc_)),
                                                       1, static_cast<std::size_t>(nv_)));
  }

  void add(const Wavefunctions& wfn, const Wavefunctions& source, const KPair& p) {
    // The periodic parts u(r) of the valence (grids 0..nv-1) and conduction states (nv..) by one
    // batched inverse FFT; each conduction grid then serves every valence band.
    states_.resize((static_cast<std::size_t>(nv_) + nc_) * points_);
    states_.set_zero();
    scatter(source, p.kq, 0, nv_, p.umklapp, 0);
    scatter(wfn, p.k, nv_, nc_, {0, 0, 0}, nv_);
    states_plan_.backward(states_, states_);
    for (int v0 = 0; v0 < nv_; v0 += vbatch_) {
      const int vn = std::min(vbatch_, nv_ - v0), np = vn * nc_;
      std::vector<double> s(static_cast<std::size_t>(np));
      for (int v = 0; v < vn; ++v)
        for (int c = 0; c < nc_; ++c) {
          const double gap = wfn.energy(0, p.k, nv_ + c) - source.energy(0, p.kq, v0 + v);
          if (!(gap > 0))
            throw Error("a conduction state lies below a valence state (k-point " + std::to_string(p.k + 1) +
                        "): Epsilon handles insulators only");
          // 1/N: the forward FFT is not normalised.
          s[static_cast<std::size_t>(v * nc_ + c)] = std::sqrt(factor_ / gap) / static_cast<double>(points_);
        }
      scale_.assign(s);
      products_.resize(static_cast<std::size_t>(np) * points_);
      pair_products(ctx_, vn, v0, nc_, nv_, points_, states_, products_);
      auto& plan = pair_plans_[np];
      if (!plan) plan = std::make_unique<device::FftPlan>(ctx_, std::vector<int>{n_[0], n_[1], n_[2]}, np);
      plan->forward(products_, products_);
      b_.resize(static_cast<std::size_t>(np) * ng_);
      gather_pairs(ctx_, np, ng_, points_, products_, gindex_, scale_, b_);
      // chi0 -= B^H B: B holds the scaled conjugate matrix elements, one row per pair.
      device::gemm<Complex>(ctx_, device::Op::Adjoint, device::Op::None, ng_, ng_, np, Complex(-1), b_, b_, Complex(1), chi_);
      // The band convergence of chi0(0, 0) and chi0(Gmax, Gmax): B's first and last columns.
      std::vector<Complex> first(static_cast<std::size_t>(np)), last(static_cast<std::size_t>(np));
      b_.download(first.data(), first.size(), 0);
      b_.download(last.data(), last.size(), static_cast<std::size_t>(np) * static_cast<std::size_t>(ng_ - 1));
      for (int q = 0; q < np; ++q) {
        head_[static_cast<std::size_t>(q % nc_)] -= std::norm(first[static_cast<std::size_t>(q)]);
        gmax_[static_cast<std::size_t>(q % nc_)] -= std::norm(last[static_cast<std::size_t>(q)]);
      }
    }
  }

  // chi0 and its head and Gmax element summed over the first 1, 2, ... conduction bands.
  void finish(EpsilonOfQ& e) {
    for (std::size_t c = 1; c < head_.size(); ++c) head_[c] += head_[c - 1], gmax_[c] += gmax_[c - 1];
    e.chi_head_by_bands = head_;
    e.chi_gmax_by_bands = gmax_;
    e.chi = chi_.to_vector();
  }

 private:
  // Bands [first, first + count) of k-point k of w, placed at G - shift on the grids from `at` on.
  void scatter(const Wavefunctions& w, std::size_t k, int first, int count, const GVector& shift, int at) {
    std::vector<int> where;
    const std::size_t n = static_cast<std::size_t>(w.gvector_counts[k]);
    for (std::size_t g = 0; g < n; ++g) {
      GVector x = w.kgvectors[w.kgvector_offset(k) + g];
      for (int d = 0; d < 3; ++d) x[d] -= shift[d];
      where.push_back(grid_index(x, n_));
    }
    index_.assign(where);
    coefficients_.assign(coefficients(w, k, first, count));
    scatter_coefficients(ctx_, count, static_cast<int>(n), coefficients_, index_, points_, at, states_);
  }

  device::Context& ctx_;
  std::array<int, 3> n_;
  std::size_t points_;
  int nv_, nc_, ng_, vbatch_ = 1;
  double factor_;
  device::FftPlan states_plan_;
  std::map<int, std::unique_ptr<device::FftPlan>> pair_plans_;
  Array<Complex> states_, products_, b_, chi_, coefficients_;
  Array<int> index_, gindex_;
  Array<double> scale_;
  std::vector<double> head_, gmax_;
};

// epsilon = 1 - v(q+G) chi0 (v by row, not symmetrised, as BerkeleyGW), its inverse by LU on the
// context's backend, and chi0's departure from Hermiticity.
void invert_epsilon(device::Context& ctx, EpsilonOfQ& e) {
  const std::size_t n = e.size();
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j)
      e.hermiticity_error = std::max(e.hermiticity_error, std::abs(e.chi[i + j * n] - std::conj(e.chi[j + i * n])));
  e.epsilon.resize(n * n);
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t i = 0; i < n; ++i) e.epsilon[i + j * n] = (i == j ? 1.0 : 0.0) - e.coulomb[i] * e.chi[i + j * n];
  Array<Complex> inverse(ctx.backend());
  inverse.assign(e.epsilon);
  device::invert(ctx, static_cast<int>(n), inverse);
  e.epsilon_inverse = inverse.to_vector();
}

}  // namespace

EpsilonResult compute_epsilon(const EpsilonInput& input, const Wavefunctions& wfn, const Wavefunctions* wfnq,
                              device::Context& ctx, const EpsilonProgress& progress) {
  auto say = [&](const std::string& s) {
    if (progress) progress(s);
  };
  if (wfn.spins != 1) throw Error("WFN: spin-polarised mean fields are not provided in Epsilon");
  // The sum gives every k-point the weight 1/N.
  if (const std::string p = unequal_weights(wfn); !p.empty()) throw Error("WFN: " + p);
  if (wfnq)
    if (const std::string p = unequal_weights(*wfnq); !p.empty()) throw Error("WFNq: " + p);
  EpsilonResult out;
  out.real = wfn.real;
  out.valence = filled_bands(wfn, "WFN");
  if (input.bands > wfn.bands)
    throw InputError(input.path, 0, "number_bands " + std::to_string(input.bands) + " exceeds the " +
                                        std::to_string(wfn.bands) + " bands of WFN");
  if (input.bands <= out.valence)
    throw InputError(input.path, 0, "number_bands " + std::to_string(input.bands) + " leaves no conduction band (" +
                                        std::to_string(out.valence) + " are filled)");
  out.conduction = input.bands - out.valence;
  out.kpoints = static_cast<int>(wfn.kpoint_count());
  out.volume = volume(wfn);
  if (input.bands < wfn.bands)
    for (std::size_t k = 0; k < wfn.kpoint_count(); ++k)
      if (std::abs(wfn.energy(0, k, input.bands) - wfn.energy(0, k, input.bands - 1)) < kDegeneracy)
        throw InputError(input.path, 0, "number_bands " + std::to_string(input.bands) +
                                            " splits degenerate states at k-point " + std::to_string(k + 1) + " of WFN");
  const Matrix3 m = reciprocal_metric(wfn);
  const double factor = 4 / (static_cast<double>(out.kpoints) * out.volume);

  for (std::size_t iq = 0; iq < input.qpoints.size(); ++iq) {
    const EpsilonQPoint& qp = input.qpoints[iq];
    const Wavefunctions* source = &wfn;
    if (qp.q0) {
      if (!wfnq) throw InputError(input.path, qp.line, "the q -> 0 point needs the shifted mean field WFNq");
      if (wfnq->spins != 1 || wfnq->real != wfn.real) throw Error("WFNq: its spins or flavour differ from WFN's");
      if (filled_bands(*wfnq, "WFNq") != out.valence) throw Error("WFNq: its number of filled bands differs from WFN's");
      source = wfnq;
    }
    EpsilonOfQ e;
    e.q = qp.q;
    e.q0 = qp.q0;
    e.gvectors = epsilon_gvectors(wfn, qp.q, qp.q0, input.cutoff_ry);
    if (e.gvectors.empty()) throw InputError(input.path, qp.line, "no G-vector has |q+G|^2 below epsilon_cutoff");
    for (const GVector& g : e.gvectors) {
      const double q2 = norm2(m, {qp.q[0] + g[0], qp.q[1] + g[1], qp.q[2] + g[2]});
      if (!(q2 > 0)) throw InputError(input.path, qp.line, "|q+G| = 0: q must not be a reciprocal-lattice vector");
      e.coulomb.push_back(8 * std::numbers::pi / q2);
    }
    const std::vector<KPair> pairs = kpairs(wfn, *source, qp.q, qp.q0 ? "WFNq" : "WFN");
    e.fft_grid = alias_free_grid(wfn, *source, pairs, e.gvectors);
    char head[200];
    std::snprintf(head, sizeof head, "q-pt %zu of %zu: q = (%.6f, %.6f, %.6f)%s, %zu G-vectors, FFT grid %d x %d x %d",
                  iq + 1, input.qpoints.size(), qp.q[0], qp.q[1], qp.q[2], qp.q0 ? " (q -> 0)" : "", e.size(),
                  e.fft_grid[0], e.fft_grid[1], e.fft_grid[2]);
    say(head);
    ChiSum sum(ctx, e, out.valence, out.conduction, factor);
    for (std::size_t ip = 0; ip < pairs.size(); ++ip) {
      sum.add(wfn, *source, pairs[ip]);
      say("  k-point " + std::to_string(ip + 1) + " of " + std::to_string(pairs.size()) + ": " +
          std::to_string(out.valence * out.conduction) + " pairs");
    }
    sum.finish(e);
    invert_epsilon(ctx, e);
    out.q.push_back(std::move(e));
  }
  return out;
}

}  // namespace quasar::gw
