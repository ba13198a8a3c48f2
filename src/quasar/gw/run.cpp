#include "quasar/gw/run.hpp"

#include <filesystem>

#include "quasar/gw/epsilon_output.hpp"

namespace quasar::gw {

namespace {
std::string beside(const std::string& input_path, const std::string& given, const char* name) {
  if (!given.empty()) return given;
  return (std::filesystem::path(input_path).parent_path() / name).string();
}
}  // namespace

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
  if (!in.settings.operations.empty()) {
    say("q map: BerkeleyGW's, by the last of its " + std::to_string(in.settings.operations.size()) + " operations");
    for (const EpsilonOfQ& e : eps.q) in.settings.dielectric_qpoints.push_back(e.q0 ? Vec3d{0, 0, 0} : e.q);
  }
  run.result = compute_sigma(in.settings, inner, hartree_fock ? nullptr : &eps, say, &density, &ctx);
  return run;
}

}  // namespace quasar::gw
