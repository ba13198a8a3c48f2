#include "quasar/device/precision.hpp"

#include "quasar/core/error.hpp"

namespace quasar {

Precision parse_precision(const std::string& name) {
  if (name == "double") return Precision::Double;
  if (name == "mixed32") return Precision::Mixed32;
  if (name == "mixed16") return Precision::Mixed16;
  throw Error("unknown precision '" + name + "' (valid: double, mixed32, mixed16)");
}

const char* precision_name(Precision p) {
  switch (p) {
    case Precision::Double: return "double";
    case Precision::Mixed32: return "mixed32";
    case Precision::Mixed16: return "mixed16";
  }
  return "?";
}

}  // namespace quasar
