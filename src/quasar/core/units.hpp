#pragma once
// Internal units are LAMMPS "metal": Å, eV, ps, amu, K, bar. Constants follow CODATA 2018 as
// LAMMPS uses them, so that runs compare with LAMMPS to rounding.
#include <string>

namespace quasar::units {

inline constexpr double boltzmann = 8.617343e-5;        // eV/K (LAMMPS metal value)
inline constexpr double mvv2e = 1.0364269e-4;           // amu*Å^2/ps^2 -> eV (LAMMPS metal value)
inline constexpr double nktv2p = 1.6021765e6;           // eV/Å^3 -> bar (LAMMPS metal value)
inline constexpr double ftm2v = 1.0 / 1.0364269e-4;     // eV/(Å*amu) -> Å/ps^2
inline constexpr double bohr = 0.52917721067;           // Å
inline constexpr double hartree = 27.21138602;          // eV
inline constexpr double kcal_mol = 0.0433641043;        // eV


// Units of model files that do not state their own (n2p2's): one length in Å and one energy in eV.
struct FileUnits {
  double length = 1.0, energy = 1.0;
};
double length_unit(const std::string& name);  // "angstrom" or "bohr" (any case), in Å; an Error naming them
double energy_unit(const std::string& name);  // "eV" or "Ha" (or "hartree"; any case), in eV
FileUnits parse_file_units(const std::string& text);  // "LENGTH,ENERGY", e.g. "bohr,Ha"

}  // namespace quasar::units
