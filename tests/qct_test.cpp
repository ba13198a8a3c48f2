// Quasi-classical trajectories (qct/): normal modes of CH4 on the analytic H + CH4 surface against
// an independent diagonalisation of the surface's exact Hessian, the zero-point energy put in,
// the sampling of b, the estimators on a hard-sphere toy of known answer, energy conservation of
// every trajectory, seed reproducibility, product naming and bad input. CPU only: the analytic
// surface has no kernel (the dynamics is md::Ensemble's, tested on both backends there).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <sstream>

#include "quasar/core/units.hpp"
#include "quasar/potential/evaluate.hpp"
#include "quasar/potential/shepard/surfaces/ch5_jordan_gilbert.hpp"
#include "quasar/potential/shepard/surfaces/surface_potential.hpp"
#include "quasar/qct/qct.hpp"
#include "support.hpp"

namespace quasar {
namespace {

using surfaces::kCh5Coordinates;
constexpr double kPi = 3.141592653589793;
const surfaces::Ch5JgParameters kCbg = surfaces::ch5_cbg2009_parameters();

ForceField surface_field() {
  ForceField ff;
  ff.add(std::make_shared<AnalyticSurfacePotential>("ch5-cbg2009", "C", "H"), "surface");
  return ff;
}

qct::QctSettings h_ch4(double energy_kcal, double b_max, long trajectories) {
  const double a = 1.09 / std::sqrt(3.0);
  qct::QctSettings s;
  s.molecule = {"C", "H", "H", "H", "H"};
  s.positions = {{0, 0, 0}, {a, a, a}, {-a, -a, a}, {-a, a, -a}, {a, -a, -a}};
  s.projectile = "H";
  s.collision.collision_energy = energy_kcal * units::kcal_mol;
  s.collision.b_max = b_max;
  s.collision.initial_separation = 8;
  s.collision.seed = 7;
  s.trajectories = trajectories;
  s.stop_distance = 8;
  s.max_steps = 20000;
  return s;
}

qct::NormalModes ch4_modes(const qct::QctSettings& s) {
  std::vector<Vec3> r = s.positions;
  r.push_back({0, 0, 100});
  const Structure system = qct::collision_system(s, r, {});
  ForceField ff = surface_field();
  const std::vector<int> molecule{0, 1, 2, 3, 4};
  return qct::normal_modes(system, molecule,
                           [&](std::span<const Structure> f) { return evaluate_batch(ff, f, Backend::Cpu); });
}

// Eigenvalues of a symmetric matrix by cyclic Jacobi rotations (the test's own diagonalisation).
std::vector<double> jacobi_eigenvalues(std::vector<double> a, int n) {
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0;
    for (int p = 0; p < n; ++p)
      for (int q = p + 1; q < n; ++q) off += a[p * n + q] * a[p * n + q];
    if (off < 1e-30) break;
    for (int p = 0; p < n; ++p)
      for (int q = p + 1; q < n; ++q) {
        if (a[p * n + q] == 0) continue;
        const double theta = 0.5 * std::atan2(2 * a[p * n + q], a[q * n + q] - a[p * n + p]);
        const double c = std::cos(theta), s = std::sin(theta);
        for (int k = 0; k < n; ++k) {  // columns p, q
          const double akp = a[k * n + p], akq = a[k * n + q];
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (int k = 0; k < n; ++k) {  // rows p, q
          const double apk = a[p * n + k], aqk = a[q * n + k];
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
      }
  }
  std::vector<double> w(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) w[k] = a[k * n + k];
  std::sort(w.begin(), w.end());
  return w;
}

// The exact (forward-mode) Hessian of the surface for the molecule at r (Å, C H1..H4) with H'
// far away: its 15 x 15 block.
std::vector<double> exact_hessian(const std::vector<Vec3>& r, std::array<double, 15>& gradient) {
  std::array<double, kCh5Coordinates> x{}, g{};
  std::array<double, kCh5Coordinates * kCh5Coordinates> h{};
  for (int i = 0; i < 5; ++i)
    for (int c = 0; c < 3; ++c) x[3 * i + c] = r[i][c];
  x[17] = 100;
  surfaces::ch5_jg_hessian(kCbg, x, g, h);
  std::vector<double> out(225);
  for (int i = 0; i < 15; ++i) {
    gradient[i] = g[i];
    for (int j = 0; j < 15; ++j) out[i * 15 + j] = h[i * kCh5Coordinates + j];
  }
  return out;
}

// Frequencies (rad/ps) of the exact Hessian: mass-weighted, diagonalised, the six rigid-body
// eigenvalues (those nearest zero) dropped.
std::vector<double> exact_frequencies(const qct::NormalModes& nm) {
  std::array<double, 15> g{};
  std::vector<double> h = exact_hessian(nm.minimum, g);
  for (int i = 0; i < 15; ++i)
    for (int j = 0; j < 15; ++j) h[i * 15 + j] /= std::sqrt(nm.masses[i / 3] * nm.masses[j / 3]);
  std::vector<double> w = jacobi_eigenvalues(h, 15);
  std::sort(w.begin(), w.end(), [](double a, double b) { return std::abs(a) < std::abs(b); });
  std::vector<double> omega;
  for (int k = 6; k < 15; ++k) omega.push_back(std::sqrt(w[k] * units::ftm2v));
  std::sort(omega.begin(), omega.end());
  return omega;
}

Vec3 unrotate(const Mat3& r, Vec3 p) { return p * r; }  // R^T p for the rows of R

// A start's methane in its own frame: the centre of mass at rest at the origin, the rotation undone.
struct MoleculeFrame {
  Vec3 com, vcom;
  double mass = 0;
  std::vector<Vec3> local, velocity;  // positions in the normal-mode frame; velocities (lab axes)
};
MoleculeFrame molecule_frame(const qct::NormalModes& nm, const qct::InitialCondition& ic) {
  MoleculeFrame f;
  for (int i = 0; i < 5; ++i) {
    f.com += nm.masses[i] * ic.molecule_positions[i];
    f.vcom += nm.masses[i] * ic.molecule_velocities[i];
    f.mass += nm.masses[i];
  }
  f.com = f.com * (1 / f.mass);
  f.vcom = f.vcom * (1 / f.mass);
  for (int i = 0; i < 5; ++i) {
    f.local.push_back(unrotate(ic.orientation, ic.molecule_positions[i] - f.com));
    f.velocity.push_back(ic.molecule_velocities[i] - f.vcom);
  }
  return f;
}

// Its vibrational kinetic energy, and the harmonic energy with the exact Hessian h (15 x 15) at nm's minimum.
double kinetic_energy(const qct::NormalModes& nm, const MoleculeFrame& f) {
  double k = 0;
  for (int i = 0; i < 5; ++i) k += 0.5 * nm.masses[i] * norm2(f.velocity[i]) * units::mvv2e;
  return k;
}
double harmonic_energy(const qct::NormalModes& nm, const MoleculeFrame& f, const std::vector<double>& h) {
  std::vector<double> dx(15);
  for (int i = 0; i < 5; ++i)
    for (int c = 0; c < 3; ++c) dx[3 * i + c] = f.local[i][c] - nm.minimum[i][c];
  double potential = 0;
  for (int i = 0; i < 15; ++i)
    for (int j = 0; j < 15; ++j) potential += 0.5 * dx[i] * h[i * 15 + j] * dx[j];
  return potential + kinetic_energy(nm, f);
}

TEST(QctNormalModes, Ch4FrequenciesAgreeWithExactHessian) {
  const qct::NormalModes nm = ch4_modes(h_ch4(10, 1, 2));
  ASSERT_EQ(nm.modes(), 9);
  std::array<double, 15> g{};
  exact_hessian(nm.minimum, g);
  test::MaxError grad("exact gradient at the minimum found (eV/Å)");
  for (double gi : g) grad.add(gi, 0);
  // Newton stops below 1e-6 eV/Å of the differenced forces' run; measured 3.4e-10 with the exact gradient.
  EXPECT_TRUE(grad.within(1e-6));
  const std::vector<double> exact = exact_frequencies(nm);
  test::MaxError dw("normal-mode wavenumbers against the exact Hessian's (cm^-1)");
  for (int k = 0; k < 9; ++k) dw.add(nm.wavenumber(k), exact[k] / (2 * kPi * qct::kLightCmPerPs));
  // Central differences of forces with h = 1e-4 Å: measured 2.8e-5 cm^-1.
  EXPECT_TRUE(dw.within(3e-4));
  // Methane's degeneracies (Td): 1 + 2 + 3 + 3 with the stretches above 2500 cm^-1.
  EXPECT_NEAR(nm.wavenumber(1), nm.wavenumber(0), 1e-3);
  EXPECT_NEAR(nm.wavenumber(2), nm.wavenumber(0), 1e-3);
  EXPECT_NEAR(nm.wavenumber(4), nm.wavenumber(3), 1e-3);
  EXPECT_NEAR(nm.wavenumber(8), nm.wavenumber(7), 1e-3);
  EXPECT_GT(nm.wavenumber(5), 2500);
  std::printf("measured CH4 wavenumbers (cm^-1):");
  for (int k = 0; k < 9; ++k) std::printf(" %.2f", nm.wavenumber(k));
  std::printf("; zero-point energy %.6f eV\n", nm.zero_point_energy());
}

TEST(QctInitialConditions, ZeroPointEnergyWithoutRotationAtTheCollisionEnergy) {
  const qct::QctSettings s = h_ch4(20, 1.5, 2);
  const qct::NormalModes nm = ch4_modes(s);
  const std::vector<double> exact = exact_frequencies(nm);
  double zpe = 0;
  for (double w : exact) zpe += 0.5 * qct::kHbar * w;
  std::array<double, 15> g{};
  const std::vector<double> h = exact_hessian(nm.minimum, g);
  test::MaxError harmonic("harmonic energy at t = 0 - sum hbar omega / 2 (eV)"), angular("angular momentum (amu Å^2/ps)"),
      momentum("total momentum (amu Å/ps)"), collision("relative kinetic energy - E_coll (eV)"),
      geometry("impact parameter and separation (Å)");
  double anharmonic = 0, mean_actual = 0;
  for (uint64_t t = 0; t < 50; ++t) {
    const qct::InitialCondition ic = qct::initial_condition(nm, 1.00782503, s.collision, t);
    const MoleculeFrame f = molecule_frame(nm, ic);
    const Vec3 com = f.com, vcom = f.vcom;
    const double mass = f.mass, kinetic = kinetic_energy(nm, f);
    const std::vector<Vec3>& r = f.local;
    Vec3 l{};
    for (int i = 0; i < 5; ++i) l += nm.masses[i] * cross(ic.molecule_positions[i] - com, f.velocity[i]);
    harmonic.add(harmonic_energy(nm, f, h), zpe);
    for (int c = 0; c < 3; ++c) angular.add(l[c], 0);
    const Vec3 p = mass * vcom + 1.00782503 * ic.atom_velocity;
    for (int c = 0; c < 3; ++c) momentum.add(p[c], 0);
    const double mu = mass * 1.00782503 / (mass + 1.00782503);
    collision.add(0.5 * mu * norm2(ic.atom_velocity - vcom) * units::mvv2e, s.collision.collision_energy);
    const Vec3 d = ic.atom_position - com;
    geometry.add(std::hypot(d.x, d.y), ic.b);
    geometry.add(std::sqrt(norm2(d)), s.collision.initial_separation);
    // The true (anharmonic) vibrational energy, from the surface itself.
    std::array<double, kCh5Coordinates> x{};
    for (int i = 0; i < 5; ++i)
      for (int c = 0; c < 3; ++c) x[3 * i + c] = r[i][c];
    x[17] = 100;
    std::array<double, kCh5Coordinates> y{};
    for (int i = 0; i < 5; ++i)
      for (int c = 0; c < 3; ++c) y[3 * i + c] = nm.minimum[i][c];
    y[17] = 100;
    const double actual = surfaces::ch5_jg_energy(kCbg, x) - surfaces::ch5_jg_energy(kCbg, y) + kinetic;
    anharmonic = std::max(anharmonic, std::abs(actual - zpe) / zpe);
    mean_actual += actual / 50;
  }
  // Measured: 8.7e-9 eV (the modes' frequencies from differences of forces against the exact
  // Hessian's), 3e-14, 9e-14, 0, 9e-16.
  EXPECT_TRUE(harmonic.within(1e-6));
  EXPECT_TRUE(angular.within(3e-12));
  EXPECT_TRUE(momentum.within(1e-11));
  EXPECT_TRUE(collision.within(1e-12));
  EXPECT_TRUE(geometry.within(1e-12));
  // The surface's own (anharmonic) energy of the same starts differs from the ZPE, the more the
  // larger the zero-point amplitudes of the soft bends.
  test::print_measured("largest relative anharmonic deviation of the vibrational energy from the ZPE", anharmonic);
  test::print_measured("mean vibrational energy on the surface / ZPE", mean_actual / zpe);
  EXPECT_LT(anharmonic, 0.4);
  EXPECT_NEAR(mean_actual / zpe, 1.0, 0.1);
  EXPECT_GT(zpe, 1.0);  // methane's ZPE is about 1.2 eV (27-28 kcal/mol)
}

// State-selected starts: hbar omega (n + 1/2) in each mode, against the exact Hessian's frequencies.
TEST(QctInitialConditions, VibrationalQuantaAddHbarOmegaEach) {
  qct::QctSettings s = h_ch4(20, 1.5, 2);
  const qct::NormalModes nm = ch4_modes(s);
  const std::vector<double> exact = exact_frequencies(nm);  // increasing, as the modes
  s.collision.quanta = {0, 0, 0, 0, 0, 1, 0, 0, 2};
  double expected = 0;
  for (std::size_t k = 0; k < exact.size(); ++k)
    expected += qct::kHbar * exact[k] * ((k < s.collision.quanta.size() ? s.collision.quanta[k] : 0) + 0.5);
  std::array<double, 15> g{};
  const std::vector<double> h = exact_hessian(nm.minimum, g);
  test::MaxError harmonic("harmonic energy at t = 0 with quanta - sum hbar omega (n + 1/2) (eV)");
  for (uint64_t t = 0; t < 20; ++t) {
    const qct::InitialCondition ic = qct::initial_condition(nm, 1.00782503, s.collision, t);
    harmonic.add(harmonic_energy(nm, molecule_frame(nm, ic), h), expected);
  }
  EXPECT_TRUE(harmonic.within(1e-6));  // measured 9.1e-9 eV (the modes from differences of forces)
  s.collision.quanta.assign(10, 0);    // CH4 has 9 modes
  EXPECT_THROW(qct::initial_condition(nm, 1.00782503, s.collision, 0), Error);
}

TEST(QctInitialConditions, ImpactParametersUniformInBSquared) {
  // Kolmogorov-Smirnov distance of b^2 / b_max^2 from uniform over 4000 draws; at the 1% level
  // the bound is 1.63 / sqrt(N).
  const int n = 4000;
  std::vector<double> u;
  const qct::QctSettings s = h_ch4(10, 1.7, 2);
  const qct::NormalModes nm = ch4_modes(s);
  for (int t = 0; t < n; ++t) {
    const double b = qct::initial_condition(nm, 1.008, s.collision, static_cast<uint64_t>(t)).b;
    u.push_back(b * b / (1.7 * 1.7));
  }
  std::sort(u.begin(), u.end());
  double d = 0;
  for (int k = 0; k < n; ++k) d = std::max({d, std::abs(u[k] - double(k) / n), std::abs(u[k] - double(k + 1) / n)});
  test::print_measured("Kolmogorov-Smirnov distance of b^2", d);
  EXPECT_LT(d, 1.63 / std::sqrt(double(n)));
  // b itself is not uniform: its KS distance from uniform is about 0.25.
  double db = 0;
  for (int k = 0; k < n; ++k) db = std::max(db, std::abs(std::sqrt(u[k]) - double(k) / n));
  EXPECT_GT(db, 0.2);
}

TEST(QctEstimators, HardSphereCrossSection) {
  // Reaction exactly when b < d: sigma = pi d^2, P(b) a step. Many studies of N trajectories: the
  // mean estimate is pi d^2 and the estimates scatter as the standard error says.
  const double b_max = 2.0, d = 1.2, exact = kPi * d * d;
  const int n = 400, studies = 300;
  double sum = 0, sum2 = 0, error = 0;
  for (int k = 0; k < studies; ++k) {
    long count = 0;
    for (int t = 0; t < n; ++t)
      count += b_max * std::sqrt(qct::uniform(1000 + k, t, 0)) < d ? 1 : 0;
    const qct::Estimate e = qct::estimate(count, n, b_max);
    sum += e.cross_section;
    sum2 += e.cross_section * e.cross_section;
    error += e.cross_section_error / studies;
  }
  const double mean = sum / studies, spread = std::sqrt(sum2 / studies - mean * mean);
  const double p = d * d / (b_max * b_max), predicted = kPi * b_max * b_max * std::sqrt(p * (1 - p) / n);
  test::print_measured("hard sphere: mean cross section - pi d^2 (Å^2)", mean - exact);
  test::print_measured("hard sphere: spread / mean standard error", spread / error);
  EXPECT_NEAR(mean, exact, 4 * predicted / std::sqrt(double(studies)));
  EXPECT_NEAR(error, predicted, 0.02 * predicted);
  EXPECT_NEAR(spread / error, 1.0, 0.15);  // 300 studies: the spread is known to about 4%

  std::vector<double> b;
  std::vector<char> reactive;
  for (int t = 0; t < 2000; ++t) {
    b.push_back(b_max * std::sqrt(qct::uniform(5, t, 0)));
    reactive.push_back(b.back() < d ? 1 : 0);
  }
  const auto bins = qct::opacity(b, reactive, b_max, 10);
  for (const auto& o : bins) {
    if (o.b_high <= d + 1e-12) {
      EXPECT_EQ(o.probability, 1.0);
    }
    if (o.b_low >= d - 1e-12) {
      EXPECT_EQ(o.probability, 0.0);
    }
  }
  const qct::Estimate none = qct::estimate(0, 10, 1.0), all = qct::estimate(10, 10, 1.0);
  EXPECT_EQ(none.cross_section_error, 0.0);
  EXPECT_EQ(all.cross_section, kPi);
}

TEST(QctProducts, FragmentsAndOutcomes) {
  const std::vector<std::string> e{"C", "H", "H", "H", "H", "H"};
  const std::vector<int> molecule{0, 1, 2, 3, 4};
  const double a = 1.09 / std::sqrt(3.0);
  std::vector<Vec3> r{{0, 0, 0}, {a, a, a}, {-a, -a, a}, {-a, a, -a}, {a, -a, -a}, {0, 0, 9}};
  EXPECT_EQ(qct::classify(qct::fragments(r, 2.0), molecule, 5, e), qct::kNonreactive);
  std::vector<Vec3> abstraction = r;
  abstraction[1] = {0, 0, 8.26};  // H1 left with H'
  EXPECT_EQ(qct::classify(qct::fragments(abstraction, 2.0), molecule, 5, e), "CH3 + H2");
  std::vector<Vec3> exchange = r;
  exchange[5] = exchange[1];
  exchange[1] = {0, 0, 9};
  EXPECT_EQ(qct::classify(qct::fragments(exchange, 2.0), molecule, 5, e), "exchange");
  std::vector<Vec3> complex = r;
  complex[5] = {0, 0, 1.5};
  EXPECT_EQ(qct::classify(qct::fragments(complex, 2.0), molecule, 5, e), "CH5");
  EXPECT_TRUE(qct::is_reactive("CH3 + H2"));
  EXPECT_FALSE(qct::is_reactive(qct::kNonreactive));
  EXPECT_FALSE(qct::is_reactive(qct::kUnfinished));
  // Separated and receding, separated but approaching, too close.
  const std::vector<double> m{12, 1, 1, 1, 1, 1};
  std::vector<Vec3> v(6, Vec3{});
  v[5] = {0, 0, 1};
  const auto parts = qct::fragments(r, 2.0);
  EXPECT_TRUE(qct::fragments_separated(parts, r, v, m, 8.5));
  EXPECT_FALSE(qct::fragments_separated(parts, r, v, m, 9.5));
  v[5] = {0, 0, -1};
  EXPECT_FALSE(qct::fragments_separated(parts, r, v, m, 8.5));
}

// Every trajectory conserves its energy; the drift falls as dt^2 (velocity Verlet).
TEST(QctDynamics, EnergyConservedAndReproducible) {
  qct::QctSettings s = h_ch4(35, 1.2, 12);
  s.batch = 6;  // two ensembles
  s.timestep = 1e-4;
  const qct::QctResult a = qct::run_qct(s, surface_field(), Backend::Cpu, nullptr);
  s.timestep = 0.5e-4;
  const qct::QctResult half = qct::run_qct(s, surface_field(), Backend::Cpu, nullptr);
  ASSERT_EQ(a.trajectories.size(), 12u);
  long unfinished = 0;
  for (const auto& t : a.trajectories) {
    EXPECT_NE(t.outcome, qct::kFault);
    unfinished += t.outcome == qct::kUnfinished ? 1 : 0;
    EXPECT_NEAR(t.harmonic_energy, a.modes.zero_point_energy(), 1e-12);
  }
  EXPECT_EQ(unfinished, 0);
  test::print_measured("largest energy drift over the trajectories at 0.1 fs (eV)", a.largest_drift);
  test::print_measured("largest energy drift at 0.05 fs (eV)", half.largest_drift);
  EXPECT_LT(a.largest_drift, 2e-3);
  EXPECT_GT(a.largest_drift / half.largest_drift, 2.5);  // dt^2: 4
  // The same seed: the same trajectories, bit for bit; another seed: other ones.
  s.timestep = 1e-4;
  const qct::QctResult again = qct::run_qct(s, surface_field(), Backend::Cpu, nullptr);
  for (std::size_t t = 0; t < a.trajectories.size(); ++t) {
    EXPECT_EQ(again.trajectories[t].b, a.trajectories[t].b);
    EXPECT_EQ(again.trajectories[t].outcome, a.trajectories[t].outcome);
    EXPECT_EQ(again.trajectories[t].steps, a.trajectories[t].steps);
    EXPECT_EQ(again.trajectories[t].energy_drift, a.trajectories[t].energy_drift);
  }
  s.collision.seed = 8;
  s.max_steps = 1;
  const qct::QctResult other = qct::run_qct(s, surface_field(), Backend::Cpu, nullptr);
  EXPECT_NE(other.trajectories[0].b, a.trajectories[0].b);
  EXPECT_EQ(other.counts.at(qct::kUnfinished), 12);
}

// The command end to end on the example, shortened: the summary, the JSON file, the same numbers
// from a second run.
TEST(QctCommand, RunsTheExampleAndWritesJson) {
  const auto dir = test::scratch_dir("qct-cli");
  std::ifstream in(test::source_path("examples/qct-h-ch4/input.toml"));
  std::stringstream text;
  text << in.rdbuf();
  std::string input = text.str();
  const std::string from = "trajectories = 500";
  ASSERT_NE(input.find(from), std::string::npos);
  input.replace(input.find(from), from.size(), "trajectories = 6");
  std::ofstream(dir / "input.toml") << input;
  auto run = [&](const std::string& json) {
    const std::string cmd = "cd " + dir.string() + " && " + test::binary_path("quasar") +
                            " shepard qct input.toml --output " + json + " > out.txt 2>&1";
    return std::system(cmd.c_str());
  };
  ASSERT_EQ(run("a.json"), 0);
  ASSERT_EQ(run("b.json"), 0);
  std::stringstream out;
  out << std::ifstream(dir / "out.txt").rdbuf();
  EXPECT_NE(out.str().find("zero-point energy"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("sigma = "), std::string::npos) << out.str();
  auto slurp = [&](const char* name) {
    std::stringstream ss;
    ss << std::ifstream(dir / name).rdbuf();
    return ss.str();
  };
  const std::string a = slurp("a.json"), b = slurp("b.json");
  EXPECT_NE(a.find("\"cross_section_A2\""), std::string::npos);
  // Everything but the wall time agrees between the runs.
  auto without_time = [](std::string s) {
    const auto at = s.find("\"seconds\"");
    return at == std::string::npos ? s : s.erase(at, s.find('\n', at) - at);
  };
  EXPECT_EQ(without_time(a), without_time(b));
  std::filesystem::remove_all(dir);
}

std::string input_error(const std::string& text) {
  const toml::table root = parse_toml_text(text, "qct.toml");
  const ConfigTable top{&root, "qct.toml", ""};
  try {
    qct::qct_settings_from_config(top.require_sub("qct"));
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(QctInput, BadInputNamesTheKey) {
  const std::string ok = "[qct]\nmolecule = [\"C\", \"H\", \"H\", \"H\", \"H\"]\n"
                         "positions = [0,0,0, 0.63,0.63,0.63, -0.63,-0.63,0.63, -0.63,0.63,-0.63, 0.63,-0.63,-0.63]\n"
                         "projectile = \"H\"\ncollision_energy = 30\nb_max = 2\ntrajectories = 10\n";
  EXPECT_EQ(input_error(ok), "no error");
  auto expect = [&](const std::string& extra, const std::string& key) {
    const std::string message = input_error(ok + extra);
    EXPECT_NE(message.find(key), std::string::npos) << extra << " -> " << message;
    EXPECT_NE(message.find("qct.toml"), std::string::npos) << message;
  };
  expect("energy_unit = \"hartree\"\n", "qct.energy_unit");
  expect("initial_separation = 1.5\n", "qct.initial_separation");
  expect("timestep_fs = -1\n", "qct.timestep_fs");
  expect("batch = 1\n", "qct.batch");
  expect("bond_distance = 20\n", "qct.bond_distance");
  expect("minimum_force = 0\n", "qct.minimum_force");
  expect("quanta = [0, 1.5]\n", "qct.quanta");
  expect("speed = 3\n", "collision_energy");  // unknown keys list the valid ones
  expect("[qct.masses]\nH = -1\n", "qct.masses.H");
  const std::string wrong = input_error("[qct]\nmolecule = [\"C\", \"H\"]\npositions = [0, 0, 0]\nprojectile = \"H\"\n"
                                        "collision_energy = 1\nb_max = 1\ntrajectories = 4\n");
  EXPECT_NE(wrong.find("qct.positions"), std::string::npos) << wrong;
  const std::string few = input_error("[qct]\nmolecule = [\"C\", \"H\"]\npositions = [0,0,0, 0,0,1.1]\n"
                                      "projectile = \"H\"\ncollision_energy = 1\nb_max = 1\ntrajectories = 1\n");
  EXPECT_NE(few.find("qct.trajectories"), std::string::npos) << few;
}

}  // namespace
}  // namespace quasar
