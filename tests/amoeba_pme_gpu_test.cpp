// AMOEBA's particle-mesh Ewald on the GPU (pme_gpu.hpp) against the CPU reference (pme_multipole.hpp,
// whose own checks against Tinker, the direct sum over wave vectors and finite differences are in
// amoeba_electrostatics_test): the reciprocal part's energy, gradient, dE/dM, virial and per-site
// shares, and the reciprocal field of moments and of point dipoles, on Tinker's 648-water box and on
// its local-frame set in a triclinic cell (several grids and spline orders); then whole keys with
// Ewald sums evaluated on the CUDA backend (multipoles and polarization through the GPU's PME) against
// the CPU. The two sides sum in different orders and cuFFT rounds differently from FFTW, so they
// agree to rounding: 1e-12 relative to the largest value compared (measured on an H100: 3.4e-14 at
// worst, the 648 waters' virial; 1e-14 or less elsewhere). The GPU tests (Gpu in their
// names, for bench/gpu-check.sh) skip without a GPU; once a GPU runs them, they fail if the GPU's
// PME did not run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>
#include <set>

#include "amoeba_support.hpp"
#include "quasar/io/read.hpp"
#include "quasar/potential/amoeba/induced_dipoles.hpp"
#include "quasar/potential/amoeba/multipole_frame.hpp"
#include "quasar/potential/amoeba/pme_gpu.hpp"
#include "quasar/potential/amoeba/pme_splines.hpp"
#include "quasar/potential/amoeba/pme_steps.hpp"
#include "support.hpp"

