#include "quasar/potential/potential.hpp"

#include "quasar/core/error.hpp"

namespace quasar {

void Potential::set_precision(Precision p) {
  if (p != Precision::Double)
    throw Error(name() + ": precision " + precision_name(p) + " is not supported (" + name() + " evaluates in double)");
}

}  // namespace quasar
