// The interpolation's fast path: the weights of every replica as loops over the data points'
// columns (vectorised), the Taylor terms of the replicas kept with loops over the internal
// coordinates, and their Cartesian gradient.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "quasar/core/error.hpp"
#include "quasar/device/cpu_clones.hpp"
#include "quasar/device/parallel.hpp"
#include "quasar/potential/shepard/coordinates.hpp"
#include "quasar/potential/shepard/interpolant.hpp"
#include "quasar/potential/shepard/interpolant_parts.hpp"

namespace quasar::shepard {

Interpolant Interpolant::from(const DataSet& set) {
  if (std::string p = set.problem(); !p.empty()) throw Error("shepard data set: " + p);
  if (set.points.empty()) throw Error("shepard data set: it has no data points to interpolate");
  Interpolant f;
  f.atoms = set.atoms();
  f.pairs = set.pairs();
  f.internal = set.internal();
  f.group = static_cast<int>(set.permutations.size());
  f.data_points = static_cast<int>(set.points.size());
  f.points = f.data_points * f.group;
  f.stride = (f.data_points + kColumnBlock - 1) / kColumnBlock * kColumnBlock;
  f.parameters = set.parameters;
  const std::size_t nb = static_cast<std::size_t>(f.pairs), ni = static_cast<std::size_t>(f.internal),
                    nd = set.points.size(), ng = set.permutations.size(), ns = static_cast<std::size_t>(f.stride);
  f.pair_source.resize(ng * nb);
  for (std::size_t g = 0; g < ng; ++g) {
    const auto& perm = set.permutations[g];
    int l = 0;
    for (int a = 0; a < f.atoms; ++a)
      for (int b = a + 1; b < f.atoms; ++b, ++l)
        f.pair_source[g * nb + static_cast<std::size_t>(pair_index(perm[static_cast<std::size_t>(a)],
                                                                   perm[static_cast<std::size_t>(b)], f.atoms))] = l;
  }
  f.width = (static_cast<int>(std::max(nb, ni)) + kRowTile - 1) / kRowTile * kRowTile;
  const std::size_t w = static_cast<std::size_t>(f.width);
  f.point_z.assign(nd * w, 0.0);
  f.point_inv_d.assign(nd * w, 0.0);
  f.u.assign(nd * nb * w, 0.0);
  f.u_t.assign(nd * ni * w, 0.0);
  f.hessian.assign(nd * ni * w, 0.0);
  f.gradient.assign(nd * w, 0.0);
  f.energy.resize(nd);
  // Padding points: Z far beyond any configuration's, so that s overflows and their weight is 0.
  f.z_columns.assign(nb * ns, 1e300);
  f.inv_d_columns.assign(nb * ns, 1.0);
  for (std::size_t i = 0; i < nd; ++i) {
    const DataPoint& d = set.points[i];
    double* z = &f.point_z[i * w];
    inverse_distances(d.positions.data(), f.atoms, z);
    for (std::size_t m = 0; m < nb; ++m) {
      f.point_inv_d[i * w + m] = 1.0 / d.confidence[m];
      f.z_columns[m * ns + i] = z[m];
      f.inv_d_columns[m * ns + i] = f.point_inv_d[i * w + m];
    }
    for (std::size_t k = 0; k < ni; ++k) {
      for (std::size_t m = 0; m < nb; ++m) f.u[(i * nb + m) * w + k] = f.u_t[(i * ni + k) * w + m] = d.u[m * ni + k];
      for (std::size_t m = 0; m < ni; ++m) f.hessian[(i * ni + k) * w + m] = d.hessian[k * ni + m];
      f.gradient[i * w + k] = d.gradient[k];
    }
    f.energy[i] = d.energy;
  }
  return f;
}

void replica_z(const Interpolant& f, int r, double* z) {
  const std::size_t nb = static_cast<std::size_t>(f.pairs);
  const double* zi = &f.point_z[static_cast<std::size_t>(r / f.group) * static_cast<std::size_t>(f.width)];
  const int* source = &f.pair_source[static_cast<std::size_t>(r % f.group) * nb];
  for (std::size_t l = 0; l < nb; ++l) z[l] = zi[source[l]];
}

namespace {

constexpr int kTile = Interpolant::kRowTile;        // doubles of one AVX-512 vector
constexpr int kBlock = Interpolant::kColumnBlock;  // points summed together, kBlock / kTile tiles
// kTile doubles as one value (GCC's and Clang's vector extension, lowered to the clone's registers).
typedef double Tile __attribute__((vector_size(kTile * sizeof(double))));
typedef long Mask __attribute__((vector_size(kTile * sizeof(long))));

// The weight's forms: one-part, two-part, and two-part with Collins's p = 2, q = 12 written out
// (the products power() takes, in its order: s^12 = s^4 s^8).
enum WeightForm { kOnePart, kTwoPart, kTwoPart2And12 };

WeightForm form_of(const Parameters& p) {
  if (p.weight == WeightKind::OnePart) return kOnePart;
  return p.p == 2 && p.q == 12 ? kTwoPart2And12 : kTwoPart;
}

// u of every replica at Z: out[g stride + i] for replica (i, g), padding points included (u = inf),
// for the two-part weight and the one-part weight with p = 2 (the other forms: weight_denominator
// replica by replica); returns the smallest. A block of kBlock points at a time, its columns in the
// L1 cache while every group element reads them, each of its tiles summed in registers. near[t]
// says whether tile t (out[t kTile ...]) has a u within 2^54 n of the smallest so far (n: out's
// length): a tile without one holds ratios u_min / u below 2^-54 / n only (sum_of_ratios).
QUASAR_CPU_CLONES
double replica_denominators(const Interpolant& f, const double* __restrict z, const std::size_t* __restrict columns,
                            double* __restrict out, unsigned char* __restrict near) {
  constexpr int kTiles = kBlock / kTile;
  const int nb = f.pairs;
  const std::size_t stride = static_cast<std::size_t>(f.stride);
  const bool quartic = f.parameters.weight == WeightKind::OnePart, collins = form_of(f.parameters) == kTwoPart2And12;
  const double* __restrict zc = f.z_columns.data();
  const double* __restrict ic = f.inv_d_columns.data();
  const double far = 0x1p54 * static_cast<double>(stride) * static_cast<double>(f.group);
  Tile least;
  for (int k = 0; k < kTile; ++k) least[k] = std::numeric_limits<double>::infinity();
  for (std::size_t j = 0; j < stride; j += kBlock)
    for (int g = 0; g < f.group; ++g) {
      const std::size_t* column = columns + static_cast<std::size_t>(g) * static_cast<std::size_t>(nb);
      Tile s[kTiles] = {};
      // Each pair's differences t = (Z_l - Z_l(i)) / d_l, read from the point's column of that pair,
      // and s += t^2 (t^4 for the one-part weight), the loops written twice to keep the branch out.
#define QUASAR_SHEPARD_SUM(ADD)                                \
  for (int l = 0; l < nb; ++l) {                               \
    const double* __restrict zl = zc + column[l] + j;          \
    const double* __restrict il = ic + column[l] + j;          \
    for (int b = 0; b < kTiles; ++b) {                         \
      Tile zt, it;                                             \
      std::memcpy(&zt, zl + b * kTile, sizeof(Tile));          \
      std::memcpy(&it, il + b * kTile, sizeof(Tile));          \
      const Tile t = (z[l] - zt) * it;                         \
      ADD;                                                     \
    }                                                          \
  }
      if (quartic) {
        QUASAR_SHEPARD_SUM(const Tile t2 = t * t; s[b] += t2 * t2)
      } else {
        QUASAR_SHEPARD_SUM(s[b] += t * t)
      }
#undef QUASAR_SHEPARD_SUM
      for (int b = 0; b < kTiles; ++b) {
        Tile u = s[b];
        if (collins) {
          const Tile s2 = u * u, s4 = s2 * s2, s8 = s4 * s4;
          u = s2 + s4 * s8;
        }
        least = u < least ? u : least;
        const std::size_t at = static_cast<std::size_t>(g) * stride + j + static_cast<std::size_t>(b * kTile);
        std::memcpy(out + at, &u, sizeof(Tile));
        const Mask close = u <= least * far;
        long any = 0;
        for (int k = 0; k < kTile; ++k) any |= close[k];
        near[at / kTile] = any != 0;
      }
    }
  double m = least[0];
  for (int k = 1; k < kTile; ++k) m = std::min(m, least[k]);
  return m;
}

// Returns sum u_min / u over u[0, n) (n a multiple of kTile) and puts into `found` each q with
// u[q] wtol <= u_min (loosened by a rounding), which every replica kept satisfies (its relative
// weight is below u_min / u, the sum being at least 1); with wtol 0, every q with u < inf. The tiles
// that replica_denominators found far (every ratio below 2^-54 / n: together they change the sum by
// less than half a rounding, and hold no candidate) are left out, unread: most tiles of a large
// group, in the benchmark's sets.
QUASAR_CPU_CLONES
double sum_of_ratios(const double* __restrict u, const unsigned char* __restrict near, std::size_t n, double u_min,
                     double wtol, std::vector<int>& found) {
  const double bound = wtol > 0 ? u_min / wtol * (1 + 1e-12) : std::numeric_limits<double>::infinity();
  found.clear();
  Tile a = {};
  for (std::size_t j = 0; j < n; j += kTile) {
    if (!near[j / kTile]) continue;
    Tile x;
    std::memcpy(&x, u + j, sizeof(Tile));
    a += u_min / x;
    const Mask in = x < bound;
    long any = 0;
    for (int k = 0; k < kTile; ++k) any |= in[k];
    if (!any) continue;
    for (int k = 0; k < kTile; ++k)
      if (in[k]) found.push_back(static_cast<int>(j) + k);
  }
  double total = 0;
  for (int k = 0; k < kTile; ++k) total += a[k];
  return total;
}

// Rows of at most kMaxTiles tiles take the fast Taylor terms (molecules of up to 8 atoms); wider
// ones the reference's.
constexpr int kMaxTiles = 4;

// acc += sum over k < count of x[k] times row k (rows `step` apart, `tiles` tiles each).
#define QUASAR_SHEPARD_ROWS(acc, count, x, rows, step)                                \
  for (std::size_t k_ = 0; k_ < (count); ++k_) {                                     \
    const double xk_ = (x)[k_];                                                       \
    for (int b_ = 0; b_ < kMaxTiles; ++b_)                                            \
      if (b_ < tiles) {                                                               \
        Tile row_;                                                                    \
        std::memcpy(&row_, (rows) + k_ * (step) + static_cast<std::size_t>(b_ * kTile), \
                    sizeof(Tile));                                                    \
        (acc)[b_] += xk_ * row_;                                                      \
      }                                                                               \
  }

// Step 3 (interpolate_reference's equations) with every replica's differences in its data point's
// pair order, against Z permuted by each group element (once per call), so that each product with
// U or H is a sum of the point's rows, in registers, and dV/dZ is summed per group element in that
// order before it goes back to the configuration's. Rows of at most kMaxTiles tiles.
QUASAR_CPU_CLONES
double taylor_sum(const Interpolant& f, const double* x, std::span<const int> set, double* grad, Workspace& ws) {
  const std::size_t nb = static_cast<std::size_t>(f.pairs), ni = static_cast<std::size_t>(f.internal),
                    w = static_cast<std::size_t>(f.width), ng = static_cast<std::size_t>(f.group), ns = set.size();
  const int tiles = f.width / kTile;
  const Parameters& p = f.parameters;
  const bool two_part = p.weight == WeightKind::TwoPart, quartic = !two_part && p.p == 2;
  // Z seen by group element g in a data point's pair order: permuted[g w + pair_source[g nb + l]] = Z_l.
  ws.permuted.assign(ng * w, 0.0);
  for (std::size_t g = 0; g < ng; ++g)
    for (std::size_t l = 0; l < nb; ++l)
      ws.permuted[g * w + static_cast<std::size_t>(f.pair_source[g * nb + l])] = ws.z[l];
  ws.scaled.resize(ns);
  ws.taylor.resize(ns);
  if (grad) {
    ws.dz_taylor.resize(ns * w);
    ws.dz_weight.resize(ns * w);
  }
  ws.dzeta.resize(3 * w);
  double* __restrict dz = ws.dzeta.data();  // Z - Z(i), zeta - zeta(i), dT/dzeta: a row each
  double* __restrict dzeta = dz + w;
  double* __restrict hd = dzeta + w;
  for (std::size_t j = 0; j < ns; ++j) {
    const std::size_t i = static_cast<std::size_t>(set[j]) / ng, g = static_cast<std::size_t>(set[j]) % ng;
    const double* __restrict zg = &ws.permuted[g * w];
    const double* __restrict zi = &f.point_z[i * w];
    const double* __restrict di = &f.point_inv_d[i * w];
    Tile e = {};
    for (int b = 0; b < kMaxTiles; ++b)
      if (b < tiles) {
        Tile a, c, id;
        std::memcpy(&a, zg + b * kTile, sizeof(Tile));
        std::memcpy(&c, zi + b * kTile, sizeof(Tile));
        std::memcpy(&id, di + b * kTile, sizeof(Tile));
        const Tile d = a - c, t = d * id, t2 = t * t;
        std::memcpy(dz + b * kTile, &d, sizeof(Tile));
        e += quartic ? t2 * t2 : t2;
      }
    double s = 0;
    if (two_part || quartic) {
      for (int k = 0; k < kTile; ++k) s += e[k];
    } else {
      for (std::size_t m = 0; m < nb; ++m) s += power(std::abs(dz[m] * di[m]), 2 * p.p);
    }
    const double u = two_part ? power(s, p.p) + power(s, p.q) : s;
    ws.scaled[j] = u;
    // zeta - zeta(i) = U^T (Z - Z(i)); T = E + g.dzeta + dzeta.H.dzeta / 2 (H symmetric: its rows
    // serve as columns).
    const double* __restrict gi = &f.gradient[i * w];
    Tile a[kMaxTiles] = {}, h[kMaxTiles] = {}, te = {};
    QUASAR_SHEPARD_ROWS(a, nb, dz, &f.u[i * nb * w], w)
    for (int b = 0; b < tiles; ++b) std::memcpy(dzeta + b * kTile, &a[b], sizeof(Tile));
    QUASAR_SHEPARD_ROWS(h, ni, dzeta, &f.hessian[i * ni * w], w)
    for (int b = 0; b < kMaxTiles; ++b)
      if (b < tiles) {
        Tile gb;
        std::memcpy(&gb, gi + b * kTile, sizeof(Tile));
        te += a[b] * (gb + 0.5 * h[b]);
        h[b] += gb;  // dT/dzeta
        std::memcpy(hd + b * kTile, &h[b], sizeof(Tile));
      }
    double t = 0;
    for (int k = 0; k < kTile; ++k) t += te[k];
    ws.taylor[j] = f.energy[i] + t;
    if (!grad) continue;
    // dT/dZ = U dT/dzeta and (du/dZ) / u, in the point's pair order.
    Tile c[kMaxTiles] = {};
    QUASAR_SHEPARD_ROWS(c, ni, hd, &f.u_t[i * ni * w], w)
    double* __restrict tz = &ws.dz_taylor[j * w];
    double* __restrict wz = &ws.dz_weight[j * w];
    for (int b = 0; b < tiles; ++b) std::memcpy(tz + b * kTile, &c[b], sizeof(Tile));
    if (!(u > 0)) continue;  // at a data point: not read
    if (two_part) {
      // (p s^(p-1) + q s^(q-1)) / (s^p + s^q) = (p + q t) / (s (1 + t)), t = s^(q-p); q / s when t overflows.
      const double tq = power(s, p.q - p.p);
      const double dlog_ds = std::isinf(tq) ? p.q / s : (p.p + p.q * tq) / (s * (1 + tq));
      for (int b = 0; b < kMaxTiles; ++b)
        if (b < tiles) {
          Tile d, id;
          std::memcpy(&d, dz + b * kTile, sizeof(Tile));
          std::memcpy(&id, di + b * kTile, sizeof(Tile));
          const Tile out = dlog_ds * 2 * d * id * id;
          std::memcpy(wz + b * kTile, &out, sizeof(Tile));
        }
    } else {
      for (std::size_t m = 0; m < w; ++m) {
        const double tm = dz[m] * di[m];
        const double gm = 2 * p.p * power(std::abs(tm), 2 * p.p - 1) * di[m];
        wz[m] = (tm < 0 ? -gm : gm) / u;
      }
    }
  }
  bool at_point = false;
  const double v = weigh_terms(ns, ws, at_point);
  if (!grad) return v;
  // dV/dZ = sum_j w_j [dT_j/dZ - (T_j - V) (du_j/dZ) / u_j], per group element, then summed over
  // them in the configuration's pair order; then dV/dx = B^T dV/dZ.
  ws.permuted.assign(ng * w, 0.0);
  for (std::size_t j = 0; j < ns; ++j) {
    const double wj = ws.scaled[j];
    if (wj == 0) continue;
    const double spread = at_point ? 0.0 : ws.taylor[j] - v;
    double* __restrict acc = &ws.permuted[static_cast<std::size_t>(set[j]) % ng * w];
    for (int b = 0; b < kMaxTiles; ++b)
      if (b < tiles) {
        Tile sum, tz, wz;
        std::memcpy(&sum, acc + b * kTile, sizeof(Tile));
        std::memcpy(&tz, &ws.dz_taylor[j * w + static_cast<std::size_t>(b * kTile)], sizeof(Tile));
        if (at_point) {
          sum += wj * tz;
        } else {
          std::memcpy(&wz, &ws.dz_weight[j * w + static_cast<std::size_t>(b * kTile)], sizeof(Tile));
          sum += wj * (tz - spread * wz);
        }
        std::memcpy(acc + b * kTile, &sum, sizeof(Tile));
      }
  }
  ws.dvdz.assign(nb, 0.0);
  for (std::size_t g = 0; g < ng; ++g)
    for (std::size_t l = 0; l < nb; ++l)
      ws.dvdz[l] += ws.permuted[g * w + static_cast<std::size_t>(f.pair_source[g * nb + l])];
  add_cartesian_gradient(f, x, ws.z.data(), ws.dvdz.data(), grad);
  return v;
}

#undef QUASAR_SHEPARD_ROWS

}  // namespace

void select_neighbours(const Interpolant& f, const double* z, std::vector<int>& set, Workspace& ws) {
  const std::size_t nb = static_cast<std::size_t>(f.pairs), stride = static_cast<std::size_t>(f.stride),
                    n = static_cast<std::size_t>(f.group) * stride;
  ws.denominators.resize(n);
  double* u = ws.denominators.data();
  double u_min = std::numeric_limits<double>::infinity();
  const WeightForm form = form_of(f.parameters);
  ws.near.resize(n / kTile);
  if (form == kOnePart && f.parameters.p != 2) {
    std::fill(u, u + n, u_min);
    ws.dzeta.resize(nb);
    for (int r = 0; r < f.points; ++r) {
      double& ur = u[static_cast<std::size_t>(r % f.group) * stride + static_cast<std::size_t>(r / f.group)];
      u_min = std::min(u_min, ur = weight_denominator(f, r, z, ws.dzeta.data()));
    }
  } else {
    ws.columns.resize(static_cast<std::size_t>(f.group) * nb);
    for (std::size_t k = 0; k < ws.columns.size(); ++k) ws.columns[k] = static_cast<std::size_t>(f.pair_source[k]) * stride;
    u_min = replica_denominators(f, z, ws.columns.data(), u, ws.near.data());
    if (form == kTwoPart) {  // u holds s (and near is void)
      u_min = std::numeric_limits<double>::infinity();
      for (std::size_t q = 0; q < n; ++q) u_min = std::min(u_min, u[q] = power(u[q], f.parameters.p) + power(u[q], f.parameters.q));
    }
  }
  if (form == kTwoPart || (form == kOnePart && f.parameters.p != 2)) std::fill(ws.near.begin(), ws.near.end(), 1);
  // Replica (i, g) is u[g stride + i]; at a data point (or one of its replicas) those there alone,
  // else the relative weights w_r = (u_min / u_r) / sum (u_min / u) > wtol, as the reference
  // writes them, over the candidates that sum_of_ratios finds.
  const bool at_point = u_min == 0;
  const double wtol = f.parameters.wtol;
  double total = 1;
  set.clear();
  if (at_point) {
    for (std::size_t q = 0; q < n; ++q)
      if (u[q] == 0) set.push_back(static_cast<int>(q));
  } else {
    total = sum_of_ratios(u, ws.near.data(), n, u_min, wtol, set);
  }
  std::size_t kept = 0;
  for (int q : set) {
    const int i = q % f.stride, g = q / f.stride;
    if (i < f.data_points && (at_point || u_min / u[static_cast<std::size_t>(q)] / total > wtol))
      set[kept++] = i * f.group + g;
  }
  set.resize(kept);
  std::sort(set.begin(), set.end());
}

double interpolate(const Interpolant& f, const double* x, std::span<const int> set, double* grad, Workspace& ws) {
  if (set.empty()) throw Error("shepard: no data point in the neighbour set");
  if (f.width > kMaxTiles * kTile) return interpolate_reference(f, x, set, grad, ws);
  ws.z.resize(static_cast<std::size_t>(f.pairs));
  inverse_distances(x, f.atoms, ws.z.data());
  return taylor_sum(f, x, set, grad, ws);
}

double weigh_terms(std::size_t ns, Workspace& ws, bool& at_point) {
  // At a data point the points there share the weight equally (their Taylor terms agree; the other
  // weights and every weight's derivative vanish there).
  double u_min = std::numeric_limits<double>::infinity();
  for (std::size_t j = 0; j < ns; ++j) u_min = std::min(u_min, ws.scaled[j]);
  at_point = u_min == 0;
  double total = 0;
  for (std::size_t j = 0; j < ns; ++j) {
    ws.scaled[j] = at_point ? (ws.scaled[j] == 0 ? 1.0 : 0.0) : u_min / ws.scaled[j];
    total += ws.scaled[j];
  }
  double v = 0;
  for (std::size_t j = 0; j < ns; ++j) v += (ws.scaled[j] /= total) * ws.taylor[j];
  return v;
}

void add_cartesian_gradient(const Interpolant& f, const double* x, const double* z, const double* dvdz, double* grad) {
  const int n = f.atoms;
  std::fill(grad, grad + 3 * n, 0.0);
  int l = 0;
  for (int a = 0; a < n; ++a)
    for (int c = a + 1; c < n; ++c, ++l) {
      const double zl = z[l], scale = dvdz[l] * zl * zl * zl;
      for (int k = 0; k < 3; ++k) {
        const double g = -(x[3 * a + k] - x[3 * c + k]) * scale;  // dZ/dx_a = -r / R^3
        grad[3 * a + k] += g;
        grad[3 * c + k] -= g;
      }
    }
}

double evaluate(const Interpolant& f, const double* x, double* grad, Workspace& ws) {
  ws.z.resize(static_cast<std::size_t>(f.pairs));
  inverse_distances(x, f.atoms, ws.z.data());
  select_neighbours(f, ws.z.data(), ws.set, ws);
  return interpolate(f, x, ws.set, grad, ws);
}

double evaluate(const Interpolant& f, const double* x, double* grad) {
  Workspace ws;
  return evaluate(f, x, grad, ws);
}

void check_batch(const Interpolant& f, std::span<const double> configs, std::span<const double> energies,
                 std::span<const double> gradients) {
  const std::size_t n3 = static_cast<std::size_t>(3 * f.atoms);
  if (configs.size() % n3 != 0 || configs.size() / n3 != energies.size())
    throw Error("shepard: expected " + std::to_string(n3) + " coordinates per configuration and one energy each");
  if (!gradients.empty() && gradients.size() != configs.size())
    throw Error("shepard: the gradients need as many values as the configurations");
}

void evaluate_batch(const Interpolant& f, std::span<const double> configs, std::span<double> energies,
                    std::span<double> gradients) {
  check_batch(f, configs, energies, gradients);
  const std::size_t n3 = static_cast<std::size_t>(3 * f.atoms);
  device::parallel_ranges(static_cast<long>(energies.size()), device::threads_for(static_cast<long>(energies.size()), 4),
                          [&](int, long begin, long end) {
                            Workspace ws;
                            for (long c = begin; c < end; ++c) {
                              const std::size_t at = static_cast<std::size_t>(c) * n3;
                              energies[static_cast<std::size_t>(c)] =
                                  evaluate(f, configs.data() + at, gradients.empty() ? nullptr : gradients.data() + at, ws);
                            }
                          });
}

void check_groups(const Interpolant& f, std::span<const double> configs, std::span<const int> offsets,
                  std::span<const int> centres, std::span<const double> energies, std::span<const double> gradients) {
  check_batch(f, configs, energies, gradients);
  if (offsets.size() != centres.size() + 1 || offsets.front() != 0 ||
      offsets.back() != static_cast<int>(energies.size()))
    throw Error("shepard: group offsets must run from 0 to the number of configurations, one more than the centres");
  for (std::size_t g = 0; g < centres.size(); ++g)
    if (offsets[g + 1] < offsets[g] || centres[g] < offsets[g] || centres[g] >= offsets[g + 1])
      throw Error("shepard: group " + std::to_string(g) + " is empty or its centre lies outside it");
}

void evaluate_groups(const Interpolant& f, std::span<const double> configs, std::span<const int> offsets,
                     std::span<const int> centres, std::span<double> energies, std::span<double> gradients) {
  check_groups(f, configs, offsets, centres, energies, gradients);
  const long groups = static_cast<long>(centres.size());
  const std::size_t n3 = static_cast<std::size_t>(3 * f.atoms);
  // The centres' neighbour sets, then every configuration with its group's: two loops over the
  // threads, so that a few large groups (a grid's 3^k points) still keep every thread busy.
  std::vector<std::vector<int>> sets(static_cast<std::size_t>(groups));
  device::parallel_ranges(groups, device::threads_for(groups, 1), [&](int, long begin, long end) {
    Workspace ws;
    for (long g = begin; g < end; ++g) {
      const std::size_t gs = static_cast<std::size_t>(g);
      ws.z.resize(static_cast<std::size_t>(f.pairs));
      inverse_distances(configs.data() + static_cast<std::size_t>(centres[gs]) * n3, f.atoms, ws.z.data());
      select_neighbours(f, ws.z.data(), sets[gs], ws);
    }
  });
  std::vector<int> group_of(energies.size());
  for (std::size_t g = 0; g < centres.size(); ++g)
    std::fill(group_of.begin() + offsets[g], group_of.begin() + offsets[g + 1], static_cast<int>(g));
  const long n = static_cast<long>(energies.size());
  device::parallel_ranges(n, device::threads_for(n, 4), [&](int, long begin, long end) {
    Workspace ws;
    for (long c = begin; c < end; ++c) {
      const std::size_t at = static_cast<std::size_t>(c) * n3;
      energies[static_cast<std::size_t>(c)] =
          interpolate(f, configs.data() + at, sets[static_cast<std::size_t>(group_of[static_cast<std::size_t>(c)])],
                      gradients.empty() ? nullptr : gradients.data() + at, ws);
    }
  });
}

}  // namespace quasar::shepard
