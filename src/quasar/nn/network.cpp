#include "quasar/nn/network.hpp"

#include <algorithm>
#include <cmath>

#include "quasar/core/error.hpp"

namespace quasar::nn {

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

const char* activation_name(Activation a) {
  switch (a) {
    case Activation::Tanh: return "tanh";
    case Activation::Relu: return "relu";
    case Activation::Relu6: return "relu6";
    case Activation::Gelu: return "gelu";
    case Activation::GeluTf: return "gelu_tf";
    case Activation::Softplus: return "softplus";
    case Activation::Sigmoid: return "sigmoid";
    case Activation::Silu: return "silu";
    case Activation::Linear: return "none";
    case Activation::Gaussian: return "gaussian";
    case Activation::Cos: return "cos";
    case Activation::ReverseSigmoid: return "reverse_sigmoid";
    case Activation::ExpNeg: return "exp_neg";
    case Activation::Square: return "square";
  }
  return "none";
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
  std::vector<double> d2y;
  forward_scalar(x, y, dy, d2y);
}

// Forward mode to second order: z' = x' W, z'' = x'' W, a' = f'(z) z', a'' = f''(z) z'^2 + f'(z) z''.
void Network::forward_scalar(double x, std::vector<double>& y, std::vector<double>& dy, std::vector<double>& d2y) const {
  y.assign(1, x);
  dy.assign(1, 1.0);
  d2y.assign(1, 0.0);
  std::vector<double> z, dz, d2z, ny, ndy, nd2y;
  for (const Layer& L : layers) {
    z.assign(L.b.begin(), L.b.end());
    dz.assign(L.out, 0.0);
    d2z.assign(L.out, 0.0);
    for (int i = 0; i < L.in; ++i) {
      const double* wr = &L.w[static_cast<std::size_t>(i) * L.out];
      for (int o = 0; o < L.out; ++o) {
        z[o] += y[i] * wr[o];
        dz[o] += dy[i] * wr[o];
        d2z[o] += d2y[i] * wr[o];
      }
    }
    ny.resize(L.out);
    ndy.resize(L.out);
    nd2y.resize(L.out);
    const int res = L.residual();
    for (int o = 0; o < L.out; ++o) {
      const double f1 = activate_derivative(L.act, z[o]);
      double v = activate(L.act, z[o]), dv = f1 * dz[o],
             d2v = activate_second_derivative(L.act, z[o]) * dz[o] * dz[o] + f1 * d2z[o];
      if (!L.idt.empty()) {
        v *= L.idt[o];
        dv *= L.idt[o];
        d2v *= L.idt[o];
      }
      if (res) {
        const int q = res == 1 ? o : o % L.in;
        v += y[q];
        dv += dy[q];
        d2v += d2y[q];
      }
      ny[o] = v;
      ndy[o] = dv;
      nd2y[o] = d2v;
    }
    y.swap(ny);
    dy.swap(ndy);
    d2y.swap(nd2y);
  }
}

}  // namespace quasar::nn
