// The plasmon-pole sums of Sigma (gw/gpp_kernels.hpp) on one device: seconds per call, band-energy-G-G'
// elements per second and the FP64 rate, for synthetic inputs of a chosen size shaped like a real run's
// (eps^-1 near the identity, mode frequencies of 5 to 60 eV with some invalid modes, energies E - E_n1
// from -40 to +40 eV, half the bands occupied).
//   bench_gw_gpp_bench [--device cpu|cuda] [--gvectors N ...] [--bands N] [--energies N] [--repeats N]
// FLOPs per element: 18, counting a division as one (E - w, w / (E - w), two squares, the CH product;
// w^2 I / (E^2 - w^2): five; the four real products of M with the two sums: eight); an occupied band's
// element does them all, an empty band's skips the screened exchange (five), so the rate is an upper
// bound on what was done. The ceiling beside it is the H100's FP64 matrix rate (57 TFLOP/s); the
// vector FP64 units give about half of that, and a division costs several of their operations.
#include <chrono>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "quasar/core/error.hpp"
#include "quasar/device/backend.hpp"
#include "quasar/device/context.hpp"
#include "quasar/gw/gpp_kernels.hpp"

using namespace quasar;

namespace {

constexpr double kFlopsPerElement = 18;

struct Inputs {
  std::vector<double> ieps, wtilde, vcoul, wx;
  std::vector<std::complex<double>> ma, mb;
};

// Deterministic made-up values (a linear congruential sequence), sized as GppSizes says.
Inputs make_inputs(const gw::GppSizes& n) {
  unsigned long long state = 12345;
  auto uniform = [&state] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(state >> 11) / 9007199254740992.0;
  };
  const auto ng = static_cast<std::size_t>(n.gvectors), nb = static_cast<std::size_t>(n.bands);
  Inputs in;
  in.ieps.resize(ng * ng);
  in.wtilde.resize(ng * ng);
  for (std::size_t gp = 0; gp < ng; ++gp)
    for (std::size_t g = 0; g < ng; ++g) {
      const std::size_t at = g + gp * ng;
      in.ieps[at] = (g == gp ? 0.4 : 0.0) + 0.02 * (uniform() - 0.5);
      const double u = uniform();
      in.wtilde[at] = u < 0.02 ? 2e12 : 5.0 + 55.0 * uniform();  // a few invalid modes
    }
  in.vcoul.resize(ng);
  for (std::size_t g = 0; g < ng; ++g) in.vcoul[g] = 1.0 / (0.5 + static_cast<double>(g));
  in.ma.resize(nb * ng);
  in.mb.resize(nb * ng);
  for (std::size_t i = 0; i < nb * ng; ++i) {
    in.ma[i] = {uniform() - 0.5, uniform() - 0.5};
    in.mb[i] = {uniform() - 0.5, uniform() - 0.5};
  }
  in.wx.resize(nb * static_cast<std::size_t>(n.energies));
  for (double& x : in.wx) x = -40.0 + 80.0 * uniform();
  return in;
}

void usage() {
  std::fprintf(stderr,
               "usage: bench_gw_gpp_bench [--device cpu|cuda] [--gvectors N ...] [--bands N] [--energies N] "
               "[--repeats N]\n");
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) try {
  Backend backend = Backend::Cuda;
  std::vector<int> sizes;
  int bands = 256, energies = 2, repeats = 5;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage();
      return argv[++i];
    };
    if (a == "--device") {
      const std::string d = value();
      if (d != "cpu" && d != "cuda") usage();
      backend = d == "cpu" ? Backend::Cpu : Backend::Cuda;
    } else if (a == "--gvectors") {
      while (i + 1 < argc && argv[i + 1][0] != '-') sizes.push_back(std::atoi(argv[++i]));
    } else if (a == "--bands") {
      bands = std::atoi(value().c_str());
    } else if (a == "--energies") {
      energies = std::atoi(value().c_str());
    } else if (a == "--repeats") {
      repeats = std::atoi(value().c_str());
    } else {
      usage();
    }
  }
  if (sizes.empty()) sizes = {500, 1000, 2000, 4000};
  if (bands < 1 || energies < 1 || repeats < 1) usage();
  device::Context ctx(backend);
  std::printf("# GPP sums on %s: %d bands, %d energies each, half the bands occupied; best of %d after a warm-up\n",
              backend == Backend::Cuda ? "cuda" : "cpu", bands, energies, repeats);
  std::printf("%8s %12s %16s %12s %10s\n", "G", "seconds", "elements/s", "TFLOP/s", "of 57");
  for (int ng : sizes) {
    gw::GppSizes n;
    n.gvectors = ng;
    n.bands = bands;
    n.energies = energies;
    n.filled = bands / 2;
    const Inputs in = make_inputs(n);
    Array<double> ieps(backend), wtilde(backend), vcoul(backend), wx(backend);
    Array<std::complex<double>> ma(backend), mb(backend), sx(backend), ch(backend);
    ieps.assign(in.ieps), wtilde.assign(in.wtilde), vcoul.assign(in.vcoul), wx.assign(in.wx);
    ma.assign(in.ma), mb.assign(in.mb);
    double best = 1e300;
    for (int r = 0; r <= repeats; ++r) {
      ctx.synchronize();
      const auto t0 = std::chrono::steady_clock::now();
      gw::gpp_sums(ctx, n, ieps, wtilde, vcoul, ma, mb, wx, sx, ch);
      ctx.synchronize();
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (r > 0 && s < best) best = s;  // the first call is the warm-up
    }
    const double elements = static_cast<double>(bands) * energies * static_cast<double>(ng) * ng;
    const double tflops = kFlopsPerElement * elements / best / 1e12;
    std::printf("%8d %12.6f %16.4e %12.3f %9.1f%%\n", ng, best, elements / best, tflops, 100 * tflops / 57.0);
  }
  return 0;
} catch (const quasar::Error& e) {
  std::fprintf(stderr, "bench_gw_gpp_bench: %s\n", e.what());
  return 1;
}
