#include "quasar/core/units.hpp"

#include <algorithm>
#include <cctype>

#include "quasar/core/error.hpp"

namespace quasar::units {

namespace {
std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}
}  // namespace

// Names in any case: angstrom, bohr; eV (ev), Ha (hartree).
double length_unit(const std::string& name) {
  const std::string n = lower(name);
  if (n == "angstrom") return 1.0;
  if (n == "bohr") return bohr;
  throw Error("unknown length unit '" + name + "' (angstrom, bohr)");
}

double energy_unit(const std::string& name) {
  const std::string n = lower(name);
  if (n == "ev") return 1.0;
  if (n == "ha" || n == "hartree") return hartree;
  throw Error("unknown energy unit '" + name + "' (eV, Ha)");
}

FileUnits parse_file_units(const std::string& text) {
  const std::size_t comma = text.find(',');
  if (comma == std::string::npos || text.find(',', comma + 1) != std::string::npos)
    throw Error("units '" + text + "': expected LENGTH,ENERGY (angstrom or bohr, eV or Ha), e.g. bohr,Ha");
  return {length_unit(text.substr(0, comma)), energy_unit(text.substr(comma + 1))};
}

}  // namespace quasar::units
