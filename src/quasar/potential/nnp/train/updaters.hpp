#pragma once
// n2p2's weight updaters behind one interface: the Kalman filter (nn::KalmanFilter) and gradient
// descent on the single-candidate loss xi^2 / 2, with a fixed step (w += eta xi J) or n2p2's Adam
// (g = -xi J; m and v as usual; w -= eta0 sqrt(1 - b2^t) / (1 - b1^t) m / (sqrt(v) + eps)). An update
// takes m observations: the errors xi (reference minus prediction, m values) and the Jacobian (n x m,
// column-major), on the updater's backend; gradient descent takes one observation.
#include <memory>
#include <vector>

#include "quasar/device/array.hpp"
#include "quasar/nn/kalman.hpp"
#include "quasar/potential/nnp/train/settings.hpp"

namespace quasar::nnp {

class WeightUpdater {
 public:
  virtual ~WeightUpdater() = default;
  virtual void update(Array<double>& weights, const Array<double>& error, const Array<double>& jacobian, int m) = 0;
  // Updates skipped because the Kalman filter's H^T P H + R was not positive (nn::KalmanFilter::rejected).
  virtual long rejected() const { return 0; }
  // The state an update depends on besides the weights, as numbers for checkpoints: the Kalman
  // filter's q, eta, lambda, update count and P's lower triangle; Adam's b1^t, b2^t and moments m
  // and v; nothing for the fixed step. restore() takes what state() gave (Error, changing nothing,
  // when the count or a value is wrong).
  virtual std::vector<double> state() const = 0;
  virtual void restore(const std::vector<double>& state) = 0;
};

// The updater `settings` asks for, for `size` weights on `backend`; `updates_per_epoch` turns the
// Kalman filter's qtau and etatau (given per epoch) into rates per update, as n2p2 does.
std::unique_ptr<WeightUpdater> make_updater(const TrainingSettings& settings, Backend backend, long size,
                                            double updates_per_epoch);

}  // namespace quasar::nnp
