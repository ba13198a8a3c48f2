#pragma once
// H + CH4 <-> H2 + CH3 on the analytic surface form of Jordan and Gilbert (J. Chem. Phys. 102, 5669
// (1995)): LEPS-type stretches of the four C-H bonds, each in a three-body term with the C-H' and
// H-H' pairs of the fifth ("attacking") hydrogen H', plus harmonic-quartic out-of-plane and
// harmonic in-plane bends of the methyl moiety whose reference angles and force constants switch
// from methane (tetrahedral) to methyl (planar) as a C-H bond breaks. The parameter set in use is
// that of Corchado, Bravo and Espinosa-Garcia (J. Chem. Phys. 130, 184314 (2009)), fitted to
// CCSD(T)/cc-pVTZ data; the same form with other parameters gives the surfaces of Jordan and
// Gilbert and of Espinosa-Garcia (2002).
//
// The form is symmetric under permutations of the four methane hydrogens only: H' is a distinct
// atom, and a hydrogen abstracted from methane never becomes an H'. Atoms are ordered C, H1..H4,
// H'. The zero of energy is all six atoms apart; CH4 + H lies at -4 D1(CH) and CH3 + H2 at
// -3 D1(CH) - D1(HH).
#include <array>

namespace quasar::surfaces {

// Lengths in Å, energies in kcal/mol, bend force constants in mdyn Å rad^-2, as the papers give them.
struct Ch5JgParameters {
  double r0ch, d1ch, d3ch, a1ch, b1ch, c1ch;  // C-H: Morse length, singlet/triplet depths, range a1 + b1 switch
  double r0hh, d1hh, d3hh, ahh;               // H-H'
  double r0cb, d1cb, d3cb, acb;               // C-H'
  double a3s, b3s;                            // out-of-plane switch S3
  double aphi, bphi, cphi;                    // reference-angle switch S_phi
  double atheta, btheta, ctheta;              // reference-angle switch S_theta
  double fch3, hch3;                          // out-of-plane quadratic and quartic force constants
  double fkinf, ak;                           // in-plane force constant at the methyl limit, methane increment
  double aa1, aa2, aa3, aa4;                  // in-plane attenuation by H'
  double a1s, b1s, a2s, b2s;                  // in-plane force-constant switches S1, S2
};

// Corchado, Bravo and Espinosa-Garcia 2009 (the surface's parameters as distributed in POTLIB).
Ch5JgParameters ch5_cbg2009_parameters();

inline constexpr int kCh5Coordinates = 18;  // x, y, z of C, H1, H2, H3, H4, H' (Å)

// Energy in eV (zero: atoms apart).
double ch5_jg_energy(const Ch5JgParameters& p, const std::array<double, kCh5Coordinates>& x);
// Energy (eV) and its exact gradient (eV/Å) by forward-mode differentiation of the same expressions.
double ch5_jg_energy_gradient(const Ch5JgParameters& p, const std::array<double, kCh5Coordinates>& x,
                              std::array<double, kCh5Coordinates>& gradient);
// Energy, gradient and exact Hessian (eV/Å^2, 18 x 18 row-major) by second-order forward differentiation.
double ch5_jg_hessian(const Ch5JgParameters& p, const std::array<double, kCh5Coordinates>& x,
                      std::array<double, kCh5Coordinates>& gradient,
                      std::array<double, kCh5Coordinates * kCh5Coordinates>& hessian);
// Energy in kcal/mol, the papers' unit (for checks against their values).
double ch5_jg_energy_kcal(const Ch5JgParameters& p, const std::array<double, kCh5Coordinates>& x);

}  // namespace quasar::surfaces
