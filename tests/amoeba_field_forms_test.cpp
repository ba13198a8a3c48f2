// The explicit field formulas of the GPU's induced-dipole kernels (field_forms.hpp) against the
// generic Cartesian tensors of the CPU (multipole_pair.hpp), which amoeba_electrostatics_test checks
// against Tinker: over random geometries, moments (quadrupoles with a trace, as parameter files have),
// Thole damping on and off, Ewald's real-space kernel and every kind of scale factor, each pair's
// direct fields (d and p), mutual field (u) and preconditioner product, at both ends of the pair.
// The two sides round differently (the quadrupole's trace enters the tensors and cancels): agreement
// to 1e-13 of the terms' magnitude. Then the kernels' per-atom sums (induce_forms.hpp) run on the
// host over the tables the GPU receives (induce_tables): direct fields, a mutual product and the
// preconditioner of the 648 waters (PME and a cutoff) and vasopressin against the CPU's loops, and
// the GPU's solver loop (induce_solver.hpp) on those sums against induce(): the same step count and
// dipoles.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <random>

#include <gtest/gtest.h>

#include "quasar/potential/amoeba/field_forms.hpp"
#include "quasar/potential/amoeba/induce_gpu.hpp"
#include "quasar/potential/amoeba/induce_solver.hpp"
#include "quasar/potential/amoeba/multipole_frame.hpp"
#include "quasar/potential/amoeba/multipole_pair.hpp"
#include "quasar/potential/amoeba/scaled_pairs.hpp"
#include "amoeba_host_ops.hpp"
#include "amoeba_polarizable.hpp"

namespace quasar::amoeba {
namespace {

double norm(const Vec3& v) { return std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z); }

// The field at s from the source (s = receiver - source) through the generic tensors, as
// induced_dipoles.cpp's direct_fields takes it: minus the potential's gradient; reversed: the
// receiver is at -s (the tensors are built for s), as the CPU's loop takes the pair's other atom.
Vec3 generic_field(const Moments& M, const double s[3], const Radial& radial, bool reversed) {
  PairTensors t;
  pair_tensors(s, radial, {3, 1, -1}, t);
  Potential3 at;
  source_potential(M, t, 1, 0, reversed, at);
  return Vec3{-at.v[1], -at.v[2], -at.v[3]};
}

// T u through the generic second-order tensor (induced_dipoles.cpp's DipoleField), for the kernel
// sum scale * thole + ewald (ewald null: none).
Vec3 generic_dipole_field(const Vec3& u, const double s[3], const Radial& thole, const Radial* ewald, double scale) {
  PairTensors t;
  pair_tensors(s, thole, {2, -1, -1}, t);
  double m[9];
  for (int c = 0; c < 9; ++c) m[c] = scale * t.t[0][2][static_cast<std::size_t>(c)];
  if (ewald) {
    pair_tensors(s, *ewald, {2, -1, -1}, t);
    for (int c = 0; c < 9; ++c) m[c] += t.t[0][2][static_cast<std::size_t>(c)];
  }
  Vec3 f{0, 0, 0};
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) f[a] += m[3 * a + b] * u[b];
  return f;
}

struct Case {
  Vec3 s;
  double r, thole_a, damp, alpha;
  Moments M;
  Vec3 u;
  double sd, sp, su;
};

Case random_case(std::mt19937_64& rng, int index) {
  std::uniform_real_distribution<double> unit(-1, 1), pos(0, 1);
  Case c;
  Vec3 dir{unit(rng), unit(rng), unit(rng)};
  const double len = 0.6 + 8.4 * pos(rng);  // from bonded pairs to the cutoffs
  c.s = dir * (len / norm(dir));
  c.r = norm(c.s);
  c.thole_a = 0.2 + 0.5 * pos(rng);
  c.damp = index % 4 == 0 ? 0.0 : 0.8 + 0.6 * pos(rng);  // Thole damping off for some
  c.alpha = index % 3 == 0 ? 0.0 : 0.3 + 0.4 * pos(rng);  // no Ewald sums for some
  for (double& m : c.M) m = 0.3 * unit(rng);
  c.M[7] = c.M[5], c.M[10] = c.M[6], c.M[11] = c.M[9];  // lab quadrupoles are symmetric
  if (index % 5 == 1) c.M[0] = 0;                         // moments left out
  if (index % 7 == 2) c.M[1] = c.M[2] = c.M[3] = 0;
  if (index % 6 == 3)
    for (int k = 4; k < 13; ++k) c.M[static_cast<std::size_t>(k)] = 0;
  c.u = {unit(rng), unit(rng), unit(rng)};
  const double scales[] = {0.0, 0.2, 0.4, 0.5, 0.8, 1.0};
  c.sd = scales[rng() % 6], c.sp = scales[rng() % 6], c.su = scales[rng() % 6];
  return c;
}

