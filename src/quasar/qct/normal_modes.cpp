#include "quasar/qct/normal_modes.hpp"

#include <algorithm>
#include <cmath>

#include "quasar/core/error.hpp"
#include "quasar/core/units.hpp"
#include "quasar/device/array.hpp"
#include "quasar/device/linalg.hpp"

namespace quasar::qct {

namespace {
constexpr double kTwoPi = 6.283185307179586;
// A rigid-body vector shorter than this (relative to the molecule's sqrt(mass) size) is dependent:
// the rotation about the axis of a linear molecule.
constexpr double kDependent = 1e-6;
// Newton steps move no atom farther than this (Å), so that a poor start cannot jump far.
constexpr double kLargestMove = 0.1;

// Eigenvalues (ascending) and eigenvectors (column j at [m j, m (j+1))) of the symmetric m x m `a`.
std::vector<double> symmetric_eigen(std::vector<double>& a, int m) {
  device::Context cpu(Backend::Cpu);
  Array<double> matrix(Backend::Cpu, a.size()), values(Backend::Cpu, static_cast<std::size_t>(m));
  for (std::size_t k = 0; k < a.size(); ++k) matrix[k] = a[k];
  device::eigh(cpu, device::Triangle::Upper, m, matrix, values);
  for (std::size_t k = 0; k < a.size(); ++k) a[k] = matrix[k];
  return values.to_vector();
}

Vec3 centre_of_mass(std::span<const Vec3> r, std::span<const double> m) {
  Vec3 c{};
  double total = 0;
  for (std::size_t i = 0; i < r.size(); ++i) {
    c = c + r[i] * m[i];
    total += m[i];
  }
  return c * (1.0 / total);
}

// The mass-weighted Hessian in the internal basis D (3n x q): D^T M^-1/2 H M^-1/2 D (q x q).
std::vector<double> internal_hessian(const std::vector<double>& h, std::span<const double> masses,
                                     const std::vector<double>& d, int q) {
  const int n3 = 3 * static_cast<int>(masses.size());
  std::vector<double> hd(static_cast<std::size_t>(n3 * q), 0.0);  // (M^-1/2 H M^-1/2) D, column-major
  for (int c = 0; c < q; ++c)
    for (int i = 0; i < n3; ++i) {
      double s = 0;
      for (int j = 0; j < n3; ++j)
        s += h[static_cast<std::size_t>(i * n3 + j)] / std::sqrt(masses[i / 3] * masses[j / 3]) *
             d[static_cast<std::size_t>(c * n3 + j)];
      hd[static_cast<std::size_t>(c * n3 + i)] = s;
    }
  std::vector<double> out(static_cast<std::size_t>(q * q));
  for (int a = 0; a < q; ++a)
    for (int b = 0; b < q; ++b) {
      double s = 0;
      for (int i = 0; i < n3; ++i) s += d[static_cast<std::size_t>(a * n3 + i)] * hd[static_cast<std::size_t>(b * n3 + i)];
      out[static_cast<std::size_t>(a * q + b)] = s;
    }
  // Symmetric to rounding; make it exactly so.
  for (int a = 0; a < q; ++a)
    for (int b = 0; b < a; ++b) {
      const double mean = 0.5 * (out[static_cast<std::size_t>(a * q + b)] + out[static_cast<std::size_t>(b * q + a)]);
      out[static_cast<std::size_t>(a * q + b)] = out[static_cast<std::size_t>(b * q + a)] = mean;
    }
  return out;
}

std::string wavenumber_text(double lambda) {
  const double w = std::sqrt(std::abs(lambda) * units::ftm2v) / (kTwoPi * kLightCmPerPs);
  return std::to_string(w) + (lambda < 0 ? "i" : "") + " cm^-1";
}
}  // namespace

double NormalModes::wavenumber(int k) const { return omega[static_cast<std::size_t>(k)] / (kTwoPi * kLightCmPerPs); }

double NormalModes::zero_point_energy() const {
  double e = 0;
  for (double w : omega) e += 0.5 * kHbar * w;
  return e;
}

std::vector<double> internal_basis(std::span<const Vec3> positions, std::span<const double> masses, int& columns) {
  const int n = static_cast<int>(positions.size()), n3 = 3 * n;
  const Vec3 c = centre_of_mass(positions, masses);
  double size = 0;  // sqrt(sum m r^2) + sqrt(sum m): the scale of the rigid-body vectors
  for (int i = 0; i < n; ++i) size += masses[i] * norm2(positions[i] - c);
  double total_mass = 0;
  for (double m : masses) total_mass += m;
  size = std::sqrt(size) + std::sqrt(total_mass);
  std::vector<std::vector<double>> rigid;
  for (int kind = 0; kind < 6; ++kind) {
    std::vector<double> v(static_cast<std::size_t>(n3), 0.0);
    for (int i = 0; i < n; ++i) {
      const double s = std::sqrt(masses[i]);
      if (kind < 3) {
        v[static_cast<std::size_t>(3 * i + kind)] = s;
      } else {
        Vec3 axis{};
        axis[kind - 3] = 1;
        const Vec3 u = cross(axis, positions[i] - c) * s;
        for (int a = 0; a < 3; ++a) v[static_cast<std::size_t>(3 * i + a)] = u[a];
      }
    }
    // Modified Gram-Schmidt against those kept.
    for (const auto& w : rigid) {
      double dot = 0;
      for (int k = 0; k < n3; ++k) dot += v[k] * w[k];
      for (int k = 0; k < n3; ++k) v[k] -= dot * w[k];
    }
    double norm = 0;
    for (double x : v) norm += x * x;
    norm = std::sqrt(norm);
    if (norm < kDependent * size) continue;
    for (double& x : v) x /= norm;
    rigid.push_back(std::move(v));
  }
  // The complement: eigenvectors of the projector I - sum t t^T with eigenvalue 1.
  std::vector<double> p(static_cast<std::size_t>(n3 * n3), 0.0);
  for (int i = 0; i < n3; ++i) p[static_cast<std::size_t>(i * n3 + i)] = 1;
  for (const auto& t : rigid)
    for (int i = 0; i < n3; ++i)
      for (int j = 0; j < n3; ++j) p[static_cast<std::size_t>(i * n3 + j)] -= t[i] * t[j];
  symmetric_eigen(p, n3);
  const int k = static_cast<int>(rigid.size());
  columns = n3 - k;
  return std::vector<double>(p.begin() + static_cast<std::ptrdiff_t>(k) * n3, p.end());
}

NormalModes normal_modes(const Structure& system, std::span<const int> molecule, const BatchForces& forces,
                         const NormalModeSettings& settings) {
  const int n = static_cast<int>(molecule.size()), n3 = 3 * n;
  if (n < 2) throw Error("normal modes: the molecule needs at least two atoms");
  for (int i : molecule)
    if (i < 0 || static_cast<std::size_t>(i) >= system.size())
      throw Error("normal modes: atom " + std::to_string(i) + " is not in the system");
  NormalModes nm;
  nm.atoms = n;
  for (int i : molecule) nm.masses.push_back(system.type_masses[static_cast<std::size_t>(system.types[i])]);
  for (double m : nm.masses)
    if (!(m > 0)) throw Error("normal modes: every atom of the molecule needs a positive mass");
  std::vector<Vec3> x;
  for (int i : molecule) x.push_back(system.positions[static_cast<std::size_t>(i)]);
  const double h = settings.step;

  for (int iteration = 0;; ++iteration) {
    // The system at x, then each coordinate displaced by +h and -h.
    std::vector<Structure> frames(static_cast<std::size_t>(1 + 2 * n3), system);
    for (auto& f : frames)
      for (int a = 0; a < n; ++a) f.positions[static_cast<std::size_t>(molecule[a])] = x[a];
    for (int j = 0; j < n3; ++j) {
      frames[static_cast<std::size_t>(1 + 2 * j)].positions[static_cast<std::size_t>(molecule[j / 3])][j % 3] += h;
      frames[static_cast<std::size_t>(2 + 2 * j)].positions[static_cast<std::size_t>(molecule[j / 3])][j % 3] -= h;
    }
    const std::vector<Evaluation> e = forces(frames);
    std::vector<double> g(static_cast<std::size_t>(n3));
    double largest = 0;
    for (int a = 0; a < n; ++a)
      for (int c = 0; c < 3; ++c) {
        g[static_cast<std::size_t>(3 * a + c)] = -e[0].forces[static_cast<std::size_t>(molecule[a])][c];
        largest = std::max(largest, std::abs(g[static_cast<std::size_t>(3 * a + c)]));
      }
    std::vector<double> hess(static_cast<std::size_t>(n3 * n3));
    for (int j = 0; j < n3; ++j)
      for (int i = 0; i < n3; ++i) {
        const Vec3 fp = e[static_cast<std::size_t>(1 + 2 * j)].forces[static_cast<std::size_t>(molecule[i / 3])];
        const Vec3 fm = e[static_cast<std::size_t>(2 + 2 * j)].forces[static_cast<std::size_t>(molecule[i / 3])];
        hess[static_cast<std::size_t>(i * n3 + j)] = -(fp[i % 3] - fm[i % 3]) / (2 * h);
      }
    for (int i = 0; i < n3; ++i)
      for (int j = 0; j < i; ++j) {
        const double mean = 0.5 * (hess[static_cast<std::size_t>(i * n3 + j)] + hess[static_cast<std::size_t>(j * n3 + i)]);
        hess[static_cast<std::size_t>(i * n3 + j)] = hess[static_cast<std::size_t>(j * n3 + i)] = mean;
      }
    int q = 0;
    const std::vector<double> d = internal_basis(x, nm.masses, q);
    std::vector<double> hint = internal_hessian(hess, nm.masses, d, q);
    const std::vector<double> lambda = symmetric_eigen(hint, q);  // hint now holds the eigenvectors
    if (!std::isfinite(e[0].energy) || !std::isfinite(largest))
      throw Error("normal modes: the energy or forces of the molecule are not finite");
    const bool converged = largest < settings.force_tolerance;
    if (lambda[0] <= 0) {
      throw Error(std::string("normal modes: ") + (converged ? "the stationary point is not a minimum" :
                  "the Newton search left the region of a minimum") + " (lowest frequency " +
                  wavenumber_text(lambda[0]) + ", largest force " + std::to_string(largest) + " eV/Å)");
    }
    if (converged) {
      nm.energy = e[0].energy;
      nm.hessian = std::move(hess);
      nm.largest_force = largest;
      nm.iterations = iteration;
      nm.centre = centre_of_mass(x, nm.masses);
      for (const Vec3& r : x) nm.minimum.push_back(r - nm.centre);
      nm.vectors.assign(static_cast<std::size_t>(q * n3), 0.0);
      for (int k = 0; k < q; ++k) {
        nm.omega.push_back(std::sqrt(lambda[static_cast<std::size_t>(k)] * units::ftm2v));
        for (int i = 0; i < n3; ++i) {
          double s = 0;
          for (int c = 0; c < q; ++c) s += d[static_cast<std::size_t>(c * n3 + i)] * hint[static_cast<std::size_t>(k * q + c)];
          nm.vectors[static_cast<std::size_t>(k * n3 + i)] = s;
        }
      }
      return nm;
    }
    if (iteration >= settings.max_iterations)
      throw Error("normal modes: no minimum after " + std::to_string(settings.max_iterations) +
                  " Newton steps (largest force " + std::to_string(largest) + " eV/Å, tolerance " +
                  std::to_string(settings.force_tolerance) + "; an interpolated surface may need a looser one:" +
                  " [qct] minimum_force)");
    // Newton step in mass-weighted internal coordinates: dy = -V diag(1/lambda) V^T D^T M^-1/2 g.
    std::vector<double> gint(static_cast<std::size_t>(q), 0.0), step(static_cast<std::size_t>(q), 0.0);
    for (int c = 0; c < q; ++c)
      for (int i = 0; i < n3; ++i)
        gint[static_cast<std::size_t>(c)] += d[static_cast<std::size_t>(c * n3 + i)] * g[i] / std::sqrt(nm.masses[i / 3]);
    for (int k = 0; k < q; ++k) {
      double proj = 0;
      for (int c = 0; c < q; ++c) proj += hint[static_cast<std::size_t>(k * q + c)] * gint[c];
      for (int c = 0; c < q; ++c) step[c] -= hint[static_cast<std::size_t>(k * q + c)] * proj / lambda[k];
    }
    std::vector<Vec3> dx(static_cast<std::size_t>(n), Vec3{});
    double longest = 0;
    for (int i = 0; i < n3; ++i) {
      double s = 0;
      for (int c = 0; c < q; ++c) s += d[static_cast<std::size_t>(c * n3 + i)] * step[c];
      dx[static_cast<std::size_t>(i / 3)][i % 3] = s / std::sqrt(nm.masses[i / 3]);
    }
    for (const Vec3& v : dx) longest = std::max(longest, std::sqrt(norm2(v)));
    const double scale = longest > kLargestMove ? kLargestMove / longest : 1.0;
    for (int a = 0; a < n; ++a) x[a] = x[a] + dx[a] * scale;
  }
}

}  // namespace quasar::qct
