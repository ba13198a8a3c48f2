#include "quasar/potential/nnp/model.hpp"

#include <algorithm>

namespace quasar::nnp {

double Model::max_cutoff() const {
  double rc = 0;
  for (const ElementModel& e : elements)
    for (const SymmetryFunction& f : e.functions) rc = std::max(rc, f.rc);
  return rc;
}

}  // namespace quasar::nnp
