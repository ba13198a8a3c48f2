#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace quasar {

enum class Backend { Cpu, Cuda };

// "cpu", "cuda" or "auto" (CUDA when a GPU is usable, else CPU).
Backend parse_backend(const std::string& name);
const char* backend_name(Backend b);
bool built_with_cuda();
// True when built with CUDA and at least one GPU answers.
bool cuda_available();
// Lines describing the GPUs found ("none" reasons included), for `quasar info`.
std::vector<std::string> gpu_descriptions();
[[noreturn]] void throw_no_cuda(const char* what);

namespace device {
// Raw device memory; defined in memory.cu, or in memory_nocuda.cpp where they throw.
void* allocate(std::size_t bytes);
void release(void* p) noexcept;
// Page-locked host memory: copies to and from the device run at the bus's speed, without the
// driver's staging copy of pageable memory.
void* allocate_pinned(std::size_t bytes);
void release_pinned(void* p) noexcept;
void copy_to_device(void* dst, const void* src, std::size_t bytes);
void copy_to_host(void* dst, const void* src, std::size_t bytes);
void copy_on_device(void* dst, const void* src, std::size_t bytes);
void fill_zero(void* dst, std::size_t bytes);
void synchronize();
// Bytes of device memory in use on the current GPU (0 without CUDA).
std::size_t memory_in_use();
// Makes GPU (local_rank mod the number of GPUs) current: one GPU per MPI rank of a node.
void select_gpu(int local_rank);
}  // namespace device

}  // namespace quasar
