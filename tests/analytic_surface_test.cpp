// The H + CH4 surface of Corchado, Bravo and Espinosa-Garcia (J. Chem. Phys. 130, 184314 (2009);
// the Jordan-Gilbert form): against the authors' own routine, its channel energies, exact
// derivatives against finite differences, invariances, its saddle point, and as a potential of the
// engine (single systems and batches). CPU only: the surface has no kernel.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <random>

#include "quasar/core/units.hpp"
#include "quasar/potential/evaluate.hpp"
#include "quasar/potential/registry.hpp"
#include "quasar/potential/shepard/surfaces/ch5_jordan_gilbert.hpp"
#include "quasar/potential/shepard/surfaces/surface_potential.hpp"
#include "support.hpp"

namespace quasar {
namespace {

using surfaces::kCh5Coordinates;
using Coords = std::array<double, kCh5Coordinates>;
using Hessian = std::array<double, kCh5Coordinates * kCh5Coordinates>;

const surfaces::Ch5JgParameters kCbg = surfaces::ch5_cbg2009_parameters();

// Methane (C at the origin, C-H = r) with H' at distance d from C on the far side of H4, H4 pulled
// out by `stretch` (Å) along the same line: the C3v approach of the abstraction.
Coords abstraction_geometry(double r, double stretch, double d) {
  const double a = r / std::sqrt(3.0), u = 1 / std::sqrt(3.0);
  Coords x{0, 0, 0, a, a, a, -a, -a, a, -a, a, -a, a, -a, -a, 0, 0, 0};
  for (int k = 0; k < 3; ++k) x[12 + k] += (k == 0 ? u : -u) * stretch;
  x[15] = d * u, x[16] = -d * u, x[17] = -d * u;
  return x;
}

Coords jittered(Coords x, double amplitude, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> n(0, amplitude);
  for (double& v : x) v += n(rng);
  return x;
}

// Reference: the authors' Fortran routine for this surface as distributed in POTLIB (CH5_VBMM_CBG_2009.f
// of the chempotpy collection), compiled with gfortran and evaluated at these geometries (Å, atoms C,
// H1..H4, H'); energies in kcal/mol, gradients in kcal/mol/Å, printed to 17 digits (the routine's own
// conversion to hartree was undone in the same arithmetic it applies).
struct RoutineValue {
  Coords x;
  double energy;
  Coords gradient;
};
const RoutineValue kRoutine[] = {
    {{0.012379817611885325, -0.0063893858431741876, -0.057931444594296895, 0.58120301694429488, 0.58986863281301727,
      0.59823235854947943, -0.55778227956275939, -0.62645766543571646, 0.59134049529232457, -0.60436463677752916,
      0.6797655989314777, -0.65765814995860972, 0.73515679336355311, -0.70095939490631232, -0.65781480250224689,
      1.007857325032111, -0.96288517645454619, -0.98192904181549934},
     -345.96151910602674,
     {90.645433289103494, -87.749218346031697, -54.205120714111466, -24.391589364727739, -22.672108308470275,
      -18.76964785476622, 22.801231019539465, 15.514883463619483, -8.59606671047937, 1.9159623524315554,
      8.2453189551919586, -1.5906365441740269, 201.16397823106632, -193.96576489734539, -252.71848819269948,
      -292.13501552741309, 280.626889133036, 335.87996001623054}},
    {{0.020580538580503516, -0.0011954265006989388, 0.0025328121194870836, 0.6774553582583871, 0.61683667666243114,
      0.59330786531471746, -0.64019555333614198, -0.59146750041367524, 0.59087765215191324, -0.61827914336115231,
      0.63868707620841392, -0.59028631725408187, 0.67057252439887138, -0.6361828795775829, -0.69716749273287659,
      1.4516438722047413, -1.4602001308565375, -1.4164544356026247},
     -438.32954598812296,
     {-18.046344574106325, 1.9226305454453396, 31.554712928484101, -3.2797054579955853, -2.8646864775279846,
      -9.2092686291907313, 5.0205204963685857, 16.246802287367665, -15.719930023360391, 0.63847426602473911,
      -6.336310380642141, 8.2604611283031737, 22.286840588932062, -15.783668933764904, -21.354058302213641,
      -6.6197853192235288, 6.8152329591220129, 6.4680828979774754}},
    {{-0.063016565518686798, 0.078480095819464551, 0.018586588641238893, 0.47248590982131122, 0.74165200756138394,
      0.99346105051747835, -0.66992984530533395, -0.43112067027069884, 0.59443143069487192, -0.51502867934146224,
      0.70955957337845599, -0.80435788648503659, 0.7086576808691385, -0.80961701291701837, -0.87023355559569937,
      2.1020643418525928, -1.9328746166858748, -2.0517444544099015},
     -388.30278444188588,
     {-132.63380350515141, -61.138263188058438, 73.826770876903353, 12.139207712519962, 42.438120122888428,
      86.208019540549472, 84.343625682287751, 74.802751385602718, -49.58874938614435, -3.2677021716233736,
      4.9837372196021192, -30.214166728745187, 39.597728706640858, -61.2762952643372, -80.420371576967014,
      -0.179056424673707, 0.18994972430236989, 0.18849727440374953}},
};

TEST(Ch5Cbg2009, MatchesTheAuthorsRoutine) {
  test::MaxError energy("CBG-2009 energy against the authors' routine (relative)");
  test::MaxError gradient("CBG-2009 gradient against the authors' routine (relative to its largest component)");
  for (const RoutineValue& r : kRoutine) {
    energy.add(surfaces::ch5_jg_energy_kcal(kCbg, r.x) / r.energy, 1.0);
    Coords g;
    const double e = surfaces::ch5_jg_energy_gradient(kCbg, r.x, g);
    EXPECT_NEAR(e / units::kcal_mol, r.energy, 1e-12 * std::abs(r.energy));
    double scale = 0;
    for (double v : r.gradient) scale = std::max(scale, std::abs(v));
    for (int k = 0; k < kCh5Coordinates; ++k) gradient.add(g[k] / units::kcal_mol / scale, r.gradient[k] / scale);
  }
  // Measured 1.1e-16 and 3e-15 (the same expressions, summed in another order).
  EXPECT_TRUE(energy.within(1e-14));
  EXPECT_TRUE(gradient.within(1e-13));
}

// Channel energies that the published parameters fix exactly: CH4 (Td, C-H = r0(CH)) + H at
// -4 D1(CH), and planar CH3 (C-H = r0(CH)) + H2 (r0(HH)) at -3 D1(CH) - D1(HH); the classical
// reaction energy D1(CH) - D1(HH) = 111.266 - 108.382 = 2.884 kcal/mol. Both are minima of their
// channel: the gradient vanishes.
TEST(Ch5Cbg2009, AsymptoticChannels) {
  const Coords reactants = abstraction_geometry(kCbg.r0ch, 0, 40);
  Coords products{};
  const double r = kCbg.r0ch, far = 40;
  for (int m = 0; m < 3; ++m) {
    const double phi = 2 * M_PI * m / 3;
    products[3 * (1 + m)] = r * std::cos(phi), products[3 * (1 + m) + 1] = r * std::sin(phi);
  }
  products[12 + 2] = far, products[15 + 2] = far + kCbg.r0hh;  // H4-H' along z, far from the methyl
  Coords g;
  test::MaxError channel("channel energies against -4 D1(CH) and -3 D1(CH) - D1(HH) (kcal/mol)");
  test::MaxError force("largest gradient component in the channel minima (kcal/mol/Å)");
  const double e_reactants = surfaces::ch5_jg_energy_gradient(kCbg, reactants, g) / units::kcal_mol;
  channel.add(e_reactants, -4 * kCbg.d1ch);
  for (double v : g) force.add(v / units::kcal_mol, 0);
  const double e_products = surfaces::ch5_jg_energy_gradient(kCbg, products, g) / units::kcal_mol;
  channel.add(e_products, -3 * kCbg.d1ch - kCbg.d1hh);
  for (double v : g) force.add(v / units::kcal_mol, 0);
  channel.add(e_products - e_reactants, 2.884);
  // Measured 1.1e-13 and 2.8e-13 (rounding of 445 kcal/mol sums); the Morse tails at 40 Å are below 1e-20.
  EXPECT_TRUE(channel.within(1e-11));
  EXPECT_TRUE(force.within(1e-10));
}

double fd_derivative(const Coords& x, int k, double h, const std::function<double(const Coords&)>& f) {
  Coords p = x, m = x;
  p[k] += h, m[k] -= h;
  Coords p2 = x, m2 = x;
  p2[k] += 2 * h, m2[k] -= 2 * h;
  return (8 * (f(p) - f(m)) - (f(p2) - f(m2))) / (12 * h);  // fourth order
}

std::vector<Coords> test_geometries() {
  return {jittered(abstraction_geometry(1.09, 0.0, 2.5), 0.05, 1), jittered(abstraction_geometry(1.09, 0.3, 1.7), 0.05, 2),
          jittered(abstraction_geometry(1.09, 0.8, 1.9), 0.08, 3), jittered(abstraction_geometry(1.15, 1.5, 2.6), 0.1, 4)};
}

TEST(Ch5Cbg2009, GradientMatchesFiniteDifferences) {
  test::MaxError err("gradient against 4th-order central differences of the energy (relative)");
  for (const Coords& x : test_geometries()) {
    Coords g;
    surfaces::ch5_jg_energy_gradient(kCbg, x, g);
    double scale = 0;
    for (double v : g) scale = std::max(scale, std::abs(v));
    for (int k = 0; k < kCh5Coordinates; ++k)
      err.add(g[k] / scale,
              fd_derivative(x, k, 1e-3, [](const Coords& y) { return surfaces::ch5_jg_energy(kCbg, y); }) / scale);
  }
  // Measured 7e-10 (the differences' truncation at h = 1e-3 Å and rounding).
  EXPECT_TRUE(err.within(1e-8));
}

TEST(Ch5Cbg2009, HessianIsSymmetricAndMatchesFiniteDifferences) {
  test::MaxError symmetry("Hessian asymmetry (relative)");
  test::MaxError err("Hessian against central differences of the gradient (relative)");
  test::MaxError grad("gradient of the Hessian evaluation against the gradient evaluation");
  for (const Coords& x : test_geometries()) {
    Coords g, g1;
    Hessian h;
    surfaces::ch5_jg_hessian(kCbg, x, g, h);
    surfaces::ch5_jg_energy_gradient(kCbg, x, g1);
    for (int k = 0; k < kCh5Coordinates; ++k) grad.add(g[k], g1[k]);
    double scale = 0;
    for (double v : h) scale = std::max(scale, std::abs(v));
    for (int i = 0; i < kCh5Coordinates; ++i)
      for (int k = 0; k < kCh5Coordinates; ++k) {
        symmetry.add(h[i * kCh5Coordinates + k] / scale, h[k * kCh5Coordinates + i] / scale);
        const double fd = fd_derivative(x, k, 1e-3, [i](const Coords& y) {
          Coords gy;
          surfaces::ch5_jg_energy_gradient(kCbg, y, gy);
          return gy[i];
        });
        err.add(h[i * kCh5Coordinates + k] / scale, fd / scale);
      }
  }
  // Measured: symmetric to 1.1e-16, finite differences 3e-9, gradients identical.
  EXPECT_TRUE(symmetry.within(1e-14));
  EXPECT_TRUE(err.within(1e-8));
  EXPECT_TRUE(grad.within(1e-13));
}

Coords rotated(const Coords& x, double angle, std::array<double, 3> axis, std::array<double, 3> shift) {
  const double n = std::sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
  for (double& a : axis) a /= n;
  const double c = std::cos(angle), s = std::sin(angle), t = 1 - c;
  const double r[3][3] = {{t * axis[0] * axis[0] + c, t * axis[0] * axis[1] - s * axis[2], t * axis[0] * axis[2] + s * axis[1]},
                          {t * axis[0] * axis[1] + s * axis[2], t * axis[1] * axis[1] + c, t * axis[1] * axis[2] - s * axis[0]},
                          {t * axis[0] * axis[2] - s * axis[1], t * axis[1] * axis[2] + s * axis[0], t * axis[2] * axis[2] + c}};
  Coords y;
  for (int a = 0; a < 6; ++a)
    for (int p = 0; p < 3; ++p)
      y[3 * a + p] = r[p][0] * x[3 * a] + r[p][1] * x[3 * a + 1] + r[p][2] * x[3 * a + 2] + shift[p];
  return y;
}

TEST(Ch5Cbg2009, InvariantUnderRotationTranslationAndMethanePermutations) {
  test::MaxError err("energy change under rotation, translation, permutation of H1..H4 (eV)");
  std::array<int, 4> order{0, 1, 2, 3};
  for (const Coords& x : test_geometries()) {
    const double e = surfaces::ch5_jg_energy(kCbg, x);
    err.add(surfaces::ch5_jg_energy(kCbg, rotated(x, 1.1, {0.3, -0.5, 0.8}, {3.0, -7.0, 11.0})), e);
    std::sort(order.begin(), order.end());
    do {
      Coords y = x;
      for (int m = 0; m < 4; ++m)
        for (int p = 0; p < 3; ++p) y[3 * (1 + m) + p] = x[3 * (1 + order[m]) + p];
      err.add(surfaces::ch5_jg_energy(kCbg, y), e);
    } while (std::next_permutation(order.begin(), order.end()));
  }
  // Measured 6e-14 eV (rounding of ~20 eV sums).
  EXPECT_TRUE(err.within(1e-12));
}

// Eigenvalues of a symmetric matrix (cyclic Jacobi rotations).
std::vector<double> symmetric_eigenvalues(std::vector<double> a, int n) {
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0;
    for (int p = 0; p < n; ++p)
      for (int q = p + 1; q < n; ++q) off += a[p * n + q] * a[p * n + q];
    if (off < 1e-30) break;
    for (int p = 0; p < n; ++p)
      for (int q = p + 1; q < n; ++q) {
        if (std::abs(a[p * n + q]) < 1e-300) continue;
        const double theta = (a[q * n + q] - a[p * n + p]) / (2 * a[p * n + q]);
        const double t = (theta >= 0 ? 1 : -1) / (std::abs(theta) + std::sqrt(theta * theta + 1));
        const double c = 1 / std::sqrt(t * t + 1), s = t * c;
        for (int k = 0; k < n; ++k) {  // columns p, q
          const double akp = a[k * n + p], akq = a[k * n + q];
          a[k * n + p] = c * akp - s * akq, a[k * n + q] = s * akp + c * akq;
        }
        for (int k = 0; k < n; ++k) {  // rows p, q
          const double apk = a[p * n + k], aqk = a[q * n + k];
          a[p * n + k] = c * apk - s * aqk, a[q * n + k] = s * apk + c * aqk;
        }
      }
  }
  std::vector<double> w(n);
  for (int k = 0; k < n; ++k) w[k] = a[k * n + k];
  std::sort(w.begin(), w.end());
  return w;
}

// C3v geometry of H'-H4-C-(H1,H2,H3) on the z axis: q = {r(C-H4), r(H4-H'), r(C-H1..3), angle H4-C-H1}.
Coords c3v_geometry(const std::array<double, 4>& q) {
  Coords x{};
  x[12 + 2] = q[0], x[15 + 2] = q[0] + q[1];
  for (int m = 0; m < 3; ++m) {
    const double phi = 2 * M_PI * m / 3;
    x[3 * (1 + m)] = q[2] * std::sin(q[3]) * std::cos(phi);
    x[3 * (1 + m) + 1] = q[2] * std::sin(q[3]) * std::sin(phi);
    x[3 * (1 + m) + 2] = q[2] * std::cos(q[3]);
  }
  return x;
}

// The saddle point of the abstraction, found by Newton steps in the four C3v coordinates (whose
// gradient and Hessian come from the exact Cartesian ones by the chain rule, the Jacobian by
// differences of the linear-in-q map's sines). Returns the converged q.
std::array<double, 4> c3v_saddle_point() {
  std::array<double, 4> q{1.40, 0.90, 1.09, 1.80};
  auto jacobian = [](const std::array<double, 4>& q0) {
    std::array<Coords, 4> j{};
    for (int a = 0; a < 4; ++a) {
      std::array<double, 4> qp = q0, qm = q0;
      qp[a] += 1e-6, qm[a] -= 1e-6;
      const Coords xp = c3v_geometry(qp), xm = c3v_geometry(qm);
      for (int k = 0; k < kCh5Coordinates; ++k) j[a][k] = (xp[k] - xm[k]) / 2e-6;
    }
    return j;
  };
  for (int step = 0; step < 50; ++step) {
    Coords g;
    Hessian h;
    surfaces::ch5_jg_hessian(kCbg, c3v_geometry(q), g, h);
    const auto j = jacobian(q);
    double gq[4] = {0, 0, 0, 0}, hq[4][4] = {};
    for (int a = 0; a < 4; ++a)
      for (int k = 0; k < kCh5Coordinates; ++k) {
        gq[a] += j[a][k] * g[k];
        for (int b = 0; b < 4; ++b)
          for (int l = 0; l < kCh5Coordinates; ++l) hq[a][b] += j[a][k] * h[k * kCh5Coordinates + l] * j[b][l];
      }
    // Solve hq dq = -gq (Gaussian elimination; the curvature along r(C-H4) - r(H4-H') is negative).
    double m[4][5];
    for (int a = 0; a < 4; ++a) {
      for (int b = 0; b < 4; ++b) m[a][b] = hq[a][b];
      m[a][4] = -gq[a];
    }
    for (int c = 0; c < 4; ++c) {
      int piv = c;
      for (int r = c + 1; r < 4; ++r)
        if (std::abs(m[r][c]) > std::abs(m[piv][c])) piv = r;
      for (int k = 0; k < 5; ++k) std::swap(m[c][k], m[piv][k]);
      for (int r = 0; r < 4; ++r)
        if (r != c) {
          const double f = m[r][c] / m[c][c];
          for (int k = 0; k < 5; ++k) m[r][k] -= f * m[c][k];
        }
    }
    double norm = 0;
    for (int a = 0; a < 4; ++a) {
      const double dq = std::clamp(m[a][4] / m[a][a], -0.05, 0.05);
      q[a] += dq;
      norm = std::max(norm, std::abs(dq));
    }
    if (norm < 1e-12) break;
  }
  return q;
}

// Harmonic wavenumbers (cm^-1, imaginary ones negative, sorted) of the exact Hessian at x with
// masses (amu) of C and of the hydrogens.
std::vector<double> harmonic_wavenumbers(const Coords& x, double carbon_mass, double hydrogen_mass) {
  Coords g;
  Hessian h;
  surfaces::ch5_jg_hessian(kCbg, x, g, h);
  std::vector<double> mw(h.begin(), h.end());
  auto mass = [&](int k) { return k < 3 ? carbon_mass : hydrogen_mass; };
  for (int k = 0; k < kCh5Coordinates; ++k)
    for (int l = 0; l < kCh5Coordinates; ++l) mw[k * kCh5Coordinates + l] /= std::sqrt(mass(k) * mass(l));
  std::vector<double> w = symmetric_eigenvalues(mw, kCh5Coordinates);
  for (double& v : w) {  // eV/(Å^2 amu) to cm^-1
    const double omega = std::sqrt(std::abs(v) * 1.602176634e-19 / (1e-20 * 1.66053906660e-27));
    v = (v < 0 ? -1 : 1) * omega / (2 * M_PI * 2.99792458e10);
  }
  return w;
}

// The saddle point checked in all 18 Cartesian coordinates: zero gradient and one negative
// eigenvalue of the mass-weighted Hessian, six zeros (translations, rotations), eleven positive.
// The barrier and geometry are printed. The paper's table of saddle-point properties could not be
// reached; other programs' results on the authors' routine are compared in the next test.
TEST(Ch5Cbg2009, SaddlePointHasOneImaginaryFrequency) {
  const std::array<double, 4> q = c3v_saddle_point();
  const Coords x = c3v_geometry(q);
  Coords g;
  const double e = surfaces::ch5_jg_energy_gradient(kCbg, x, g);
  test::MaxError grad("Cartesian gradient at the saddle point (eV/Å)");
  for (double v : g) grad.add(v, 0);
  EXPECT_TRUE(grad.within(1e-9));  // measured 3e-15 after convergence
  const std::vector<double> w = harmonic_wavenumbers(x, 12.0, 1.00782503);  // masses of 12C and 1H
  int negative = 0, zero = 0;
  for (double v : w) {
    if (std::abs(v) < 1.0) ++zero;  // translations and rotations: below 1 cm^-1
    else if (v < 0) ++negative;
  }
  EXPECT_EQ(negative, 1);
  EXPECT_EQ(zero, 6);
  std::printf("measured saddle point: barrier above CH4 + H %.4f kcal/mol, r(C-H) breaking %.5f Å, r(H-H') %.5f Å, "
              "r(C-H) methyl %.5f Å, angle H(breaking)-C-H(methyl) %.3f degrees, imaginary frequency %.1f i cm^-1\n",
              e / units::kcal_mol + 4 * kCbg.d1ch, q[0], q[1], q[2], q[3] * 180 / M_PI, -w[0]);
  std::printf("saddle harmonic wavenumbers (cm^-1):");
  for (double v : w) std::printf(" %.1f", v);
  std::printf("\n");
}

// The paper's own tables could not be reached (see docs/architecture.md), so the saddle point is
// compared with what two other programs use for it on the authors' routine. RPMDrate's H + CH4
// example (examples/H+CH4/input.py of GreenGroup/RPMDrate, run on POTLIB's ch52008.f) starts from a
// C3v transition-state geometry built from r(C-H) 1.3903 Å, r(H-H') 0.8728 Å and methyl C-H
// 1.0901 Å (Cartesian Å to 8 decimals; its methyl angles are tetrahedral and H-C-H' bends by 3
// degrees, so it is a starting geometry, not a converged saddle point: only those three lengths are
// compared). The i-PI ring-polymer instanton recipe for H + CH4 on this surface (driver ch4hcbe)
// quotes the barrier wavenumber 1486.88 cm^-1 from i-PI's saddle-point search, with i-PI's masses
// (H 1.00794, C 12.0107 amu). These test our saddle-point search and harmonic analysis against
// other codes, not the surface against its paper.
TEST(Ch5Cbg2009, SaddlePointAgreesWithOtherProgramsOnTheAuthorsRoutine) {
  // RPMDrate's atoms H, C, H, H, H, H: the fourth breaks from C, the sixth is H'.
  const double rpmdrate[6][3] = {{-4.68413503, -0.43825460, -0.07250839}, {-5.04748906, 0.58950601, -0.07250840},
                                 {-4.68411607, 1.10337961, 0.81755453},   {-4.58404767, 1.24489401, -1.20768359},
                                 {-6.13758906, 0.58951941, -0.07250839},  {-4.29480419, 1.61876150, -1.94140095}};
  auto distance = [&](int a, int b) {
    double d2 = 0;
    for (int p = 0; p < 3; ++p) d2 += (rpmdrate[a][p] - rpmdrate[b][p]) * (rpmdrate[a][p] - rpmdrate[b][p]);
    return std::sqrt(d2);
  };
  const std::array<double, 4> q = c3v_saddle_point();
  test::MaxError geometry("saddle-point lengths against RPMDrate's transition-state geometry (Å)");
  geometry.add(q[0], distance(1, 3));  // C-H breaking
  geometry.add(q[1], distance(3, 5));  // H-H'
  for (int m : {0, 2, 4}) geometry.add(q[2], distance(1, m));  // methyl C-H
  const std::vector<double> w = harmonic_wavenumbers(c3v_geometry(q), 12.0107, 1.00794);
  test::MaxError frequency("imaginary wavenumber with i-PI's masses against i-PI's 1486.88 cm^-1");
  frequency.add(-w[0], 1486.88);
  // Measured 6e-5 Å (their lengths given to 1e-4 Å) and 0.40 cm^-1 (3e-4 relative). i-PI's copy of the
  // routine converts to atomic units with rounded factors (0.03812 hartree per 100 kJ/mol for 0.038088,
  // 0.52918 Å per bohr), 8e-4 in its energy scale, which alone would raise its wavenumbers by 4e-4; what
  // else differs (its Hessian, masses or constants) is not known, so agreement beyond 1e-3 is not expected.
  EXPECT_TRUE(geometry.within(1.5e-4));
  EXPECT_TRUE(frequency.within(1.0));
}

// As a potential of the engine: energies, forces and virial of the surface through a force field,
// one system or a batch of them (each its own molecule), and type names checked at binding.
Structure ch5_structure(const Coords& x, Vec3 offset) {
  Structure s;
  s.box = Box::orthorhombic(40, 40, 40);
  s.box.periodic[0] = s.box.periodic[1] = s.box.periodic[2] = 0;
  s.type_names = {"C", "H"};
  s.type_masses = {12.011, 1.008};
  for (int a = 0; a < 6; ++a) {
    s.types.push_back(a == 0 ? 0 : 1);
    s.positions.push_back(Vec3{x[3 * a], x[3 * a + 1], x[3 * a + 2]} + offset);
  }
  return s;
}

TEST(AnalyticSurfacePotential, EvaluatesSystemsAndBatches) {
  AnalyticSurfacePotential potential("ch5-cbg2009", "C", "H");
  ForceField ff;
  ff.add(std::make_shared<AnalyticSurfacePotential>("ch5-cbg2009", "C", "H"), "surface");
  const std::vector<Coords> geometries = test_geometries();
  std::vector<Structure> frames;
  test::MaxError err("engine energy and forces against the surface function (eV, eV/Å)");
  for (std::size_t f = 0; f < geometries.size(); ++f) {
    frames.push_back(ch5_structure(geometries[f], {15.0 + static_cast<double>(f), 17.0, 19.0 - static_cast<double>(f)}));
    Coords g;
    const double e = surfaces::ch5_jg_energy_gradient(kCbg, geometries[f], g);
    const Evaluation single = evaluate(potential, frames.back(), Backend::Cpu, true);
    err.add(single.energy, e);
    double atom_sum = 0;
    for (double v : single.atom_energy) atom_sum += v;
    err.add(atom_sum, e);
    for (int a = 0; a < 6; ++a) {
      err.add(single.forces[a].x, -g[3 * a]);
      err.add(single.forces[a].y, -g[3 * a + 1]);
      err.add(single.forces[a].z, -g[3 * a + 2]);
    }
  }
  const std::vector<Evaluation> batch = evaluate_batch(ff, frames, Backend::Cpu);
  ASSERT_EQ(batch.size(), frames.size());
  for (std::size_t f = 0; f < frames.size(); ++f) {
    const Evaluation single = evaluate(potential, frames[f], Backend::Cpu);
    err.add(batch[f].energy, single.energy);
    for (int a = 0; a < 6; ++a) err.add(batch[f].forces[a].y, single.forces[a].y);
    for (int c = 0; c < 9; ++c) err.add(batch[f].virial(c / 3, c % 3), single.virial(c / 3, c % 3));
  }
  // Measured 1.4e-12: the same function at positions shifted by 15 Å and back (2e-15 Å of rounding)
  // with forces up to 1e2 eV/Å; a batch sums per-atom shares.
  EXPECT_TRUE(err.within(1e-10));

  Structure wrong = frames[0];
  wrong.type_names = {"C", "D"};
  EXPECT_THROW(evaluate(potential, wrong, Backend::Cpu), Error);
  Structure missing = frames[0];
  missing.types[5] = 0;  // two carbons, four hydrogens
  EXPECT_THROW(evaluate(potential, missing, Backend::Cpu), Error);
}

TEST(AnalyticSurfacePotential, RegisteredForTomlInput) {
  ASSERT_NE(potential_registry().find("analytic-surface"), nullptr);
}

}  // namespace
}  // namespace quasar