namespace quasar {
namespace {

using namespace amoeba_test;

constexpr double kTolerance = 1e-12;

// One system's sites and moments in a cell.
struct Sites {
  std::vector<Vec3> r;
  std::vector<amoeba::Moments> M;
  Box box;
  double electric = 0;
};

// The sites of a key's structure: positions in input order and the lab moments of its multipoles.
Sites sites_of(const std::string& key, const Structure& s, const Box& box) {
  ForceField ff = amoeba::load_tinker_force_field(key);
  const amoeba::AmoebaTerm* term = bound_term(ff, s);
  EXPECT_NE(term, nullptr);
  amoeba::PairGeometry g;
  g.periodic = true;
  g.box = box;
  Sites out{s.positions, {}, box, term->electrostatics().electric};
  out.M = amoeba::lab_moments(term->electrostatics(), g, out.r);
  return out;
}

// The reciprocal part and the fields on both sides, on grid `grid`.
void expect_pme_agrees(const Sites& s, const amoeba::PmeGrid& grid, const std::string& what) {
  const std::size_t n = s.r.size();
  const amoeba::PmeResult cpu = amoeba::pme_multipole(s.r, s.M, s.box, grid, s.electric);
  amoeba::PmeGpu pme;
  const amoeba::PmeResult gpu = pme.compute(s.r, s.M, s.box, grid, s.electric);
  EXPECT_NEAR(gpu.energy, cpu.energy, kTolerance * std::abs(cpu.energy)) << what;
  std::cout << what << ": reciprocal energy " << cpu.energy << " kcal/mol, GPU - CPU " << gpu.energy - cpu.energy << "\n";
  EXPECT_LE(relative_worst(std::vector<double>(cpu.virial, cpu.virial + 9),
                           std::vector<double>(gpu.virial, gpu.virial + 9), what + " virial"),
            kTolerance);
  EXPECT_LE(relative_worst(flat(cpu.grad), flat(gpu.grad), what + " gradient"), kTolerance);
  EXPECT_LE(relative_worst(flat(cpu.dM), flat(gpu.dM), what + " dE/dM"), kTolerance);
  EXPECT_LE(relative_worst(cpu.site_energy, gpu.site_energy, what + " site energies"), kTolerance);
  EXPECT_LE(relative_worst(flat(cpu.site_virial), flat(gpu.site_virial), what + " site virials"), kTolerance);
  // The same sites again: the same bits (every sum in a fixed order).
  const amoeba::PmeResult again = pme.compute(s.r, s.M, s.box, grid, s.electric);
  EXPECT_EQ(std::memcmp(&again.energy, &gpu.energy, sizeof(double)), 0) << what << ": not deterministic";
  EXPECT_EQ(flat(again.grad), flat(gpu.grad)) << what << ": not deterministic";

  // The reciprocal field of the moments (add_reciprocal_field's), through the device API.
  amoeba::PairGeometry g;
  g.periodic = true;
  g.box = s.box;
  g.ewald_alpha = grid.alpha;
  g.pme_size = grid.size;
  g.pme_order = grid.order;
  std::vector<Vec3> field_cpu(n);
  amoeba::add_reciprocal_field(g, s.r, s.M, field_cpu);
  Array<double> r(Backend::Cuda), moments(Backend::Cuda), field(Backend::Cuda, 3 * n), dipoles(Backend::Cuda);
  r.assign(flat(s.r));
  moments.assign(flat(s.M));
  pme.set_grid(grid, s.box);
  pme.set_sites(r.data(), n);
  pme.add_field(moments.data(), field.data());
  EXPECT_LE(relative_worst(flat(field_cpu), field.to_vector(), what + " field of the moments"), kTolerance);
  // Point dipoles (as the solver's iterates): each site's permanent dipole turned and scaled, so that
  // every component differs from the moments'.
  std::vector<Vec3> u(n);
  std::vector<amoeba::Moments> um(n);
  for (std::size_t i = 0; i < n; ++i) {
    u[i] = Vec3{0.3 * s.M[i][2] - 0.01, -0.5 * s.M[i][3], 0.7 * s.M[i][1] + 0.02 * static_cast<double>(i % 7)};
    um[i] = amoeba::dipole_moments(u[i]);
  }
  std::vector<Vec3> ufield_cpu(n, Vec3{1, -2, 3});
  amoeba::add_reciprocal_field(g, s.r, um, ufield_cpu);
  dipoles.assign(flat(u));
  field.assign(flat(std::vector<Vec3>(n, Vec3{1, -2, 3})));
  const long before = pme.evaluations();
  pme.add_dipole_field(dipoles.data(), field.data());
  EXPECT_EQ(pme.evaluations(), before + 1);
  EXPECT_LE(relative_worst(flat(ufield_cpu), field.to_vector(), what + " field of point dipoles"), kTolerance);
  // The host path of the field (add_reciprocal_field with the GPU's PME in the geometry).
  std::vector<Vec3> ufield_host(n, Vec3{1, -2, 3});
  g.pme_gpu = &pme;
  amoeba::add_reciprocal_field(g, s.r, um, ufield_host);
  EXPECT_LE(relative_worst(flat(ufield_cpu), flat(ufield_host), what + " field of point dipoles (host path)"),
            kTolerance);
}

std::string write_key(const std::string& scratch, const std::string& text) {
  const std::string key = (test::scratch_dir(scratch) / "pme.key").string();
  std::ofstream(key) << text;
  return key;
}

// Tinker's 648 waters (water03, 18.643 Å), the grid and alpha Tinker's defaults give for an Ewald
// cutoff of 7 Å (24^3, 0.5446).
TEST(AmoebaPmeGpu, LiquidWaterReciprocalPartMatchesTheCpu) {
  QUASAR_REQUIRE_GPU();
  const std::string xyz = reference("liquid-water/liquid.amoeba"), prm = reference("params/water03.prm");
  if (xyz.empty() || prm.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  const Box box = Box::orthorhombic(18.643, 18.643, 18.643);
  const Sites s = sites_of(write_key("amoeba-pme-gpu-water", "parameters " + prm + "\na-axis 18.643\newald\nmultipoleterm only\n"),
                           io::read_frames(xyz).front(), box);
  expect_pme_agrees(s, {{24, 24, 24}, 5, amoeba::ewald_alpha(7.0)}, "648 waters");
}

// The local-frame set (every frame type) in the triclinic cell of Tinker's localframe2_triclinic.key
// (28 x 22 x 18 Å, 105, 110, 80 degrees): Tinker's grid for it, an odd and uneven one, and the
// spline orders 4 and 8.
TEST(AmoebaPmeGpu, TriclinicReciprocalPartMatchesTheCpu) {
  QUASAR_REQUIRE_GPU();
  const std::string dir = reference("tinker-test-file/localframe");
  const std::string prm = reference("tinker-test-file/commit_6fe8e913/amoeba09.prm");
  if (dir.empty() || prm.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  const double cell[6] = {28, 22, 18, 105, 110, 80};
  const Box box = io::tinker_cell(cell);
  Structure st = io::read_tinker_xyz(dir + "/localframe2.xyz");
  st.box = box;
  const Sites s = sites_of(write_key("amoeba-pme-gpu-triclinic", "parameters " + prm + "\nmultipoleterm only\newald\n"), st, box);
  const double alpha = amoeba::ewald_alpha(7.0);
  expect_pme_agrees(s, {{36, 27, 24}, 5, alpha}, "triclinic local frames, 36x27x24, order 5");
  expect_pme_agrees(s, {{25, 18, 15}, 4, 0.4}, "triclinic local frames, 25x18x15, order 4");
  expect_pme_agrees(s, {{32, 30, 20}, 8, alpha}, "triclinic local frames, 32x30x20, order 8");
}

// A whole key on both backends: every term's energy, forces, virial, per-atom energies and virials,
// and the pairs Tinker counts; the electrostatic terms' PME ran on the GPU.
void expect_key_agrees(const std::string& key, const Structure& s, const std::string& what) {
  ForceField ff = amoeba::load_tinker_force_field(key);
  const Evaluation c = evaluate(ff, s, Backend::Cpu, true);
  std::vector<long> cpu_counts;
  int cpu_iterations = -1;
  for (const auto& t : ff.terms()) {
    const auto* a = dynamic_cast<const amoeba::AmoebaTerm*>(t.potential.get());
    cpu_counts.push_back(a->entries());
    if (a->term() == amoeba::Term::Polarization) cpu_iterations = a->induced().iterations;
  }
  const Evaluation g = evaluate(ff, s, Backend::Cuda, true);
  ASSERT_EQ(g.terms.size(), c.terms.size());
  int electrostatic = 0;
  for (std::size_t k = 0; k < ff.terms().size(); ++k) {
    const auto* a = dynamic_cast<const amoeba::AmoebaTerm*>(ff.terms()[k].potential.get());
    EXPECT_EQ(a->entries(), cpu_counts[k]) << what << " " << a->name();
    EXPECT_NEAR(g.terms[k].energy, c.terms[k].energy, kTolerance * std::max(std::abs(c.terms[k].energy), 1e-3))
        << what << " " << a->name();
    if (a->term() == amoeba::Term::Multipole || a->term() == amoeba::Term::Polarization) {
      ++electrostatic;
      // The GPU path must have run: fail, not skip, where it did not.
      ASSERT_NE(a->pme_gpu(), nullptr) << what << " " << a->name() << ": no PME on the GPU";
      EXPECT_GT(a->pme_gpu()->evaluations(), 0) << what << " " << a->name();
    }
    if (a->term() == amoeba::Term::Polarization) {
      EXPECT_EQ(a->induced().iterations, cpu_iterations) << what << ": the solver took other steps";
    }
  }
  EXPECT_EQ(electrostatic, 2) << what;
  EXPECT_NEAR(g.energy, c.energy, kTolerance * std::abs(c.energy)) << what;
  std::cout << what << ": energy " << c.energy << " eV, GPU - CPU " << g.energy - c.energy << " eV\n";
  expect_outputs_agree(c, g, what, kTolerance);
}

// The 648 waters with every term of Tinker's example key (mutual polarization converged to 1e-8).
TEST(AmoebaPmeGpu, LiquidWaterKeyMatchesTheCpu) {
  QUASAR_REQUIRE_GPU();
  const std::string xyz = reference("liquid-water/liquid.amoeba"), prm = reference("params/water03.prm");
  if (xyz.empty() || prm.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  expect_key_agrees(write_key("amoeba-pme-gpu-water-key", "parameters " + prm +
                                                              "\na-axis 18.643\nvdw-cutoff 9.0\newald\newald-cutoff "
                                                              "7.0\npolar-eps 1e-8\n"),
                    io::read_frames(xyz).front(), "648 waters");
}

// The local-frame set in the triclinic cell with multipoles and mutual polarization.
TEST(AmoebaPmeGpu, TriclinicKeyMatchesTheCpu) {
  QUASAR_REQUIRE_GPU();
  const std::string dir = reference("tinker-test-file/localframe");
  const std::string prm = reference("tinker-test-file/commit_6fe8e913/amoeba09.prm");
  if (dir.empty() || prm.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  expect_key_agrees(write_key("amoeba-pme-gpu-triclinic-key",
                              "parameters " + prm +
                                  "\newald\newald-cutoff 7.0\na-axis 28.0\nb-axis 22.0\nc-axis 18.0\nalpha 105.0\n"
                                  "beta 110.0\ngamma 80.0\nvdwterm none\npolar-eps 1e-10\n"),
                    io::read_tinker_xyz(dir + "/localframe2.xyz"), "triclinic local frames");
}

// The shared spline code (pme_splines.hpp) on the CPU: the cardinal B-splines' known values, their
// partition of unity and their derivatives against central differences.
TEST(AmoebaPme, SplinesAreCardinalBsplines) {
  EXPECT_DOUBLE_EQ(amoeba::cardinal_bspline(2, 0.5), 0.5);       // the hat
  EXPECT_DOUBLE_EQ(amoeba::cardinal_bspline(4, 2.0), 2.0 / 3);   // cubic centre
  EXPECT_DOUBLE_EQ(amoeba::cardinal_bspline(4, 1.0), 1.0 / 6);
  EXPECT_DOUBLE_EQ(amoeba::cardinal_bspline(5, 2.5), 115.0 / 192);  // quartic centre
  double worst = 0;
  for (int order = 4; order <= amoeba::kPmeMaxOrder; ++order)
    for (double t : {0.0, 0.13, 0.5, 0.77, 0.999}) {
      double theta[4 * amoeba::kPmeMaxOrder], plus[4 * amoeba::kPmeMaxOrder], minus[4 * amoeba::kPmeMaxOrder];
      EXPECT_EQ(amoeba::pme_spline_weights(7 + t, order, theta), 7);
      double sum = 0, dsum = 0;
      for (int i = 0; i < order; ++i) {
        sum += theta[i];
        dsum += theta[order + i];
      }
      EXPECT_NEAR(sum, 1.0, 1e-14) << order;
      EXPECT_NEAR(dsum, 0.0, 1e-14) << order;
      const double h = 1e-6, u = 7.3 + 0.4 * t;  // away from the knots
      amoeba::pme_spline_weights(u, order, theta);
      amoeba::pme_spline_weights(u + h, order, plus);
      amoeba::pme_spline_weights(u - h, order, minus);
      for (int p = 0; p < 3; ++p)
        for (int i = 0; i < order; ++i)
          worst = std::max(worst, std::abs(theta[(p + 1) * order + i] -
                                            (plus[p * order + i] - minus[p * order + i]) / (2 * h)));
    }
  EXPECT_LT(worst, 1e-7);
  test::print_measured("spline derivatives against central differences", worst);
  // The multi-indices: 20 distinct places, by order.
  std::set<int> places;
  for (int a = 0; a <= 3; ++a)
    for (int b = 0; a + b <= 3; ++b)
      for (int c = 0; a + b + c <= 3; ++c) {
        const int k = amoeba::pme_multi_index(a, b, c), order = a + b + c;
        EXPECT_TRUE(k >= (order == 0 ? 0 : order == 1 ? 1 : order == 2 ? 4 : 10) &&
                    k < (order == 0 ? 1 : order == 1 ? 4 : order == 2 ? 10 : 20));
        places.insert(k);
        EXPECT_TRUE(amoeba::pme_alpha(k, 0) == a && amoeba::pme_alpha(k, 1) == b && amoeba::pme_alpha(k, 2) == c) << k;
      }
  EXPECT_EQ(places.size(), 20u);
}

// The GPU kernels' steps (pme_steps.hpp) run on the CPU in the kernels' order (sites sorted by cell
// stably, spread point by point, FFTW for cuFFT, influence function, gathers): the result and the
// fields equal pme_multipole's and add_reciprocal_field's to rounding. This checks the kernels'
// arithmetic and indexing here; the GPU tests above check the launches.
struct Emulated {
  amoeba::PmeResult result;
  std::vector<Vec3> field;  // of point dipoles
};
Emulated emulate_kernel_steps(const Sites& s, const amoeba::PmeGrid& grid, const std::vector<Vec3>& u) {
  const amoeba::PmeMesh m = amoeba::pme_mesh(grid.size.data(), grid.order, grid.alpha, s.box);
  const std::size_t n = s.r.size(), points = static_cast<std::size_t>(m.points()), per = 12 * static_cast<std::size_t>(m.order);
  std::vector<double> theta(per * n), coef(10 * n);
  std::vector<int> cell(n), order_of(n), start(points + 1);
  for (std::size_t j = 0; j < n; ++j) {
    cell[j] = amoeba::pme_site_splines(m, &s.r[j].x, &theta[per * j]);
    order_of[j] = static_cast<int>(j);
  }
  std::stable_sort(order_of.begin(), order_of.end(), [&](int a, int b) { return cell[static_cast<std::size_t>(a)] < cell[static_cast<std::size_t>(b)]; });
  for (std::size_t c = 0; c <= points; ++c)
    start[c] = static_cast<int>(std::count_if(cell.begin(), cell.end(), [&](int k) { return static_cast<std::size_t>(k) < c; }));
  std::vector<double> moduli;
  for (int d = 0; d < 3; ++d) {
    const std::vector<double> md = amoeba::pme_bspline_moduli(m.K[d], m.order);
    moduli.insert(moduli.end(), md.begin(), md.end());
  }
  device::Context ctx(Backend::Cpu);
  device::FftPlan plan(ctx, {m.K[0], m.K[1], m.K[2]});
  Array<std::complex<double>> mesh(Backend::Cpu, points);
  auto* grid_values = reinterpret_cast<double*>(mesh.data());
  // One evaluation: spread, transform, convolve (virial parts summed into w when given), back.
  auto evaluate = [&](double electric, double* w) {
    for (std::size_t g = 0; g < points; ++g) {
      grid_values[2 * g] = amoeba::pme_spread_point(m, static_cast<long>(g), theta.data(), coef.data(), start.data(), order_of.data());
      grid_values[2 * g + 1] = 0;
    }
    plan.forward(mesh, mesh);
    grid_values[0] = grid_values[1] = 0;
    for (std::size_t g = 1; g < points; ++g) {
      double part[9];
      amoeba::pme_convolve_point(m, static_cast<long>(g), moduli.data(), electric, grid_values + 2 * g, w ? part : nullptr);
      if (w)
        for (int k = 0; k < 9; ++k) w[k] += part[k];
    }
    plan.backward(mesh, mesh);
  };
  Emulated out;
  amoeba::PmeResult& r = out.result;
  for (std::size_t j = 0; j < n; ++j) amoeba::pme_site_coefficients<true>(m, s.M[j].data(), &coef[10 * j]);
  evaluate(s.electric, r.virial);
  r.grad.resize(n);
  r.dM.resize(n);
  r.site_energy.resize(n);
  r.site_virial.resize(n);
  for (std::size_t j = 0; j < n; ++j) {
    double P[20], site[10];
    amoeba::pme_gather_site<0>(m, &theta[per * j], cell[j], grid_values, P);
    amoeba::pme_site_multipoles(m, P, &coef[10 * j], s.M[j].data(), s.electric, &r.grad[j].x, r.dM[j].data(), site);
    r.site_energy[j] = site[0];
    r.energy += site[0];
    for (int k = 0; k < 9; ++k) {
      r.site_virial[j][static_cast<std::size_t>(k)] = site[1 + k];
      r.virial[k] += site[1 + k];
    }
  }
  for (std::size_t j = 0; j < n; ++j) amoeba::pme_site_coefficients<false>(m, &u[j].x, &coef[10 * j]);
  evaluate(1.0, nullptr);
  out.field.assign(n, Vec3{});
  for (std::size_t j = 0; j < n; ++j) {
    double P[3];
    amoeba::pme_gather_site<1>(m, &theta[per * j], cell[j], grid_values, P);
    amoeba::pme_site_field(m, P, &out.field[j].x);
  }
  return out;
}

void expect_kernel_steps_agree(const Sites& s, const amoeba::PmeGrid& grid, const std::string& what) {
  const std::size_t n = s.r.size();
  std::vector<Vec3> u(n);
  std::vector<amoeba::Moments> um(n);
  for (std::size_t i = 0; i < n; ++i) {
    u[i] = Vec3{0.3 * s.M[i][2] - 0.01, -0.5 * s.M[i][3], 0.7 * s.M[i][1] + 0.02 * static_cast<double>(i % 7)};
    um[i] = amoeba::dipole_moments(u[i]);
  }
  const amoeba::PmeResult cpu = amoeba::pme_multipole(s.r, s.M, s.box, grid, s.electric);
  const Emulated steps = emulate_kernel_steps(s, grid, u);
  const double tol = 1e-13;  // measured: 1.1e-15 at most
  EXPECT_NEAR(steps.result.energy, cpu.energy, tol * std::abs(cpu.energy)) << what;
  test::print_measured(what + " energy, relative deviation", std::abs(steps.result.energy / cpu.energy - 1));
  EXPECT_LE(relative_worst(std::vector<double>(cpu.virial, cpu.virial + 9),
                           std::vector<double>(steps.result.virial, steps.result.virial + 9), what + " virial"),
            tol);
  EXPECT_LE(relative_worst(flat(cpu.grad), flat(steps.result.grad), what + " gradient"), tol);
  EXPECT_LE(relative_worst(flat(cpu.dM), flat(steps.result.dM), what + " dE/dM"), tol);
  EXPECT_LE(relative_worst(cpu.site_energy, steps.result.site_energy, what + " site energies"), tol);
  EXPECT_LE(relative_worst(flat(cpu.site_virial), flat(steps.result.site_virial), what + " site virials"), tol);
  amoeba::PairGeometry g;
  g.periodic = true;
  g.box = s.box;
  g.ewald_alpha = grid.alpha;
  g.pme_size = grid.size;
  g.pme_order = grid.order;
  std::vector<Vec3> field(n);
  amoeba::add_reciprocal_field(g, s.r, um, field);
  EXPECT_LE(relative_worst(flat(field), flat(steps.field), what + " field of point dipoles"), tol);
}

TEST(AmoebaPme, KernelStepsOnTheCpuMatchTheReference) {
  QUASAR_REQUIRE_FAMILY("amoeba");
  const std::string xyz = reference("liquid-water/liquid.amoeba"), prm = reference("params/water03.prm");
  const std::string dir = reference("tinker-test-file/localframe");
  const std::string prm09 = reference("tinker-test-file/commit_6fe8e913/amoeba09.prm");
  if (xyz.empty() || prm.empty() || dir.empty() || prm09.empty())
    return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  const Box water = Box::orthorhombic(18.643, 18.643, 18.643);
  expect_kernel_steps_agree(
      sites_of(write_key("amoeba-pme-steps-water", "parameters " + prm + "\na-axis 18.643\newald\nmultipoleterm only\n"),
               io::read_frames(xyz).front(), water),
      {{24, 24, 24}, 5, amoeba::ewald_alpha(7.0)}, "kernel steps, 648 waters");
  const double cell[6] = {28, 22, 18, 105, 110, 80};
  const Box box = io::tinker_cell(cell);
  Structure st = io::read_tinker_xyz(dir + "/localframe2.xyz");
  st.box = box;
  const Sites s = sites_of(write_key("amoeba-pme-steps-triclinic", "parameters " + prm09 + "\nmultipoleterm only\newald\n"), st, box);
  expect_kernel_steps_agree(s, {{36, 27, 24}, 5, amoeba::ewald_alpha(7.0)}, "kernel steps, triclinic, order 5");
  expect_kernel_steps_agree(s, {{25, 18, 15}, 4, 0.4}, "kernel steps, triclinic, order 4");
  expect_kernel_steps_agree(s, {{32, 30, 20}, 8, amoeba::ewald_alpha(7.0)}, "kernel steps, triclinic, order 8");
}

}  // namespace
}  // namespace quasar
