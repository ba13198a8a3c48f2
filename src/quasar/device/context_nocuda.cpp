// The context of a build without CUDA: only CPU contexts exist (the constructor refuses the GPU).
#include "quasar/device/context.hpp"

namespace quasar::device {

void Context::synchronize() {}

CudaLibraries& Context::cuda() { throw_no_cuda("the GPU libraries"); }

}  // namespace quasar::device
