// The EPM Hamiltonian H(G, G') = |k+G|^2/2 delta + V(G - G') per k-point and its lowest states.
// Lengths in bohr, energies in Hartree inside; BerkeleyGW's conventions (the G-vector enumeration
// order, the metric tensor, the single-precision constants of its potentials) are kept so that the
// eigenvalues agree with its own to rounding.
#include "quasar/gw/epm.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>

#include "quasar/core/error.hpp"
#include "quasar/device/linalg.hpp"

namespace quasar::gw {

namespace {

using cplx = std::complex<double>;
constexpr double kTwoPi = 2 * std::numbers::pi;

// The potentials' published constants are single-precision literals in BerkeleyGW's program, widened
// to double where they meet q2; they are used here as that program evaluates them.
constexpr double f(float x) { return static_cast<double>(x); }

// The reciprocal metric M_ij = b_i . b_j (1/bohr^2).
using Metric = std::array<std::array<double, 3>, 3>;

// g^T M g / 2: the kinetic energy (Hartree) of the plane wave of reciprocal-lattice coordinates g.
double kinetic(const Metric& m, const Vec3d& g) {
  double e = 0;
  for (int i = 0; i < 3; ++i) e += g[i] * (m[i][0] * g[0] + m[i][1] * g[1] + m[i][2] * g[2]);
  return e / 2;
}

// The sphere of G-vectors with |G|^2/2 < 4 Ecut, in BerkeleyGW's order (first index slowest), and
// the index of each (i, j, k) in the box that holds it.
struct Sphere {
  std::array<int, 3> reach{};
  std::vector<GVector> g;
  std::vector<double> kinetic;  // Hartree
  std::vector<int> box;         // index + 1 into g, 0 outside the sphere
  int index(const GVector& v) const {
    for (int d = 0; d < 3; ++d)
      if (std::abs(v[d]) > reach[d]) return -1;
    const std::size_t i = (static_cast<std::size_t>(v[0] + reach[0]) * (2 * reach[1] + 1) + (v[1] + reach[1])) *
                              (2 * reach[2] + 1) + (v[2] + reach[2]);
    return box[i] - 1;
  }
};

Sphere make_sphere(const EpmInput& in, const Metric& m, double max_energy) {
  Sphere s;
  const double radius = std::sqrt(2 * max_energy);
  double box = 1;
  for (int d = 0; d < 3; ++d) {
    const Vec& a = in.lattice[d];
    const double reach = std::floor(radius * std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]) / kTwoPi) + 1;
    box *= 2 * reach + 1;
    if (!(box <= 1e8))
      throw InputError(in.path, 0, "EnergyCutoff: the potential's G-vectors would fill a box of over 10^8 points");
    s.reach[d] = static_cast<int>(reach);
  }
  s.box.assign(static_cast<std::size_t>(2 * s.reach[0] + 1) * (2 * s.reach[1] + 1) * (2 * s.reach[2] + 1), 0);
  std::size_t cell = 0;
  for (int i = -s.reach[0]; i <= s.reach[0]; ++i)
    for (int j = -s.reach[1]; j <= s.reach[1]; ++j)
      for (int k = -s.reach[2]; k <= s.reach[2]; ++k, ++cell) {
        const double e = kinetic(m, {double(i), double(j), double(k)});
        if (e < max_energy) {
          s.g.push_back({i, j, k});
          s.kinetic.push_back(e);
          s.box[cell] = static_cast<int>(s.g.size());
        }
      }
  return s;
}

