// The mini-Brillouin-zone Monte Carlo averages of 8 pi / |q+G|^2 (see coulomb_average.hpp).
#include "quasar/gw/coulomb_average.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>

namespace quasar::gw {

double MiniZoneCoulomb::length2(const std::array<double, 3>& v) const {
  double s = 0;
  for (int i = 0; i < 3; ++i) s += v[i] * (metric_[i][0] * v[0] + metric_[i][1] * v[1] + metric_[i][2] * v[2]);
  return s;
}

MiniZoneCoulomb::MiniZoneCoulomb(const std::array<std::array<double, 3>, 3>& metric, double volume,
                                 const std::array<int, 3>& qgrid, int points)
    : metric_(metric), volume_(volume), cells_(static_cast<double>(qgrid[0]) * qgrid[1] * qgrid[2]) {
  const std::array<double, 3> scale{1.0 / qgrid[0], 1.0 / qgrid[1], 1.0 / qgrid[2]};
  // The sphere inside the mini zone: half the shortest mini-grid vector.
  q0sph2_ = std::numeric_limits<double>::max();
  for (int i1 = -2; i1 <= 3; ++i1)
    for (int i2 = -2; i2 <= 3; ++i2)
      for (int i3 = -2; i3 <= 3; ++i3)
        if (i1 != 0 || i2 != 0 || i3 != 0)
          q0sph2_ = std::min(q0sph2_, length2({0.5 * i1 * scale[0], 0.5 * i2 * scale[1], 0.5 * i3 * scale[2]}));
  std::mt19937 twister(5000);
  const double inv = 1.0 / 4294967295.0;
  twister.discard(3ull * static_cast<unsigned long long>(points));
  points_.resize(static_cast<std::size_t>(points));
  for (auto& out : points_) {
    std::array<double, 3> r{};
    for (double& x : r) x = static_cast<double>(twister()) * inv;
    // The Wigner-Seitz image of r among r - n, n in [-2, 3]^3.
    double best = std::numeric_limits<double>::max();
    for (int i1 = -2; i1 <= 3; ++i1)
      for (int i2 = -2; i2 <= 3; ++i2)
        for (int i3 = -2; i3 <= 3; ++i3) {
          const std::array<double, 3> f{r[0] - i1, r[1] - i2, r[2] - i3};
          const double l = length2(f);
          if (l < best) best = l, out = f;
        }
    for (int d = 0; d < 3; ++d) out[d] *= scale[d];
  }
}

double MiniZoneCoulomb::average(const std::array<double, 3>& p) const {
  const double pi = std::numbers::pi;
  const double lp = length2(p);
  double sum = 0;
  if (lp < 1e-12) {
    for (const auto& x : points_) {
      const double l = length2({p[0] + x[0], p[1] + x[1], p[2] + x[2]});
      if (l > q0sph2_) sum += 1.0 / l;
    }
    return sum * 8 * pi / static_cast<double>(points_.size()) +
           32 * pi * pi * std::sqrt(q0sph2_) / (8 * pi * pi * pi / (volume_ * cells_));
  }
  const double wanted = std::nearbyint(250000.0 * 4 * q0sph2_ / lp);
  const std::size_t n = static_cast<std::size_t>(std::clamp(wanted, 1.0, static_cast<double>(points_.size())));
  for (std::size_t i = 0; i < n; ++i) {
    const auto& x = points_[i];
    sum += 1.0 / length2({p[0] + x[0], p[1] + x[1], p[2] + x[2]});
  }
  return sum * 8 * pi / static_cast<double>(n);
}

double MiniZoneCoulomb::average_inverse_length(const std::array<double, 3>& p) const {
  double sum = 0;
  for (const auto& x : points_) sum += 1.0 / std::sqrt(length2({p[0] + x[0], p[1] + x[1], p[2] + x[2]}));
  return sum * 8 * std::numbers::pi / static_cast<double>(points_.size());
}

}  // namespace quasar::gw
