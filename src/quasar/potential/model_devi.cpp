#include "quasar/potential/model_devi.hpp"

#include <algorithm>
#include <cmath>

#include "quasar/core/error.hpp"
#include "quasar/potential/evaluate.hpp"

namespace quasar {

namespace {
ModelDeviation deviation(const std::vector<Evaluation>& e, const Structure& s) {
  const double k = static_cast<double>(e.size());
  const std::size_t n = s.size();
  ModelDeviation d;
  d.min_f = n ? 1e300 : 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    Vec3 mean{};
    for (const auto& x : e) mean += (1.0 / k) * x.forces[i];
    double var = 0;
    for (const auto& x : e) var += norm2(x.forces[i] - mean) / k;
    const double dev = std::sqrt(var);
    d.max_f = std::max(d.max_f, dev);
    d.min_f = std::min(d.min_f, dev);
    d.avg_f += dev / static_cast<double>(n);
  }
  d.min_v = 1e300;
  for (int c = 0; c < 9; ++c) {
    double mean = 0, var = 0;
    for (const auto& x : e) mean += x.virial(c / 3, c % 3) / k;
    for (const auto& x : e) var += std::pow(x.virial(c / 3, c % 3) - mean, 2) / k;
    const double dev = std::sqrt(var) / static_cast<double>(std::max<std::size_t>(n, 1));
    d.max_v = std::max(d.max_v, dev);
    d.min_v = std::min(d.min_v, dev);
    d.avg_v += dev / 9.0;
  }
  return d;
}
}  // namespace

ModelDeviation model_deviation(std::span<ForceField* const> models, const Structure& s, Backend backend) {
  if (models.size() < 2) throw Error("model deviation needs at least two models");
  return deviation(evaluate_all(models, s, backend), s);
}

ModelDeviation model_deviation(const std::vector<Potential*>& models, const Structure& s, Backend backend) {
  if (models.size() < 2) throw Error("model deviation needs at least two models");
  return deviation(evaluate_all(models, s, backend), s);
}

std::vector<ModelDeviation> model_deviations(std::span<ForceField* const> models, std::span<const Structure> frames,
                                             Backend backend) {
  if (models.size() < 2) throw Error("model deviation needs at least two models");
  const auto all = evaluate_batch_all(models, frames, backend);  // [model][frame]
  std::vector<ModelDeviation> out;
  for (std::size_t k = 0; k < frames.size(); ++k) {
    std::vector<Evaluation> of_frame;
    for (const auto& model : all) of_frame.push_back(model[k]);
    out.push_back(deviation(of_frame, frames[k]));
  }
  return out;
}

}  // namespace quasar
