#include "quasar/device/context.hpp"

namespace quasar::device {

Context::Context(Backend backend) : backend_(backend) {
  if (backend == Backend::Cuda && !built_with_cuda()) throw_no_cuda("a GPU context");
}

Context::~Context() = default;

}  // namespace quasar::device
