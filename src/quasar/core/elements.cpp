#include "quasar/core/structure.hpp"
namespace quasar {
double element_mass(const std::string&) { return 0.0; }
}
