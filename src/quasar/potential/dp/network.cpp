#include "quasar/potential/dp/network.hpp"

#include <algorithm>
#include <cmath>

#include "quasar/core/error.hpp"

namespace quasar::dp {

Activation parse_activation(const std::string& name) {
  if (name == "tanh") return Activation::Tanh;
  if (name == "relu") return Activation::Relu;
  if (name == "relu6") return Activation::Relu6;
  if (name == "gelu") return Activation::Gelu;
  if (name == "gelu_tf") return Activation::GeluTf;
  if (name == "softplus") return Activation::Softplus;
  if (name == "sigmoid") return Activation::Sigmoid;
  if (name == "silu") return Activation::Silu;
  if (name == "none" || name == "linear" || name.empty()) return Activation::Linear;
  throw Error("unsupported activation function '" + name +
              "' (supported: tanh, relu, relu6, gelu, gelu_tf, softplus, sigmoid, silu, none, linear)");
}

void Network::forward(const double* x, Trace& t) const {
  t.acts.resize(layers.size() + 1);
  t.pre.resize(layers.size());
  t.acts[0].assign(x, x + in_dim());
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const Layer& L = layers[l];
    const std::vector<double>& in = t.acts[l];
    std::vector<double>& z = t.pre[l];
    z.assign(L.b.begin(), L.b.end());
    for (int i = 0; i < L.in; ++i) {
      const double xi = in[i];
      const double* wr = &L.w[static_cast<std::size_t>(i) * L.out];
      for (int o = 0; o < L.out; ++o) z[o] += xi * wr[o];
    }
    std::vector<double>& y = t.acts[l + 1];
    y.resize(L.out);
    const int res = L.residual();
    for (int o = 0; o < L.out; ++o) {
      double v = activate(L.act, z[o]);
      if (!L.idt.empty()) v *= L.idt[o];
      if (res == 1) v += in[o];
      else if (res == 2) v += in[o % L.in];
      y[o] = v;
    }
  }
}

void Network::backward(const Trace& t, const double* grad_out, double* grad_in) const {
  std::vector<double> g(grad_out, grad_out + out_dim()), gin;
  for (std::size_t l = layers.size(); l-- > 0;) {
    const Layer& L = layers[l];
    gin.assign(L.in, 0.0);
    const int res = L.residual();
    for (int o = 0; o < L.out; ++o) {
      if (res == 1) gin[o] += g[o];
      else if (res == 2) gin[o % L.in] += g[o];
    }
    for (int o = 0; o < L.out; ++o) {
      double d = g[o] * activate_derivative(L.act, t.pre[l][o]);
      if (!L.idt.empty()) d *= L.idt[o];
      g[o] = d;  // gradient at the pre-activation
    }
    for (int i = 0; i < L.in; ++i) {
      const double* wr = &L.w[static_cast<std::size_t>(i) * L.out];
      double s = 0;
      for (int o = 0; o < L.out; ++o) s += wr[o] * g[o];
      gin[i] += s;
    }
    g.swap(gin);
  }
  std::copy(g.begin(), g.end(), grad_in);
}

void Network::forward_scalar(double x, std::vector<double>& y, std::vector<double>& dy) const {
  y.assign(1, x);
  dy.assign(1, 1.0);
  std::vector<double> z, dz;
  for (const Layer& L : layers) {
    z.assign(L.b.begin(), L.b.end());
    dz.assign(L.out, 0.0);
    for (int i = 0; i < L.in; ++i) {
      const double* wr = &L.w[static_cast<std::size_t>(i) * L.out];
      for (int o = 0; o < L.out; ++o) {
        z[o] += y[i] * wr[o];
        dz[o] += dy[i] * wr[o];
      }
    }
    std::vector<double> ny(L.out), ndy(L.out);
    const int res = L.residual();
    for (int o = 0; o < L.out; ++o) {
      double v = activate(L.act, z[o]), dv = activate_derivative(L.act, z[o]) * dz[o];
      if (!L.idt.empty()) {
        v *= L.idt[o];
        dv *= L.idt[o];
      }
      if (res == 1) {
        v += y[o];
        dv += dy[o];
      } else if (res == 2) {
        v += y[o % L.in];
        dv += dy[o % L.in];
      }
      ny[o] = v;
      ndy[o] = dv;
    }
    y.swap(ny);
    dy.swap(ndy);
  }
}

}  // namespace quasar::dp
