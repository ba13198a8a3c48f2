#include "quasar/potential/nnp/train/updaters.hpp"

#include <cmath>
#include <vector>

#include "quasar/core/error.hpp"

namespace quasar::nnp {

namespace {

class KalmanUpdater : public WeightUpdater {
 public:
  KalmanUpdater(Backend backend, long size, const nn::KalmanSettings& s) : filter_(backend, size, s) {}
  void update(Array<double>& w, const Array<double>& error, const Array<double>& jacobian, int m) override {
    filter_.update(w, error, jacobian, m);
  }
  long rejected() const override { return filter_.rejected(); }
  std::vector<double> state() const override {
    nn::KalmanFilter::State s = filter_.state();
    std::vector<double> out{s.q, s.eta, s.lambda, static_cast<double>(s.updates)};
    out.insert(out.end(), s.lower.begin(), s.lower.end());
    return out;
  }
  void restore(const std::vector<double>& v) override {
    if (v.size() < 4) throw Error("Kalman filter state: too short");
    nn::KalmanFilter::State s;
    s.q = v[0];
    s.eta = v[1];
    s.lambda = v[2];
    // The count is a whole number below 2^53 (a double holds it exactly).
    if (!(v[3] >= 0 && v[3] < 0x1.0p53 && v[3] == std::floor(v[3])))
      throw Error("Kalman filter state: the update count is not a whole number");
    s.updates = static_cast<long>(v[3]);
    s.lower.assign(v.begin() + 4, v.end());
    filter_.restore(s);
  }

 private:
  nn::KalmanFilter filter_;
};

// On the host: the state is small (thousands of weights) and the update one pass over it.
class DescentUpdater : public WeightUpdater {
 public:
  DescentUpdater(const TrainingSettings& s, long size) : s_(s), m_(size, 0.0), v_(size, 0.0) {
    b1t_ = s.adam_beta1;
    b2t_ = s.adam_beta2;
  }
  void update(Array<double>& weights, const Array<double>& error, const Array<double>& jacobian, int m) override {
    if (m != 1) throw Error("nnp: gradient descent takes one observation per update");
    std::vector<double> w = weights.to_vector(), j = jacobian.to_vector(), e = error.to_vector();
    const double xi = e[0];
    const std::size_t n = m_.size();
    if (s_.descent == TrainingSettings::Descent::Fixed) {
      for (std::size_t i = 0; i < n; ++i) w[i] += s_.gradient_eta * xi * j[i];
    } else {
      const double b1 = s_.adam_beta1, b2 = s_.adam_beta2;
      const double eta = s_.adam_eta * std::sqrt(1 - b2t_) / (1 - b1t_);
      for (std::size_t i = 0; i < n; ++i) {
        const double g = -xi * j[i];
        m_[i] = b1 * m_[i] + (1 - b1) * g;
        v_[i] = b2 * v_[i] + (1 - b2) * g * g;
        w[i] -= eta * m_[i] / (std::sqrt(v_[i]) + s_.adam_epsilon);
      }
      b1t_ *= b1;
      b2t_ *= b2;
    }
    weights.upload(w.data(), n);
  }
  std::vector<double> state() const override {
    if (s_.descent == TrainingSettings::Descent::Fixed) return {};
    std::vector<double> out{b1t_, b2t_};
    out.insert(out.end(), m_.begin(), m_.end());
    out.insert(out.end(), v_.begin(), v_.end());
    return out;
  }
  void restore(const std::vector<double>& state) override {
    if (s_.descent == TrainingSettings::Descent::Fixed) {
      if (!state.empty()) throw Error("fixed-step gradient descent has no state, the checkpoint holds some");
      return;
    }
    const std::size_t n = m_.size();
    if (state.size() != 2 + 2 * n)
      throw Error("Adam state: " + std::to_string(state.size()) + " numbers, expected " + std::to_string(2 + 2 * n));
    for (std::size_t k = 0; k < state.size(); ++k)
      if (!std::isfinite(state[k]) || (k >= 2 + n && state[k] < 0) || (k < 2 && !(state[k] >= 0 && state[k] < 1)))
        throw Error("Adam state: value " + std::to_string(k) +
                    " out of range (b1^t and b2^t in [0, 1), moments finite, second moments non-negative)");
    b1t_ = state[0];
    b2t_ = state[1];
    m_.assign(state.begin() + 2, state.begin() + 2 + static_cast<long>(n));
    v_.assign(state.begin() + 2 + static_cast<long>(n), state.end());
  }

 private:
  TrainingSettings s_;
  std::vector<double> m_, v_;
  double b1t_ = 0, b2t_ = 0;
};

}  // namespace

std::unique_ptr<WeightUpdater> make_updater(const TrainingSettings& settings, Backend backend, long size,
                                            double updates_per_epoch) {
  if (settings.updater == TrainingSettings::Updater::GradientDescent)
    return std::make_unique<DescentUpdater>(settings, size);
  nn::KalmanSettings k = settings.kalman;
  const double per = updates_per_epoch > 0 ? updates_per_epoch : 1.0;
  k.qtau /= per;
  if (settings.kalman_eta_growth) k.etatau /= per;
  return std::make_unique<KalmanUpdater>(backend, size, k);
}

}  // namespace quasar::nnp
