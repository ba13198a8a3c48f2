#pragma once
// Perfect crystals built from a cubic conventional cell, for examples, tests and benchmarks.
#include <array>
#include <string>

#include "quasar/core/structure.hpp"

namespace quasar::io {

// kind: "sc", "bcc", "fcc" or "diamond"; a: cubic lattice constant (Å); repeat: cells per direction.
Structure make_lattice(const std::string& kind, const std::string& element, double a, std::array<int, 3> repeat,
                       double mass = 0.0);

}  // namespace quasar::io
