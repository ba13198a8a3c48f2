#pragma once
// The calculations of `quasar gw epsilon` and `quasar gw sigma` from their input files: the command
// (cli/gw.cpp) and the Python module (python/src/gw.cpp) share them, and each writes what it needs.
#include <functional>
#include <string>

#include "quasar/device/context.hpp"
#include "quasar/gw/epsilon.hpp"
#include "quasar/gw/epsilon_input.hpp"
#include "quasar/gw/mean_field.hpp"
#include "quasar/gw/sigma.hpp"
#include "quasar/gw/sigma_input.hpp"

namespace quasar::gw {

using RunProgress = std::function<void(const std::string&)>;

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
