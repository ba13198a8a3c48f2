// `quasar gw epm WFN.in`: the empirical-pseudopotential mean field of a BerkeleyGW EPM input, its
// eigenvalues on standard output (in the EPM program's layout) and its wavefunction file.
// `quasar gw epsilon epsilon.inp`: the static dielectric matrices of BerkeleyGW's Epsilon on the EPM
// mean fields of WFN.in and WFNq.in, with that program's head lines and chi_converge.dat.
#include <iostream>

#include "quasar/cli/args.hpp"
#include "quasar/cli/commands.hpp"
#if QUASAR_WITH_GW
#include "quasar/device/backend.hpp"
#include "quasar/device/context.hpp"
#include "quasar/gw/epsilon.hpp"
#include "quasar/gw/epsilon_input.hpp"
#include "quasar/gw/epsilon_output.hpp"
#include "quasar/gw/mean_field.hpp"
#include "quasar/gw/run.hpp"
#include "quasar/gw/sigma.hpp"
#include "quasar/gw/sigma_input.hpp"
#include "quasar/gw/sigma_output.hpp"
#include "quasar/io/read.hpp"
#endif

namespace quasar::cli {

#if !QUASAR_WITH_GW
int gw_command(const std::vector<std::string>&) {
  throw UsageError("this build has no GW module (configured with QUASAR_WITH_GW=OFF)");
}
#else

namespace {
const char* kHelp = R"(usage: quasar gw epm INPUT [--output FILE] [--device cpu|cuda|auto]
       quasar gw epsilon INPUT [--wfn WFN.in] [--wfnq WFNq.in] [--output FILE] [--json FILE]
                               [--device cpu|cuda|auto]
       quasar gw sigma INPUT [--wfn WFN_co.in] [--epsilon epsilon.h5] [--output FILE] [--json FILE]
                             [--device cpu|cuda|auto]

epm: the empirical-pseudopotential mean field of INPUT, an input of BerkeleyGW's EPM program
(WFN.in: lattice, atoms, cutoff, k-points, bands, the built-in potentials of H, Si, Ga and As or
Cohen-Bergstresser FormFactors). Prints the eigenvalues (Ry) of every k-point, as that program
does ("kpoint N", then "N  E" per band), and, with wfng_flag T, writes the wavefunction file that
wfng_file names (HDF5, docs/formats/gw-wavefunctions.md; --output: another name), relative to the
current folder. RHO, VXC and vxc.dat (rhog_flag, vxcg_flag, vxc_flag) are not written.
--device: where the Hamiltonians are diagonalised (LAPACK on the CPU, the default; cuSOLVER on a GPU).

epsilon: the static RPA dielectric matrix and its inverse at every q-point of INPUT, an epsilon.inp
of BerkeleyGW (epsilon_cutoff, number_bands, begin qpoints ... end with the q -> 0 flag). The mean
fields are --wfn and --wfnq (default: WFN.in and WFNq.in beside INPUT): EPM inputs, their k-points
unfolded by the crystal's point group (WFNq's by the rotations that keep q0) and solved there, or
wavefunction files (HDF5) that hold the whole zone; WFNq (the points shifted by q0) is read only for
a q -> 0 point. Prints
progress and BerkeleyGW's "q-pt N: Head of Epsilon" and "Head of Epsilon Inverse" lines; writes
chi_converge.dat and epsilon.log (its layouts; the log holds the inverse-epsilon blocks), the inverse matrices to --output (default epsilon.h5; HDF5,
docs/formats/gw-epsilon.md) and a JSON summary to --json (default epsilon.json), in the current folder.
--device: where the FFTs, chi0's matrix products and the inversions run (default cpu).

sigma: the GW self energy at the k-points of INPUT, a sigma.inp of BerkeleyGW (number_bands,
band_index_min/max, begin kpoints ... end, frequency_dependence 1 GPP, 0 COHSEX, -1 Hartree-Fock,
exact_static_ch, number_offdiag with begin offdiag ... end, qgrid, ...). The inner mean field is
--wfn (default WFN_co.in beside INPUT: an EPM input unfolded by the point group, or a wavefunction
file of the whole zone); the screening is --epsilon (default epsilon.h5 beside INPUT, from gw
epsilon), with eps^-1 at the q -> 0 point (flagged) and at the irreducible q-points (or more): a
q-point of the inner grid that the file lacks takes eps^-1 unfolded from a file point by a crystal
operation (an error names the q-point when none maps a file point onto it).
Sigma maps its q-points onto the dielectric matrices as BerkeleyGW does (eps^-1 at q -> 0 rotated by
the last symmetry operation, the wings at the images it picks), with the crystal's operations in the
order BerkeleyGW's EPM writes them, derived from the mean field's lattice and atoms (not derived for a
supercell: Quasar's order then, and a progress line says so). An optional 'begin berkeleygw_symmetries
... end' block (Quasar's: the nine numbers of each "mtrx" line of BerkeleyGW's sigma_hp.log, in its
order) gives the list instead, e.g. that of a mean field from another code (docs/formats/gw-sigma.md).
Prints progress and writes sigma_hp.log (BerkeleyGW's layout; --output another name) and a JSON
summary (--json, default sigma.json) in the current folder. --device cuda: the plasmon-pole sums (and
the EPM solves) on the GPU.
)";

int epm(const Args& a) {
  if (a.positional.size() != 2) throw UsageError("gw epm takes one input file");
  for (const char* o : {"--wfn", "--wfnq", "--json"})
    if (a.has(o)) throw UsageError(std::string("gw epm takes no ") + o + " (an option of gw epsilon)");
  if (a.has("--output") && a.get("--output", "").empty()) throw UsageError("gw epm: --output needs a file name");
  device::Context ctx(parse_backend(a.get("--device", "cpu")));
  gw::run_epm(a.positional[1], a.get("--output", ""), ctx, [](const std::string& s) { std::cout << s << '\n'; });
  std::cout.flush();
  return 0;
}

int epsilon(const Args& a) {
  if (a.positional.size() != 2) throw UsageError("gw epsilon takes one input file");
  device::Context ctx(parse_backend(a.get("--device", "cpu")));
  auto say = [](const std::string& s) { std::cout << s << std::endl; };
  const gw::EpsilonRun run = gw::run_epsilon(a.positional[1], a.get("--wfn", ""), a.get("--wfnq", ""), ctx, say);
  const gw::EpsilonResult& r = run.result;
  const gw::EpsilonInput& in = run.input;
  const gw::Wavefunctions& wfn = run.wfn;
  for (std::size_t iq = 0; iq < r.q.size(); ++iq) {
    const int n = static_cast<int>(iq + 1);
    std::cout << gw::epsilon_lines(r.q[iq], n, r.real) << gw::epsilon_inverse_lines(r.q[iq], n, r.real);
  }
  const std::string h5 = a.get("--output", "epsilon.h5"), json = a.get("--json", "epsilon.json");
  const std::string chi = gw::chi_converge_text(r), log = gw::epsilon_log_text(r), summary = gw::epsilon_json(r, in);
  io::write_file_atomically("chi_converge.dat", [&](std::ostream& o) { o << chi; });
  io::write_file_atomically("epsilon.log", [&](std::ostream& o) { o << log; });
  gw::write_epsilon_file(h5, r, in, wfn);
  io::write_file_atomically(json, [&](std::ostream& o) { o << summary; });
  std::cout << "wrote chi_converge.dat, epsilon.log, " << h5 << ", " << json << std::endl;
  return 0;
}
int sigma(const Args& a) {
  if (a.positional.size() != 2) throw UsageError("gw sigma takes one input file");
  device::Context ctx(parse_backend(a.get("--device", "cpu")));
  auto say = [](const std::string& s) { std::cout << s << std::endl; };
  const gw::SigmaRun run = gw::run_sigma(a.positional[1], a.get("--wfn", ""), a.get("--epsilon", ""), ctx, say);
  const gw::SigmaResult& r = run.result;
  const gw::SigmaInput& in = run.input;
  const std::string log = a.get("--output", "sigma_hp.log"), json = a.get("--json", "sigma.json");
  const std::string text = gw::sigma_hp_log(r, in.settings.exact_static_ch), summary = gw::sigma_json(r);
  std::cout << text;
  io::write_file_atomically(log, [&](std::ostream& o) { o << text; });
  io::write_file_atomically(json, [&](std::ostream& o) { o << summary; });
  std::cout << "wrote " << log << ", " << json << std::endl;
  return 0;
}
}  // namespace

int gw_command(const std::vector<std::string>& argv) {
  const Args a = Args::parse(argv, {"--help"}, {"--output", "--device", "--wfn", "--wfnq", "--json", "--epsilon"});
  if (a.has("--help") || a.positional.empty()) {
    std::cout << kHelp;
    return a.has("--help") ? 0 : 2;
  }
  if (a.positional[0] == "epm") return epm(a);
  if (a.positional[0] == "epsilon") return epsilon(a);
  if (a.positional[0] == "sigma") return sigma(a);
  throw UsageError("unknown gw command '" + a.positional[0] + "' (valid: epm, epsilon, sigma)");
}

#endif  // QUASAR_WITH_GW

}  // namespace quasar::cli
