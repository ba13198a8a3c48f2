// AMOEBA on the GPU against the CPU reference (whose own checks against Tinker are in amoeba_test and
// the other amoeba_*_test files): each term of Tinker's reference systems evaluated alone on both
// backends, energy, every force, virial, per-atom energies and virials and Tinker's count. The
// valence terms and van der Waals run as kernels in double; multipoles and polarization on the CPU
// from a host copy of the device's positions. The two sides sum in different orders (and the GPU
// contracts products into fused multiply-adds), so they agree to rounding, not to the bit:
// energies to 1e-12 relative, forces, virials and per-atom values to 1e-11 of the largest. Skipped
// without a GPU.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include <gtest/gtest.h>

#include "quasar/io/read.hpp"
#include "quasar/io/tinker_xyz.hpp"
#include "quasar/potential/amoeba/amoeba_term.hpp"
#include "quasar/potential/evaluate.hpp"
#include "amoeba_support.hpp"
#include "support.hpp"

namespace quasar {
namespace {

using namespace amoeba_test;

double largest(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

// Every term of the force field alone on both backends; returns the names of the terms that had
// entries (or pairs) here.
std::set<std::string> expect_backends_agree(ForceField& ff, const Structure& s, const std::string& what) {
  std::set<std::string> seen;
  for (const auto& entry : ff.terms()) {
    Potential& term = *entry.potential;
    const auto* amoeba_term = dynamic_cast<const amoeba::AmoebaTerm*>(&term);
    if (!amoeba_term) {
      ADD_FAILURE() << term.name() << " is no AMOEBA term";
      continue;
    }
    const std::string name = what + " " + term.name();
    const Evaluation c = evaluate(term, s, Backend::Cpu, true);
    const long cpu_count = amoeba_term->entries();
    const Evaluation g = evaluate(term, s, Backend::Cuda, true);
    const long gpu_count = amoeba_term->entries();
    EXPECT_EQ(gpu_count, cpu_count) << name;
    if (cpu_count > 0) seen.insert(term.name());
    EXPECT_NEAR(g.energy, c.energy, 1e-12 * std::max(std::abs(c.energy), 1e-3)) << name;
    std::vector<double> cf, gf, cw, gw, ce = c.atom_energy, ge = g.atom_energy, cav, gav;
    if (g.forces.size() != c.forces.size() || g.atom_energy.size() != c.atom_energy.size() ||
        g.atom_virial.size() != c.atom_virial.size()) {
      ADD_FAILURE() << name << ": the backends' outputs differ in size";
      continue;
    }
    for (std::size_t i = 0; i < c.forces.size(); ++i)
      for (int k = 0; k < 3; ++k) {
        cf.push_back(c.forces[i][k]);
        gf.push_back(g.forces[i][k]);
      }
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) {
        cw.push_back(c.virial(a, b));
        gw.push_back(g.virial(a, b));
        for (std::size_t i = 0; i < c.atom_virial.size(); ++i) {
          cav.push_back(c.atom_virial[i](a, b));
          gav.push_back(g.atom_virial[i](a, b));
        }
      }
    const auto compare = [&](const std::vector<double>& want, const std::vector<double>& got, const char* field) {
      const double scale = std::max(largest(want), 1e-6);
      double worst = 0;
      for (std::size_t k = 0; k < want.size(); ++k) worst = std::max(worst, std::abs(got[k] - want[k]));
      EXPECT_LE(worst, 1e-11 * scale) << name << " " << field;
      return worst / scale;
    };
    const double f = compare(cf, gf, "forces"), w = compare(cw, gw, "virial");
    const double e = compare(ce, ge, "per-atom energies"), v = compare(cav, gav, "per-atom virials");
    std::cout << name << ": " << cpu_count << " entries, energy " << c.energy << " eV, GPU - CPU "
              << g.energy - c.energy << " eV; worst relative: forces " << f << ", virial " << w << ", per-atom "
              << std::max(e, v) << "\n";
  }
  return seen;
}

// Vasopressin (AMOEBA-bio-2018: anglep in-plane angles, pi-torsions, torsion-torsions) in the gas
// phase: van der Waals over every pair with reduced hydrogen sites, and the electrostatic terms
// through the host.
TEST(AmoebaGpu, VasopressinTermsMatchTheCpu) {
  QUASAR_REQUIRE_GPU();
  const std::string dir = reference("tinker-test-file/vasopressin");
  if (dir.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  ForceField ff = amoeba::load_tinker_force_field(dir + "/vasopressin.key");
  const std::set<std::string> seen = expect_backends_agree(ff, io::read_tinker_xyz(dir + "/vasopressin.xyz"), "vasopressin");
  for (const char* t : {"bond", "angle", "strbnd", "opbend", "torsion", "pitors", "tortor", "vdw", "mpole", "polarize"})
    EXPECT_TRUE(seen.count(t)) << t << " has no entries in vasopressin";
}

// Trp-cage's valence terms (AMOEBA-pro-2013) in a periodic cell that cuts the molecule, half of its
// atoms moved by lattice vectors: every entry takes its atoms' nearest images on the GPU as well.
TEST(AmoebaGpu, TrpCageValenceInACellMatchesTheCpu) {
  QUASAR_REQUIRE_GPU();
  std::string key;
  Structure s;
  if (!trp_cage_valence_in_a_cell("amoeba-gpu-trpcage", key, s))
    return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  ForceField ff = amoeba::load_tinker_force_field(key);
  const std::set<std::string> seen = expect_backends_agree(ff, s, "trp-cage");
  for (const char* t : {"bond", "angle", "strbnd", "opbend", "torsion", "pitors", "tortor"})
    EXPECT_TRUE(seen.count(t)) << t << " has no entries in trp-cage";
}

// The 648-water box (water03, the key's cell): bond, angle, Urey-Bradley and van der Waals from the
// pair list within the cutoff, with the taper and the long-range correction.
TEST(AmoebaGpu, LiquidWaterMatchesTheCpu) {
  QUASAR_REQUIRE_GPU();
  const std::string xyz = reference("liquid-water/liquid.amoeba");
  const std::string prm = reference("params/water03.prm");
  if (xyz.empty() || prm.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  ForceField ff = amoeba::load_tinker_force_field(key_file(
      test::scratch_dir("amoeba-gpu-liquid"), "liquid.key", "parameters " + prm + "\na-axis 18.643\nvdw-cutoff 9.0\nvdw-correction\nmpoleterm none\npolarizeterm none\n"));
  const std::set<std::string> seen = expect_backends_agree(ff, io::read_frames(xyz).front(), "648 waters");
  EXPECT_EQ(seen, (std::set<std::string>{"bond", "angle", "urey", "vdw"}));
}

// Angle- and stretch-torsions: a four-atom chain with its own records, in a cell that cuts it.
TEST(AmoebaGpu, CrossTermsMatchTheCpu) {
  QUASAR_REQUIRE_GPU();
  const auto dir = test::scratch_dir("amoeba-gpu-chain");
  const std::string prm = write_chain(dir, "angtors 1 2 3 4 0.802 0.3 -3.323 0.5 -0.2 -0.630\n"
                                           "strtors 1 2 3 4 1.1 0.0 1.5 -0.4 0.7 -4.0 0.9 0.25 5.2\n");
  const std::string xyz = (dir / "chain.xyz").string();
  ForceField ff = amoeba::load_tinker_force_field(key_file(dir, "chain.key", "parameters " + prm + "\n"));
  Structure s = io::read_tinker_xyz(xyz);
  s.box = Box::orthorhombic(7.0, 7.2, 7.4);
  for (Vec3& r : s.positions) r = s.box.wrap(r + Vec3{5.5, 6.5, 6.9});
  const std::set<std::string> seen = expect_backends_agree(ff, s, "chain");
  EXPECT_TRUE(seen.count("angtor") && seen.count("strtor"));
}

// The whole force field of a key at once (what `quasar eval --device cuda` evaluates), with spatial
// sorting on the device: the sum of the terms, each force and the virial.
TEST(AmoebaGpu, WholeForceFieldMatchesTheCpu) {
  QUASAR_REQUIRE_GPU();
  const std::string dir = reference("tinker-test-file/vasopressin");
  if (dir.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  ForceField ff = amoeba::load_tinker_force_field(dir + "/vasopressin.key");
  const Structure s = io::read_tinker_xyz(dir + "/vasopressin.xyz");
  const Evaluation c = evaluate(ff, s, Backend::Cpu), g = evaluate(ff, s, Backend::Cuda);
  EXPECT_NEAR(g.energy, c.energy, 1e-12 * std::abs(c.energy));
  ASSERT_EQ(g.terms.size(), c.terms.size());
  double scale = 0, worst = 0;
  for (std::size_t i = 0; i < c.forces.size(); ++i)
    for (int k = 0; k < 3; ++k) {
      scale = std::max(scale, std::abs(c.forces[i][k]));
      worst = std::max(worst, std::abs(g.forces[i][k] - c.forces[i][k]));
    }
  EXPECT_LE(worst, 1e-11 * scale);
  double virial_scale = 0;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) virial_scale = std::max(virial_scale, std::abs(c.virial(a, b)));
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) EXPECT_NEAR(g.virial(a, b), c.virial(a, b), 1e-11 * virial_scale);
}

}  // namespace
}  // namespace quasar
