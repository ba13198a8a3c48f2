#pragma once
// The calculations of `quasar gw epm`, `quasar gw epsilon` and `quasar gw sigma` from their input
// files: the command (cli/gw.cpp) and the Python module (python/src/gw.cpp) share them.
#include <functional>
#include <string>
#include <vector>

#include "quasar/device/context.hpp"
#include "quasar/gw/epm_input.hpp"
#include "quasar/gw/epsilon.hpp"
#include "quasar/gw/epsilon_input.hpp"
#include "quasar/gw/mean_field.hpp"
#include "quasar/gw/sigma.hpp"
#include "quasar/gw/sigma_input.hpp"

namespace quasar::gw {

using RunProgress = std::function<void(const std::string&)>;

struct EpmRun {
  EpmInput input;
  Wavefunctions wfn;
  std::string written;  // the wavefunction file written; "" when none was (wfng_flag F, no output_path)
};

// The EPM input (WFN.in) at `input_path`, solved on ctx as `quasar gw epm` does: says what the command
// prints, a line per call (the eigenvalues of every k-point in BerkeleyGW's EPM layout, then notes), and
// writes the wavefunction file to output_path, or, when that is empty and wfng_flag is T, to the input's
// wfng_file (relative to the current folder, as BerkeleyGW's program writes it).
EpmRun run_epm(const std::string& input_path, const std::string& output_path, device::Context& ctx,
               const RunProgress& say = {});

// The eigenvalue lines that `quasar gw epm` prints (Ry, spin 1): per k-point a header, "kpoint N", one
// "N  E" line per band and an empty line, the layout Si.test's GREPs read.
std::vector<std::string> epm_eigenvalue_lines(const Wavefunctions& w);

struct EpsilonRun {
  EpsilonInput input;
  Wavefunctions wfn;  // the mean field of WFN (the dielectric file records its lattice)
  EpsilonResult result;
};

// epsilon.inp at `input_path`; an empty wfn_path / wfnq_path means WFN.in / WFNq.in beside it.
EpsilonRun run_epsilon(const std::string& input_path, std::string wfn_path, std::string wfnq_path,
                       device::Context& ctx, const RunProgress& say = {});

struct SigmaRun {
  SigmaInput input;
  SigmaResult result;
};

// sigma.inp at `input_path`; an empty wfn_path / epsilon_path means WFN_co.in / epsilon.h5 beside it
// (no dielectric file is read for Hartree-Fock).
SigmaRun run_sigma(const std::string& input_path, std::string wfn_path, std::string epsilon_path,
                   device::Context& ctx, const RunProgress& say = {});

}  // namespace quasar::gw