// V(G) on the sphere (Hartree): continuous atomic potentials times the species' structure factors
// over the number of atoms, or Cohen-Bergstresser form factors (Ry, at |G|^2 = 3, 4, 8, 11 (2 pi/a)^2)
// with the structure factor of the last atom of species 1 (its symmetric part real, its
// antisymmetric part imaginary), as BerkeleyGW's program does.
std::vector<cplx> potential(const EpmInput& in, const Sphere& s) {
  std::vector<cplx> v(s.g.size());
  auto phase = [&](std::size_t ig, const EpmAtom& a) {
    const double arg = kTwoPi * (s.g[ig][0] * a.position[0] + s.g[ig][1] * a.position[1] + s.g[ig][2] * a.position[2]);
    return cplx(std::cos(arg), -std::sin(arg));
  };
  if (!in.form_factors) {
    const double atoms = static_cast<double>(in.atoms.size());
    for (std::size_t sp = 0; sp < in.species.size(); ++sp) {
      const std::string& label = in.species[sp].label;
      if (!has_atomic_potential(label))
        throw InputError(in.path, 0, "species " + std::to_string(sp + 1) + " '" + label +
                                         "' has no built-in potential (H, Si, Ga, As, El); give FormFactors");
      std::vector<cplx> factor(s.g.size());
      for (const EpmAtom& a : in.atoms)
        if (a.species == static_cast<int>(sp))
          for (std::size_t ig = 0; ig < s.g.size(); ++ig) factor[ig] += phase(ig, a);
      for (std::size_t ig = 0; ig < s.g.size(); ++ig)
        v[ig] += atomic_potential(label, 2 * s.kinetic[ig]) * (factor[ig] / atoms);
    }
  } else {
    const auto& ff = *in.form_factors;
    const EpmAtom* last = nullptr;
    for (const EpmAtom& a : in.atoms)
      if (a.species == 0) last = &a;
    if (!last) throw InputError(in.path, 0, "FormFactors need an atom of species 1");
    const double scale = in.lattice_constant / kTwoPi;
    for (std::size_t ig = 0; ig < s.g.size(); ++ig) {
      const double q2 = 2 * s.kinetic[ig] * scale * scale;
      const double n = std::floor(q2 + 1e-6);
      if (std::abs(q2 - n) > 1e-6)
        throw InputError(in.path, 0, "FormFactors need a lattice whose |G|^2 are integers in (2 pi/a)^2 (found " +
                                         std::to_string(q2) + "): a cubic lattice of constant a");
      double symmetric = 0, antisymmetric = 0;
      if (n == 3) symmetric = ff[0], antisymmetric = ff[3];
      if (n == 4) antisymmetric = ff[4];
      if (n == 8) symmetric = ff[1];
      if (n == 11) symmetric = ff[2], antisymmetric = ff[5];
      const cplx sf = phase(ig, *last);
      v[ig] = cplx(0.5 * symmetric * sf.real(), 0.5 * antisymmetric * -sf.imag());
    }
  }
  v[static_cast<std::size_t>(s.index({0, 0, 0}))] = 0;
  return v;
}

// The FFT grid BerkeleyGW's program chooses: 2 sqrt(G_max^2) |a_i| in units of 2 pi/|a_1|, plus 1,
// raised to the next 2^a 3^b 5^c.
std::array<int, 3> default_fft_grid(const Wavefunctions& w) {
  auto length = [](const Vec3d& a) { return std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); };
  const double al = length(w.lattice[0]), bl = kTwoPi / al;
  const double gcut = w.density_cutoff_ry / (bl * bl);
  std::array<int, 3> grid{};
  for (int d = 0; d < 3; ++d) {
    int n = static_cast<int>(2 * std::sqrt(gcut) * length(w.lattice[d]) / al) + 1;
    auto smooth = [](int m) {
      for (int p : {2, 3, 5})
        while (m % p == 0) m /= p;
      return m == 1;
    };
    while (!smooth(n)) ++n;
    grid[d] = n;
  }
  return grid;
}

// Diagonalises the n x n Hamiltonian's upper triangle (column-major) and keeps the lowest `bands`.
template <class T>
void lowest_states(device::Context& ctx, int n, std::vector<T>& h, int bands, std::vector<double>& energies,
                   std::vector<T>& coefficients) {
  Array<T> a(ctx.backend());
  a.assign(h);
  Array<double> w(ctx.backend(), static_cast<std::size_t>(n));
  device::eigh(ctx, device::Triangle::Upper, n, a, w);
  std::vector<double> values = w.to_vector();
  std::vector<T> vectors = a.to_vector();
  for (int b = 0; b < bands; ++b) {
    energies.push_back(2 * values[b]);  // Hartree -> Rydberg
    coefficients.insert(coefficients.end(), vectors.begin() + static_cast<std::ptrdiff_t>(b) * n,
                        vectors.begin() + static_cast<std::ptrdiff_t>(b + 1) * n);
  }
}

}  // namespace

