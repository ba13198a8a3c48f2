// AMOEBA's mixed GPU mode (precision mixed32: entry and pair arithmetic in float, sums in 64-bit
// fixed point) for the valence terms and van der Waals, against the CPU's double evaluation of the
// same files and Tinker's reference values, and run twice for the same bits. Measured on the H100
// (2026-11-26): energies within 6.2e-6 relative (of max(|E|, 1 kcal/mol)), forces within 6.4e-6,
// virials 4.7e-6 and per-atom values 4e-6 of their largest, as amoeba_mixed_forms_test measures the
// float forms on the host; each system's bounds below are 5 to 30 times its worst term, the per-atom
// values' three times the larger of the force and virial bounds. Skipped without a GPU.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <string>

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

struct Bounds {
  double energy, forces, virial;
};

// Every double of an evaluation's outputs, in a fixed order.
std::vector<double> all_values(const Evaluation& e) {
  std::vector<double> v{e.energy};
  for (const Vec3& f : e.forces)
    for (int c = 0; c < 3; ++c) v.push_back(f[c]);
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) {
      v.push_back(e.virial(a, b));
      for (const Mat3& w : e.atom_virial) v.push_back(w(a, b));
    }
  v.insert(v.end(), e.atom_energy.begin(), e.atom_energy.end());
  return v;
}

// The valence and vdW terms of a force field (those with entries here), each on the GPU in mixed
// mode against the CPU in double, twice for the same bits; `tinker` gives Tinker's energies
// (kcal/mol) of some of them. Returns the names of the terms compared.
std::set<std::string> expect_mixed_agrees(ForceField& ff, const Structure& s, const std::string& what, const Bounds& bound,
                                          const std::map<std::string, double>& tinker = {}) {
  std::set<std::string> seen;
  for (const auto& entry : ff.terms()) {
    Potential& term = *entry.potential;
    auto* amoeba_term = dynamic_cast<amoeba::AmoebaTerm*>(&term);
    if (!amoeba_term) {
      ADD_FAILURE() << term.name() << " is no AMOEBA term";
      continue;
    }
    const amoeba::Term t = amoeba_term->term();
    if (t == amoeba::Term::Multipole || t == amoeba::Term::Polarization) continue;
    const std::string name = what + " " + term.name();
    term.set_precision(Precision::Double);
    const Evaluation c = evaluate(term, s, Backend::Cpu, true);
    const long cpu_count = amoeba_term->entries();
    term.set_precision(Precision::Mixed32);
    const Evaluation g = evaluate(term, s, Backend::Cuda, true);
    const long gpu_count = amoeba_term->entries();
    const Evaluation again = evaluate(term, s, Backend::Cuda, true);
    term.set_precision(Precision::Double);
    EXPECT_EQ(gpu_count, cpu_count) << name;
    if (cpu_count > 0) seen.insert(term.name());
    const std::vector<double> first = all_values(g), second = all_values(again);
    EXPECT_TRUE(first.size() == second.size() &&
                std::memcmp(first.data(), second.data(), first.size() * sizeof(double)) == 0)
        << name << ": two mixed runs differ in their bits";
    const double energy_dev = std::abs(g.energy - c.energy) / std::max(std::abs(c.energy), kKcal);
    test::print_measured(name + " mixed GPU energy against double CPU, relative", energy_dev);
    EXPECT_LE(energy_dev, bound.energy) << name;
    if (g.forces.size() != c.forces.size() || g.atom_energy.size() != c.atom_energy.size() ||
        g.atom_virial.size() != c.atom_virial.size()) {
      ADD_FAILURE() << name << ": the backends' outputs differ in size";
      continue;
    }
    std::vector<double> cw, gw, cav, gav;
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) {
        cw.push_back(c.virial(a, b));
        gw.push_back(g.virial(a, b));
        for (std::size_t i = 0; i < c.atom_virial.size(); ++i) {
          cav.push_back(c.atom_virial[i](a, b));
          gav.push_back(g.atom_virial[i](a, b));
        }
      }
    const double per_atom = 3 * std::max(bound.forces, bound.virial);
    EXPECT_LE(relative_worst(flat(c.forces), flat(g.forces), name + " mixed forces"), bound.forces);
    EXPECT_LE(relative_worst(cw, gw, name + " mixed virial"), bound.virial);
    EXPECT_LE(relative_worst(c.atom_energy, g.atom_energy, name + " mixed per-atom energies"), per_atom);
    EXPECT_LE(relative_worst(cav, gav, name + " mixed per-atom virials"), per_atom);
    const std::string tinker_name = amoeba::term_name(t);
    // Tinker prints 4 decimals; float's own deviation from Tinker measured on the host as 6.4e-5
    // kcal/mol at most, 7.4e-4 for the liquid's vdW (98,000 pairs).
    if (tinker.count(tinker_name)) {
      EXPECT_NEAR(g.energy / kKcal, tinker.at(tinker_name), 0.6e-4 + (t == amoeba::Term::Vdw ? 1e-2 : 1e-3)) << name;
    }
  }
  return seen;
}

