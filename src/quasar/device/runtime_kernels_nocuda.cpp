// Run-time compiled kernels of a build without CUDA: neither NVRTC nor a GPU to load them on.
#include "quasar/device/backend.hpp"
#include "quasar/device/runtime_kernels.hpp"

namespace quasar::device {

std::string compile_cubin(const std::string&, const std::vector<SourceHeader>&, int, const std::string&) {
  throw_no_cuda("NVRTC");
}

struct RuntimeModule::Impl {};
RuntimeModule::RuntimeModule(const std::string&, const std::vector<SourceHeader>&, const std::string&) {
  throw_no_cuda("NVRTC");
}
RuntimeModule::~RuntimeModule() = default;
std::vector<std::unique_ptr<RuntimeModule>> RuntimeModule::compile_all(const std::vector<std::string>&,
                                                                       const std::vector<SourceHeader>&,
                                                                       const std::string&) {
  throw_no_cuda("NVRTC");
}
const void* RuntimeModule::kernel(const std::string&) const { throw_no_cuda("NVRTC"); }

}  // namespace quasar::device
