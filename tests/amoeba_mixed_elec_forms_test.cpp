// The mixed32 mode's float pair arithmetic (mixed_arith.hpp) on the host: the float instantiations
// of the electrostatic forms and their per-atom sums into fixed point, against the double ones (which
// the other forms tests tie to the generic tensors and Tinker), on Tinker's reference systems: the
// 648 waters (PME, cutoff), vasopressin (gas phase) and the triclinic local-frame set (PME). What is
// measured is printed; each bound is about 100 times the measurement (in a comment at the bound), and
// the GPU tests (amoeba_mixed_elec_gpu_test) take their bounds from these.
//   - the radial kernels on each system's own pairs: Ewald's erfc kernel less (1 - m) of Coulomb's
//     for the m-scaled pairs in plain float (the cancellation, kept from the kernels) and as the
//     kernels take it (in double below alpha r = 1), Thole's damping near lambda = 1, each relative
//     to the Coulomb kernel of the same order;
//   - the multipole term (the site sums, with the self energy and the frames' chain rule, which
//     stay in double): energy, gradient, virial;
//   - the induced dipoles: direct fields, one mutual product, the preconditioner, and the conjugate
//     gradient run on the mixed sums (step count, dipoles);
//   - the polarization term from its pair sums, on the same dipoles: energy, gradient, virial.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>

#include <gtest/gtest.h>

#include "quasar/potential/amoeba/induce_gpu.hpp"
#include "quasar/potential/amoeba/induce_solver.hpp"
#include "quasar/potential/amoeba/mpole_gpu.hpp"
#include "quasar/potential/amoeba/multipole_frame.hpp"
#include "quasar/potential/amoeba/pme_multipole.hpp"
#include "quasar/potential/amoeba/polar_gpu.hpp"
#include "amoeba_host_ops.hpp"
#include "amoeba_polarizable.hpp"
#include "support.hpp"

namespace quasar::amoeba {
namespace {

using amoeba_test::MultipoleSystem;

std::vector<double> flat_moments(const std::vector<Moments>& M) {
  std::vector<double> flat;
  for (const auto& m : M) flat.insert(flat.end(), m.begin(), m.end());
  return flat;
}

// The largest difference of two vector lists relative to the largest component of the second.
double worst_relative(const std::vector<Vec3>& got, const std::vector<Vec3>& want) {
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < want.size(); ++i)
    for (int a = 0; a < 3; ++a) {
      diff = std::max(diff, std::abs(got[i][a] - want[i][a]));
      scale = std::max(scale, std::abs(want[i][a]));
    }
  return diff / scale;
}

// Energy (relative), gradient and virial (to the largest component) of two results.
struct ResultDiff {
  double energy = 0, grad = 0, virial = 0, atom_energy = 0, atom_virial = 0;
};
double worst_relative(const std::vector<double>& got, const std::vector<double>& want) {
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    diff = std::max(diff, std::abs(got[i] - want[i]));
    scale = std::max(scale, std::abs(want[i]));
  }
  return diff / scale;
}
ResultDiff compare(const ElectrostaticResult& got, const ElectrostaticResult& want) {
  ResultDiff d;
  d.energy = std::abs(got.energy - want.energy) / std::abs(want.energy);
  d.grad = worst_relative(got.grad, want.grad);
  double vd = 0, vs = 0;
  for (int c = 0; c < 9; ++c) {
    vd = std::max(vd, std::abs(got.virial[c] - want.virial[c]));
    vs = std::max(vs, std::abs(want.virial[c]));
  }
  d.virial = vd / vs;
  d.atom_energy = worst_relative(got.atom_energy, want.atom_energy);
  d.atom_virial = worst_relative(got.atom_virial, want.atom_virial);
  return d;
}

