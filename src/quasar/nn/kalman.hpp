#pragma once
// The extended Kalman filter as an optimiser of network parameters (n2p2's "standard" and "fading
// memory" filters), on the backend where the state lives. The state w has n parameters and the
// error covariance P (n x n, symmetric: only its lower triangle is kept and read). An update takes m
// observations: their errors xi (reference minus prediction) and the Jacobian H (n x m, column-major:
// column o holds d(prediction o)/dw):
//   X = P H,  A = H^T X + R,  K = X A^-1,  P <- (P - K X^T) / lambda + q I,  w <- w + K xi
// Standard: R = I / eta, lambda = 1; eta is multiplied by exp(etatau) before each update while it is
// below etamax. Fading memory: R = lambda I, then lambda <- nu lambda + 1 - nu after the update. Both:
// P starts as I / epsilon, q starts at q0 and is multiplied by exp(-qtau) after each update while it
// is above qmin. K X^T = X A^-1 X^T is applied as Y Y^T with Y = X C and C C^T = A^-1 (a symmetric
// rank-m update of P's lower triangle).
#include <string>
#include <vector>

#include "quasar/device/array.hpp"
#include "quasar/device/context.hpp"

namespace quasar::nn {

struct KalmanSettings {
  enum class Kind { Standard, FadingMemory };
  Kind kind = Kind::Standard;
  double epsilon = 0.01;                       // P(0) = I / epsilon
  double q0 = 0.01, qtau = 0, qmin = 1e-6;     // process noise and its decay per update
  double eta0 = 0.01, etatau = 0, etamax = 1;  // standard: the learning rate and its growth per update
  double lambda = 0.96, nu = 0.995;            // fading memory: forgetting factor and its relaxation
};

class KalmanFilter {
 public:
  KalmanFilter(Backend backend, long size, const KalmanSettings& settings);
  ~KalmanFilter();

  long size() const { return n_; }
  Backend backend() const { return context_.backend(); }
  const KalmanSettings& settings() const { return settings_; }
  // One update of `state` (size() values on backend()) from m observations: `error` (m values) and
  // `jacobian` (size() x m, column-major), both on backend().
  void update(Array<double>& state, const Array<double>& error, const Array<double>& jacobian, int m);

  long updates() const { return updates_; }
  double q() const { return q_; }
  double eta() const { return eta_; }
  double lambda() const { return lambda_; }
  // P's lower triangle and diagonal (column-major n x n; the upper triangle is not kept), on the host.
  std::vector<double> covariance() const { return p_.to_vector(); }
  // Updates that changed nothing because A was not positive and finite. On the CPU such an update
  // throws Error; on the GPU an update of one observation runs without a trip to the host, so it is
  // skipped and counted here instead (reading the count waits for the GPU).
  long rejected() const;

  // Everything an update depends on, for checkpoints: P's lower triangle (column by column, n(n+1)/2
  // values), q, eta, lambda and the update count. restore() checks it (sizes, finite numbers, a
  // positive diagonal, q >= 0, eta and lambda positive) and throws Error before changing anything;
  // P's upper triangle is set to zero, as the filter's own P has it.
  struct State {
    std::vector<double> lower;
    double q = 0, eta = 0, lambda = 1;
    long updates = 0;
  };
  State state() const;
  void restore(const State& s);

 private:
  void update_on_host_scalars(Array<double>& state, const Array<double>& error, const Array<double>& jacobian, int m,
                              double noise);

  KalmanSettings settings_;
  long n_ = 0;
  device::Context context_;
  Array<double> p_, x_, y_, k_, a_, c_;  // P, X = P H, Y = X C, K, A and C (or A^-1) on the backend
  Array<double> single_;                 // GPU, one observation: A and the rejected count
  double q_ = 0, eta_ = 0, lambda_ = 1;
  long updates_ = 0;
};

// The inverse of the m x m symmetric positive definite A (column-major) and a factor C of it,
// C C^T = A^-1 (C = L^-T for A = L L^T): host arithmetic for the small matrices of an update. Throws
// Error when A is not positive definite.
void inverse_and_factor(const std::vector<double>& a, int m, std::vector<double>& inverse, std::vector<double>& factor);

// P's diagonal += q on the GPU, queued on the context's stream (kalman.cu).
void add_to_diagonal_cuda(device::Context& ctx, double* p, long n, double q);
// One observation on the GPU, given x = P h: a = h . x + noise (scratch[0]; scratch[1] counts an a
// that is not positive and finite, and such an update changes nothing), w += x xi / a and P's lower
// triangle <- (P - x x^T / a) inv_lambda + q I.
void kalman_single_cuda(device::Context& ctx, long n, const double* h, const double* x, const double* xi, double noise,
                        double inv_lambda, double q, double* scratch, double* w, double* p);

}  // namespace quasar::nn
