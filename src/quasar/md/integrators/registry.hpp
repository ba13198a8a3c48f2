#pragma once
// The integrators by the name an input gives ([md] integrator): one table of name -> factory
// (registry.cpp), which input checks and the simulation both read.
#include <memory>
#include <string>
#include <vector>

#include "quasar/md/settings.hpp"

namespace quasar::md {

// The names the table knows, in its order (for messages), and whether one can be the inner
// integrator of multiple time stepping.
std::vector<std::string> integrator_names();
bool integrator_known(const std::string& name);
bool integrator_takes_respa(const std::string& name);
// "nve and langevin": those that take multiple time stepping, for messages.
std::string respa_integrators_text();

// The integrator the settings ask for: FIRE for mode "minimize", else integrator.kind, as the
// inner integrator of r-RESPA when integrator.respa_every is given. Throws Error (InputError where
// the settings say which file gave respa_every) for settings the method rejects.
std::unique_ptr<Integrator> make_integrator(const MdSettings& settings, Backend backend, int num_atoms,
                                            const ForceField& force_field);

// What is wrong with a list of r-RESPA periods (one per force group: positive, each a multiple of
// the one before), or "".
std::string respa_periods_problem(const std::vector<int>& periods);

}  // namespace quasar::md