// Over the system's pairs within the cutoff: the worst error of the float radial kernels against
// double, each order relative to the Coulomb kernel's B_n at that distance (the scale of the pair's
// terms) and, for the whole Ewald kernel of polarization, relative to the erfc kernel's B_n (the
// scale of an undamped pair's whole kernel, 1e-7 of Coulomb's at the cutoff).
struct RadialErrors {
  double ewald_scaled_plain = 0, ewald_scaled_kernel = 0, thole = 0;
  double split_to_erfc = 0, whole_to_coulomb = 0, whole_to_erfc = 0;
};
RadialErrors radial_errors(const amoeba_test::Multipoles& p) {
  const ElectrostaticSystem& e = p.e();
  const MpoleTables t = mpole_tables(e, p.g, p.r);
  const InduceArgs a = induce_args(t.pairs, e, p.g);
  const double alpha = p.g.ewald_alpha;
  RadialErrors out;
  for (int i = 0; i < a.n; ++i) {
    InducePartners it(a, i);
    int k, sc;
    double r;
    Vec3 s;
    while (it.next(k, sc)) {
      if (!it.separation(load3(a.position, i), k, a.cutoff, s, r)) continue;
      const MpoleRadial c = coulomb_mpole_radial(r);
      const double m = sc < 0 ? 1.0 : t.scale_m[static_cast<std::size_t>(sc)];
      if (alpha > 0 && m != 1) {
        const MpoleRadial d = mpole_radial(r, alpha, m);
        const MpoleRadialOf<float> f = mpole_radial(static_cast<float>(r), static_cast<float>(alpha),
                                                    static_cast<float>(m));
        const MpoleRadialOf<float> used = mpole_radial_at<float>(r, alpha, m);
        for (int n = 0; n < 6; ++n) {
          out.ewald_scaled_plain = std::max(out.ewald_scaled_plain, std::abs(f.b[n] - d.b[n]) / c.b[n]);
          out.ewald_scaled_kernel = std::max(out.ewald_scaled_kernel, std::abs(used.b[n] - d.b[n]) / c.b[n]);
        }
      }
      const double ta = it.thole(k), damp = a.damp[i] * a.damp[k];
      const PolarRadial td = thole_polar_radial(r, ta, damp);
      const PolarRadialOf<float> tf =
          thole_polar_radial(static_cast<float>(r), static_cast<float>(ta), static_cast<float>(damp));
      for (int n = 1; n < 5; ++n) out.thole = std::max(out.thole, std::abs(tf.b[n] - td.b[n]) / c.b[n]);
      if (alpha > 0) {
        // The unscaled pair's kernel: the split float sum (Thole + erfc less Coulomb) and the whole.
        const PolarRadial wd = ewald_polar_radial(r, alpha);
        const PolarRadialOf<float> wf = ewald_polar_radial(static_cast<float>(r), static_cast<float>(alpha));
        const PolarRadialOf<float> whole = ewald_thole_polar_radial<float>(r, alpha, ta, damp, 1.0);
        const MpoleRadial erfc_kernel = mpole_radial(r, alpha, 1.0);
        for (int n = 1; n < 5; ++n) {
          const double want = wd.b[n] + td.b[n];
          const double split = static_cast<double>(wf.b[n] + tf.b[n]);
          out.split_to_erfc = std::max(out.split_to_erfc, std::abs(split - want) / erfc_kernel.b[n]);
          out.whole_to_coulomb = std::max(out.whole_to_coulomb, std::abs(whole.b[n] - want) / c.b[n]);
          out.whole_to_erfc = std::max(out.whole_to_erfc, std::abs(whole.b[n] - want) / erfc_kernel.b[n]);
        }
      }
    }
  }
  return out;
}

