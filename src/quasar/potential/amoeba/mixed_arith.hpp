#pragma once
// The scalar arithmetic of the electrostatic pair forms (mpole_forms.hpp, field_forms.hpp,
// polar_forms.hpp), which are written once over it: double (the CPU and the GPU's double mode, the
// very code they had before the template), or float in the GPU's mixed32 mode, where each pair's
// separation is formed in double at the nearest image and then rounded, the radial kernels and the
// contractions run in float, and each pair's contribution goes into a 64-bit fixed-point sum
// (device::FixedAccumulator) per thread, as Tinker-HP and Tinker9 do. The sums keep the order of
// the pairs irrelevant and lose nothing to their own rounding; the float terms are what differ
// from double (amoeba_mixed_elec_forms_test measures them).
#include <cmath>
#include <type_traits>

#include "quasar/core/hd.hpp"
#include "quasar/core/vec.hpp"
#include "quasar/device/fixed_accumulator.hpp"
#include "quasar/potential/amoeba/mixed_sum.hpp"
#include "quasar/potential/amoeba/scalar_math.hpp"

namespace quasar::amoeba {

// Vec3's operations in float.
struct Vec3F {
  float x = 0, y = 0, z = 0;
  QUASAR_HD float& operator[](int k) { return k == 0 ? x : (k == 1 ? y : z); }
  QUASAR_HD float operator[](int k) const { return k == 0 ? x : (k == 1 ? y : z); }
};
QUASAR_HD Vec3F operator+(Vec3F a, Vec3F b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
QUASAR_HD Vec3F operator-(Vec3F a, Vec3F b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
QUASAR_HD Vec3F operator-(Vec3F a) { return {-a.x, -a.y, -a.z}; }
QUASAR_HD Vec3F operator*(float s, Vec3F a) { return {s * a.x, s * a.y, s * a.z}; }
QUASAR_HD Vec3F operator*(Vec3F a, float s) { return {s * a.x, s * a.y, s * a.z}; }
QUASAR_HD Vec3F& operator+=(Vec3F& a, Vec3F b) {
  a.x += b.x;
  a.y += b.y;
  a.z += b.z;
  return a;
}
QUASAR_HD float dot(Vec3F a, Vec3F b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

// The vector of a scalar type, and a double vector in it (exact for double).
template <class T>
using V3 = std::conditional_t<std::is_same_v<T, double>, Vec3, Vec3F>;
template <class T>
QUASAR_HD V3<T> vec_as(const Vec3& v) {
  return {static_cast<T>(v.x), static_cast<T>(v.y), static_cast<T>(v.z)};
}
QUASAR_HD Vec3 as_double(const Vec3& v) { return v; }
QUASAR_HD Vec3 as_double(const Vec3F& v) { return {v.x, v.y, v.z}; }


// The fixed-point resolution of the per-atom sums (gradients in kcal/mol/Å, moment derivatives,
// per-site energies and virials in kcal/mol, fields in e/Å^2): 2^-40 = 9.1e-13 of their units, range
// ±2^23, which holds any of them in a system that the solver converges (a field of 1 e/Å^2 is
// 14 V/Å).
inline constexpr double kMixedSumScale = 0x1p40;
struct PairFixedSum : device::FixedAccumulator {
  QUASAR_HD PairFixedSum() : device::FixedAccumulator(kMixedSumScale) {}
};

// The sum of each precision: plain in double (mixed_sum.hpp), 64-bit fixed point in mixed32.
template <class T>
using SumOf = std::conditional_t<std::is_same_v<T, double>, PlainSum, PairFixedSum>;

// A vector sum: in double a Vec3 added to in the terms' order (the code before the template), in
// mixed32 three fixed-point sums, each term rounded once into them.
struct PairFixedVec3Sum {
  PairFixedSum c[3];
  QUASAR_HD PairFixedVec3Sum& operator+=(const Vec3F& v) {
    c[0].add(v.x);
    c[1].add(v.y);
    c[2].add(v.z);
    return *this;
  }
  QUASAR_HD PairFixedVec3Sum& operator+=(const Vec3& v) {
    c[0].add(v.x);
    c[1].add(v.y);
    c[2].add(v.z);
    return *this;
  }
};
template <class T>
using Vec3SumOf = std::conditional_t<std::is_same_v<T, double>, Vec3, PairFixedVec3Sum>;
QUASAR_HD Vec3 sum_value(const Vec3& v) { return v; }
QUASAR_HD Vec3 sum_value(const PairFixedVec3Sum& v) { return {v.c[0].value(), v.c[1].value(), v.c[2].value()}; }

}  // namespace quasar::amoeba
