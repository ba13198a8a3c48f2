#include "quasar/qct/initial_conditions.hpp"

#include <cmath>

#include "quasar/core/error.hpp"
#include "quasar/core/random.hpp"
#include "quasar/core/units.hpp"

namespace quasar::qct {

namespace {
constexpr double kTwoPi = 6.283185307179586;
// Words of a trajectory's stream: b, then the orientation, then one phase per mode.
constexpr uint32_t kImpactWord = 0, kOrientationWord = 1, kPhaseWord = 4;

Vec3 rotate(const Mat3& r, Vec3 p) { return {dot(r.r[0], p), dot(r.r[1], p), dot(r.r[2], p)}; }

// A rotation uniform over SO(3) from three uniform numbers (Shoemake's unit quaternion).
Mat3 uniform_rotation(double u1, double u2, double u3) {
  const double a = std::sqrt(1 - u1), b = std::sqrt(u1);
  const double w = a * std::sin(kTwoPi * u2), x = a * std::cos(kTwoPi * u2);
  const double y = b * std::sin(kTwoPi * u3), z = b * std::cos(kTwoPi * u3);
  return {{{1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
           {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
           {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)}}};
}

double kinetic(const std::vector<Vec3>& v, const std::vector<double>& m) {
  double k = 0;
  for (std::size_t i = 0; i < v.size(); ++i) k += 0.5 * m[i] * norm2(v[i]);
  return k * units::mvv2e;
}

// Removes the angular momentum about the centre of mass (positions r relative to it) that the
// vibrational motion carries at a displaced geometry: v -= w x r with I w = L.
void remove_angular_momentum(const std::vector<Vec3>& r, std::vector<Vec3>& v, const std::vector<double>& m) {
  Vec3 l{};
  Mat3 inertia{};
  for (std::size_t i = 0; i < r.size(); ++i) {
    l += m[i] * cross(r[i], v[i]);
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) inertia(a, b) += m[i] * ((a == b ? norm2(r[i]) : 0.0) - r[i][a] * r[i][b]);
  }
  const double t = trace(inertia);
  Vec3 w{};
  if (std::abs(det(inertia)) > 1e-12 * t * t * t) {
    w = rotate(inverse(inertia), l);
  } else {
    // A linear molecule: its two moments are trace / 2 and L has no part along the axis.
    w = l * (2.0 / t);
  }
  for (std::size_t i = 0; i < r.size(); ++i) v[i] -= cross(w, r[i]);
}
}  // namespace

double uniform(uint64_t seed, uint64_t trajectory, uint32_t index) {
  uint32_t words[4];
  Philox::draw(seed, trajectory, index / 4, 0x51c7u, words);
  return uniform_open(words[index % 4]);
}

InitialCondition initial_condition(const NormalModes& modes, double atom_mass, const CollisionSettings& s,
                                   uint64_t trajectory) {
  if (!(s.initial_separation > s.b_max)) throw Error("qct: the initial separation must exceed b_max");
  if (!(s.collision_energy > 0)) throw Error("qct: the collision energy must be positive");
  const int n = modes.atoms, n3 = 3 * n;
  InitialCondition ic;
  ic.b = s.b_max * std::sqrt(uniform(s.seed, trajectory, kImpactWord));
  ic.orientation = uniform_rotation(uniform(s.seed, trajectory, kOrientationWord),
                                    uniform(s.seed, trajectory, kOrientationWord + 1),
                                    uniform(s.seed, trajectory, kOrientationWord + 2));

  // E = hbar omega (n + 1/2) in every mode at a random phase: Q = A cos(phi) / omega,
  // P = -A sin(phi) with A^2 = 2 E (mass-weighted, amu^1/2 Å and amu^1/2 Å/ps).
  if (s.quanta.size() > static_cast<std::size_t>(modes.modes()))
    throw Error("qct: " + std::to_string(s.quanta.size()) + " vibrational quanta for a molecule of " +
                std::to_string(modes.modes()) + " normal modes");
  std::vector<double> dx(static_cast<std::size_t>(n3), 0.0), dv(static_cast<std::size_t>(n3), 0.0);
  double potential = 0;
  for (int k = 0; k < modes.modes(); ++k) {
    const double omega = modes.omega[static_cast<std::size_t>(k)];
    const int quanta = static_cast<std::size_t>(k) < s.quanta.size() ? s.quanta[static_cast<std::size_t>(k)] : 0;
    const double amplitude = std::sqrt(2 * (quanta + 0.5) * kHbar * omega / units::mvv2e);
    const double phase = kTwoPi * uniform(s.seed, trajectory, kPhaseWord + static_cast<uint32_t>(k));
    const double q = amplitude * std::cos(phase) / omega, p = -amplitude * std::sin(phase);
    potential += 0.5 * omega * omega * q * q * units::mvv2e;
    for (int i = 0; i < n3; ++i) {
      const double l = modes.vectors[static_cast<std::size_t>(k * n3 + i)];
      dx[static_cast<std::size_t>(i)] += l * q;
      dv[static_cast<std::size_t>(i)] += l * p;
    }
  }
  std::vector<Vec3> r(static_cast<std::size_t>(n)), v(static_cast<std::size_t>(n));
  const std::vector<double>& m = modes.masses;
  double total_mass = 0;
  for (double mi : m) total_mass += mi;
  Vec3 centre{}, momentum{};
  for (int i = 0; i < n; ++i) {
    const double root = std::sqrt(m[i]);
    r[i] = modes.minimum[static_cast<std::size_t>(i)] + Vec3{dx[3 * i], dx[3 * i + 1], dx[3 * i + 2]} * (1 / root);
    v[i] = Vec3{dv[3 * i], dv[3 * i + 1], dv[3 * i + 2]} * (1 / root);
    centre += m[i] * r[i];
    momentum += m[i] * v[i];
  }
  // The modes neither translate nor rotate to first order: what is left of either is rounding,
  // except the angular momentum of the displaced geometry, which is removed; the kinetic energy
  // is then scaled back, so that the molecule keeps its vibrational energy without rotating.
  for (int i = 0; i < n; ++i) {
    r[i] -= centre * (1 / total_mass);
    v[i] -= momentum * (1 / total_mass);
  }
  const double before = kinetic(v, m);
  remove_angular_momentum(r, v, m);
  const double after = kinetic(v, m);
  if (after > 0)
    for (Vec3& vi : v) vi = vi * std::sqrt(before / after);
  ic.vibrational_kinetic = kinetic(v, m);
  ic.harmonic_energy = potential + ic.vibrational_kinetic;

  // Orientation, then the approach along +z with the impact parameter along x.
  const double mu = atom_mass * total_mass / (atom_mass + total_mass);
  const double speed = std::sqrt(2 * s.collision_energy / (mu * units::mvv2e));
  const Vec3 molecule_velocity{0, 0, -speed * atom_mass / (atom_mass + total_mass)};
  for (int i = 0; i < n; ++i) {
    ic.molecule_positions.push_back(rotate(ic.orientation, r[i]));
    ic.molecule_velocities.push_back(rotate(ic.orientation, v[i]) + molecule_velocity);
  }
  ic.atom_position = {ic.b, 0, -std::sqrt(s.initial_separation * s.initial_separation - ic.b * ic.b)};
  ic.atom_velocity = {0, 0, speed * total_mass / (atom_mass + total_mass)};
  return ic;
}

}  // namespace quasar::qct
