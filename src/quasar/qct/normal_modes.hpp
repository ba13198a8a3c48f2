#pragma once
// Normal-mode analysis of a molecule on any potential of the engine: its minimum found by Newton
// steps, the Hessian from central differences of the forces, mass-weighted, with translations and
// rotations projected out; the vibrational frequencies and mass-weighted mode vectors that
// quasi-classical initial conditions are drawn from.
#include <functional>
#include <span>
#include <vector>

#include "quasar/core/structure.hpp"
#include "quasar/potential/evaluate.hpp"

namespace quasar::qct {

// Energies and forces of many configurations of one system (the frames differ in positions only):
// evaluate_batch on a force field, or an analytic model in tests.
using BatchForces = std::function<std::vector<Evaluation>(std::span<const Structure>)>;

struct NormalModeSettings {
  double step = 1e-4;             // Å: the central-difference displacement of the Hessian
  double force_tolerance = 1e-6;  // eV/Å: the minimum is reached when every force is below
  int max_iterations = 50;        // Newton steps at most
};

struct NormalModes {
  int atoms = 0;                     // n, the molecule's atoms
  std::vector<double> masses;        // amu, per molecule atom
  std::vector<Vec3> minimum;         // Å, the molecule at its minimum, centre of mass at the origin
  Vec3 centre;                       // where the centre of mass lay in the evaluated system (Å)
  double energy = 0;                 // eV: the system's energy at the minimum
  std::vector<double> hessian;       // eV/Å^2, 3n x 3n Cartesian, row-major, at the minimum
  std::vector<double> omega;         // rad/ps, ascending: 3n-6 values (3n-5 for a linear molecule)
  std::vector<double> vectors;       // mode k: 3n mass-weighted components at [3n k, 3n (k+1)), orthonormal
  double largest_force = 0;          // eV/Å left at the minimum
  int iterations = 0;                // Newton steps taken

  int modes() const { return static_cast<int>(omega.size()); }
  double wavenumber(int k) const;    // cm^-1
  double zero_point_energy() const;  // eV: sum of hbar omega / 2
};

// Speed of light in cm/ps, for wavenumbers, and the reduced Planck constant in eV ps (CODATA 2018).
inline constexpr double kLightCmPerPs = 2.99792458e-2;
inline constexpr double kHbar = 6.582119569e-4;

// The normal modes of the atoms `molecule` (indices into `system`, at least two) in the system as
// given (the other atoms stay where they are, far away, so that any potential can evaluate it).
// Starting from the molecule's positions in `system`, Newton steps with the projected Hessian
// reach the minimum; an Error says so when they do not converge or a frequency is imaginary.
NormalModes normal_modes(const Structure& system, std::span<const int> molecule, const BatchForces& forces,
                         const NormalModeSettings& settings = {});

// The 3n x (3n - k) orthonormal basis (column-major: column c at [3n c, 3n (c+1))) of the
// mass-weighted displacements that neither translate nor rotate the molecule at `positions`
// (k = 6, or 5 when it is linear).
std::vector<double> internal_basis(std::span<const Vec3> positions, std::span<const double> masses, int& columns);

}  // namespace quasar::qct