// Per kernel, a bound on the terms' size for the moments M at distance r.
double magnitude(const Moments& M, double r, const FieldRadial& k) {
  double d = 0, q = 0;
  for (int c = 1; c < 4; ++c) d += M[static_cast<std::size_t>(c)] * M[static_cast<std::size_t>(c)];
  for (int c = 4; c < 13; ++c) q += M[static_cast<std::size_t>(c)] * M[static_cast<std::size_t>(c)];
  const double b1 = std::abs(k.b1), b2 = std::abs(k.b2), b3 = std::abs(k.b3);
  return std::abs(M[0]) * b1 * r + std::sqrt(d) * (b1 + b2 * r * r) + 3 * std::sqrt(q) * (b2 * r + b3 * r * r * r);
}

void expect_close(const Vec3& got, const Vec3& want, double scale, const char* what, int index) {
  for (int a = 0; a < 3; ++a)
    EXPECT_NEAR(got[a], want[a], 1e-13 * scale) << what << ", case " << index << ", component " << a;
}

TEST(AmoebaFieldForms, RadialKernelsMatchTheGenericOnes) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> pos(0, 1);
  for (int i = 0; i < 2000; ++i) {
    const double r = 0.6 + 8.4 * pos(rng), a = 0.2 + 0.5 * pos(rng), damp = i % 4 == 0 ? 0.0 : 0.8 + 0.6 * pos(rng),
                 alpha = 0.3 + 0.4 * pos(rng);
    const Radial c = coulomb_radial(r), t = thole_radial(r, a, damp), w = ewald_real_radial(r, alpha, 0);
    const FieldRadial fc = coulomb_field_radial(r), ft = thole_field_radial(r, a, damp), fw = ewald_field_radial(r, alpha);
    const double got[9] = {fc.b1, fc.b2, fc.b3, ft.b1, ft.b2, ft.b3, fw.b1, fw.b2, fw.b3};
    const double want[9] = {c.b[1], c.b[2], c.b[3], t.b[1], t.b[2], t.b[3], w.b[1], w.b[2], w.b[3]};
    // Ewald's kernel less Coulomb's cancels at short range: its values to rounding of Coulomb's.
    const double size[9] = {c.b[1], c.b[2], c.b[3], t.b[1], t.b[2], t.b[3], c.b[1], c.b[2], c.b[3]};
    for (int k = 0; k < 9; ++k) EXPECT_NEAR(got[k], want[k], 1e-14 * std::abs(size[k])) << "r " << r << ", value " << k;
  }
}

TEST(AmoebaFieldForms, PairFieldsMatchTheGenericTensors) {
  std::mt19937_64 rng(11);
  double worst = 0;
  for (int i = 0; i < 3000; ++i) {
    const Case c = random_case(rng, i);
    const double s[3] = {c.s.x, c.s.y, c.s.z};
    const Radial thole = thole_radial(c.r, c.thole_a, c.damp);
    const Radial ewald = ewald_real_radial(c.r, c.alpha > 0 ? c.alpha : 1.0, 0);
    const FieldKernels k = field_kernels(c.r, c.thole_a, c.damp, c.alpha);
    // Ewald's part is a difference of kernels of Coulomb's size: its magnitude is Coulomb's.
    const FieldRadial coulomb = coulomb_field_radial(c.r);
    const double scale = magnitude(c.M, c.r, k.thole) + (k.has_ewald ? magnitude(c.M, c.r, coulomb) : 0.0);
    // Each kernel alone, both ends of the pair.
    for (int reversed = 0; reversed < 2; ++reversed) {
      const Vec3 at = reversed ? -c.s : c.s;
      expect_close(multipole_field(c.M.data(), at, k.thole), generic_field(c.M, s, thole, reversed),
                   magnitude(c.M, c.r, k.thole), "Thole field", i);
      expect_close(multipole_field(c.M.data(), at, coulomb_field_radial(c.r)),
                   generic_field(c.M, s, coulomb_radial(c.r), reversed),
                   magnitude(c.M, c.r, coulomb_field_radial(c.r)), "Coulomb field", i);
      if (k.has_ewald)
        expect_close(multipole_field(c.M.data(), at, k.ewald), generic_field(c.M, s, ewald, reversed),
                     magnitude(c.M, c.r, coulomb), "Ewald field", i);
      // The direct fields as direct_fields sums them: scaled Thole, plus the unscaled Ewald part.
      Vec3 fd{0, 0, 0}, fp{0, 0, 0};
      direct_pair_fields(c.M.data(), at, k, c.sd, c.sp, fd, fp);
      Vec3 wd = generic_field(c.M, s, thole, reversed) * c.sd, wp = generic_field(c.M, s, thole, reversed) * c.sp;
      if (k.has_ewald) {
        wd += generic_field(c.M, s, ewald, reversed);
        wp += generic_field(c.M, s, ewald, reversed);
      }
      expect_close(fd, wd, scale, "field_d", i);
      expect_close(fp, wp, scale, "field_p", i);
      for (int a = 0; a < 3; ++a) worst = std::max(worst, std::max(std::abs(fd[a] - wd[a]), std::abs(fp[a] - wp[a])) / scale);
      // The mutual field and the preconditioner's product (Thole only, times alpha_i alpha_k u).
      const Moments du{0, c.u.x, c.u.y, c.u.z};
      const double uscale = magnitude(du, c.r, k.thole) + (k.has_ewald ? magnitude(du, c.r, coulomb) : 0.0);
      const Vec3 mutual = mutual_pair_field(c.u, at, k, c.su);
      const double rev[3] = {-s[0], -s[1], -s[2]};
      expect_close(mutual, generic_dipole_field(c.u, reversed ? rev : s, thole, k.has_ewald ? &ewald : nullptr, c.su),
                   uscale, "mutual field", i);
      for (int a = 0; a < 3; ++a) worst = std::max(worst, std::abs(mutual[a] - generic_dipole_field(c.u, reversed ? rev : s, thole, k.has_ewald ? &ewald : nullptr, c.su)[a]) / uscale);
      expect_close(dipole_field(c.u, at, k.thole) * (c.su * 1.3 * 0.7),
                   generic_dipole_field(c.u, reversed ? rev : s, thole, nullptr, c.su * 1.3 * 0.7),
                   magnitude(du, c.r, k.thole), "preconditioner", i);
    }
  }
  std::cout << "worst difference from the generic tensors: " << worst << " of the terms' magnitude\n";
}

