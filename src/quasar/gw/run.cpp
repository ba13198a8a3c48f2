#include "quasar/gw/run.hpp"

#include <cstdio>
#include <filesystem>

#include "quasar/gw/epm.hpp"
#include "quasar/gw/epsilon_output.hpp"

namespace quasar::gw {

namespace {
std::string beside(const std::string& input_path, const std::string& given, const char* name) {
  if (!given.empty()) return given;
  return (std::filesystem::path(input_path).parent_path() / name).string();
}
}  // namespace

std::vector<std::string> epm_eigenvalue_lines(const Wavefunctions& w) {
  std::vector<std::string> lines;
  char buf[96];
  for (std::size_t k = 0; k < w.kpoint_count(); ++k) {
    std::snprintf(buf, sizeof buf, "eigenvalues  1 - %10d at k points in lattice vector units", w.bands);
    lines.emplace_back(buf);
    std::snprintf(buf, sizeof buf, "kpoint %10zu", k + 1);
    lines.emplace_back(buf);
    for (int b = 0; b < w.bands; ++b) {
      std::snprintf(buf, sizeof buf, "%5zu%23.16f", k + 1, w.energy(0, k, b));
      lines.emplace_back(buf);
    }
    lines.emplace_back();
  }
  return lines;
}

EpmRun run_epm(const std::string& input_path, const std::string& output_path, device::Context& ctx,
               const RunProgress& progress) {
  const RunProgress say = progress ? progress : [](const std::string&) {};
  EpmRun run;
  run.input = read_epm_input(input_path);
  run.wfn = solve_epm(run.input, ctx);
  for (const std::string& line : epm_eigenvalue_lines(run.wfn)) say(line);
  const EpmInput& in = run.input;
  if (in.write_density || in.write_vxc_g || in.write_vxc)
    say("note: RHO, VXC and vxc.dat are not written (rhog_flag, vxcg_flag, vxc_flag)");
  if (!in.write_wavefunctions && output_path.empty()) {
    say("no wavefunction file (wfng_flag F)");
    return run;
  }
  run.written = output_path.empty() ? in.wavefunction_file : output_path;
  write_wavefunctions(run.written, run.wfn);
  say("wrote " + run.written + ": " + std::to_string(run.wfn.kpoint_count()) + " k-points, " +
      std::to_string(run.wfn.bands) + " bands, " + (run.wfn.real ? "real" : "complex") + " coefficients");
  return run;
}

EpsilonRun run_epsilon(const std::string& input_path, std::string wfn_path, std::string wfnq_path,
                       device::Context& ctx, const RunProgress& progress) {
  const RunProgress say = progress ? progress : [](const std::string&) {};
  EpsilonRun run;
  run.input = read_epsilon_input(input_path);
  wfn_path = beside(input_path, wfn_path, "WFN.in");
  wfnq_path = beside(input_path, wfnq_path, "WFNq.in");
  run.wfn = load_mean_field(wfn_path, ctx);
  say("mean field WFN: " + wfn_path + ", " + std::to_string(run.wfn.kpoint_count()) + " k-points in the full zone");
  Wavefunctions wfnq;
  const EpsilonQPoint* q0 = nullptr;
  for (const auto& q : run.input.qpoints)
    if (q.q0) q0 = &q;
  if (q0) {
    wfnq = load_mean_field(wfnq_path, ctx, &q0->q);
    say("mean field WFNq: " + wfnq_path + ", " + std::to_string(wfnq.kpoint_count()) + " k-points (shifted by q0)");
  }
  run.result = compute_epsilon(run.input, run.wfn, q0 ? &wfnq : nullptr, ctx, say);
  return run;
}

SigmaRun run_sigma(const std::string& input_path, std::string wfn_path, std::string epsilon_path,
                   device::Context& ctx, const RunProgress& progress) {
  const RunProgress say = progress ? progress : [](const std::string&) {};
  SigmaRun run;
  SigmaInput& in = run.input;
  in = read_sigma_input(input_path);
  wfn_path = beside(input_path, wfn_path, "WFN_co.in");
  const Wavefunctions inner = load_mean_field(wfn_path, ctx);
  say("inner mean field: " + wfn_path + ", " + std::to_string(inner.kpoint_count()) + " k-points in the full zone");
  const bool hartree_fock = in.settings.model == SigmaModel::HartreeFock;
  EpsilonResult eps;
  if (!hartree_fock) {
    epsilon_path = beside(input_path, epsilon_path, "epsilon.h5");
    eps = read_epsilon_file(epsilon_path);
    say("dielectric matrices: " + epsilon_path + ", " + std::to_string(eps.q.size()) + " q-points");
  }
  say(in.symmetric_q_grid ? "q-grid: reduced by the little group of each k (Coulomb averages of the representatives)"
                          : "q-grid: every point with its own Coulomb averages (no_symmetries_q_grid)");
  const std::vector<double> density = mean_field_density(wfn_path, ctx);
  in.settings.listed_kpoints = listed_kpoints(wfn_path);
  run.result = compute_sigma(in.settings, inner, hartree_fock ? nullptr : &eps, say, &density, &ctx);
  return run;
}

}  // namespace quasar::gw
