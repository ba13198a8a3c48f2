// The plasmon-pole sums on the GPU in double, queued on the context's stream; the CPU reference is
// gpp_kernels.cpp (the same arithmetic, term by term). One block per (n1, energy, G') reduces over G;
// a second kernel adds each (n1, energy)'s G' partials in G' order, so the result does not depend on
// scheduling.
#include <cuComplex.h>

#include <cub/block/block_reduce.cuh>

#include "quasar/device/array.hpp"
#include "quasar/device/context.cuh"
#include "quasar/device/cuda_check.cuh"
#include "quasar/gw/gpp_kernels.hpp"

namespace quasar::gw::detail {

namespace {

constexpr int kBlock = 128;

struct Pair {
  double sx_re, sx_im, ch_re, ch_im;
};

struct PairSum {
  __device__ Pair operator()(const Pair& a, const Pair& b) const {
    return {a.sx_re + b.sx_re, a.sx_im + b.sx_im, a.ch_re + b.ch_re, a.ch_im + b.ch_im};
  }
};

// blockIdx.x: G'; blockIdx.y: n1 energies + e. partial[(n1 energies + e) ng + G'].
__global__ void gpp_partials(int ng, int energies, int filled, double gamma2, double sexcut,
                             const double* __restrict__ ieps, const double* __restrict__ wtilde,
                             const double* __restrict__ vcoul, const cuDoubleComplex* __restrict__ ma,
                             const cuDoubleComplex* __restrict__ mb, const double* __restrict__ wx,
                             Pair* __restrict__ partial) {
  using Reduce = cub::BlockReduce<Pair, kBlock>;
  __shared__ typename Reduce::TempStorage storage;
  const int gp = blockIdx.x, be = blockIdx.y;
  const int b = be / energies;
  const bool occupied = b < filled;
  const double x = wx[be];
  const double limit_one = 1.0 / (4 * 1e-6), tol_zero = 1e-12;
  const cuDoubleComplex* a = ma + static_cast<std::size_t>(b) * ng;
  Pair mine{0, 0, 0, 0};
  for (int g = threadIdx.x; g < ng; g += kBlock) {
    const std::size_t at = static_cast<std::size_t>(g) + static_cast<std::size_t>(gp) * ng;
    const double I = ieps[at], wt = wtilde[at];
    const double wdiff = x - wt, delw = wt / wdiff;
    const double delwr = delw * delw, wdiffr = wdiff * wdiff;
    double ssx = 0, sch = 0;
    if (wdiffr > gamma2 && delwr < limit_one) {
      sch = delw * I;
      if (occupied) ssx = wt * wt * I / (x * x - wt * wt);
    } else if (occupied && delwr > tol_zero) {
      ssx = -wt * wt * I * delw / (4 * wt * wt * (delw + 0.5));
    }
    if (fabs(ssx) > sexcut * fabs(I) && x < 0) ssx = 0;
    const cuDoubleComplex m = a[g];
    mine.sx_re += m.x * ssx;
    mine.sx_im += m.y * ssx;
    mine.ch_re += m.x * sch;
    mine.ch_im += m.y * sch;
  }
  const Pair total = Reduce(storage).Reduce(mine, PairSum());
  if (threadIdx.x == 0) {
    // times conj(M_m(G')) v(G')
    const cuDoubleComplex r = mb[static_cast<std::size_t>(b) * ng + gp];
    const double v = vcoul[gp];
    const double rr = r.x * v, ri = -r.y * v;
    Pair out;
    out.sx_re = occupied ? -(total.sx_re * rr - total.sx_im * ri) : 0.0;
    out.sx_im = occupied ? -(total.sx_re * ri + total.sx_im * rr) : 0.0;
    out.ch_re = 0.5 * (total.ch_re * rr - total.ch_im * ri);
    out.ch_im = 0.5 * (total.ch_re * ri + total.ch_im * rr);
    partial[static_cast<std::size_t>(be) * ng + gp] = out;
  }
}

__global__ void gpp_totals(int ng, int count, const Pair* __restrict__ partial, cuDoubleComplex* __restrict__ sx,
                           cuDoubleComplex* __restrict__ ch) {
  const int be = blockIdx.x * blockDim.x + threadIdx.x;
  if (be >= count) return;
  Pair s{0, 0, 0, 0};
  for (int gp = 0; gp < ng; ++gp) {
    const Pair p = partial[static_cast<std::size_t>(be) * ng + gp];
    s.sx_re += p.sx_re, s.sx_im += p.sx_im, s.ch_re += p.ch_re, s.ch_im += p.ch_im;
  }
  sx[be] = make_cuDoubleComplex(s.sx_re, s.sx_im);
  ch[be] = make_cuDoubleComplex(s.ch_re, s.ch_im);
}

}  // namespace

void gpp_sums_gpu(device::Context& ctx, const GppSizes& n, const double* ieps, const double* wtilde, const double* vcoul,
                  const std::complex<double>* ma, const std::complex<double>* mb, const double* wx,
                  std::complex<double>* sx, std::complex<double>* ch) {
  const int count = n.bands * n.energies;
  if (count == 0 || n.gvectors == 0) return;
  if (count > 65535) throw Error("gw gpp_sums: at most 65535 band-energy pairs per call");
  Array<double> partial(Backend::Cuda, static_cast<std::size_t>(count) * n.gvectors * 4);
  const dim3 grid(static_cast<unsigned>(n.gvectors), static_cast<unsigned>(count));
  gpp_partials<<<grid, kBlock, 0, ctx.cuda().stream>>>(
      n.gvectors, n.energies, n.filled, n.gamma2, n.sexcut, ieps, wtilde, vcoul,
      reinterpret_cast<const cuDoubleComplex*>(ma), reinterpret_cast<const cuDoubleComplex*>(mb), wx,
      reinterpret_cast<Pair*>(partial.data()));
  QUASAR_LAUNCH_CHECK("gw gpp_partials");
  gpp_totals<<<grid_for(count, kBlock), kBlock, 0, ctx.cuda().stream>>>(
      n.gvectors, count, reinterpret_cast<const Pair*>(partial.data()), reinterpret_cast<cuDoubleComplex*>(sx),
      reinterpret_cast<cuDoubleComplex*>(ch));
  QUASAR_LAUNCH_CHECK("gw gpp_totals");
  ctx.synchronize();  // `partial` is freed on return
}

}  // namespace quasar::gw::detail
