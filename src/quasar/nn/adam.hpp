#pragma once
// Adam on a model's flat parameters (nn/parameters.hpp), on the backend where they live, with the
// same arithmetic on the CPU and the GPU: for the batch-mean gradient g,
//   m = b1 m + (1 - b1) g,  v = b2 v + (1 - b2) g^2,  p -= lr (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps),
// b1 = 0.9, b2 = 0.999, eps = 1e-8 (DeePMD-kit's and PyTorch's defaults).
#include <vector>

#include "quasar/device/array.hpp"
#include "quasar/nn/parameters.hpp"

namespace quasar::nn {

class Adam {
 public:
  static constexpr double kBeta1 = 0.9, kBeta2 = 0.999, kEpsilon = 1e-8;

  explicit Adam(Backend backend) : m_(backend), v_(backend) {}
  // Zero moments for `size` parameters.
  void reset(long size);
  long size() const { return static_cast<long>(m_.size()); }
  // Step t (1, 2, ...) at learning rate lr on the gradient summed over `frames` frames.
  void step(const Parameters& p, double lr, long t, double frames);
  // The moments in parameter order, for checkpoints; and back (as many as reset made).
  std::vector<double> first_moment() const { return m_.to_vector(); }
  std::vector<double> second_moment() const { return v_.to_vector(); }
  void set_moments(const std::vector<double>& m, const std::vector<double>& v);

 private:
  Array<double> m_, v_;
};

// The GPU step (adam.cu), with the bias corrections c1 = 1 - b1^t and c2 = 1 - b2^t.
void adam_step_cuda(const Parameters& p, double* m, double* v, double lr, double c1, double c2, double frames);

}  // namespace quasar::nn
