#pragma once
// The integrators' steps for a batch of independent systems (AtomState::is_batch(), driven by
// md::Ensemble): one loop or one launch for all systems, each system with its own target
// temperature, random stream, active flag and first fault (SystemsRef). A system that is finished
// or has faulted is left as it is; the others move exactly as they would alone: the per-atom
// updates are the single-system ones, the random numbers are keyed by the system's stream and the
// atom's index within its system, and the sums per system run over its atoms in the order a run of
// that system alone sums them (CPU; on the GPU one warp per system, in a fixed order). Per-system
// integrator state is kStateSize numbers per system (thermostat work, kinetic tensor, Bussi's factor).
#include "quasar/md/integrator.hpp"

namespace quasar::md {

// The systems of a batch as the loops and kernels see them (the faults' per-system words included).
SystemsRef systems_ref(AtomState& atoms, FaultRecord& faults);

// Velocity Verlet's first half (kick, drift), tested after the drift (check_moved, limit).
void systems_kick_drift(AtomState& atoms, const SystemsRef& sys, double dt, long step, FaultRecord& faults,
                        double limit);
// The second half kick, tested after it (check_kicked).
void systems_half_kick(AtomState& atoms, const SystemsRef& sys, double dt, long step, FaultRecord& faults);
// BAOAB up to the forces with each system's target and stream; each system's O work is added to
// state[s kStateSize + kThermostatWork].
void systems_baoab_first_half(AtomState& atoms, const SystemsRef& sys, double dt, double c1, long step, double* state,
                              FaultRecord& faults, double limit);
// Each system's kinetic-energy tensor (m v_a v_b summed: xx yy zz xy xz yz, eV) into
// dest[s stride + c], for every system (finished ones too).
void systems_kinetic(AtomState& atoms, const SystemsRef& sys, double* dest, int stride);
// Bussi's rescaling of each moving system towards its own temperature (c = exp(-dt/tau)); the
// kinetic tensor, the factor and the work go into each system's state.
void systems_bussi(AtomState& atoms, const SystemsRef& sys, double* state, double c, long step);

}  // namespace quasar::md
