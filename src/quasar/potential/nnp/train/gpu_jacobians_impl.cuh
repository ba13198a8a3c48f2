#pragma once
// GpuJacobians' state on the GPU (gpu_jacobians.hpp), shared by gpu_jacobians.cu (rows through the
// networks) and gpu_inputs.cu (the inputs and their derivatives computed on the GPU).
#include <cublas_v2.h>

#include <memory>
#include <vector>

#include "quasar/nn/dual_layers.cuh"
#include "quasar/potential/nnp/nnp_tables.cuh"
#include "quasar/potential/nnp/train/fused_rows.cuh"
#include "quasar/potential/nnp/train/gpu_jacobians.hpp"

namespace quasar::nnp {

struct GpuJacobians::Impl {
  cublasHandle_t cublas = nullptr;
  struct Element {
    nn::Network net;               // shapes and activations
    std::vector<long> w_at, b_at;  // each layer's weights and biases in the element's block
    std::vector<double> factors;   // per layer: d(layer weight) / d(file weight)
    long offset = 0, count = 0;    // the element's block in the combined order
    int inputs = 0;
    Array<double> scale{Backend::Cuda};  // input scale / conv_length
  };
  std::vector<Element> elements;
  // The descriptor's tables and the inputs' scale and shift (inputs_kernel.cuh), per element.
  std::vector<DeviceTables<double>> tables;
  Array<double> atomic_number{Backend::Cuda}, input_scale{Backend::Cuda}, input_shift{Backend::Cuda};
  std::vector<int> input_at;  // element e's scale and shift from input_at[e]
  Array<double> params{Backend::Cuda}, grads{Backend::Cuda};
  // Per parameter: d(network parameter) / d(weight in the combined order), the layer's factor.
  Array<double> factor{Backend::Cuda};
  // Every atom's inputs and derivatives; per structure where each atom's start.
  Array<double> x_all{Backend::Cuda}, d_all{Backend::Cuda};
  long x_used = 0, d_used = 0;
  struct Meta {
    std::vector<int> element;
    std::vector<long> x_at, d_at;
    std::vector<std::vector<int>> neighbors;
  };
  std::vector<std::unique_ptr<Meta>> structures;
  // The networks as the fused kernel reads them, and whether it takes them (fused_rows.cuh).
  fused::Job job;
  bool fused = false;
  // Scratch of one call: the rows (fused::Rows' arrays, one upload), the sums, the GEMM path's trace.
  Array<long> spec{Backend::Cuda};
  Array<double> sums{Backend::Cuda};
  Array<double> trace{Backend::Cuda}, out{Backend::Cuda};
  nn::DualScratch<double> scratch;

  // The rows of one call per element: inputs at row_x, moves (with tangents) begin / code.
  struct ElementRows {
    std::vector<long> row_x, begin{0}, code;
  };
  double evaluate(std::vector<ElementRows>& rows, bool tangent, double sign, double* jacobian);

  nn::DualNet<double> dual_net(int e) {
    const Element& el = elements[e];
    nn::DualNet<double> d;
    for (std::size_t l = 0; l < el.net.layers.size(); ++l) {
      const nn::Layer& L = el.net.layers[l];
      auto over = [&](double* base) -> nn::LayerRef<double, double> {
        double* w = base + el.offset + el.w_at[l];
        return {L.in, L.out, 0, L.act, w, w, base + el.offset + el.b_at[l], nullptr};
      };
      d.layers.push_back(over(params.data()));
      d.grads.push_back(over(grads.data()));
    }
    return d;
  }

  // Runs element e over `rows` rows whose inputs and tangents are in the trace's first block; returns
  // the sum of the outputs (tangent = false) or of their tangents, and with `reverse` adds the
  // gradient of that sum times `sign` to grads.
  double run(int e, long rows, bool tangent, double sign, bool reverse);
  // grads (each layer times its factor) added to the Jacobian.
  void add_gradient(double* jacobian);
};

}  // namespace quasar::nnp
