#pragma once
// The element-wise steps of Epsilon's matrix elements, around the batched FFTs: plane-wave
// coefficients scattered onto FFT grids, products of conduction and valence states on the grid, and
// the chosen G-vectors gathered (scaled per pair) into the matrix of the chi0 product. On the CPU the
// loops below (pair_kernels.cpp), on the GPU the kernels of pair_kernels.cu; the arrays are those of
// the context's backend.
#include <complex>
#include <cstddef>

#include "quasar/device/array.hpp"
#include "quasar/device/context.hpp"

namespace quasar::gw {

using Complex = std::complex<double>;

// For vector b < `vectors` and coefficient g < `count`: grids[(first + b) points + index[g]] =
// coefficients[b count + g]. The grids must be zero before (only these points are written).
void scatter_coefficients(device::Context& ctx, int vectors, int count, const Array<Complex>& coefficients,
                          const Array<int>& index, std::size_t points, int first, Array<Complex>& grids);

// For valence v < `valence` (states' grids v_first + v) and conduction c < `conduction` (states'
// grids c_first + c): products[(v conduction + c) points + j] = conj(states[c..][j]) states[v..][j].
void pair_products(device::Context& ctx, int valence, int v_first, int conduction, int c_first, std::size_t points,
                   const Array<Complex>& states, Array<Complex>& products);

// For pair p < `pairs` and G-vector i < `gvectors`: out[p + i pairs] = conj(products[p points +
// index[i]]) scale[p] (the adjoint of the pairs' matrix elements, each pair's column scaled).
void gather_pairs(device::Context& ctx, int pairs, int gvectors, std::size_t points, const Array<Complex>& products,
                  const Array<int>& index, const Array<double>& scale, Array<Complex>& out);

namespace detail {
// The GPU versions (pair_kernels.cu; pair_kernels_nocuda.cpp throws in builds without CUDA).
void scatter_coefficients_gpu(device::Context& ctx, int vectors, int count, const Complex* coefficients,
                              const int* index, std::size_t points, Complex* grids);  // grids: at vector `first`
void pair_products_gpu(device::Context& ctx, int valence, int v_first, int conduction, int c_first, std::size_t points,
                       const Complex* states, Complex* products);
void gather_pairs_gpu(device::Context& ctx, int pairs, int gvectors, std::size_t points, const Complex* products,
                      const int* index, const double* scale, Complex* out);
}  // namespace detail

}  // namespace quasar::gw
