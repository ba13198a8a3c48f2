#pragma once
// What Epsilon writes: the head lines of its standard output and chi_converge.dat in BerkeleyGW's
// layouts (so that scripts that read that program's output read these), the inverse dielectric
// matrices in an HDF5 file (docs/formats/gw-epsilon.md), and a JSON summary of the same numbers.
#include <string>
#include <vector>

#include "quasar/gw/epsilon.hpp"

namespace quasar::gw {

// Fortran's ESw.dEe (w = width, d digits after the point, e exponent digits): "1.696195475141490E+001".
std::string fortran_es(double x, int width, int digits, int exponent_digits);
// Fortran's Ew.d: "-0.71438266E-06".
std::string fortran_e(double x, int width, int digits);

// The lines BerkeleyGW's Epsilon prints for q-point `number` (1-based) before and after the inversion:
// "q-pt      1: Head of Epsilon         = ", "Epsilon(2, 2)", "Head of Epsilon Inverse", "Epsilon
// Inverse(2, 2)"; real flavour: the real parts, complex: real and imaginary.
std::string epsilon_lines(const EpsilonOfQ& e, int number, bool real);
std::string epsilon_inverse_lines(const EpsilonOfQ& e, int number, bool real);

// chi_converge.dat: per q-point a "# q=" line, the column titles, Re chi0(0,0) and Re chi0(Gmax,Gmax)
// summed over the first 1..N conduction bands with their extrapolations, and an empty line.
std::string chi_converge_text(const EpsilonResult& r);

// epsilon.log's inverse-epsilon blocks, per q-point: two empty lines, the column titles ("g", "gp",
// "inverse epsilon nspin= 1"), then each diagonal element and the one below it, (1,1), (2,1), (2,2),
// (3,2), ..., as "G components, G' components, value(s)" (BerkeleyGW's 5x,3i5,5x,3i5,5x,2f13.8).
std::string epsilon_log_text(const EpsilonResult& r);

// The HDF5 file of the inverse dielectric matrices (all q-points), written through a temporary file.
std::vector<unsigned char> epsilon_file_image(const EpsilonResult& r, const EpsilonInput& input, const Wavefunctions& wfn);
void write_epsilon_file(const std::string& path, const EpsilonResult& r, const EpsilonInput& input, const Wavefunctions& wfn);

// Reads the file back for Sigma: the q-points (q0 flags), each q's G-vectors and eps^-1; volume,
// valence bands and flavour. Every shape and value is checked; errors name the file and object.
EpsilonResult read_epsilon_file(const void* bytes, std::size_t size, const std::string& origin);
EpsilonResult read_epsilon_file(const std::string& path);

// The JSON summary: per q-point the heads, the (2, 2) elements, the band convergence of chi0, sizes.
std::string epsilon_json(const EpsilonResult& r, const EpsilonInput& input);

}  // namespace quasar::gw