// Vasopressin (AMOEBA-bio-2018) in the gas phase: every valence term and van der Waals over all
// pairs, against the CPU and Tinker's breakdown.
TEST(AmoebaMixedGpu, VasopressinMatchesDoubleAndTinker) {
  QUASAR_REQUIRE_GPU();
  const std::string dir = reference("tinker-test-file/vasopressin");
  if (dir.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  ForceField ff = amoeba::load_tinker_force_field(dir + "/vasopressin.key");
  const std::map<std::string, double> tinker = {
      {"Bond Stretching", 15.2728},   {"Angle Bending", 30.6582},      {"Stretch-Bend", -0.3091},
      {"Out-of-Plane Bend", 6.1337},  {"Torsional Angle", -1.7975},    {"Pi-Orbital Torsion", 3.1646},
      {"Torsion-Torsion", -4.0656},   {"Van der Waals", 112.6135}};
  const std::set<std::string> seen = expect_mixed_agrees(ff, io::read_tinker_xyz(dir + "/vasopressin.xyz"), "vasopressin", {3e-5, 1e-4, 1e-4}, tinker);
  for (const char* t : {"bond", "angle", "strbnd", "opbend", "torsion", "pitors", "tortor", "vdw"})
    EXPECT_TRUE(seen.count(t)) << t << " has no entries in vasopressin";
}

// Trp-cage's valence terms in a periodic cell that cuts the molecule (half of its atoms moved by
// lattice vectors): the displacements at the nearest image in double, then float.
TEST(AmoebaMixedGpu, TrpCageValenceInACellMatchesDouble) {
  QUASAR_REQUIRE_GPU();
  std::string key;
  Structure s;
  if (!trp_cage_valence_in_a_cell("amoeba-mixed-gpu-trpcage", key, s))
    return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  ForceField ff = amoeba::load_tinker_force_field(key);
  const std::set<std::string> seen = expect_mixed_agrees(ff, s, "trp-cage", {1e-5, 2e-4, 1e-4});
  for (const char* t : {"bond", "angle", "strbnd", "opbend", "torsion", "pitors", "tortor"})
    EXPECT_TRUE(seen.count(t)) << t << " has no entries in trp-cage";
}

// The 648-water box (the key's cell): bond, angle, Urey-Bradley and van der Waals within the
// cutoff with the taper against Tinker's log; then with the long-range correction (double, on the
// host) against the CPU.
TEST(AmoebaMixedGpu, LiquidWaterMatchesDoubleAndTinker) {
  QUASAR_REQUIRE_GPU();
  const std::string xyz = reference("liquid-water/liquid.amoeba");
  const std::string prm = reference("params/water03.prm");
  if (xyz.empty() || prm.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  const auto dir = test::scratch_dir("amoeba-mixed-gpu-liquid");
  const std::string settings = "parameters " + prm + "\na-axis 18.643\nvdw-cutoff 9.0\nmpoleterm none\npolarizeterm none\n";
  const Structure s = io::read_frames(xyz).front();
  ForceField ff = amoeba::load_tinker_force_field(key_file(dir, "liquid.key", settings));
  const std::map<std::string, double> tinker = {{"Bond Stretching", 166.8264}, {"Angle Bending", 88.3871},
                                                {"Urey-Bradley", -4.6546}, {"Van der Waals", 961.4154}};
  EXPECT_EQ(expect_mixed_agrees(ff, s, "648 waters", {2e-5, 3e-5, 1e-4}, tinker), (std::set<std::string>{"bond", "angle", "urey", "vdw"}));
  ForceField corrected = amoeba::load_tinker_force_field(key_file(dir, "corrected.key", settings + "vdw-correction\n"));
  expect_mixed_agrees(corrected, s, "648 waters with the vdW correction", {2e-5, 3e-5, 1e-4});
}

// Angle- and stretch-torsions: the four-atom chain with its own records, in a cell that cuts it.
TEST(AmoebaMixedGpu, CrossTermsMatchDouble) {
  QUASAR_REQUIRE_GPU();
  const auto dir = test::scratch_dir("amoeba-mixed-gpu-chain");
  const std::string prm = write_chain(dir, "angtors 1 2 3 4 0.802 0.3 -3.323 0.5 -0.2 -0.630\n"
                                           "strtors 1 2 3 4 1.1 0.0 1.5 -0.4 0.7 -4.0 0.9 0.25 5.2\n");
  ForceField ff = amoeba::load_tinker_force_field(key_file(dir, "chain.key", "parameters " + prm + "\n"));
  Structure s = io::read_tinker_xyz((dir / "chain.xyz").string());
  s.box = Box::orthorhombic(7.0, 7.2, 7.4);
  for (Vec3& r : s.positions) r = s.box.wrap(r + Vec3{5.5, 6.5, 6.9});
  const std::set<std::string> seen = expect_mixed_agrees(ff, s, "chain", {1e-5, 3e-6, 3e-6});
  EXPECT_TRUE(seen.count("angtor"));
  EXPECT_TRUE(seen.count("strtor"));
}

}  // namespace
}  // namespace quasar
