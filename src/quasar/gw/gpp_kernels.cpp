// The CPU reference of the plasmon-pole sums (gpp_kernels.hpp), and the choice of backend.
#include "quasar/gw/gpp_kernels.hpp"

#include <cmath>
#include <string>

#include "quasar/core/error.hpp"

namespace quasar::gw {

void gpp_sums(device::Context& ctx, const GppSizes& n, const Array<double>& ieps, const Array<double>& wtilde,
              const Array<double>& vcoul, const Array<std::complex<double>>& ma, const Array<std::complex<double>>& mb,
              const Array<double>& wx, Array<std::complex<double>>& sx, Array<std::complex<double>>& ch) {
  const auto ng = static_cast<std::size_t>(n.gvectors), nb = static_cast<std::size_t>(n.bands),
             ne = static_cast<std::size_t>(n.energies);
  if (ieps.size() < ng * ng || wtilde.size() < ng * ng || vcoul.size() < ng || ma.size() < nb * ng ||
      mb.size() < nb * ng || wx.size() < nb * ne)
    throw Error("gw gpp_sums: an input is too short for the sizes given");
  sx.resize(nb * ne);
  ch.resize(nb * ne);
  if (ctx.backend() == Backend::Cuda)
    return detail::gpp_sums_gpu(ctx, n, ieps.data(), wtilde.data(), vcoul.data(), ma.data(), mb.data(), wx.data(),
                                sx.data(), ch.data());
  const double limit_one = 1.0 / (4 * 1e-6), tol_zero = 1e-12;
  for (std::size_t b = 0; b < nb; ++b) {
    const bool occupied = static_cast<int>(b) < n.filled;
    const std::complex<double>* a = ma.data() + b * ng;
    const std::complex<double>* m = mb.data() + b * ng;
    for (std::size_t e = 0; e < ne; ++e) {
      const double x = wx[b * ne + e];
      std::complex<double> sx_sum{}, ch_sum{};
      for (std::size_t gp = 0; gp < ng; ++gp) {
        std::complex<double> ssxt{}, scht{};
        for (std::size_t g = 0; g < ng; ++g) {
          const double I = ieps[g + gp * ng], wt = wtilde[g + gp * ng];
          const double wdiff = x - wt, delw = wt / wdiff;
          const double delwr = delw * delw, wdiffr = wdiff * wdiff;
          double ssx = 0, sch = 0;
          if (wdiffr > n.gamma2 && delwr < limit_one) {
            sch = delw * I;
            if (occupied) ssx = wt * wt * I / (x * x - wt * wt);
          } else if (occupied && delwr > tol_zero) {
            ssx = -wt * wt * I * delw / (4 * wt * wt * (delw + 0.5));
          }
          if (std::abs(ssx) > n.sexcut * std::abs(I) && x < 0) ssx = 0;
          ssxt += a[g] * ssx;
          scht += a[g] * sch;
        }
        const std::complex<double> right = std::conj(m[gp]) * vcoul[gp];
        if (occupied) sx_sum -= ssxt * right;
        ch_sum += 0.5 * scht * right;
      }
      sx[b * ne + e] = sx_sum;
      ch[b * ne + e] = ch_sum;
    }
  }
}

}  // namespace quasar::gw
