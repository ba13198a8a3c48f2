#include "quasar/nn/schedule.hpp"

#include <algorithm>
#include <cmath>

namespace quasar::nn {

double ExponentialDecay::at(long step) const {
  long ds = decay_steps;
  if (ds >= steps) ds = steps / 10 > 100 ? 100 : steps / 100 + 1;
  const double rate =
      std::exp(std::log(std::max(stop, 1e-10) / start) / (static_cast<double>(steps) / static_cast<double>(ds)));
  return std::max(start * std::pow(rate, static_cast<double>(step / ds)), stop);
}

}  // namespace quasar::nn
