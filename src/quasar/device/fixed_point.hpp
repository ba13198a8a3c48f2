#pragma once
// 64-bit fixed-point sums for deterministic GPU runs. Atomic additions of doubles land in an order
// that varies from run to run, and floating-point addition is not associative, so such sums differ
// in their last bits between runs. Integer addition is associative (and wraps modulo 2^64, so
// partial sums may even leave the range as long as the total comes back into it): a value v added as
// the signed 64-bit integer round(v * scale) gives the same sum in any order. Tinker-HP and Tinker9
// accumulate their GPU forces the same way.
//
// A deterministic evaluation zeroes the double arrays it sums into, adds to them through their bits
// as 64-bit integers (fixed_point.cuh), and converts each array in place once at the end
// (FixedPointSums::finish). Scales are powers of two, so that scaling is exact and only the rounding
// to an integer loses anything: at most half a unit (1 / (2 scale)) per contribution.
#include "quasar/device/array.hpp"

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

// The status word of one set of fixed-point sums on the GPU (owned by whoever launches the
// kernels; allocated at first use). Defined in fixed_point.cu: call from CUDA builds only.
class FixedPointSums {
 public:
  // Starts a set: zeroes the status word (in stream order) and returns it for the kernels.
  int* start();
  // Turns n sums into doubles in place; with add_to, adds them to add_to[0..n) instead (the sums
  // are left as they were). NaN everywhere when a contribution was out of range.
  void finish(double* sums, long n, double scale, double* add_to = nullptr);

 private:
  Array<int> status_;
};

}  // namespace quasar::device
