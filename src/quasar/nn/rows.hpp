#pragma once
// Networks over many rows at once on the CPU (the Deep Potential's embedding over every neighbour
// of a block of atoms, its fitting over the atoms): each layer is a matrix product of the rows with
// the weights followed by the activation, in double. Every row's arithmetic is the same whatever the
// other rows are (rows are independent, summed over the layer's inputs in order), so a frame gives
// the same bits alone or in a batch. The loops are compiled for AVX-512, AVX2 and the baseline
// x86-64 and picked at load time (device/cpu_clones.hpp); tanh is evaluated in vector registers
// (tanh_fast, a few units in the last place).
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "quasar/nn/network.hpp"

namespace quasar::nn {

// tanh(x) from expm1(-2|x|) = 2^n (1 + q) - 1, n = round(-2|x| / ln 2), q = exp(r) - 1 for
// |r| <= ln 2 / 2 (Taylor series to r^13); without branches or library calls, so that loops over it
// vectorise. Within 3 units in the last place of tanh (measured over 2e7 arguments from 4e-18 to 25);
// NaN stays NaN, +-inf give +-1.
inline double tanh_fast(double x) {
  const double ax = std::fabs(x) > 20.0 ? 20.0 : std::fabs(x);  // tanh(20) = 1 - 8e-18 rounds to 1
  const double y = -2.0 * ax;
  // n = round(y / ln 2) by the 1.5 * 2^52 shifter, whose low bits then hold n for the scale 2^n.
  const double shifter = 6755399441055744.0;
  const double big = y * 1.4426950408889634 + shifter;
  const double n = big - shifter;
  const double r = (y - n * 6.93147180369123816490e-01) - n * 1.90821492927058770002e-10;  // ln 2 in two parts
  double q = 1.0 / 6227020800.0;  // 1/13!
  q = q * r + 1.0 / 479001600.0;
  q = q * r + 1.0 / 39916800.0;
  q = q * r + 1.0 / 3628800.0;
  q = q * r + 1.0 / 362880.0;
  q = q * r + 1.0 / 40320.0;
  q = q * r + 1.0 / 5040.0;
  q = q * r + 1.0 / 720.0;
  q = q * r + 1.0 / 120.0;
  q = q * r + 1.0 / 24.0;
  q = q * r + 1.0 / 6.0;
  q = q * r + 0.5;
  q = q * r + 1.0;
  q *= r;                                                                                  // exp(r) - 1
  const double s = std::bit_cast<double>((std::bit_cast<std::uint64_t>(big) + 1023) << 52);  // 2^n, n in [-58, 0]
  const double em1 = s * q + (s - 1.0);                                                  // expm1(-2|x|)
  return std::copysign(-em1 / (2.0 + em1), x);
}

// y (rows x n, row stride ldy) = init + x (rows x k, row stride ldx) w, for w of k rows of
// padded_width(n) values (the columns past n zero) and init padded_width(n) values or null (0). Each
// output is its init plus the products summed over k in order, whatever the number of rows.
constexpr int kRowTile = 8;
inline int padded_width(int n) { return (n + kRowTile - 1) / kRowTile * kRowTile; }
void product_rows(const double* x, long ldx, int rows, int k, const double* w, int n, const double* init, double* y,
                  long ldy);

// A network prepared for rows: each layer's weights with the outputs padded to a multiple of 8 (zero
// columns, so that the product runs on whole tiles of 8 outputs), and transposed (the inputs padded
// likewise) for the backward pass.
struct RowsLayer {
  int in = 0, out = 0, in_padded = 0, out_padded = 0, residual = 0;
  Activation act = Activation::Tanh;
  std::vector<double> w;   // in x out_padded
  std::vector<double> wt;  // out x in_padded
  std::vector<double> b;   // out_padded
  std::vector<double> idt;  // out, or empty
};
struct RowsNet {
  std::vector<RowsLayer> layers;
  RowsNet() = default;
  explicit RowsNet(const Network& net);
  int in_dim() const { return layers.empty() ? 0 : layers.front().in; }
  int out_dim() const { return layers.empty() ? 0 : layers.back().out; }
};

// Work arrays of a network evaluated over rows, kept between calls (no allocation once grown).
struct RowsTrace {
  int rows = 0;
  // in[l]: layer l's input for l >= 1 (rows x in; layer 0's is the caller's); out: the network's
  // output (rows x out); slope[l]: act'(z) times idt, layer l's local derivative (rows x out).
  std::vector<std::vector<double>> in, slope;
  std::vector<double> out;
};

// The network on `rows` rows of x (rows x in_dim, row-major), keeping what backward_rows needs.
void forward_rows(const RowsNet& net, const double* x, int rows, RowsTrace& t);
// Gradient with respect to the input of every row (rows x in_dim) from the gradient with respect to
// the output (rows x out_dim), given the forward trace.
void backward_rows(const RowsNet& net, const RowsTrace& t, const double* grad_out, double* grad_in,
                   std::vector<double>& work);

// A network of one input in forward mode over `rows` scalars x: y (rows x out_dim) and dy/dx (rows
// x out_dim). work holds the layers' intermediate rows.
void forward_tangent_rows(const RowsNet& net, const double* x, int rows, double* y, double* dy,
                          std::vector<double>& work);

}  // namespace quasar::nn