TEST(AmoebaMixedElecForms, RadialKernelsInFloat) {
  for (MultipoleSystem which : {MultipoleSystem::WaterPme, MultipoleSystem::Triclinic, MultipoleSystem::Vasopressin}) {
    amoeba_test::Polarizable p;
    if (!amoeba_test::load_polarizable(p, which))
      return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
    const RadialErrors x = radial_errors(p);
    const std::string name = amoeba_test::multipole_system_name(which);
    std::cout << name << ": float B_n less double, of Coulomb's B_n: multipoles' Ewald kernel of m-scaled pairs in plain float "
              << x.ewald_scaled_plain << ", as the kernel takes it " << x.ewald_scaled_kernel << "; Thole "
              << x.thole << "; polarization's whole Ewald kernel " << x.whole_to_coulomb
              << "; of erfc's B_n: the split float sum " << x.split_to_erfc << ", the whole kernel " << x.whole_to_erfc
              << "\n";
    // Measured (water PME; the local frames below it; vasopressin has no Ewald sums): Thole 8.8e-7
    // (its 1 - e (1 + x ...) near lambda = 1 costs nothing beyond float's rounding, relative to
    // Coulomb's scale); the multipoles' m-scaled Ewald kernel 4.3e-7 in plain float, 4.4e-8 as taken
    // (double where m < 1); polarization's whole kernel 8.2e-7 of Coulomb's and 3.2e-6 of erfc's
    // B_n, where the split float sum of the double code loses 1.8e-2 of erfc's (the cancellation at
    // the cutoff that the whole kernel removes).
    EXPECT_LT(x.thole, 1e-4) << name;
    EXPECT_LT(x.ewald_scaled_kernel, 5e-6) << name;
    EXPECT_LT(x.whole_to_coulomb, 1e-4) << name;
    EXPECT_LT(x.whole_to_erfc, 3e-4) << name;
  }
}

// The multipole term's real-space sums in mixed32 against double, assembled as the GPU path does.
ElectrostaticResult multipole_from_shares(const amoeba_test::Multipoles& p, bool mixed) {
  const ElectrostaticSystem& e = p.e();
  const double alpha = p.g.ewald_alpha;
  const std::vector<Moments> M = lab_moments(e, p.g, p.r);
  const std::vector<double> flat = flat_moments(M);
  const MpoleTables t = mpole_tables(e, p.g, p.r);
  MpoleArgs args = mpole_args(t, e, p.g, alpha, flat.data());
  args.pairs.mixed = mixed;
  const MpoleShares shares = mpole_shares_host(args);
  const std::size_t n = p.r.size();
  ElectrostaticResult out = empty_result(n, true);
  std::vector<std::array<double, 13>> dM(n, std::array<double, 13>{});
  add_mpole_shares(shares, true, out, dM);
  add_multipole_self_energy(e, M, alpha, true, out);
  add_frame_gradients(e, p.g, p.r, dM, out, true);
  return out;
}

void expect_multipoles_close(MultipoleSystem which, double energy_bound, double grad_bound, double virial_bound) {
  amoeba_test::Multipoles p;
  if (!amoeba_test::load_multipoles(p, which))
    return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  const ElectrostaticResult d = multipole_from_shares(p, false), f = multipole_from_shares(p, true);
  const ElectrostaticResult again = multipole_from_shares(p, true);
  const ResultDiff x = compare(f, d);
  const std::string name = amoeba_test::multipole_system_name(which);
  std::cout << name << ": multipoles mixed32 less double: energy " << x.energy << " relative (" << f.energy - d.energy
            << " kcal/mol of " << d.energy << "), gradient " << x.grad << ", virial " << x.virial
            << " of the largest; per atom: energies " << x.atom_energy << ", virials " << x.atom_virial << "\n";
  EXPECT_EQ(f.pairs, d.pairs) << name;
  EXPECT_LT(x.atom_energy, 5e-5) << name;
  EXPECT_LT(x.atom_virial, 5e-5) << name;
  EXPECT_LT(x.energy, energy_bound) << name;
  EXPECT_LT(x.grad, grad_bound) << name;
  EXPECT_LT(x.virial, virial_bound) << name;
  EXPECT_EQ(again.energy, f.energy) << name;  // fixed-point sums: the same bits
}

