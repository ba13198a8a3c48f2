#include "quasar/nn/dual_net.hpp"

#include <algorithm>

namespace quasar::nn {

void NetworkGrad::zero_like(const Network& n) {
  w.resize(n.layers.size());
  b.resize(n.layers.size());
  idt.resize(n.layers.size());
  for (std::size_t l = 0; l < n.layers.size(); ++l) {
    w[l].assign(n.layers[l].w.size(), 0.0);
    b[l].assign(n.layers[l].b.size(), 0.0);
    idt[l].assign(n.layers[l].idt.size(), 0.0);
  }
}

void NetworkGrad::add(const NetworkGrad& o, double scale) {
  for (std::size_t l = 0; l < w.size(); ++l) {
    for (std::size_t k = 0; k < w[l].size(); ++k) w[l][k] += scale * o.w[l][k];
    for (std::size_t k = 0; k < b[l].size(); ++k) b[l][k] += scale * o.b[l][k];
    for (std::size_t k = 0; k < idt[l].size(); ++k) idt[l][k] += scale * o.idt[l][k];
  }
}

void dual_forward(const Network& n, const double* x, const double* dx, DualTrace& t, std::vector<double>& y,
                  std::vector<double>& dy) {
  const std::size_t L = n.layers.size();
  t.x.resize(L);
  t.dx.resize(L);
  t.z.resize(L);
  t.dz.resize(L);
  y.assign(x, x + n.in_dim());
  dy.assign(dx, dx + n.in_dim());
  for (std::size_t l = 0; l < L; ++l) {
    const Layer& ly = n.layers[l];
    t.x[l] = y;
    t.dx[l] = dy;
    std::vector<double>& z = t.z[l];
    std::vector<double>& dz = t.dz[l];
    z.assign(ly.b.begin(), ly.b.end());
    dz.assign(ly.out, 0.0);
    for (int i = 0; i < ly.in; ++i) {
      const double* wr = &ly.w[static_cast<std::size_t>(i) * ly.out];
      for (int o = 0; o < ly.out; ++o) {
        z[o] += t.x[l][i] * wr[o];
        dz[o] += t.dx[l][i] * wr[o];
      }
    }
    y.resize(ly.out);
    dy.resize(ly.out);
    const int res = ly.residual();
    for (int o = 0; o < ly.out; ++o) {
      const double s = ly.idt.empty() ? 1.0 : ly.idt[o];
      y[o] = activate(ly.act, z[o]) * s;
      dy[o] = activate_derivative(ly.act, z[o]) * dz[o] * s;
      if (res) {
        const int q = res == 1 ? o : o % ly.in;
        y[o] += t.x[l][q];
        dy[o] += t.dx[l][q];
      }
    }
  }
}

void dual_backward(const Network& n, const DualTrace& t, const double* gy, const double* gdy, NetworkGrad& g,
                   double* gx, double* gdx) {
  std::vector<double> go(gy, gy + n.out_dim()), gdo(gdy, gdy + n.out_dim()), gi, gdi, gz, gdz;
  for (std::size_t l = n.layers.size(); l-- > 0;) {
    const Layer& ly = n.layers[l];
    const std::vector<double>&x = t.x[l], &dx = t.dx[l], &z = t.z[l], &dz = t.dz[l];
    gi.assign(ly.in, 0.0);
    gdi.assign(ly.in, 0.0);
    gz.resize(ly.out);
    gdz.resize(ly.out);
    const int res = ly.residual();
    for (int o = 0; o < ly.out; ++o) {
      if (res) {
        const int q = res == 1 ? o : o % ly.in;
        gi[q] += go[o];
        gdi[q] += gdo[o];
      }
      const double f1 = activate_derivative(ly.act, z[o]);
      double ga = go[o], gda = gdo[o];
      if (!ly.idt.empty()) {
        g.idt[l][o] += ga * activate(ly.act, z[o]) + gda * f1 * dz[o];
        ga *= ly.idt[o];
        gda *= ly.idt[o];
      }
      gz[o] = ga * f1 + gda * activate_second_derivative(ly.act, z[o]) * dz[o];
      gdz[o] = gda * f1;
      g.b[l][o] += gz[o];
    }
    for (int i = 0; i < ly.in; ++i) {
      const double* wr = &ly.w[static_cast<std::size_t>(i) * ly.out];
      double* gw = &g.w[l][static_cast<std::size_t>(i) * ly.out];
      double si = 0, sdi = 0;
      for (int o = 0; o < ly.out; ++o) {
        gw[o] += x[i] * gz[o] + dx[i] * gdz[o];
        si += wr[o] * gz[o];
        sdi += wr[o] * gdz[o];
      }
      gi[i] += si;
      gdi[i] += sdi;
    }
    go.swap(gi);
    gdo.swap(gdi);
  }
  if (gx) std::copy(go.begin(), go.end(), gx);
  if (gdx) std::copy(gdo.begin(), gdo.end(), gdx);
}

}  // namespace quasar::nn
