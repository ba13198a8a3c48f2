#include "quasar/nn/adam.hpp"

#include <cmath>

#include "quasar/core/error.hpp"

namespace quasar::nn {

void Adam::reset(long size) {
  for (Array<double>* a : {&m_, &v_}) {
    a->resize(static_cast<std::size_t>(size));
    a->set_zero();
  }
}

void Adam::set_moments(const std::vector<double>& m, const std::vector<double>& v) {
  if (static_cast<long>(m.size()) != size() || v.size() != m.size())
    throw Error("optimiser: " + std::to_string(m.size()) + " moments for " + std::to_string(size()) + " parameters");
  m_.assign(m);
  v_.assign(v);
}

void Adam::step(const Parameters& p, double lr, long t, double frames) {
  if (p.size != size()) throw Error("optimiser: parameters and moments differ in size");
  const double c1 = 1 - std::pow(kBeta1, static_cast<double>(t)), c2 = 1 - std::pow(kBeta2, static_cast<double>(t));
  if (m_.backend() == Backend::Cuda) {
#ifdef QUASAR_HAVE_CUDA
    adam_step_cuda(p, m_.data(), v_.data(), lr, c1, c2, frames);
    return;
#else
    throw_no_cuda("Adam on the GPU");
#endif
  }
  if (!p.gradient || p.gradient32) throw Error("optimiser: the CPU steps double gradients");
  double *m = m_.data(), *v = v_.data();
  for (long k = 0; k < p.size; ++k) {
    const double grad = p.gradient[k] / frames;
    m[k] = kBeta1 * m[k] + (1 - kBeta1) * grad;
    v[k] = kBeta2 * v[k] + (1 - kBeta2) * grad * grad;
    p.values[k] -= lr * (m[k] / c1) / (std::sqrt(v[k] / c2) + kEpsilon);
    if (p.copy) p.copy[k] = p.values[k];
  }
}

}  // namespace quasar::nn
