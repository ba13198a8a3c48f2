// device::FftPlan (FFTW on the CPU, cuFFT on the GPU) against a direct O(N^2) DFT of random data, against
// analytic transforms (a plane wave gives one delta; a periodic Gaussian), round trips (backward of
// forward = N times the input), real-to-complex against complex-to-complex, in place against out of
// place, and batched against one grid at a time. Deviations are relative to the largest reference value.
#include <cmath>
#include <complex>
#include <numbers>
#include <random>
#include <vector>

#include "quasar/core/error.hpp"
#include "quasar/device/fft.hpp"
#include "support.hpp"

namespace quasar {
namespace {

using cdouble = std::complex<double>;
using device::Context;
using device::FftPlan;

class DeviceFftTest : public testing::TestWithParam<Backend> {};

template <class T>
Array<T> on_backend(Backend b, const std::vector<T>& v) {
  Array<T> a(b, v.size());
  a.upload(v.data(), v.size());
  return a;
}

std::vector<cdouble> random_complex(std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<cdouble> v(n);
  for (auto& x : v) x = {u(rng), u(rng)};
  return v;
}

std::vector<double> random_real(std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

// Grid dimensions padded to three (leading ones), and the index triple of a flat C-order index.
struct Grid {
  int n[3];
  explicit Grid(const std::vector<int>& dims) : n{1, 1, 1} {
    for (std::size_t d = 0; d < dims.size(); ++d) n[3 - dims.size() + d] = dims[d];
  }
  std::size_t points() const { return std::size_t(n[0]) * n[1] * n[2]; }
  void split(std::size_t flat, int (&j)[3]) const {
    j[2] = int(flat % n[2]);
    j[1] = int(flat / n[2] % n[1]);
    j[0] = int(flat / n[2] / n[1]);
  }
};

// The direct DFT of one grid: X[k] = sum_j x[j] exp(sign 2 pi i k.j/n), phases reduced exactly
// (k_d j_d mod n_d) before the exponential.
std::vector<cdouble> direct_dft(const Grid& g, const cdouble* x, int sign) {
  std::vector<cdouble> out(g.points());
  for (std::size_t kf = 0; kf < g.points(); ++kf) {
    int k[3];
    g.split(kf, k);
    cdouble sum = 0;
    for (std::size_t jf = 0; jf < g.points(); ++jf) {
      int j[3];
      g.split(jf, j);
      double turns = 0;
      for (int d = 0; d < 3; ++d) turns += double(long(k[d]) * j[d] % g.n[d]) / g.n[d];
      sum += x[jf] * std::polar(1.0, sign * 2 * std::numbers::pi * turns);
    }
    out[kf] = sum;
  }
  return out;
}

// Largest |got - want| over the largest |want|.
double relative_deviation(const std::vector<cdouble>& got, const std::vector<cdouble>& want, std::size_t n) {
  double scale = 0, dev = 0;
  for (std::size_t i = 0; i < n; ++i) scale = std::max(scale, std::abs(want[i]));
  for (std::size_t i = 0; i < n; ++i) {
    const double d = std::abs(got[i] - want[i]);
    if (!(d <= dev)) dev = d;  // NaN sticks
  }
  return dev / scale;
}

const std::vector<std::vector<int>> kShapes = {{16}, {15}, {6, 5}, {4, 6, 5}, {8, 6, 4}, {5, 3, 7}};

TEST_P(DeviceFftTest, ComplexTransformsMatchTheDirectDft) {
  Context ctx(GetParam());
  test::MaxError forward("c2c forward against the direct DFT, relative"), backward("c2c backward, relative");
  for (const auto& dims : kShapes) {
    const Grid g(dims);
    const auto x = random_complex(g.points(), 11);
    FftPlan plan(ctx, dims);
    Array<cdouble> in = on_backend(GetParam(), x), out(GetParam(), g.points());
    plan.forward(in, out);
    forward.add(relative_deviation(out.to_vector(), direct_dft(g, x.data(), -1), g.points()), 0);
    plan.backward(in, out);
    backward.add(relative_deviation(out.to_vector(), direct_dft(g, x.data(), +1), g.points()), 0);
  }
  // CPU (FFTW 3.3.10): 1.0e-15 and 1.1e-15.
  EXPECT_TRUE(forward.within(1e-13));
  EXPECT_TRUE(backward.within(1e-13));
}

// x[j] = exp(2 pi i k0.j/n) has the forward transform N at k0 and zero elsewhere.
TEST_P(DeviceFftTest, PlaneWaveGivesOneDelta) {
  Context ctx(GetParam());
  const std::vector<int> dims = {12, 10, 9};
  const Grid g(dims);
  const int k0[3] = {5, 7, 2};
  std::vector<cdouble> x(g.points()), want(g.points());
  for (std::size_t f = 0; f < g.points(); ++f) {
    int j[3];
    g.split(f, j);
    double turns = 0;
    for (int d = 0; d < 3; ++d) turns += double(k0[d] * j[d] % g.n[d]) / g.n[d];
    x[f] = std::polar(1.0, 2 * std::numbers::pi * turns);
  }
  want[(std::size_t(k0[0]) * g.n[1] + k0[1]) * g.n[2] + k0[2]] = double(g.points());
  FftPlan plan(ctx, dims);
  Array<cdouble> in = on_backend(GetParam(), x), out(GetParam(), g.points());
  plan.forward(in, out);
  test::MaxError err("plane wave: forward against N delta(k - k0), relative");
  err.add(relative_deviation(out.to_vector(), want, g.points()), 0);
  EXPECT_TRUE(err.within(3e-14));  // CPU: 3.7e-16
}

// A periodic Gaussian x[j] = sum_m g(j - c + m n), g(t) = exp(-t^2 / (2 s^2)), per dimension; by
// Poisson's summation its DFT is exp(-2 pi i k c/n) sqrt(2 pi) s sum_p exp(-2 pi^2 s^2 (k/n + p)^2).
TEST_P(DeviceFftTest, GaussianMatchesItsAnalyticTransform) {
  Context ctx(GetParam());
  const std::vector<int> dims = {32, 24, 20};
  const double s[3] = {2.0, 1.7, 1.5};
  const int c[3] = {13, 9, 4};
  const Grid g(dims);
  auto along = [&](int d, int j) {  // the periodic Gaussian along dimension d
    double v = 0;
    for (int m = -3; m <= 3; ++m) {
      const double t = j - c[d] + m * g.n[d];
      v += std::exp(-t * t / (2 * s[d] * s[d]));
    }
    return v;
  };
  auto transform_along = [&](int d, int k) {
    double v = 0;
    for (int p = -3; p <= 3; ++p) {
      const double xi = double(k) / g.n[d] + p;
      v += std::exp(-2 * std::numbers::pi * std::numbers::pi * s[d] * s[d] * xi * xi);
    }
    return std::sqrt(2 * std::numbers::pi) * s[d] * v * std::polar(1.0, -2 * std::numbers::pi * double(k * c[d] % g.n[d]) / g.n[d]);
  };
  std::vector<cdouble> x(g.points()), want(g.points());
  for (std::size_t f = 0; f < g.points(); ++f) {
    int j[3];
    g.split(f, j);
    x[f] = along(0, j[0]) * along(1, j[1]) * along(2, j[2]);
    want[f] = transform_along(0, j[0]) * transform_along(1, j[1]) * transform_along(2, j[2]);
  }
  FftPlan plan(ctx, dims);
  Array<cdouble> in = on_backend(GetParam(), x), out(GetParam(), g.points());
  plan.forward(in, out);
  test::MaxError err("Gaussian: forward against the analytic transform, relative");
  err.add(relative_deviation(out.to_vector(), want, g.points()), 0);
  EXPECT_TRUE(err.within(5e-14));  // CPU: 8.4e-16
}

TEST_P(DeviceFftTest, RoundTripsGiveNTimesTheInput) {
  Context ctx(GetParam());
  test::MaxError complex("c2c backward(forward(x)) against N x, relative"),
      real("r2c then c2r against N x, relative");
  for (const auto& dims : kShapes) {
    const Grid g(dims);
    FftPlan plan(ctx, dims, 2);
    const std::size_t n = 2 * g.points();
    const auto x = random_complex(n, 21);
    Array<cdouble> in = on_backend(GetParam(), x), mid(GetParam(), n), back(GetParam(), n);
    plan.forward(in, mid);
    plan.backward(mid, back);
    std::vector<cdouble> want(n);
    for (std::size_t i = 0; i < n; ++i) want[i] = x[i] * double(g.points());
    complex.add(relative_deviation(back.to_vector(), want, n), 0);

    const auto r = random_real(n, 22);
    Array<double> rin = on_backend(GetParam(), r), rback(GetParam(), n);
    Array<cdouble> half(GetParam(), 2 * plan.half_points());
    plan.forward(rin, half);
    plan.backward(half, rback);
    const auto got = rback.to_vector();
    std::vector<cdouble> got_c(got.begin(), got.end()), want_r(n);
    for (std::size_t i = 0; i < n; ++i) want_r[i] = r[i] * double(g.points());
    real.add(relative_deviation(got_c, want_r, n), 0);
  }
  EXPECT_TRUE(complex.within(3e-14));  // CPU: 4.0e-16
  EXPECT_TRUE(real.within(3e-14));     // CPU: 3.6e-16
}

// The real-to-complex transform is the first n2/2 + 1 values along the last dimension of the complex
// transform of the same (real) data; even and odd n2.
TEST_P(DeviceFftTest, RealToComplexMatchesComplexToComplex) {
  Context ctx(GetParam());
  test::MaxError err("r2c against c2c of the same real data, relative");
  for (const auto& dims : kShapes) {
    const Grid g(dims);
    const auto r = random_real(g.points(), 31);
    FftPlan plan(ctx, dims);
    Array<double> rin = on_backend(GetParam(), r);
    Array<cdouble> half(GetParam(), plan.half_points());
    plan.forward(rin, half);
    Array<cdouble> cin = on_backend(GetParam(), std::vector<cdouble>(r.begin(), r.end())), full(GetParam(), g.points());
    plan.forward(cin, full);
    const auto f = full.to_vector();
    const int h = g.n[2] / 2 + 1;
    std::vector<cdouble> want(plan.half_points());
    for (std::size_t row = 0; row < g.points() / g.n[2]; ++row)
      for (int k = 0; k < h; ++k) want[row * h + k] = f[row * g.n[2] + k];
    err.add(relative_deviation(half.to_vector(), want, want.size()), 0);
  }
  EXPECT_TRUE(err.within(2e-14));  // CPU: 2.4e-16
}

// A batch of grids gives what each grid gives alone; an in-place transform what an out-of-place one does.
TEST_P(DeviceFftTest, BatchedAndInPlaceMatchOneGridAtATime) {
  Context ctx(GetParam());
  constexpr int batch = 3;
  test::MaxError c2c("batched c2c against one grid at a time, relative"),
      r2c("batched r2c against one grid at a time, relative"), c2r("batched c2r against one grid at a time, relative"),
      in_place("in-place c2c against out of place, relative");
  for (const auto& dims : kShapes) {
    const Grid g(dims);
    const std::size_t n = g.points();
    FftPlan batched(ctx, dims, batch), single(ctx, dims);
    const std::size_t h = single.half_points();
    const auto x = random_complex(batch * n, 41);
    const auto r = random_real(batch * n, 42);
    Array<cdouble> in = on_backend(GetParam(), x), out(GetParam(), batch * n);
    batched.forward(in, out);
    Array<double> rin = on_backend(GetParam(), r);
    Array<cdouble> rout(GetParam(), batch * h);
    batched.forward(rin, rout);
    Array<cdouble> c2r_in = on_backend(GetParam(), rout.to_vector());
    Array<double> c2r_out(GetParam(), batch * n);
    batched.backward(c2r_in, c2r_out);
    const auto all = out.to_vector(), all_r = rout.to_vector();
    const auto all_back = c2r_out.to_vector();
    for (int b = 0; b < batch; ++b) {
      Array<cdouble> one = on_backend(GetParam(), std::vector<cdouble>(x.begin() + b * n, x.begin() + (b + 1) * n));
      Array<cdouble> one_out(GetParam(), n);
      single.forward(one, one_out);
      c2c.add(relative_deviation(std::vector<cdouble>(all.begin() + b * n, all.end()), one_out.to_vector(), n), 0);

      Array<double> rone = on_backend(GetParam(), std::vector<double>(r.begin() + b * n, r.begin() + (b + 1) * n));
      Array<cdouble> rone_out(GetParam(), h);
      single.forward(rone, rone_out);
      r2c.add(relative_deviation(std::vector<cdouble>(all_r.begin() + b * h, all_r.end()), rone_out.to_vector(), h), 0);

      Array<cdouble> hone = on_backend(GetParam(), std::vector<cdouble>(all_r.begin() + b * h, all_r.begin() + (b + 1) * h));
      Array<double> hone_out(GetParam(), n);
      single.backward(hone, hone_out);
      const auto want = hone_out.to_vector();
      c2r.add(relative_deviation(std::vector<cdouble>(all_back.begin() + b * n, all_back.begin() + (b + 1) * n),
                                 std::vector<cdouble>(want.begin(), want.end()), n),
              0);
    }
    batched.forward(in, in);  // in place
    in_place.add(relative_deviation(in.to_vector(), all, batch * n), 0);
  }
  // CPU: 0, 0, 0 and 0 (FFTW's batched plans do the same arithmetic). A library may order a batched or
  // in-place transform's sums differently: a few epsilons are allowed.
  EXPECT_TRUE(c2c.within(2e-15));
  EXPECT_TRUE(r2c.within(2e-15));
  EXPECT_TRUE(c2r.within(2e-15));
  EXPECT_TRUE(in_place.within(2e-15));
}

TEST_P(DeviceFftTest, BadShapesAndArraysAreErrors) {
  Context ctx(GetParam());
  EXPECT_THROW(FftPlan(ctx, {}), Error);
  EXPECT_THROW(FftPlan(ctx, {4, 4, 4, 4}), Error);
  EXPECT_THROW(FftPlan(ctx, {4, 0}), Error);
  EXPECT_THROW(FftPlan(ctx, {4}, 0), Error);
  FftPlan plan(ctx, {4, 6}, 2);
  EXPECT_EQ(plan.points(), 24u);
  EXPECT_EQ(plan.half_points(), 16u);
  Array<cdouble> small(GetParam(), 47), ok(GetParam(), 48);
  EXPECT_THROW(plan.forward(small, ok), Error);
  EXPECT_THROW(plan.backward(ok, small), Error);
  Array<double> real(GetParam(), 48);
  Array<cdouble> half_small(GetParam(), 31);
  EXPECT_THROW(plan.forward(real, half_small), Error);
  if (GetParam() == Backend::Cuda) {
    Array<cdouble> host(Backend::Cpu, 48);
    EXPECT_THROW(plan.forward(host, ok), Error);
  }
}

QUASAR_INSTANTIATE_BACKENDS(DeviceFftTest);

}  // namespace
}  // namespace quasar