double largest(const std::vector<Vec3>& v) {
  double m = 0;
  for (const Vec3& x : v) m = std::max({m, std::abs(x.x), std::abs(x.y), std::abs(x.z)});
  return m;
}

double expect_same_fields(const std::vector<Vec3>& got, const std::vector<Vec3>& want, const std::string& what) {
  EXPECT_EQ(got.size(), want.size()) << what;
  double worst = 0;
  for (std::size_t i = 0; i < std::min(got.size(), want.size()); ++i)
    for (int a = 0; a < 3; ++a) worst = std::max(worst, std::abs(got[i][a] - want[i][a]));
  worst /= std::max(largest(want), 1e-12);
  EXPECT_LE(worst, 1e-12) << what;
  return worst;
}

// Tinker's preconditioner through the generic tensors, pair by pair as induced_dipoles.cpp forms it.
std::vector<Vec3> generic_precondition(const ElectrostaticSystem& e, const PairGeometry& g, const std::vector<Vec3>& r,
                                       const std::vector<Vec3>& rs) {
  std::vector<Vec3> z(r.size());
  for (std::size_t i = 0; i < r.size(); ++i) z[i] = 2 * e.alpha[i] * rs[i];
  PairGeometry near = g;
  near.cutoff = e.usolve_cutoff;
  for_each_scaled_pair(
      e, near, r,
      [&](std::size_t i, std::size_t k, const ScaleScratch& sc) { return !(sc.u[k] == 0 || e.alpha[i] == 0 || e.alpha[k] == 0); },
      [&](std::size_t i, std::size_t k, const double s[3], double dist, const ScaleScratch& sc) {
        const Radial thole = thole_radial(dist, e.thole_of(i, k), e.damp[i] * e.damp[k]);
        const double f = sc.u[k] * e.alpha[i] * e.alpha[k];
        z[i] += generic_dipole_field(rs[k], s, thole, nullptr, f);
        z[k] += generic_dipole_field(rs[i], s, thole, nullptr, f);
      });
  return z;
}


