#pragma once
// The scales of the 64-bit fixed-point sums (fixed_point.hpp). No includes: kernels compiled at run
// time (runtime_kernels.hpp) include it too.

namespace quasar::device {

namespace fixed_scale {
// Forces (eV/Å) and per-atom virials (eV): resolution 2^-40 = 9.1e-13, so that a force summed
// from a hundred neighbours stays within about 1e-11 eV/Å of its floating-point value; sums within
// ±2^23 = 8.4e6 eV/Å (or eV), far beyond any force an MD step survives.
inline constexpr double kForce = 0x1p40;
inline constexpr double kAtomVirial = 0x1p40;
// Totals of a system (eV): energy, virial, kinetic energy, thermostat work. Resolution 2^-28 =
// 3.7e-9 eV; range ±2^35 = 3.4e10 eV, which holds 2e8 atoms of the Deep Potential's water at
// -155 eV/atom (a million-atom system is 1.6e8 eV).
inline constexpr double kTotal = 0x1p28;
}  // namespace fixed_scale

// A single contribution must satisfy |v scale| < 2^62, half the integer range, else the set of sums
// it belongs to is marked invalid and converts to NaN everywhere: non-finite or absurd values stay
// visible as NaN (as they would in floating point) instead of wrapping into plausible numbers.
inline constexpr double kFixedContributionLimit = 0x1p62;

}  // namespace quasar::device
