// `quasar gw epm WFN.in`: the empirical-pseudopotential mean field of a BerkeleyGW EPM input, its
// eigenvalues on standard output (in the EPM program's layout) and its wavefunction file.
#include <cstdio>
#include <iostream>

#include "quasar/cli/args.hpp"
#include "quasar/cli/commands.hpp"
#if QUASAR_WITH_GW
#include "quasar/device/backend.hpp"
#include "quasar/device/context.hpp"
#include "quasar/gw/epm.hpp"
#include "quasar/gw/epm_input.hpp"
#endif

namespace quasar::cli {

#if !QUASAR_WITH_GW
int gw_command(const std::vector<std::string>&) {
  throw UsageError("this build has no GW module (configured with QUASAR_WITH_GW=OFF)");
}
#else

namespace {
const char* kHelp = R"(usage: quasar gw epm INPUT [--output FILE] [--device cpu|cuda|auto]

epm: the empirical-pseudopotential mean field of INPUT, an input of BerkeleyGW's EPM program
(WFN.in: lattice, atoms, cutoff, k-points, bands, the built-in potentials of H, Si, Ga and As or
Cohen-Bergstresser FormFactors). Prints the eigenvalues (Ry) of every k-point, as that program
does ("kpoint N", then "N  E" per band), and, with wfng_flag T, writes the wavefunction file that
wfng_file names (HDF5, docs/formats/gw-wavefunctions.md; --output: another name), relative to the
current folder. RHO, VXC and vxc.dat (rhog_flag, vxcg_flag, vxc_flag) are not written.
--device: where the Hamiltonians are diagonalised (LAPACK on the CPU, the default; cuSOLVER on a GPU).
)";

int epm(const Args& a) {
  if (a.positional.size() != 2) throw UsageError("gw epm takes one input file");
  const gw::EpmInput in = gw::read_epm_input(a.positional[1]);
  device::Context ctx(parse_backend(a.get("--device", "cpu")));
  const gw::Wavefunctions w = gw::solve_epm(in, ctx);
  for (std::size_t k = 0; k < w.kpoint_count(); ++k) {
    std::printf("eigenvalues  1 - %10d at k points in lattice vector units\nkpoint %10zu\n", w.bands, k + 1);
    for (int b = 0; b < w.bands; ++b) std::printf("%5zu%23.16f\n", k + 1, w.energy(0, k, b));
    std::printf("\n");
  }
  std::fflush(stdout);
  if (in.write_density || in.write_vxc_g || in.write_vxc)
    std::cout << "note: RHO, VXC and vxc.dat are not written (rhog_flag, vxcg_flag, vxc_flag)\n";
  if (!in.write_wavefunctions && !a.has("--output")) {
    std::cout << "no wavefunction file (wfng_flag F)\n";
    return 0;
  }
  const std::string out = a.get("--output", in.wavefunction_file);
  gw::write_wavefunctions(out, w);
  std::cout << "wrote " << out << ": " << w.kpoint_count() << " k-points, " << w.bands << " bands, "
            << (w.real ? "real" : "complex") << " coefficients\n";
  return 0;
}
}  // namespace

int gw_command(const std::vector<std::string>& argv) {
  const Args a = Args::parse(argv, {"--help"}, {"--output", "--device"});
  if (a.has("--help") || a.positional.empty()) {
    std::cout << kHelp;
    return a.has("--help") ? 0 : 2;
  }
  if (a.positional[0] == "epm") return epm(a);
  throw UsageError("unknown gw command '" + a.positional[0] + "' (valid: epm)");
}

#endif  // QUASAR_WITH_GW

}  // namespace quasar::cli