bool has_atomic_potential(const std::string& label) {
  return label == "H" || label == "Si" || label == "Ga" || label == "As" || label == "El";
}

double atomic_potential(const std::string& label, double q2) {
  if (label == "H") {
    const double rs = 1;
    return -(3 / (rs * rs * rs)) / (q2 + f(2.43f) / rs);
  }
  if (label == "Si") return f(0.53706f) * (q2 - f(2.19104f)) / (f(2.05716f) * std::exp(f(0.48716f) * q2) - 1) / 2;
  if (label == "Ga") return f(1.22f) * (q2 - f(2.45f)) / (std::exp(f(0.54f) * (q2 + f(2.71f))) + 1) / 2;
  if (label == "As") return f(0.35f) * (q2 - f(2.62f)) / (std::exp(f(0.93f) * (q2 - f(1.57f))) + 1) / 2;
  if (label == "El") return 0;
  throw Error("no built-in EPM potential for '" + label + "' (valid: H, Si, Ga, As, El)");
}

Wavefunctions solve_epm(const EpmInput& in, device::Context& ctx) {
  Wavefunctions w;
  w.real = in.real;
  w.spins = in.spins;
  w.bands = in.bands;
  w.cutoff_ry = in.cutoff_ry;
  w.density_cutoff_ry = 4 * in.cutoff_ry;
  w.lattice = in.lattice;
  const auto& a = in.lattice;
  const double volume = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
                        a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
  for (int i = 0; i < 3; ++i) {
    const Vec3d& aj = a[(i + 1) % 3];
    const Vec3d& ak = a[(i + 2) % 3];
    w.reciprocal[i] = {kTwoPi * (aj[1] * ak[2] - aj[2] * ak[1]) / volume, kTwoPi * (aj[2] * ak[0] - aj[0] * ak[2]) / volume,
                       kTwoPi * (aj[0] * ak[1] - aj[1] * ak[0]) / volume};
  }
  Metric m{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int d = 0; d < 3; ++d) m[i][j] += w.reciprocal[i][d] * w.reciprocal[j][d];
  for (const EpmAtom& atom : in.atoms) {
    w.atom_positions.push_back(atom.position);
    w.atomic_numbers.push_back(in.species[static_cast<std::size_t>(atom.species)].atomic_number);
  }
  w.kgrid = in.kgrid;
  w.kshift = in.kshift;
  w.kpoints = in.kpoints;
  w.weights = in.weights;
  const double cutoff = in.cutoff_ry / 2;  // Hartree
  const Sphere sphere = make_sphere(in, m, 4 * cutoff);
  w.fft_grid = in.fft_grid ? *in.fft_grid : default_fft_grid(w);
  w.gvectors = sphere.g;
  const std::vector<cplx> v = potential(in, sphere);
  if (in.real) {
    double largest = 0, imaginary = 0;
    for (const cplx& x : v) largest = std::max(largest, std::abs(x)), imaginary = std::max(imaginary, std::abs(x.imag()));
    if (imaginary > 1e-12 * largest)
      throw InputError(in.path, 0, "real_or_complex 1 needs a real potential (inversion symmetry about the origin); "
                                   "its imaginary part reaches " + std::to_string(imaginary) + " Ha: use real_or_complex 2");
  }

  std::vector<double> energies, real_coefficients;
  std::vector<cplx> complex_coefficients;
  for (std::size_t k = 0; k < in.kpoints.size(); ++k) {
    // The basis: the sphere's G-vectors, in its order, with |k+G|^2/2 <= the cutoff.
    std::vector<int> basis;
    std::vector<double> diagonal;
    for (std::size_t ig = 0; ig < sphere.g.size(); ++ig) {
      const Vec3d kg{in.kpoints[k][0] + sphere.g[ig][0], in.kpoints[k][1] + sphere.g[ig][1], in.kpoints[k][2] + sphere.g[ig][2]};
      const double e = kinetic(m, kg);
      if (e <= cutoff) basis.push_back(static_cast<int>(ig)), diagonal.push_back(e);
    }
    const int n = static_cast<int>(basis.size());
    if (n < in.bands)
      throw InputError(in.path, 0, "k-point " + std::to_string(k + 1) + " has " + std::to_string(n) +
                                       " plane waves within the cutoff, fewer than NumberOfBands " + std::to_string(in.bands));
    w.gvector_counts.push_back(n);
    for (int g : basis) w.kgvectors.push_back(sphere.g[static_cast<std::size_t>(g)]);
    // Upper triangle, column-major: H(i, j) = V(G_i - G_j) for i < j.
    std::vector<cplx> h(static_cast<std::size_t>(n) * n);
    for (int j = 0; j < n; ++j) {
      const GVector& gj = sphere.g[static_cast<std::size_t>(basis[j])];
      for (int i = 0; i < j; ++i) {
        const GVector& gi = sphere.g[static_cast<std::size_t>(basis[i])];
        const int d = sphere.index({gi[0] - gj[0], gi[1] - gj[1], gi[2] - gj[2]});
        h[static_cast<std::size_t>(j) * n + i] = d < 0 ? cplx(0) : v[static_cast<std::size_t>(d)];
      }
      h[static_cast<std::size_t>(j) * n + j] = diagonal[static_cast<std::size_t>(j)];
    }
    if (in.real) {
      // As BerkeleyGW's program, through the complex Hermitian solver: its reduction keeps a real
      // matrix real, so the eigenvectors come out real (imaginary parts exactly zero), and the
      // eigenvalues agree with that program's to 1.3e-15 Ry on Si-EPM, against 4.4e-15 through the
      // real symmetric solver. Should a library give complex vectors, the real symmetric solver is used.
      for (cplx& x : h) x.imag(0);
      std::vector<double> values;
      std::vector<cplx> vectors;
      lowest_states(ctx, n, h, in.bands, values, vectors);
      if (std::all_of(vectors.begin(), vectors.end(), [](const cplx& c) { return c.imag() == 0; })) {
        energies.insert(energies.end(), values.begin(), values.end());
        for (const cplx& c : vectors) real_coefficients.push_back(c.real());
      } else {
        std::vector<double> hr(h.size());
        for (std::size_t i = 0; i < h.size(); ++i) hr[i] = h[i].real();
        lowest_states(ctx, n, hr, in.bands, energies, real_coefficients);
      }
    } else {
      lowest_states(ctx, n, h, in.bands, energies, complex_coefficients);
    }
  }
  // Both spins hold the same states.
  for (int s = 0; s < in.spins; ++s) {
    w.energies.insert(w.energies.end(), energies.begin(), energies.end());
    w.real_coefficients.insert(w.real_coefficients.end(), real_coefficients.begin(), real_coefficients.end());
    w.complex_coefficients.insert(w.complex_coefficients.end(), complex_coefficients.begin(), complex_coefficients.end());
  }
  // Occupations: the lowest NumberOfOccupiedBands filled, or Fermi-Dirac about mid-gap with kT =
  // temperature (Ry).
  double top = -1e300, bottom = 1e300;
  for (std::size_t i = 0; i < energies.size(); ++i) {
    const int band = static_cast<int>(i % static_cast<std::size_t>(in.bands));
    if (band < in.occupied) top = std::max(top, energies[i]);
    else bottom = std::min(bottom, energies[i]);
  }
  const double fermi = (top + bottom) / 2;
  for (std::size_t i = 0; i < w.energies.size(); ++i) {
    const int band = static_cast<int>(i % static_cast<std::size_t>(in.bands));
    if (in.temperature_ry > 0 && in.occupied > 0 && in.occupied < in.bands)
      w.occupations.push_back(1 / (std::exp((w.energies[i] - fermi) / in.temperature_ry) + 1));
    else
      w.occupations.push_back(band < in.occupied ? 1.0 : 0.0);
  }
  return w;
}

}  // namespace quasar::gw
