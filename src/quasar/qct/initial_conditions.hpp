#pragma once
// Quasi-classical initial conditions of an atom + molecule collision: the molecule with
// hbar omega (n + 1/2) in every normal mode, n its quanta (0: the zero-point energy; random phases), no rotation (J = 0: the angular momentum
// that the vibrational displacements bring is removed), turned to a random orientation; the atom
// at a distance from the molecule's centre of mass with an impact parameter b sampled uniformly in
// b^2 up to b_max, both moving towards each other with the relative collision energy. Every number
// is drawn from a counter-based stream of (seed, trajectory), so that a trajectory's start does not
// depend on how many are drawn or in what order.
#include <cstdint>
#include <vector>

#include "quasar/core/vec.hpp"
#include "quasar/qct/normal_modes.hpp"

namespace quasar::qct {

struct CollisionSettings {
  double collision_energy = 0;    // eV, relative translational energy
  double b_max = 0;               // Å
  double initial_separation = 0;  // Å between the atom and the molecule's centre of mass (> b_max)
  uint64_t seed = 1;
  std::vector<int> quanta;        // vibrational quanta per normal mode (increasing wavenumber); missing: 0
};

// One trajectory's start. The molecule's atoms in its order, then the atom; positions in Å from the
// centre of mass of the molecule, velocities in Å/ps, the total momentum zero.
struct InitialCondition {
  std::vector<Vec3> molecule_positions, molecule_velocities;
  Vec3 atom_position, atom_velocity;
  double b = 0;                        // Å
  Mat3 orientation{};                  // the molecule's rotation from the normal-mode frame
  double harmonic_energy = 0;          // eV: sum over modes of (P^2 + omega^2 Q^2) / 2 after the changes
  double vibrational_kinetic = 0;      // eV: the molecule's kinetic energy in its centre-of-mass frame
};

// A uniform number in (0, 1) of the stream (seed, trajectory), word `index`.
double uniform(uint64_t seed, uint64_t trajectory, uint32_t index);

// Draws trajectory `trajectory` (0, 1, ...) of the collision. `atom_mass` in amu.
InitialCondition initial_condition(const NormalModes& modes, double atom_mass, const CollisionSettings& s,
                                   uint64_t trajectory);

}  // namespace quasar::qct
