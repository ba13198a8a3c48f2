// Fuzz target: an input of BerkeleyGW's EPM program (gw/epm_input), and, when it reads and is small
// (a few hundred plane waves per k-point, a G-vector box of at most 10^5 points, 4 k-points), the
// EPM solve itself with the checks it makes (potentials of the species, form factors' lattice, the
// real flavour's inversion symmetry, bands against plane waves). Seeds: the Si-EPM inputs.
#include <cmath>
#include <numbers>

#include "fuzz_input.hpp"
#include "quasar/device/context.hpp"
#include "quasar/gw/epm.hpp"
#include "quasar/gw/epm_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const auto path = quasar::fuzz::input_file(data, size, "WFN.in");
  return quasar::fuzz::expect_input_error([&] {
    const quasar::gw::EpmInput in = quasar::gw::read_epm_input(path);
    // The size of the solve: plane waves ~ volume (2 Ecut)^(3/2) / (6 pi^2), the box of the density
    // sphere from the lattice vectors' lengths.
    const auto& a = in.lattice;
    const double volume = std::abs(a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
                                   a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
                                   a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]));
    const double waves = volume * std::pow(in.cutoff_ry, 1.5) / (6 * std::numbers::pi * std::numbers::pi);
    double box = 1;
    for (const auto& v : a) box *= 2 * (std::sqrt(4 * in.cutoff_ry) * std::hypot(v[0], v[1], v[2]) / (2 * std::numbers::pi) + 2);
    if (waves > 300 || box > 1e5 || in.kpoints.size() > 4 || in.atoms.size() > 8) return;
    quasar::device::Context ctx(quasar::Backend::Cpu);
    quasar::gw::solve_epm(in, ctx);
  });
}