void expect_atom_sums_match(amoeba_test::PolarSystem which, const std::string& name) {
  amoeba_test::Polarizable p;
  if (!amoeba_test::load_polarizable(p, which))
    return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  const ElectrostaticSystem& e = p.e();
  const std::size_t n = p.r.size();
  const InduceTables tables = induce_tables(e, p.g, p.r);
  const InduceArgs args = induce_args(tables, e, p.g);
  const bool ewald = p.g.ewald_alpha > 0;
  // The direct fields, with the reciprocal and self parts the hook adds.
  const std::vector<Moments> M = lab_moments(e, p.g, p.r);
  std::vector<double> flat(13 * n);
  for (std::size_t i = 0; i < n; ++i) std::copy(M[i].begin(), M[i].end(), flat.begin() + static_cast<long>(13 * i));
  std::vector<Vec3> fd(n), fp(n), cd, cp;
  for (std::size_t i = 0; i < n; ++i) direct_fields_at(args, static_cast<int>(i), flat.data(), fd[i], fp[i]);
  if (ewald) {
    std::vector<Vec3> recip(n);
    add_reciprocal_field(p.g, p.r, M, recip);
    for (std::size_t i = 0; i < n; ++i) {
      const Vec3 f = recip[i] + ewald_self_field(p.g.ewald_alpha) * Vec3{M[i][1], M[i][2], M[i][3]};
      fd[i] += f;
      fp[i] += f;
    }
  }
  direct_fields(e, p.g, p.r, M, cd, cp);
  const double wd = expect_same_fields(fd, cd, name + " field_d"), wp = expect_same_fields(fp, cp, name + " field_p");
  // One mutual product, of the direct dipoles, and the preconditioner of that product.
  std::vector<Vec3> u(n);
  for (std::size_t i = 0; i < n; ++i) u[i] = e.alpha[i] * cd[i];
  std::vector<double> uf(3 * n);
  for (std::size_t i = 0; i < n; ++i)
    for (int a = 0; a < 3; ++a) uf[3 * i + static_cast<std::size_t>(a)] = u[i][a];
  std::vector<Vec3> tu(n);
  for (std::size_t i = 0; i < n; ++i) tu[i] = mutual_field_at(args, static_cast<int>(i), uf.data());
  if (ewald) {
    std::vector<Moments> dm(n);
    for (std::size_t i = 0; i < n; ++i) dm[i] = dipole_moments(u[i]);
    add_reciprocal_field(p.g, p.r, dm, tu);
    for (std::size_t i = 0; i < n; ++i) tu[i] += ewald_self_field(p.g.ewald_alpha) * u[i];
  }
  const std::vector<Vec3> tc = mutual_field(e, p.g, p.r, u);
  const double wt = expect_same_fields(tu, tc, name + " T u");
  std::vector<double> tf(3 * n);
  for (std::size_t i = 0; i < n; ++i)
    for (int a = 0; a < 3; ++a) tf[3 * i + static_cast<std::size_t>(a)] = tc[i][a];
  std::vector<Vec3> z(n);
  for (std::size_t i = 0; i < n; ++i) z[i] = precondition_at(args, static_cast<int>(i), tf.data());
  const double wz = expect_same_fields(z, generic_precondition(e, p.g, p.r, tc), name + " preconditioner");
  // The solver loop on these sums, from the direct dipoles, against induce().
  HostOps ops{args, p.g, p.r, {}, {}, {}, {}, {}, {}};
  std::size_t polar = 0;
  for (std::size_t i = 0; i < n; ++i) polar += e.alpha[i] > 0;
  for (int f = 0; f < 2; ++f) {
    ops.x[f].resize(3 * n);
    for (std::size_t i = 0; i < n; ++i)
      for (int a = 0; a < 3; ++a) ops.x[f][3 * i + static_cast<std::size_t>(a)] = e.alpha[i] * (f == 0 ? fd : fp)[i][a];
  }
  int iterations = 0;
  double residual = 0;
  induce_conjugate_gradient(ops, e, polar, iterations, residual);
  const InducedDipoles want = induce(e, p.g, p.r);
  EXPECT_EQ(iterations, want.iterations) << name;
  EXPECT_GT(iterations, 2) << name;
  EXPECT_NEAR(residual, want.residual, 1e-6 * want.residual) << name;
  double du = 0;
  for (std::size_t i = 0; i < n; ++i)
    for (int a = 0; a < 3; ++a)
      du = std::max({du, std::abs(ops.x[0][3 * i + static_cast<std::size_t>(a)] - want.ud[i][a]),
                     std::abs(ops.x[1][3 * i + static_cast<std::size_t>(a)] - want.up[i][a])});
  EXPECT_LT(kInduceDebye * du, 1e-4 * e.polar_eps) << name;
  std::cout << name << ": " << iterations << " steps as induce(), dipoles " << kInduceDebye * du
            << " Debye apart (polar-eps " << e.polar_eps << ")\n";
  std::cout << name << ": worst relative field_d " << wd << ", field_p " << wp << ", T u " << wt << ", preconditioner "
            << wz << "\n";
}

TEST(AmoebaFieldForms, AtomSumsMatchTheCpuOnLiquidWaterWithPme) {
  expect_atom_sums_match(amoeba_test::PolarSystem::WaterPme, "liquid water, PME");
}

TEST(AmoebaFieldForms, AtomSumsMatchTheCpuOnLiquidWaterWithCutoff) {
  expect_atom_sums_match(amoeba_test::PolarSystem::WaterCutoff, "liquid water, cutoff");
}

TEST(AmoebaFieldForms, AtomSumsMatchTheCpuOnVasopressin) {
  expect_atom_sums_match(amoeba_test::PolarSystem::Vasopressin, "vasopressin");
}

}  // namespace
}  // namespace quasar::amoeba
