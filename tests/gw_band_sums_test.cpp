// gw/band_sums.hpp: the per-band quadratic forms of COHSEX and the static Coulomb hole, one matrix
// product on each backend, against the direct double sum over G and G'.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <vector>

#include "quasar/core/error.hpp"
#include "quasar/device/context.hpp"
#include "quasar/gw/band_sums.hpp"
#include "support.hpp"

namespace quasar {
namespace {

using cplx = std::complex<double>;

class GwBandSums : public testing::TestWithParam<Backend> {};

TEST_P(GwBandSums, EqualTheDirectSums) {
  device::Context ctx(GetParam());
  const int ng = 53, bands = 7;
  const auto n = static_cast<std::size_t>(ng), nb = static_cast<std::size_t>(bands);
  std::vector<double> w(n * n), v(n);
  std::vector<cplx> a(n * nb), b(n * nb);
  for (std::size_t i = 0; i < n * n; ++i) w[i] = std::sin(0.37 * static_cast<double>(i)) + (i % (n + 1) == 0 ? 2.0 : 0.0);
  for (std::size_t g = 0; g < n; ++g) v[g] = 1.0 / (0.5 + static_cast<double>(g));
  for (std::size_t i = 0; i < n * nb; ++i) {
    a[i] = {std::cos(0.11 * static_cast<double>(i)), std::sin(0.29 * static_cast<double>(i))};
    b[i] = {std::sin(0.07 * static_cast<double>(i)), std::cos(0.53 * static_cast<double>(i))};
  }
  Array<double> d_w(ctx.backend());
  d_w.assign(w);
  const std::vector<cplx> got = gw::band_sums(ctx, ng, bands, d_w, a, b, v);
  ASSERT_EQ(got.size(), nb);
  test::MaxError diff("band_sums - the direct sum over G and G' (relative to the largest)");
  double largest = 0;
  std::vector<cplx> want(nb);
  for (std::size_t k = 0; k < nb; ++k) {
    for (std::size_t gp = 0; gp < n; ++gp)
      for (std::size_t g = 0; g < n; ++g) want[k] += a[k * n + g] * w[g + gp * n] * v[gp] * std::conj(b[k * n + gp]);
    largest = std::max(largest, std::abs(want[k]));
  }
  for (std::size_t k = 0; k < nb; ++k) diff.add(std::abs(got[k] - want[k]) / largest, 0.0);
  EXPECT_GT(largest, 1.0);
  // Measured 4e-15 on the CPU (OpenBLAS; the direct sum is in another order).
  EXPECT_TRUE(diff.within(1e-13));

  EXPECT_THROW(gw::band_sums(ctx, ng + 1, bands, d_w, a, b, v), Error);  // inputs too short for the sizes
}

QUASAR_INSTANTIATE_BACKENDS(GwBandSums);

}  // namespace
}  // namespace quasar