// Measured (energy relative, gradient and virial of the largest component): water PME 9.7e-8
// (2.2e-4 kcal/mol of -2306), 2.7e-7, 8.9e-8; water cutoff 7.7e-8, 3.0e-7, 1.8e-7; vasopressin 5.7e-7
// (9.4e-5 kcal/mol of -164), 3.6e-7, 6.9e-7; triclinic local frames 5.5e-8, 2.0e-7, 3.3e-7. The
// bounds: about 100 times the worst.
TEST(AmoebaMixedElecForms, MultipolesOnLiquidWaterWithPme) {
  expect_multipoles_close(MultipoleSystem::WaterPme, 5e-5, 3e-5, 5e-5);
}
TEST(AmoebaMixedElecForms, MultipolesOnLiquidWaterWithCutoff) {
  expect_multipoles_close(MultipoleSystem::WaterCutoff, 5e-5, 3e-5, 5e-5);
}
TEST(AmoebaMixedElecForms, MultipolesOnVasopressin) {
  expect_multipoles_close(MultipoleSystem::Vasopressin, 5e-5, 3e-5, 5e-5);
}
TEST(AmoebaMixedElecForms, MultipolesOnTriclinicLocalFrames) {
  expect_multipoles_close(MultipoleSystem::Triclinic, 5e-5, 3e-5, 5e-5);
}


// The direct fields (real space, plus the CPU's reciprocal and self parts), the solve from them, and
// the dipoles, by the host's per-atom sums in one precision.
struct HostSolve {
  std::vector<Vec3> fd, fp, tu, z;
  InducedDipoles u;
};
HostSolve host_solve(const amoeba_test::Polarizable& p, bool mixed) {
  const ElectrostaticSystem& e = p.e();
  const std::size_t n = p.r.size();
  const InduceTables tables = induce_tables(e, p.g, p.r);
  InduceArgs args = induce_args(tables, e, p.g);
  args.mixed = mixed;
  const std::vector<Moments> M = lab_moments(e, p.g, p.r);
  const std::vector<double> flat = flat_moments(M);
  HostSolve out;
  out.fd.resize(n);
  out.fp.resize(n);
  for (std::size_t i = 0; i < n; ++i) direct_fields_at(args, static_cast<int>(i), flat.data(), out.fd[i], out.fp[i]);
  if (p.g.ewald_alpha > 0) {
    std::vector<Vec3> recip(n);
    add_reciprocal_field(p.g, p.r, M, recip);
    for (std::size_t i = 0; i < n; ++i) {
      const Vec3 f = recip[i] + ewald_self_field(p.g.ewald_alpha) * Vec3{M[i][1], M[i][2], M[i][3]};
      out.fd[i] += f;
      out.fp[i] += f;
    }
  }
  HostOps ops{args, p.g, p.r, {}, {}, {}, {}, {}, {}};
  std::size_t polar = 0;
  for (std::size_t i = 0; i < n; ++i) polar += e.alpha[i] > 0;
  for (int f = 0; f < 2; ++f) {
    std::vector<Vec3> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = e.alpha[i] * (f == 0 ? out.fd : out.fp)[i];
    ops.x[f] = flatten(x);
  }
  // One mutual product of the direct dipoles (real space) and the preconditioner of it.
  ops.product_of(ops.x[0]);
  out.tu = unflatten(ops.product, n);
  ops.rs[0] = ops.product;
  ops.precondition(0);
  out.z = unflatten(ops.z[0], n);
  induce_conjugate_gradient(ops, e, polar, out.u.iterations, out.u.residual);
  out.u.field_d = out.fd;
  out.u.field_p = out.fp;
  out.u.ud = unflatten(ops.x[0], n);
  out.u.up = unflatten(ops.x[1], n);
  return out;
}

