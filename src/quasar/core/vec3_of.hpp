#pragma once
// A 3-vector of any scalar type with the few operations that code written once over its scalar needs
// (double, or a forward-mode derivative type that carries gradients through the arithmetic), on the
// host and in CUDA kernels.
#include <cmath>

#include "quasar/core/hd.hpp"

namespace quasar {

template <class T>
struct Vec3Of {
  T x, y, z;
};
template <class T>
QUASAR_HD Vec3Of<T> operator+(const Vec3Of<T>& a, const Vec3Of<T>& b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}
template <class T>
QUASAR_HD Vec3Of<T> operator-(const Vec3Of<T>& a, const Vec3Of<T>& b) {
  return {a.x - b.x, a.y - b.y, a.z - b.z};
}
template <class T>
QUASAR_HD Vec3Of<T> operator*(const Vec3Of<T>& a, const T& s) {
  return {a.x * s, a.y * s, a.z * s};
}
template <class T>
QUASAR_HD T dot(const Vec3Of<T>& a, const Vec3Of<T>& b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
template <class T>
QUASAR_HD Vec3Of<T> cross(const Vec3Of<T>& a, const Vec3Of<T>& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
// The scalar type's own sqrt is found by argument-dependent lookup; ::sqrt serves double (on the
// device too).
template <class T>
QUASAR_HD T norm(const Vec3Of<T>& a) {
  using ::sqrt;
  return sqrt(dot(a, a));
}

}  // namespace quasar
