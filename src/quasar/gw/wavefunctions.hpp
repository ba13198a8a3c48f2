#pragma once
// The mean field that Epsilon and Sigma read: lattice, atoms, k-points and weights, the G-vectors of
// the density sphere and of each k-point's wavefunctions, plane-wave coefficients (real or complex),
// energies and occupations. Its file is HDF5 (docs/formats/gw-wavefunctions.md).
#include <array>
#include <complex>
#include <cstddef>
#include <string>
#include <vector>

namespace quasar::gw {

using Vec3d = std::array<double, 3>;
using GVector = std::array<int, 3>;  // reciprocal-lattice coordinates

struct Wavefunctions {
  bool real = true;  // real coefficients (systems with inversion symmetry about the origin)
  int spins = 1;
  int bands = 0;
  double cutoff_ry = 0;          // kinetic-energy cutoff of the wavefunctions (Ry)
  double density_cutoff_ry = 0;  // of the G-vector sphere `gvectors` (4 cutoff_ry)
  std::array<Vec3d, 3> lattice{};     // lattice vectors (rows), bohr
  std::array<Vec3d, 3> reciprocal{};  // reciprocal vectors (rows), 1/bohr: a_i . b_j = 2 pi delta_ij
  std::vector<Vec3d> atom_positions;  // fractional
  std::vector<int> atomic_numbers;
  std::array<int, 3> fft_grid{};
  std::array<int, 3> kgrid{};  // the grid the k-points come from (0 0 0: unknown)
  Vec3d kshift{};
  std::vector<Vec3d> kpoints;   // reciprocal-lattice coordinates
  std::vector<double> weights;  // sum 1
  std::vector<GVector> gvectors;  // the density sphere
  std::vector<int> gvector_counts;  // per k-point: its wavefunctions' G-vectors
  std::vector<GVector> kgvectors;   // those G-vectors, k-point after k-point
  // [spin][k][band], Ry; occupations in [0, 1].
  std::vector<double> energies, occupations;
  // [spin][k][band][G of that k-point], the k-points' blocks one after another; one of the two is used.
  std::vector<double> real_coefficients;
  std::vector<std::complex<double>> complex_coefficients;

  std::size_t kpoint_count() const { return kpoints.size(); }
  std::size_t total_kgvectors() const { return kgvectors.size(); }
  // Index of the first G-vector of k-point k in kgvectors (and of its coefficients within a band).
  std::size_t kgvector_offset(std::size_t k) const;
  // Index of the first coefficient of (spin, k, band).
  std::size_t coefficient_offset(int spin, std::size_t k, int band) const;
  double energy(int spin, std::size_t k, int band) const {
    return energies[(static_cast<std::size_t>(spin) * kpoints.size() + k) * static_cast<std::size_t>(bands) + band];
  }
  // "" when the sizes agree with each other and the values are sane; else what is wrong.
  std::string problem() const;
};

// The reciprocal metric M_ij = b_i . b_j (1/bohr^2) of a mean field, and |v|^2 = v M v of a vector v
// in reciprocal-lattice coordinates.
using Matrix3 = std::array<std::array<double, 3>, 3>;
inline Matrix3 reciprocal_metric(const Wavefunctions& w) {
  Matrix3 m{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int d = 0; d < 3; ++d) m[i][j] += w.reciprocal[i][d] * w.reciprocal[j][d];
  return m;
}
inline double norm2(const Matrix3& m, const Vec3d& v) {
  double e = 0;
  for (int i = 0; i < 3; ++i) e += v[i] * (m[i][0] * v[0] + m[i][1] * v[1] + m[i][2] * v[2]);
  return e;
}

// "" when a and b hold the same values to the last bit; else the first field that differs.
std::string wavefunctions_difference(const Wavefunctions& a, const Wavefunctions& b);

// The HDF5 file: written in memory and then to `path` through a temporary file; read from a path or
// from bytes (errors name `origin` and the object).
std::vector<unsigned char> wavefunctions_image(const Wavefunctions& w);
void write_wavefunctions(const std::string& path, const Wavefunctions& w);
Wavefunctions read_wavefunctions(const void* bytes, std::size_t size, const std::string& origin);
Wavefunctions read_wavefunctions(const std::string& path);

}  // namespace quasar::gw
