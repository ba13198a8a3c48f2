#pragma once
// Arithmetic of a GPU evaluation. The CPU always evaluates in double; on the GPU a family may offer
// cheaper modes (the registry's capabilities say which): double throughout; mixed32 (networks in
// float, sums in double); mixed16 (half-precision GEMM operands with float accumulation).
#include <string>

namespace quasar {

enum class Precision { Double, Mixed32, Mixed16 };

// "double", "mixed32" or "mixed16"; anything else is an Error naming the valid ones.
Precision parse_precision(const std::string& name);
const char* precision_name(Precision p);

}  // namespace quasar
