// Device memory entry points of a build without CUDA: every call reports that CUDA is missing.
#include "quasar/device/backend.hpp"
#include "quasar/device/gather.hpp"

namespace quasar {

bool built_with_cuda() { return false; }
bool cuda_available() { return false; }
std::vector<std::string> gpu_descriptions() { return {"none (built without CUDA)"}; }

namespace device {
void* allocate(std::size_t) { throw_no_cuda("device memory"); }
void release(void*) noexcept {}
void* allocate_pinned(std::size_t) { throw_no_cuda("page-locked memory"); }
void release_pinned(void*) noexcept {}
void copy_to_device(void*, const void*, std::size_t) { throw_no_cuda("device memory"); }
void copy_to_host(void*, const void*, std::size_t) { throw_no_cuda("device memory"); }
void copy_on_device(void*, const void*, std::size_t) { throw_no_cuda("device memory"); }
void fill_zero(void*, std::size_t) { throw_no_cuda("device memory"); }
void synchronize() {}
std::size_t memory_in_use() { return 0; }
void select_gpu(int) {}
void split_rows(const double*, double*, double*, double*, int) { throw_no_cuda("device memory"); }
void join_rows(const double*, const double*, const double*, double*, int) { throw_no_cuda("device memory"); }
}  // namespace device

}  // namespace quasar
