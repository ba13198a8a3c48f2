// Builds without CUDA: the device pair candidates are unavailable (pair_list_gpu.hpp).
#include "quasar/core/error.hpp"
#include "quasar/potential/amoeba/pair_list_gpu.hpp"

namespace quasar::amoeba {

struct DevicePairCandidates::Engine {};

DevicePairCandidates::DevicePairCandidates() = default;
DevicePairCandidates::~DevicePairCandidates() = default;
DevicePairCandidates::DevicePairCandidates(DevicePairCandidates&&) noexcept = default;
DevicePairCandidates& DevicePairCandidates::operator=(DevicePairCandidates&&) noexcept = default;

void DevicePairCandidates::build(const double*, long, const Box&, double) {
  throw Error("amoeba: device pair lists need a build with CUDA");
}

}  // namespace quasar::amoeba
