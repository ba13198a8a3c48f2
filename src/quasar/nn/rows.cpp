#include "quasar/nn/rows.hpp"

#include <algorithm>
#include <cstring>

#include "quasar/core/error.hpp"
#include "quasar/device/cpu_clones.hpp"

namespace quasar::nn {

namespace {

constexpr int kTile = kRowTile;  // outputs per tile: one AVX-512 register, two AVX2, four SSE2
// Eight doubles as one value (GCC's and Clang's vector extension, lowered to the clone's registers).
typedef double Tile __attribute__((vector_size(kTile * sizeof(double))));

int padded(int n) { return padded_width(n); }

// Four rows at a time share each tile of w, in registers.
QUASAR_CPU_CLONES
void product_tiles(const double* __restrict x, long ldx, int rows, int k, const double* __restrict w, int n,
                   const double* __restrict init, double* __restrict y, long ldy) {
  const int np = padded(n);
  for (int r0 = 0; r0 < rows; r0 += 4) {
    const int nr = std::min(4, rows - r0);
    const double* x0 = x + r0 * ldx;
    for (int o0 = 0; o0 < np; o0 += kTile) {
      Tile a0{}, a1{}, a2{}, a3{};
      if (init) {
        std::memcpy(&a0, init + o0, sizeof(Tile));
        a1 = a2 = a3 = a0;
      }
      if (nr == 4) {
        for (int i = 0; i < k; ++i) {
          Tile wi;
          std::memcpy(&wi, w + static_cast<long>(i) * np + o0, sizeof(Tile));
          a0 += x0[i] * wi;
          a1 += x0[ldx + i] * wi;
          a2 += x0[2 * ldx + i] * wi;
          a3 += x0[3 * ldx + i] * wi;
        }
      } else {
        for (int i = 0; i < k; ++i) {
          Tile wi;
          std::memcpy(&wi, w + static_cast<long>(i) * np + o0, sizeof(Tile));
          a0 += x0[i] * wi;
          if (nr > 1) a1 += x0[ldx + i] * wi;
          if (nr > 2) a2 += x0[2 * ldx + i] * wi;
        }
      }
      const Tile acc[4] = {a0, a1, a2, a3};
      const int cols = std::min(kTile, n - o0);
      for (int r = 0; r < nr; ++r) {
        double* yr = y + (r0 + r) * ldy + o0;
        if (cols == kTile) std::memcpy(yr, &acc[r], sizeof(Tile));
        else
          for (int l = 0; l < cols; ++l) yr[l] = acc[r][l];
      }
    }
  }
}

// In place on z (rows x out): y = act(z) idt (+ the residual of x), and slope = act'(z) idt. With
// dz (forward mode) also dz <- slope dz (+ the residual of dx; dx null: 1, the first layer of a
// one-input net).
QUASAR_CPU_CLONES
void activate_rows(const RowsLayer& L, const double* __restrict x, const double* __restrict dx, int rows,
                   double* __restrict z, double* __restrict slope, double* __restrict dz) {
  const int in = L.in, out = L.out;
  const Activation act = L.act;
  const double* __restrict idt = L.idt.empty() ? nullptr : L.idt.data();
  for (int r = 0; r < rows; ++r) {
    double* __restrict zr = z + static_cast<long>(r) * out;
    double* __restrict sr = slope + static_cast<long>(r) * out;
    if (act == Activation::Tanh) {
      for (int o = 0; o < out; ++o) {
        const double t = tanh_fast(zr[o]);
        zr[o] = t;
        sr[o] = 1.0 - t * t;
      }
    } else {
      for (int o = 0; o < out; ++o) {
        double y, d;
        activate_both(act, zr[o], y, d);
        zr[o] = y;
        sr[o] = d;
      }
    }
    if (idt)
      for (int o = 0; o < out; ++o) {
        zr[o] *= idt[o];
        sr[o] *= idt[o];
      }
    if (dz) {
      double* __restrict dzr = dz + static_cast<long>(r) * out;
      for (int o = 0; o < out; ++o) dzr[o] *= sr[o];
    }
    // Output o adds input o (residual 1) or input o % in (2: the input twice).
    for (int part = 0; part < L.residual; ++part) {
      const double* __restrict xr = x + static_cast<long>(r) * in;
      double* __restrict zp = zr + part * in;
      for (int o = 0; o < in; ++o) zp[o] += xr[o];
      if (!dz) continue;
      double* __restrict dzp = dz + static_cast<long>(r) * out + part * in;
      if (!dx) {
        for (int o = 0; o < in; ++o) dzp[o] += 1.0;
      } else {
        const double* __restrict dxr = dx + static_cast<long>(r) * in;
        for (int o = 0; o < in; ++o) dzp[o] += dxr[o];
      }
    }
  }
}

// One layer backwards before its product: `keep` (rows x in) gets the residual's share of the
// incoming gradient g (rows x out), and g becomes the gradient at the pre-activation, g * slope.
QUASAR_CPU_CLONES
void backward_scale(const RowsLayer& L, const double* __restrict slope, int rows, double* __restrict g,
                    double* __restrict keep) {
  const int in = L.in, out = L.out;
  for (int r = 0; r < rows && L.residual; ++r) {
    const double* __restrict gr = g + static_cast<long>(r) * out;
    double* __restrict kr = keep + static_cast<long>(r) * in;
    for (int i = 0; i < in; ++i) kr[i] = gr[i];
    if (L.residual == 2)
      for (int i = 0; i < in; ++i) kr[i] += gr[in + i];
  }
  const long n = static_cast<long>(rows) * out;
  for (long e = 0; e < n; ++e) g[e] *= slope[e];
}

}  // namespace

void product_rows(const double* x, long ldx, int rows, int k, const double* w, int n, const double* init, double* y,
                  long ldy) {
  product_tiles(x, ldx, rows, k, w, n, init, y, ldy);
}

RowsNet::RowsNet(const Network& net) {
  for (const Layer& src : net.layers) {
    RowsLayer L;
    L.in = src.in;
    L.out = src.out;
    L.in_padded = padded(src.in);
    L.out_padded = padded(src.out);
    L.residual = src.residual();
    L.act = src.act;
    L.idt = src.idt;
    L.w.assign(static_cast<std::size_t>(L.in) * L.out_padded, 0.0);
    L.wt.assign(static_cast<std::size_t>(L.out) * L.in_padded, 0.0);
    L.b.assign(L.out_padded, 0.0);
    std::copy(src.b.begin(), src.b.end(), L.b.begin());
    for (int i = 0; i < L.in; ++i)
      for (int o = 0; o < L.out; ++o) {
        const double v = src.w[static_cast<std::size_t>(i) * L.out + o];
        L.w[static_cast<std::size_t>(i) * L.out_padded + o] = v;
        L.wt[static_cast<std::size_t>(o) * L.in_padded + i] = v;
      }
    layers.push_back(std::move(L));
  }
}

void forward_rows(const RowsNet& net, const double* x, int rows, RowsTrace& t) {
  const std::size_t layers = net.layers.size();
  t.rows = rows;
  t.in.resize(layers);
  t.slope.resize(layers);
  const double* input = x;
  for (std::size_t l = 0; l < layers; ++l) {
    const RowsLayer& L = net.layers[l];
    std::vector<double>& y = l + 1 < layers ? t.in[l + 1] : t.out;
    y.resize(static_cast<std::size_t>(rows) * L.out);
    t.slope[l].resize(static_cast<std::size_t>(rows) * L.out);
    product_rows(input, L.in, rows, L.in, L.w.data(), L.out, L.b.data(), y.data(), L.out);
    activate_rows(L, input, nullptr, rows, y.data(), t.slope[l].data(), nullptr);
    input = y.data();
  }
}

void backward_rows(const RowsNet& net, const RowsTrace& t, const double* grad_out, double* grad_in,
                   std::vector<double>& work) {
  const int rows = t.rows;
  int widest = 0;
  for (const RowsLayer& L : net.layers) widest = std::max({widest, L.in, L.out});
  const std::size_t size = static_cast<std::size_t>(rows) * widest;
  work.resize(3 * size);
  double* g = work.data();
  double* gin = work.data() + size;
  double* product = work.data() + 2 * size;
  std::copy(grad_out, grad_out + static_cast<std::size_t>(rows) * net.out_dim(), g);
  for (std::size_t l = net.layers.size(); l-- > 0;) {
    const RowsLayer& L = net.layers[l];
    double* target = l == 0 ? grad_in : gin;
    backward_scale(L, t.slope[l].data(), rows, g, product);
    product_rows(g, L.out, rows, L.out, L.wt.data(), L.in, nullptr, target, L.in);
    if (L.residual) {
      const long n = static_cast<long>(rows) * L.in;
      for (long e = 0; e < n; ++e) target[e] += product[e];
    }
    std::swap(g, gin);
  }
}

void forward_tangent_rows(const RowsNet& net, const double* x, int rows, double* y, double* dy,
                          std::vector<double>& work) {
  if (net.in_dim() != 1) throw Error("forward_tangent_rows: the network must take one input");
  const std::size_t layers = net.layers.size();
  int widest = 0;
  for (const RowsLayer& L : net.layers) widest = std::max(widest, L.out);
  const std::size_t size = static_cast<std::size_t>(rows) * widest;
  work.resize(5 * size);
  // Ping-pong between two sets of (value, tangent) rows; the last layer writes y and dy; the slopes
  // are scratch.
  double *v[2] = {work.data(), work.data() + size}, *d[2] = {work.data() + 2 * size, work.data() + 3 * size};
  double* slope = work.data() + 4 * size;
  const double* in = x;
  const double* din = nullptr;
  for (std::size_t l = 0; l < layers; ++l) {
    const RowsLayer& L = net.layers[l];
    const bool last = l + 1 == layers;
    double* z = last ? y : v[l % 2];
    double* dz = last ? dy : d[l % 2];
    product_rows(in, L.in, rows, L.in, L.w.data(), L.out, L.b.data(), z, L.out);
    if (l == 0) {
      // d(x W)/dx for the one input: W's row, the same for every row.
      for (int r = 0; r < rows; ++r) std::copy_n(L.w.data(), L.out, dz + static_cast<long>(r) * L.out);
    } else {
      product_rows(din, L.in, rows, L.in, L.w.data(), L.out, nullptr, dz, L.out);
    }
    activate_rows(L, in, din, rows, z, slope, dz);
    in = z;
    din = dz;
  }
}

}  // namespace quasar::nn