// Measured (fields, T u, preconditioner of the largest component; the dipoles' largest difference):
// water PME 2.5e-7, 2.9e-7, 4.9e-7, 1.8e-7 Debye; water cutoff 3.6e-7, 5.5e-7, 6.4e-7, 3.4e-7 Debye;
// vasopressin 2.7e-7, 2.5e-7, 3.4e-7, 4.9e-7 Debye; local frames 4.7e-8, 9.4e-8, 3.1e-7, 6.1e-7
// Debye; the same step counts (7 or 8). The dipoles differ by what the solver leaves (polar-eps, 1e-6
// Debye RMS, for both), not by float's rounding of the products (3e-7 of them); their bound is
// 1e-5 Debye. The polarization term on the mixed dipoles with the mixed pair sums against double
// throughout: energy at worst 1.2e-7 relative (1.1e-4 kcal/mol of -945, water PME), gradient 8.0e-7
// (vasopressin), virial 2.7e-7 of the largest. The bounds: about 100 times the worst.
void expect_polarization_close(MultipoleSystem which) {
  amoeba_test::Polarizable p;
  if (!amoeba_test::load_polarizable(p, which))
    return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  const ElectrostaticSystem& e = p.e();
  const std::string name = amoeba_test::multipole_system_name(which);
  const HostSolve d = host_solve(p, false), f = host_solve(p, true);
  const double wf = std::max(worst_relative(f.fd, d.fd), worst_relative(f.fp, d.fp));
  const double wt = worst_relative(f.tu, d.tu), wz = worst_relative(f.z, d.z);
  double du = 0;
  for (std::size_t i = 0; i < p.r.size(); ++i)
    for (int a = 0; a < 3; ++a)
      du = std::max({du, std::abs(f.u.ud[i][a] - d.u.ud[i][a]), std::abs(f.u.up[i][a] - d.u.up[i][a])});
  du *= kInduceDebye;
  std::cout << name << ": induce mixed32 less double: fields " << wf << ", T u " << wt << ", preconditioner " << wz
            << " of the largest; dipoles " << du << " Debye; steps " << f.u.iterations << " (double "
            << d.u.iterations << "), polar-eps " << e.polar_eps << "\n";
  EXPECT_LT(wf, 3e-5) << name;
  EXPECT_LT(wt, 5e-5) << name;
  EXPECT_LT(wz, 5e-5) << name;
  EXPECT_LT(du, 1e-5) << name;
  EXPECT_LE(std::abs(f.u.iterations - d.u.iterations), 1) << name;
  // The polarization term: mixed dipoles and pair sums against double's.
  const InduceTables tables = induce_tables(e, p.g, p.r);
  InduceArgs args = induce_args(tables, e, p.g);
  const std::vector<Moments> M = lab_moments(e, p.g, p.r);
  const PolarPairSums sd = polar_pair_sums(args, M, d.u, e.mutual, e.electric / 2);
  args.mixed = true;
  const PolarPairSums sf = polar_pair_sums(args, M, f.u, e.mutual, e.electric / 2);
  const ElectrostaticResult want = polarization_energy(e, p.g, p.r, d.u, true, &sd);
  const ElectrostaticResult got = polarization_energy(e, p.g, p.r, f.u, true, &sf);
  const ResultDiff x = compare(got, want);
  std::cout << name << ": polarization mixed32 less double: energy " << x.energy << " relative ("
            << got.energy - want.energy << " kcal/mol of " << want.energy << "), gradient " << x.grad << ", virial "
            << x.virial << " of the largest; per atom: energies " << x.atom_energy << ", virials " << x.atom_virial << "\n";
  EXPECT_EQ(got.pairs, want.pairs) << name;
  EXPECT_LT(x.atom_energy, 5e-5) << name;
  EXPECT_LT(x.atom_virial, 5e-5) << name;
  EXPECT_LT(x.energy, 1e-5) << name;
  EXPECT_LT(x.grad, 5e-5) << name;
  EXPECT_LT(x.virial, 3e-5) << name;
}

TEST(AmoebaMixedElecForms, PolarizationOnLiquidWaterWithPme) { expect_polarization_close(MultipoleSystem::WaterPme); }
TEST(AmoebaMixedElecForms, PolarizationOnLiquidWaterWithCutoff) {
  expect_polarization_close(MultipoleSystem::WaterCutoff);
}
TEST(AmoebaMixedElecForms, PolarizationOnVasopressin) { expect_polarization_close(MultipoleSystem::Vasopressin); }
TEST(AmoebaMixedElecForms, PolarizationOnTriclinicLocalFrames) {
  expect_polarization_close(MultipoleSystem::Triclinic);
}

}  // namespace
}  // namespace quasar::amoeba
