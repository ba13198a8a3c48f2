#pragma once
// Networks (nn/network.hpp) uploaded to the GPU for the layer kernels of layers.cuh: one flat array
// per type of weight, and per layer a LayerRef into them.
#include <array>
#include <vector>

#include "quasar/device/array.hpp"
#include "quasar/nn/layers.cuh"
#include "quasar/nn/network.hpp"

namespace quasar::nn {

__host__ __device__ constexpr int padded_to_8(int v) { return (v + 7) / 8 * 8; }

template <class S, class A>
struct NetRef {
  std::vector<LayerRef<S, A>> layers;
};

// The networks with their weights in S (GEMM operands) and A (everything else), and each weight
// matrix zero-padded to multiples of 8 (wp) for kernels that multiply on the tensor cores.
template <class S, class A>
class DeviceNets {
 public:
  void add(const nn::Network& n) { host_.push_back(&n); }
  void upload() {
    std::vector<S> ws, wp;
    std::vector<A> wa;
    std::vector<std::vector<std::array<long, 5>>> off;  // w, wa, b, idt (-1 none), wp
    for (const nn::Network* n : host_) {
      auto& o = off.emplace_back();
      for (const nn::Layer& L : n->layers) {
        std::array<long, 5> k{static_cast<long>(ws.size()), static_cast<long>(wa.size()), 0, -1,
                              static_cast<long>(wp.size())};
        for (double v : L.w) ws.push_back(to<S>(v));
        wa.insert(wa.end(), L.w.begin(), L.w.end());
        k[2] = static_cast<long>(wa.size());
        wa.insert(wa.end(), L.b.begin(), L.b.end());
        if (!L.idt.empty()) {
          k[3] = static_cast<long>(wa.size());
          wa.insert(wa.end(), L.idt.begin(), L.idt.end());
        }
        const int kp = padded_to_8(L.in), np = padded_to_8(L.out);
        wp.resize(wp.size() + static_cast<std::size_t>(kp) * np, to<S>(0.0));
        for (int i = 0; i < L.in; ++i)
          for (int j = 0; j < L.out; ++j) wp[k[4] + static_cast<long>(i) * np + j] = to<S>(L.w[i * L.out + j]);
        o.push_back(k);
      }
    }
    ws_.assign(ws);
    wa_.assign(wa);
    wp_.assign(wp);
    nets_.clear();
    for (std::size_t k = 0; k < host_.size(); ++k) {
      NetRef<S, A> r;
      for (std::size_t l = 0; l < host_[k]->layers.size(); ++l) {
        const nn::Layer& L = host_[k]->layers[l];
        const auto& o = off[k][l];
        r.layers.push_back({L.in, L.out, L.residual(), L.act, ws_.data() + o[0], wa_.data() + o[1], wa_.data() + o[2],
                            o[3] >= 0 ? wa_.data() + o[3] : nullptr, wp_.data() + o[4], padded_to_8(L.out)});
      }
      nets_.push_back(r);
    }
  }
  const NetRef<S, A>& operator[](std::size_t k) const { return nets_[k]; }

 private:
  std::vector<const nn::Network*> host_;
  std::vector<NetRef<S, A>> nets_;
  Array<S> ws_{Backend::Cuda}, wp_{Backend::Cuda};
  Array<A> wa_{Backend::Cuda};
};

}  // namespace quasar::nn
