#include "quasar/nn/parameters.hpp"

#include <algorithm>

namespace quasar::nn {

std::vector<LayerOffsets> append_parameters(const Network& n, std::vector<double>& flat) {
  std::vector<LayerOffsets> at;
  for (const Layer& L : n.layers) {
    LayerOffsets o;
    o.w = static_cast<long>(flat.size());
    flat.insert(flat.end(), L.w.begin(), L.w.end());
    o.b = static_cast<long>(flat.size());
    flat.insert(flat.end(), L.b.begin(), L.b.end());
    if (!L.idt.empty()) {
      o.idt = static_cast<long>(flat.size());
      flat.insert(flat.end(), L.idt.begin(), L.idt.end());
    }
    at.push_back(o);
  }
  return at;
}

void read_parameters(const std::vector<double>& flat, const std::vector<LayerOffsets>& at, Network& n) {
  auto put = [&](long off, std::vector<double>& v) { std::copy(flat.begin() + off, flat.begin() + off + v.size(), v.begin()); };
  for (std::size_t l = 0; l < at.size(); ++l) {
    put(at[l].w, n.layers[l].w);
    put(at[l].b, n.layers[l].b);
    if (at[l].idt >= 0) put(at[l].idt, n.layers[l].idt);
  }
}

void append_gradient(const NetworkGrad& g, std::vector<double>& flat) {
  for (std::size_t l = 0; l < g.w.size(); ++l) {
    flat.insert(flat.end(), g.w[l].begin(), g.w[l].end());
    flat.insert(flat.end(), g.b[l].begin(), g.b[l].end());
    flat.insert(flat.end(), g.idt[l].begin(), g.idt[l].end());
  }
}

}  // namespace quasar::nn
