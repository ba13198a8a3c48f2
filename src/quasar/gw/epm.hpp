#pragma once
// The empirical-pseudopotential mean field of BerkeleyGW's EPM program: plane waves within the cutoff
// at each k-point, the local potential V(G) = sum_s v_s(|G|) S_s(G) on the sphere of 4x the cutoff
// (S_s: the species' structure factor over the number of atoms; V(0) = 0), or Cohen-Bergstresser
// form factors, and a dense Hermitian (real symmetric with inversion symmetry) eigensolver. The
// kinetic energy is |k+G|^2/2 (Hartree); energies come out in Rydberg.
#include <string>

#include "quasar/device/context.hpp"
#include "quasar/gw/epm_input.hpp"
#include "quasar/gw/wavefunctions.hpp"

namespace quasar::gw {

// The built-in continuous atomic potential v(q) (Hartree, q2 = |q|^2 in 1/bohr^2) of an element
// symbol: H, Si, Ga, As (Zhang, Yeh and Zunger, PRB 48, 11204 (1993)) and El (free electrons, 0).
// Throws Error for any other symbol.
double atomic_potential(const std::string& label, double q2);
bool has_atomic_potential(const std::string& label);

// Eigenvalues, eigenvectors and occupations of every k-point of the input, the Hamiltonians
// diagonalised on `ctx`'s backend (LAPACK on the CPU).
Wavefunctions solve_epm(const EpmInput& input, device::Context& ctx);

}  // namespace quasar::gw
