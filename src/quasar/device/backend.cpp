#include "quasar/device/backend.hpp"

#include "quasar/core/error.hpp"

namespace quasar {

Backend parse_backend(const std::string& name) {
  if (name == "cpu") return Backend::Cpu;
  if (name == "cuda" || name == "gpu") {
    if (!built_with_cuda()) throw_no_cuda("device 'cuda'");
    return Backend::Cuda;
  }
  if (name == "auto") return cuda_available() ? Backend::Cuda : Backend::Cpu;
  throw Error("unknown device '" + name + "' (valid: auto, cpu, cuda)");
}

const char* backend_name(Backend b) { return b == Backend::Cuda ? "cuda" : "cpu"; }

void throw_no_cuda(const char* what) {
  throw Error(std::string(what) + " needs the CUDA backend, but this Quasar was built without CUDA "
              "(configure with -DQUASAR_CUDA=ON on a machine with the CUDA toolkit)");
}

}  // namespace quasar
