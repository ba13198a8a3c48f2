#include "quasar/core/exclusions.hpp"

namespace quasar {

Exclusions::Exclusions(const Topology& topology, std::size_t atoms)
    : atoms_(atoms), host_(special_neighbors(topology, atoms)) {}

ExclusionsRef Exclusions::ref(Backend b) {
  if (offset_.empty() || offset_.backend() != b) {
    offset_ = Array<int>(b);
    partner_ = Array<int>(b);
    level_ = Array<signed char>(b);
    offset_.assign(host_.offset);
    partner_.assign(host_.partner);
    level_.assign(host_.level);
  }
  return {offset_.data(), partner_.data(), level_.data()};
}

}  // namespace quasar
