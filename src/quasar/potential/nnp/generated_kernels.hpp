#pragma once
// Symmetry-function kernels written for one model and compiled at run time (device/runtime_kernels):
// every parameter a constant, every pair list's functions straight-line code, the per-function sums
// in registers. The kernels of nnp_kernels.cuh read the same numbers from tables (ElementTables),
// which costs them most of their instructions; these do the same arithmetic in the same order per
// term. They read a centre's neighbours as stage_kernel (nnp_kernels.cuh) leaves them in global
// memory.
#include <string>
#include <vector>

#include "quasar/device/runtime_kernels.hpp"
#include "quasar/potential/nnp/descriptor.hpp"

namespace quasar::nnp {

// The kernels written for a centre element, one per source, each named nnp_generated_kernel.
enum class GeneratedKernel { Functions, Forces, ForcesFixed };
inline constexpr const char* kGeneratedKernel = "nnp_generated_kernel";

// Up to this many functions of a centre element the sums stay in registers; beyond, and for an
// element without functions, the element takes the table kernels.
inline constexpr int kGeneratedMaxFunctions = 64;

// The CUDA source of a kernel of the centres of one element with the plan's functions (atomic
// numbers per element, for the weighted types), arithmetic T in float or double, one block of
// kCentreBlock threads per centre c:
//
//   Functions: (const T* staged, const int* staged_start, int capacity, const double* scale,
//               const double* shift, T* x)
//     x[c * functions + s] = scale[s] G_s + shift[s]
//   Forces, ForcesFixed: (const T* staged, const int* staged_start, int capacity, const T* dedx,
//                         const double* scale, double energy_scale, double* grad, int* status)
//     grad[3 (c capacity + j) + a] = dE_c/d(d_j)_a with dE/dG_s = energy_scale scale[s] dedx[c * functions + s],
//     summed in shared memory in floating point or (ForcesFixed) in 64-bit fixed point.
std::string generated_source(const DescriptorPlan& plan, const std::vector<double>& atomic_numbers, bool single,
                             GeneratedKernel kind);

// The headers that source includes, as NVRTC takes them.
const std::vector<device::SourceHeader>& generated_kernel_headers();

// Shared memory of the generated kernel of an element with `factors` radial factors, for neighbour
// capacity `capacity`.
std::size_t generated_functions_shared_bytes(int factors, int capacity, bool single);
std::size_t generated_forces_shared_bytes(int factors, int capacity, bool single, bool fixed);

}  // namespace quasar::nnp
