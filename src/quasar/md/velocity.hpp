#pragma once
#include <cstdint>

#include "quasar/core/structure.hpp"

namespace quasar::md {

// Maxwell-Boltzmann velocities at `temperature` (K) with zero total momentum, scaled so that the
// kinetic temperature with 3N-3 degrees of freedom is exactly `temperature`. Deterministic in the
// seed and independent of atom order (numbers drawn per atom index of the structure).
void assign_velocities(Structure& s, double temperature, uint64_t seed);

// Kinetic temperature (K) of a structure with 3N-3 degrees of freedom.
double temperature_of(const Structure& s);

}  // namespace quasar::md
