#pragma once
// The C library's functions for the arithmetic types of the AMOEBA forms, double and float (its f
// variants), one name each, on the host and in kernels (::exp and friends serve double on the device
// too): what the duals (dual.hpp) and the electrostatic pair forms (mixed_arith.hpp) call.
#include <cmath>

#include "quasar/core/hd.hpp"

namespace quasar::amoeba {

QUASAR_HD double sqrt_of(double x) { return ::sqrt(x); }
QUASAR_HD float sqrt_of(float x) { return ::sqrtf(x); }
QUASAR_HD double cos_of(double x) { return ::cos(x); }
QUASAR_HD float cos_of(float x) { return ::cosf(x); }
QUASAR_HD double sin_of(double x) { return ::sin(x); }
QUASAR_HD float sin_of(float x) { return ::sinf(x); }
QUASAR_HD double fabs_of(double x) { return ::fabs(x); }
QUASAR_HD float fabs_of(float x) { return ::fabsf(x); }
QUASAR_HD double atan2_of(double y, double x) { return ::atan2(y, x); }
QUASAR_HD float atan2_of(float y, float x) { return ::atan2f(y, x); }
QUASAR_HD double exp_of(double x) { return ::exp(x); }
QUASAR_HD float exp_of(float x) { return ::expf(x); }
QUASAR_HD double erfc_of(double x) { return ::erfc(x); }
QUASAR_HD float erfc_of(float x) { return ::erfcf(x); }

}  // namespace quasar::amoeba
