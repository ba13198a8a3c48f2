#include "quasar/nn/kalman.hpp"

#include <cmath>
#include <string>

#include "quasar/core/error.hpp"
#include "quasar/device/linalg.hpp"

namespace quasar::nn {

void inverse_and_factor(const std::vector<double>& a, int m, std::vector<double>& inverse,
                        std::vector<double>& factor) {
  const std::size_t um = static_cast<std::size_t>(m);
  // Cholesky A = L L^T (lower, column-major), then L^-1 by forward substitution.
  std::vector<double> l(um * um, 0.0), li(um * um, 0.0);
  for (int j = 0; j < m; ++j) {
    double d = a[j + um * j];
    for (int k = 0; k < j; ++k) d -= l[j + um * k] * l[j + um * k];
    if (!(d > 0)) throw Error("Kalman filter: the observation matrix H^T P H + R is not positive definite");
    const double ljj = std::sqrt(d);
    l[j + um * j] = ljj;
    for (int i = j + 1; i < m; ++i) {
      double s = a[i + um * j];
      for (int k = 0; k < j; ++k) s -= l[i + um * k] * l[j + um * k];
      l[i + um * j] = s / ljj;
    }
  }
  for (int j = 0; j < m; ++j) {
    li[j + um * j] = 1.0 / l[j + um * j];
    for (int i = j + 1; i < m; ++i) {
      double s = 0;
      for (int k = j; k < i; ++k) s -= l[i + um * k] * li[k + um * j];
      li[i + um * j] = s / l[i + um * i];
    }
  }
  // C = L^-T; A^-1 = L^-T L^-1 = C C^T.
  factor.assign(um * um, 0.0);
  inverse.assign(um * um, 0.0);
  for (int j = 0; j < m; ++j)
    for (int i = 0; i < m; ++i) factor[i + um * j] = li[j + um * i];
  for (int j = 0; j < m; ++j)
    for (int i = 0; i < m; ++i) {
      double s = 0;
      for (int k = 0; k < m; ++k) s += factor[i + um * k] * factor[j + um * k];
      inverse[i + um * j] = s;
    }
}

KalmanFilter::KalmanFilter(Backend backend, long size, const KalmanSettings& s)
    : settings_(s),
      n_(size),
      context_(backend),
      p_(backend),
      x_(backend),
      y_(backend),
      k_(backend),
      a_(backend),
      c_(backend),
      single_(backend, 2) {
  if (size < 1 || size > 46340)
    throw Error("Kalman filter: the state needs between 1 and 46340 parameters (P has n^2 entries)");
  if (!(s.epsilon > 0)) throw Error("Kalman filter: epsilon must be positive");
  if (s.kind == KalmanSettings::Kind::Standard && !(s.eta0 > 0)) throw Error("Kalman filter: eta must be positive");
  if (s.kind == KalmanSettings::Kind::FadingMemory && !(s.lambda > 0))
    throw Error("Kalman filter: lambda must be positive");
  const std::size_t un = static_cast<std::size_t>(size);
  std::vector<double> p(un * un, 0.0);
  for (std::size_t i = 0; i < un; ++i) p[i + un * i] = 1.0 / s.epsilon;
  p_.assign(p);
  q_ = s.q0;
  eta_ = s.eta0;
  lambda_ = s.kind == KalmanSettings::Kind::FadingMemory ? s.lambda : 1.0;
}

KalmanFilter::~KalmanFilter() = default;

void KalmanFilter::update(Array<double>& state, const Array<double>& error, const Array<double>& jacobian, int m) {
  using device::Triangle;
  const std::size_t un = static_cast<std::size_t>(n_), um = static_cast<std::size_t>(m);
  const int n = static_cast<int>(n_);
  if (m < 1) throw Error("Kalman filter: an update needs at least one observation");
  if (state.size() < un || error.size() < um || jacobian.size() < un * um)
    throw Error("Kalman filter: state, error or Jacobian too short for " + std::to_string(n_) + " parameters and " +
                std::to_string(m) + " observations");
  const bool standard = settings_.kind == KalmanSettings::Kind::Standard;
  if (standard && eta_ < settings_.etamax) eta_ *= std::exp(settings_.etatau);
  x_.resize(un * um);
  y_.resize(un * um);
  k_.resize(un * um);
  a_.resize(um * um);
  c_.resize(um * um);
  // X = P H (one observation: a matrix-vector product, which reads P's lower triangle once).
  if (m == 1)
    device::symv(context_, Triangle::Lower, n, 1.0, p_, jacobian, 0.0, x_);
  else
    device::symm(context_, Triangle::Lower, n, m, 1.0, p_, jacobian, 0.0, x_);
  const double noise = standard ? 1.0 / eta_ : lambda_;
  if (m == 1 && p_.backend() == Backend::Cuda) {
#ifdef QUASAR_HAVE_CUDA
    kalman_single_cuda(context_, n_, jacobian.data(), x_.data(), error.data(), noise, 1.0 / lambda_, q_,
                       single_.data(), state.data(), p_.data());
#else
    throw_no_cuda("the Kalman filter on the GPU");
#endif
  } else {
    update_on_host_scalars(state, error, jacobian, m, noise);
  }
  if (q_ > settings_.qmin) q_ *= std::exp(-settings_.qtau);
  if (!standard) lambda_ = settings_.nu * lambda_ + 1.0 - settings_.nu;
  ++updates_;
}

KalmanFilter::State KalmanFilter::state() const {
  const std::vector<double> p = p_.to_vector();
  const std::size_t un = static_cast<std::size_t>(n_);
  State s;
  s.lower.reserve(un * (un + 1) / 2);
  for (std::size_t j = 0; j < un; ++j)
    for (std::size_t i = j; i < un; ++i) s.lower.push_back(p[i + un * j]);
  s.q = q_;
  s.eta = eta_;
  s.lambda = lambda_;
  s.updates = updates_;
  return s;
}

void KalmanFilter::restore(const State& s) {
  const std::size_t un = static_cast<std::size_t>(n_);
  if (s.lower.size() != un * (un + 1) / 2)
    throw Error("Kalman filter state: " + std::to_string(s.lower.size()) + " covariance entries, expected " +
                std::to_string(un * (un + 1) / 2) + " for " + std::to_string(n_) + " parameters");
  if (!(std::isfinite(s.q) && s.q >= 0) || !(std::isfinite(s.eta) && s.eta > 0) ||
      !(std::isfinite(s.lambda) && s.lambda > 0) || s.updates < 0)
    throw Error("Kalman filter state: q, eta, lambda or the update count out of range");
  std::vector<double> p(un * un, 0.0);
  std::size_t k = 0;
  for (std::size_t j = 0; j < un; ++j)
    for (std::size_t i = j; i < un; ++i) {
      const double v = s.lower[k++];
      if (!std::isfinite(v) || (i == j && !(v > 0)))
        throw Error("Kalman filter state: covariance entry (" + std::to_string(i) + ", " + std::to_string(j) +
                    ") is not finite or, on the diagonal, not positive");
      p[i + un * j] = v;
    }
  p_.assign(p);
  single_.set_zero();
  q_ = s.q;
  eta_ = s.eta;
  lambda_ = s.lambda;
  updates_ = s.updates;
}

long KalmanFilter::rejected() const { return static_cast<long>(single_.to_vector()[1]); }

// A (m x m) through the host: its inverse and factor, then K, Y, P and the state.
void KalmanFilter::update_on_host_scalars(Array<double>& state, const Array<double>& error,
                                          const Array<double>& jacobian, int m, double noise) {
  using device::Op;
  using device::Triangle;
  const std::size_t un = static_cast<std::size_t>(n_), um = static_cast<std::size_t>(m);
  const int n = static_cast<int>(n_);
  device::gemm(context_, Op::Transpose, Op::None, m, m, n, 1.0, jacobian, x_, 0.0, a_);  // A = H^T X
  std::vector<double> a = a_.to_vector(), inverse, factor;
  a.resize(um * um);
  for (std::size_t i = 0; i < um; ++i) a[i + um * i] += noise;
  inverse_and_factor(a, m, inverse, factor);
  a_.upload(inverse.data(), inverse.size());
  c_.upload(factor.data(), factor.size());
  device::gemm(context_, Op::None, Op::None, n, m, m, 1.0, x_, a_, 0.0, k_);  // K = X A^-1
  device::gemm(context_, Op::None, Op::None, n, m, m, 1.0, x_, c_, 0.0, y_);  // Y = X C
  // P = (P - Y Y^T) / lambda on the lower triangle, then + q I.
  device::herk(context_, Triangle::Lower, Op::None, n, m, -1.0 / lambda_, y_, 1.0 / lambda_, p_);
  if (p_.backend() == Backend::Cuda) {
#ifdef QUASAR_HAVE_CUDA
    add_to_diagonal_cuda(context_, p_.data(), n_, q_);
#else
    throw_no_cuda("the Kalman filter on the GPU");
#endif
  } else {
    double* p = p_.data();
    for (std::size_t i = 0; i < un; ++i) p[i + un * i] += q_;
  }
  device::gemm(context_, Op::None, Op::None, n, 1, m, 1.0, k_, error, 1.0, state);  // w += K xi
}

}  // namespace quasar::nn
