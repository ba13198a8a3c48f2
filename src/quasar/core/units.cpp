#include "quasar/core/units.hpp"

#include "quasar/core/error.hpp"

namespace quasar::units {

double length_unit(const std::string& name) {
  if (name == "angstrom") return 1.0;
  if (name == "bohr") return bohr;
  throw Error("unknown length unit '" + name + "' (angstrom, bohr)");
}

double energy_unit(const std::string& name) {
  if (name == "eV") return 1.0;
  if (name == "Ha") return hartree;
  throw Error("unknown energy unit '" + name + "' (eV, Ha)");
}

FileUnits parse_file_units(const std::string& text) {
  const std::size_t comma = text.find(',');
  if (comma == std::string::npos || text.find(',', comma + 1) != std::string::npos)
    throw Error("units '" + text + "': expected LENGTH,ENERGY (angstrom or bohr, eV or Ha), e.g. bohr,Ha");
  return {length_unit(text.substr(0, comma)), energy_unit(text.substr(comma + 1))};
}

}  // namespace quasar::units
