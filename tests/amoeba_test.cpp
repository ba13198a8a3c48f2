// AMOEBA from Tinker files: the keyword reader, the Tinker .xyz reader, and the valence terms
// against Tinker's own single-term references (../shared/reference/amoeba: analyze/testgrad output
// for trp-cage with one term on at a time, Urey-Bradley in ten waters, PF6-), which Tinker checks
// itself against to 1e-4 kcal/mol (energies, gradients) and 1e-3 (virial); and against finite
// differences of the energy.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include <gtest/gtest.h>

#include "quasar/core/units.hpp"
#include "quasar/io/read.hpp"
#include "quasar/io/tinker_xyz.hpp"
#include "quasar/potential/amoeba/amoeba_term.hpp"
#include "quasar/potential/evaluate.hpp"
#include "quasar/potential/registry.hpp"
#include "amoeba_support.hpp"
#include "support.hpp"

namespace quasar {
namespace {

using namespace amoeba_test;


struct Case {
  const char* folder;
  const char* key;
  const char* xyz;
  const char* ref;
  const char* prm;  // "" or the parameter file to use in place of the key's
  // Tinker's pi-torsion virial sums over the orbital-axis points as if they were atoms, which
  // differs from the atoms' virial off the diagonal; that one is checked against strain below.
  bool virial_diagonal_only = false;
};

class TinkerValence : public testing::TestWithParam<Case> {};

// Tinker prints energies and gradients to 4 decimals and the virial to 3: the rounding bounds the
// agreement (half a unit of the last digit), and the test allows that.
TEST_P(TinkerValence, MatchesTinker) {
  const Case c = GetParam();
  const std::string dir = reference(std::string("tinker-test-file/") + c.folder);
  if (dir.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  const std::string prm = *c.prm ? reference(c.prm) : "";
  const std::string ref = reference(std::string("tinker-test-ref/") + c.ref);
  if (ref.empty())
    return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba/tinker-test-ref is not here");
  const Result got = evaluate_key(dir + "/" + c.key, dir + "/" + c.xyz, prm);
  const TinkerReference want = read_reference(ref);
  expect_matches(got, want, 0.6e-4, 0.6e-4, 0.6e-3, c.virial_diagonal_only);
  EXPECT_EQ(got.count, want.count) << "the interactions Tinker counts";
}

INSTANTIATE_TEST_SUITE_P(
    Amoeba, TinkerValence,
    testing::Values(Case{"bond", "trpcage.key", "trpcage.xyz", "bond/bond.txt", ""},
                    // The key names a parameter file of another Tinker version, not among the
                    // references; the angle records are those of this one.
                    Case{"angle", "trpcage.key", "trpcage.xyz", "angle/angle.1.txt",
                         "tinker-test-file/commit_6fe8e913/amoebapro13.prm"},
                    Case{"angle", "anglef.key", "anglef.xyz", "angle/angle.2.txt", ""},
                    Case{"strbnd", "trpcage.key", "trpcage.xyz", "strbnd/strbnd.txt", ""},
                    Case{"opbend", "trpcage.key", "trpcage.xyz", "opbend/opbend.txt", ""},
                    Case{"torsion", "trpcage.key", "trpcage.xyz", "torsion/torsion.txt", ""},
                    Case{"pitors", "trpcage.key", "trpcage.xyz", "pitors/pitors.txt", "", true},
                    Case{"tortor", "trpcage.key", "trpcage.xyz", "tortor/tortor.txt", ""},
                    Case{"urey", "h2o10.key", "h2o10.xyz", "urey/urey.txt", ""}),
    [](const testing::TestParamInfo<Case>& p) {
      return std::string(p.param.folder) + (std::string(p.param.key) == "anglef.key" ? "_pf6" : "");
    });



// A key with every valence term of AMOEBA-protein-2013 on (the nonbonded ones left out), in a scratch folder.
std::string valence_key(const std::filesystem::path& dir, const std::string& prm) {
  const std::string key = (dir / "valence.key").string();
  std::ofstream(key) << "parameters " << prm << "\nvdwterm none\nmpoleterm none\npolarizeterm none\n";
  return key;
}

// Forces against central differences of the energy, and the virial against the energy's change
// under a homogeneous strain (W_ab = -dE/d eps_ba with r -> (1 + eps) r), for every valence term
// at once on trp-cage (a sample of atoms for the forces).
TEST(AmoebaValence, ForcesAndVirialAreDerivativesOfTheEnergy) {
  const std::string prm = reference("tinker-test-file/commit_6fe8e913/amoebapro13.prm");
  const std::string xyz = reference("tinker-test-file/torsion/trpcage.xyz");
  if (prm.empty() || xyz.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  const auto dir = test::scratch_dir("amoeba-fd");
  ForceField ff = amoeba::load_tinker_force_field(valence_key(dir, prm));
  EXPECT_EQ(ff.size(), 8);
  const Structure s = io::read_tinker_xyz(xyz);
  const Evaluation e = evaluate(ff, s, Backend::Cpu);
  std::cout << "valence terms: worst relative deviation from finite differences "
            << check_derivatives(ff, s, 23, 1e-6) << "\n";
  // Per-atom energies and virials add up to the totals.
  expect_atom_sums(evaluate(ff, s, Backend::Cpu, true), e.energy, e.virial);
  // The terms add up to the total, each under its name.
  double sum = 0;
  for (const TermEnergy& t : e.terms) sum += t.energy;
  EXPECT_NEAR(sum, e.energy, 1e-12 * std::abs(e.energy));
  EXPECT_EQ(amoeba::tinker_term_name(e.terms.front().name), "Bond Stretching");
}

// The same in a periodic cell that cuts the molecules: every entry takes its atoms' nearest images,
// so energy and forces do not change when atoms are moved by lattice vectors.
TEST(AmoebaValence, PeriodicImagesGiveTheSameResult) {
  const std::string prm = reference("tinker-test-file/commit_6fe8e913/amoebapro13.prm");
  const std::string xyz = reference("tinker-test-file/torsion/trpcage.xyz");
  if (prm.empty() || xyz.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  const auto dir = test::scratch_dir("amoeba-pbc");
  ForceField ff = amoeba::load_tinker_force_field(valence_key(dir, prm));
  Structure s = io::read_tinker_xyz(xyz);
  s.box = Box::orthorhombic(30, 31, 32);
  const Evaluation e = evaluate(ff, s, Backend::Cpu);
  Structure moved = s;
  for (std::size_t i = 0; i < s.size(); i += 2) moved.positions[i] = moved.positions[i] + Vec3{30, -31, 64};
  const Evaluation m = evaluate(ff, moved, Backend::Cpu);
  EXPECT_NEAR(m.energy, e.energy, 1e-10 * std::abs(e.energy));
  for (std::size_t i = 0; i < s.size(); ++i)
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(m.forces[i][c], e.forces[i][c], 1e-9);
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) EXPECT_NEAR(m.virial(a, b), e.virial(a, b), 1e-8);
}

// Vasopressin with AMOEBA-bio-2018 (anglep in-plane angles): each valence term of Tinker's energy
// breakdown of the whole force field, by name.
TEST(AmoebaValence, VasopressinTermsMatchTinkersBreakdown) {
  const std::string dir = reference("tinker-test-file/vasopressin");
  const std::string prm = reference("tinker-test-file/commit_6bd0b6fd/amoebabio18.prm");
  if (dir.empty() || prm.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  const auto scratch = test::scratch_dir("amoeba-vasopressin");
  const std::string key = (scratch / "valence.key").string();
  std::ofstream(key) << "parameters " << prm
                     << "\nvdwterm none\nmpoleterm none\npolarizeterm none\n";
  ForceField ff = amoeba::load_tinker_force_field(key);
  const Evaluation e = evaluate(ff, io::read_tinker_xyz(dir + "/vasopressin.xyz"), Backend::Cpu);
  const std::map<std::string, double> want = {{"Bond Stretching", 15.2728}, {"Angle Bending", 30.6582},
                                              {"Stretch-Bend", -0.3091},    {"Out-of-Plane Bend", 6.1337},
                                              {"Torsional Angle", -1.7975}, {"Pi-Orbital Torsion", 3.1646},
                                              {"Torsion-Torsion", -4.0656}};
  std::size_t compared = 0;
  for (const TermEnergy& t : e.terms) {
    const std::string name = amoeba::tinker_term_name(t.name);
    // Terms with parameters but no entries here (Urey-Bradley) are 0; Tinker does not list them.
    EXPECT_NEAR(t.energy / kKcal, want.count(name) ? want.at(name) : 0.0, 0.6e-4) << name;
    compared += want.count(name);
  }
  EXPECT_EQ(compared, want.size());
}

// Buffered 14-7 van der Waals: the NaCl pair (amoeba09's vdwpr pair record, a periodic cell from
// the key, within the cutoff and before the taper) and vasopressin in the gas phase (every pair,
// hydrogens on reduced sites), against Tinker.
TEST(AmoebaVdw, MatchesTinker) {
  const std::string nacl = reference("tinker-test-file/nacl");
  const std::string dir = reference("tinker-test-file/vasopressin");
  const std::string prm = reference("tinker-test-file/commit_6bd0b6fd/amoebabio18.prm");
  if (nacl.empty() || dir.empty() || prm.empty())
    return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  EXPECT_NEAR(evaluate_key(nacl + "/nacl_vdw.key", nacl + "/nacl1.xyz").energy, 51.4242, 0.6e-4);
  const auto scratch = test::scratch_dir("amoeba-vdw");
  const std::string key = (scratch / "vdw.key").string();
  std::ofstream(key) << "parameters " << prm << "\nvdwterm only\n";
  EXPECT_NEAR(evaluate_key(key, dir + "/vasopressin.xyz").energy, 112.6135, 0.6e-4);
  // What this term does not do yet is refused by name.
  try {
    ForceField ff = amoeba::load_tinker_force_field(nacl + "/nacl_vdw_lambda.key");
    evaluate(ff, io::read_tinker_xyz(nacl + "/nacl1.xyz"), Backend::Cpu);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("nacl_vdw_lambda.key:16: 'vdw-lambda': not yet supported"), std::string::npos)
        << e.what();
  }
}

// Forces and virial of the vdW term against the energy's derivatives, for ten waters (reduced
// hydrogen sites) in the gas phase and in a periodic cell whose cutoff puts many pairs in the taper
// (the strain then deforms the cell too).
TEST(AmoebaVdw, ForcesAndVirialAreDerivativesOfTheEnergy) {
  const std::string water = reference("tinker-test-file/urey/h2o10.xyz");
  const std::string prm = reference("tinker-test-file/commit_6fe8e913/water03.prm");
  if (water.empty() || prm.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  const auto scratch = test::scratch_dir("amoeba-vdw-fd");
  for (const bool periodic : {false, true}) {
    const std::string key = (scratch / "vdw.key").string();
    std::ofstream(key) << "parameters " << prm << "\nvdwterm only\n" << (periodic ? "vdw-cutoff 6.0\n" : "");
    ForceField ff = amoeba::load_tinker_force_field(key);
    Structure s = io::read_tinker_xyz(water);
    if (periodic) s.box = Box::orthorhombic(14, 15, 16);
    const Evaluation e = evaluate(ff, s, Backend::Cpu, true);
    double atom_sum = 0;
    for (double x : e.atom_energy) atom_sum += x;
    EXPECT_NEAR(atom_sum, e.energy, 1e-12);
    std::cout << "vdW (" << (periodic ? "periodic" : "gas phase") << "): worst relative deviation from finite differences "
              << check_derivatives(ff, s, 1, 3e-8) << "\n";
  }
}

// The 648-water box of Tinker's liquid-water example (water03, the key's cell, vdW cutoff 9 Å with
// its taper): bond, angle, Urey-Bradley and van der Waals as Tinker's log reports them.
TEST(AmoebaVdw, LiquidWaterComponentsMatchTinker) {
  const std::string xyz = reference("liquid-water/liquid.amoeba");
  const std::string prm = reference("params/water03.prm");
  if (xyz.empty() || prm.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  const auto scratch = test::scratch_dir("amoeba-liquid");
  const std::string key = (scratch / "liquid.key").string();
  std::ofstream(key) << "parameters " << prm << "\na-axis 18.643\nvdw-cutoff 9.0\nmpoleterm none\npolarizeterm none\n";
  ForceField ff = amoeba::load_tinker_force_field(key);
  const Evaluation e = evaluate(ff, io::read_frames(xyz).front(), Backend::Cpu);
  const std::map<std::string, double> want = {{"Bond Stretching", 166.8264},
                                              {"Angle Bending", 88.3871},
                                              {"Urey-Bradley", -4.6546},
                                              {"Van der Waals", 961.4154}};
  ASSERT_EQ(e.terms.size(), want.size());
  for (const TermEnergy& t : e.terms)
    EXPECT_NEAR(t.energy / kKcal, want.at(amoeba::tinker_term_name(t.name)), 0.6e-4) << t.name;
  const auto* vdw = dynamic_cast<const amoeba::AmoebaTerm*>(ff.terms().back().potential.get());
  ASSERT_NE(vdw, nullptr);
  EXPECT_EQ(vdw->entries(), 97948) << "the pairs within the cutoff, as Tinker counts them";
  // The key's cell applies to every term: molecules cut by wrapping the atoms into it are whole again.
  Structure wrapped = io::read_frames(xyz).front();
  for (Vec3& r : wrapped.positions)
    for (int c = 0; c < 3; ++c) r[c] -= 18.643 * std::floor(r[c] / 18.643);
  const Evaluation w = evaluate(ff, wrapped, Backend::Cpu);
  EXPECT_NEAR(w.energy, e.energy, 1e-10 * std::abs(e.energy));
  for (std::size_t i = 0; i < w.forces.size(); ++i)
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(w.forces[i][c], e.forces[i][c], 1e-9);
}

// What the reader refuses, naming the file and line (or the key and the term).
TEST(AmoebaInput, ErrorsNameFileLineAndTerm) {
  const std::string prm = reference("tinker-test-file/commit_6fe8e913/amoebapro13.prm");
  if (prm.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  const auto dir = test::scratch_dir("amoeba-errors");
  auto message = [&](const std::string& text) -> std::string {
    const std::string key = (dir / "bad.key").string();
    std::ofstream(key) << text;
    try {
      amoeba::load_tinker_force_field(key);
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  const std::string p = "parameters " + prm + "\n";
  EXPECT_NE(message(p + "vdwterm none\nmpoleterm none\nspeling-mistake 3\n").find("bad.key:4: unknown keyword 'speling-mistake'"),
            std::string::npos);
  EXPECT_EQ(message(p), "no error");  // every term of AMOEBA-protein-2013
  EXPECT_NE(message(p + "bondterm only\nbond 1 2 x 1.4\n").find("bad.key:3: 'bond': expected a number for K, found 'x'"),
            std::string::npos);
  EXPECT_NE(message(p + "bondterm maybe\n").find("bad.key:2: 'bondterm': expected no value, NONE or ONLY"),
            std::string::npos);
  EXPECT_NE(message("bondterm only\n").find("no 'parameters' keyword"), std::string::npos);
  EXPECT_NE(message("parameters nowhere\n").find("parameter file 'nowhere' not found"), std::string::npos);
  EXPECT_NE(message(p + "bondterm only\nmultipole 1 2 4 -0.2\n 0.1 0 0.3\n").find("the file ends inside 'multipole'"),
            std::string::npos);
  // A structure with an atom type the parameters lack, and a bond listed by one atom only.
  const std::string xyz = (dir / "bad.xyz").string();
  std::ofstream(xyz) << "2 pair\n 1 N 0 0 0 999 2\n 2 C 1.4 0 0 2 1\n";
  ForceField ff = amoeba::load_tinker_force_field(valence_key(dir, prm));
  try {
    evaluate(ff, io::read_tinker_xyz(xyz), Backend::Cpu);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("atom 1 has type '999'"), std::string::npos) << e.what();
  }
  std::ofstream(xyz) << "2 pair\n 1 N 0 0 0 1 2\n 2 C 1.4 0 0 2\n";
  EXPECT_THROW(io::read_tinker_xyz(xyz), InputError);
  std::ofstream(xyz) << "2 pair\n 1 N 0 0 0 1 2\n 2 C 1.4 0 0 2 1\n";
  EXPECT_TRUE(io::is_tinker_xyz(xyz));
  EXPECT_EQ(io::read_frames(xyz).front().topology.bonds.size(), 1u);
}

// A term from an input file's [potential] table (key, term), and a wrong term named at its key.
TEST(AmoebaInput, TermFromAPotentialTable) {
  const std::string dir = reference("tinker-test-file/bond");
  if (dir.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  const auto scratch = test::scratch_dir("amoeba-toml");
  const std::string toml = (scratch / "bond.toml").string();
  std::ofstream(toml) << "[[potential]]\ntype = \"amoeba\"\nkey = \"" << dir << "/trpcage.key\"\nterm = \"bond\"\n";
  ForceField ff = load_force_field(toml);
  const Evaluation e = evaluate(ff, io::read_tinker_xyz(dir + "/trpcage.xyz"), Backend::Cpu);
  EXPECT_NEAR(e.energy / kKcal, 19.4715, 0.6e-4);
  std::ofstream(toml) << "[[potential]]\ntype = \"amoeba\"\nkey = \"" << dir << "/trpcage.key\"\nterm = \"angtors\"\n";
  try {
    load_force_field(toml);
    ADD_FAILURE() << "no error";
  } catch (const InputError& err) {
    EXPECT_NE(std::string(err.what()).find("'potential[0].term': expected bond, angle"), std::string::npos) << err.what();
  }
}

}  // namespace
}  // namespace quasar
