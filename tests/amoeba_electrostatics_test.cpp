// AMOEBA's permanent multipoles and polarization in the gas phase against Tinker's references
// (../shared/reference/amoeba: the local-frame set, which covers every frame type; NaCl; vasopressin
// with every term), against Tinker's direct fields, mutual fields and induced dipoles, and against
// finite differences of the energy.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <algorithm>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <map>

#include "amoeba_support.hpp"
#include "quasar/io/read.hpp"
#include "quasar/potential/amoeba/induced_dipoles.hpp"
#include "quasar/potential/amoeba/multipole_frame.hpp"
#include "quasar/potential/amoeba/pme_multipole.hpp"
#include "support.hpp"

namespace quasar {
namespace {

using namespace amoeba_test;

constexpr double kDebye = 4.80321;  // Tinker's e Å -> Debye

double worst_difference(const std::vector<Vec3>& got, const std::vector<Vec3>& want, double scale = 1) {
  EXPECT_EQ(got.size(), want.size());
  double worst = 0;
  for (std::size_t i = 0; i < std::min(got.size(), want.size()); ++i)
    for (int c = 0; c < 3; ++c) worst = std::max(worst, std::abs(scale * got[i][c] - want[i][c]));
  return worst;
}

struct LocalFrame {
  std::string dir, refs;
  bool present() const { return !dir.empty() && !refs.empty(); }
};
LocalFrame local_frame() { return {reference("tinker-test-file/localframe"), reference("tinker-test-ref/localframe")}; }

// Pairs in a periodic cell within `cutoff`, without Ewald sums.
amoeba::PairGeometry periodic_geometry(const Box& box, double cutoff = std::numeric_limits<double>::infinity()) {
  amoeba::PairGeometry g;
  g.periodic = true;
  g.box = box;
  g.cutoff = cutoff;
  return g;
}

// The force field of a key's text (written to scratch) bound to a structure in a 20 Å cubic cell (a key
// without `ewald` takes the structure's cell), and its term.
const amoeba::AmoebaTerm* bind_in_cell(const std::filesystem::path& scratch, const std::string& key_text,
                                       const std::string& xyz, ForceField& ff, Structure& s) {
  const std::string key = (scratch / "cell.key").string();
  std::ofstream(key) << key_text;
  ff = amoeba::load_tinker_force_field(key);
  s = io::read_tinker_xyz(xyz);
  s.box = Box::orthorhombic(20, 20, 20);
  return bound_term(ff, s);
}

// Tinker's NaCl particle-mesh Ewald key (the pair's own multipoles) on the parameter file `prm`, without
// the lines that start with any of `dropped`.
std::string nacl_key_without(const std::string& nacl, const std::string& prm,
                             std::initializer_list<const char*> dropped) {
  std::ifstream in(nacl + "/nacl_mpole_ewald.key");
  std::string text = "parameters " + prm + "\n", line;
  while (std::getline(in, line))
    if (std::none_of(dropped.begin(), dropped.end(), [&](const char* d) { return line.rfind(d, 0) == 0; }))
      text += line + "\n";
  return text;
}

// Tinker prints energies and gradients to 4 decimals and the virial to 3: half a unit of the last
// digit bounds the agreement. Tinker turns the torque on a 3-Fold site (the second ammonia, atom 19,
// its frame atoms 20 to 22) into forces by a formula exact only where the three axis bonds are at
// right angles (Tinker's own test of this case compares the first 18 atoms' gradients); ours is the
// energy's exact derivative (finite differences below). The difference only redistributes force
// among the frame atoms; the reference virial, built from Tinker's forces and symmetrized, is
// compared with that redistribution taken out.
void expect_local_frames_match(const Result& got, const TinkerReference& want) {
  EXPECT_NEAR(got.energy, want.energy, 0.6e-4);
  ASSERT_EQ(got.gradient.size(), 22u);
  ASSERT_EQ(want.gradient.size(), 22u);
  double worst = 0;
  for (std::size_t i = 0; i < 18; ++i)
    for (int c = 0; c < 3; ++c) worst = std::max(worst, std::abs(got.gradient[i][c] - want.gradient[i][c]));
  EXPECT_LT(worst, 0.6e-4);
  const Structure s = io::read_tinker_xyz(reference("tinker-test-file/localframe/localframe.xyz"));
  Vec3 net{};
  double moved[9] = {};
  for (std::size_t i = 18; i < 22; ++i) {
    const Vec3 d = want.gradient[i] - got.gradient[i];
    net += d;
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) moved[3 * a + b] += 0.5 * (s.positions[i][a] * d[b] + s.positions[i][b] * d[a]);
  }
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(net[c], 0, 2.5e-4) << "the 3-Fold difference is no redistribution";
  double worst_virial = 0;
  for (int c = 0; c < 9; ++c)
    worst_virial = std::max(worst_virial, std::abs(got.virial[c] - (want.virial[c] - moved[c])));
  EXPECT_LT(worst_virial, 1.5e-3);
  std::cout << "energy " << got.energy - want.energy << " kcal/mol from Tinker's, worst gradient (atoms 1-18) " << worst
            << ", worst virial with the 3-Fold redistribution taken out " << worst_virial << "\n";
}

// One of Tinker's local-frame cases (its key on localframe.xyz) against its reference, with the
// pairs Tinker counts.
void expect_local_frame_case(const std::string& key, const std::string& ref, long count) {
  const LocalFrame lf = local_frame();
  if (!lf.present()) return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  const Result got = evaluate_key(lf.dir + "/" + key, lf.dir + "/localframe.xyz");
  expect_local_frames_match(got, read_reference(lf.refs + "/" + ref));
  EXPECT_EQ(got.count, count) << "the pairs Tinker counts";
}

TEST(AmoebaMultipoles, LocalFramesMatchTinker) {
  expect_local_frame_case("localframe_mpole.key", "localframe.1.txt", 201);
}

// The NaCl pair of Tinker's non-Ewald case (its key's periodic cell, a 5 Å cutoff), the same pair in
// the gas phase, which takes in nothing else, and the bonded pair of its particle-mesh Ewald case
// (the key's own multipoles, 40^3 grid).
TEST(AmoebaMultipoles, NaClPairMatchesTinker) {
  const std::string nacl = reference("tinker-test-file/nacl");
  const std::string prm = reference("tinker-test-file/commit_6fe8e913/amoeba09.prm");
  const LocalFrame lf = local_frame();
  if (nacl.empty() || prm.empty() || !lf.present())
    return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  EXPECT_NEAR(evaluate_key(nacl + "/nacl_mpole.key", nacl + "/nacl1.xyz").energy, -150.9381, 0.6e-4);
  const auto scratch = test::scratch_dir("amoeba-nacl-mpole");
  const std::string key = (scratch / "nacl.key").string();
  std::ofstream(key) << "parameters " << prm << "\nmultipoleterm only\n";
  EXPECT_NEAR(evaluate_key(key, nacl + "/nacl1.xyz").energy, -150.9381, 0.6e-4);
  const Result pme = evaluate_key(nacl + "/nacl_mpole_ewald.key", nacl + "/nacl4.xyz");
  EXPECT_NEAR(pme.energy, -0.3146, 0.6e-4);
}

// Tinker's particle-mesh Ewald case of the local frames (20 Å cell, Ewald cutoff 7 Å, its default
// alpha and 24^3 grid), with the 3-Fold site's force redistribution taken out as above.
TEST(AmoebaMultipoles, LocalFramesWithParticleMeshEwaldMatchTinker) {
  expect_local_frame_case("localframe_mpole_ewald.key", "localframe.2.txt", 222);
}

// The 648-water box of Tinker's liquid-water example (water03, 18.643 Å, Ewald cutoff 7 Å, default
// alpha 0.5446 and 24^3 grid): the permanent multipoles and the polarization of Tinker's log, and
// their counts.
TEST(AmoebaMultipoles, LiquidWaterMatchesTinker) {
  const std::string xyz = reference("liquid-water/liquid.amoeba");
  const std::string prm = reference("params/water03.prm");
  if (xyz.empty() || prm.empty())
    return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  const auto scratch = test::scratch_dir("amoeba-liquid-mpole");
  const std::string key = (scratch / "liquid.key").string();
  std::ofstream(key) << "parameters " << prm << "\na-axis 18.643\newald\newald-cutoff 7.0\nmultipoleterm only\n";
  ForceField ff = amoeba::load_tinker_force_field(key);
  const Evaluation e = evaluate(ff, io::read_frames(xyz).front(), Backend::Cpu);
  EXPECT_NEAR(e.energy / kKcal, -2198.8647, 0.6e-4);
  EXPECT_EQ(dynamic_cast<const amoeba::AmoebaTerm*>(ff.terms().front().potential.get())->entries(), 46159);
  std::cout << "liquid water multipoles: " << e.energy / kKcal + 2198.8647 << " kcal/mol from Tinker's\n";
  // Polarization (mutual). The example's key stops the solver at polar-eps 1e-5, where this one's
  // iterate is still 3.4e-4 kcal/mol from the converged energy (Tinker's preconditioner, but its
  // neighbour lists and order of sums differ); Tinker's lies within 0.3e-4 of it, so the dipoles
  // are converged here.
  std::ofstream(key) << "parameters " << prm
                     << "\na-axis 18.643\newald\newald-cutoff 7.0\npolarizeterm only\npolar-eps 1e-8\n";
  ForceField polar = amoeba::load_tinker_force_field(key);
  const Evaluation ep = evaluate(polar, io::read_frames(xyz).front(), Backend::Cpu);
  EXPECT_NEAR(ep.energy / kKcal, -945.4799, 0.6e-4);
  const auto* term = dynamic_cast<const amoeba::AmoebaTerm*>(polar.terms().front().potential.get());
  EXPECT_EQ(term->entries(), 46159);
  std::cout << "liquid water polarization: " << ep.energy / kKcal + 945.4799 << " kcal/mol from Tinker's ("
            << term->induced().iterations << " steps)\n";  // Every term: Tinker's total.
  std::ofstream(key) << "parameters " << prm
                     << "\na-axis 18.643\nvdw-cutoff 9.0\newald\newald-cutoff 7.0\npolar-eps 1e-8\n";
  ForceField all = amoeba::load_tinker_force_field(key);
  EXPECT_NEAR(evaluate(all, io::read_frames(xyz).front(), Backend::Cpu).energy / kKcal, -1932.3702, 0.6e-4);
}

// Tinker's local-frame cases in a periodic cell (20 Å, cutoff 7 Å, atoms wrapped into the cell, no
// 3-Fold site): multipoles and polarization together, without Ewald sums (each pair at its nearest
// image within the cutoff) and with particle-mesh Ewald.
TEST(AmoebaElectrostatics, PeriodicCasesMatchTinker) {
  const LocalFrame lf = local_frame();
  if (!lf.present()) return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  const std::string key = lf.dir + "/localframe3_nonewald.key", xyz = lf.dir + "/localframe2.xyz";
  const Result got = evaluate_key(key, xyz);
  expect_matches(got, read_reference(lf.refs + "/localframe3.1.txt"), 0.6e-4, 0.6e-4, 0.6e-3, false);
  ForceField ff = amoeba::load_tinker_force_field(key);
  const Evaluation e = evaluate(ff, io::read_tinker_xyz(xyz), Backend::Cpu);
  expect_terms_match(ff, e, {{"Atomic Multipoles", -107.5885}, {"Polarization", -18.4063}}, 120);
  // The same with particle-mesh Ewald (its `cutoff` is the real-space one).
  const Result pme = evaluate_key(lf.dir + "/localframe3_ewald.key", xyz);
  expect_matches(pme, read_reference(lf.refs + "/localframe3.2.txt"), 0.6e-4, 0.6e-4, 0.6e-3, false);
}

TEST(AmoebaPolarization, LocalFramesMatchTinker) {
  expect_local_frame_case("localframe_polar.key", "localframe.3.txt", 201);
}

// Tinker's direct fields (d- and p-scaled), the mutual fields of the dipoles 0.1 i +- 0.03 j (atom
// i, component j, both 1-based), and the converged induced dipoles (Debye), as its test of these
// routines prints them.
TEST(AmoebaPolarization, FieldsAndDipolesMatchTinker) {
  const LocalFrame lf = local_frame();
  if (!lf.present()) return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  ForceField ff = amoeba::load_tinker_force_field(lf.dir + "/localframe_polar.key");
  const Structure s = io::read_tinker_xyz(lf.dir + "/localframe.xyz");
  const amoeba::AmoebaTerm* term = bound_term(ff, s);
  ASSERT_NE(term, nullptr);
  const amoeba::ElectrostaticSystem& e = term->electrostatics();
  const std::vector<Vec3>& r = s.positions;
  auto ref = [&](const std::string& name) { return read_reference(lf.refs + "/" + name).gradient; };
  std::vector<Vec3> fd, fp;
  const amoeba::PairGeometry gas;
  amoeba::direct_fields(e, gas, r, amoeba::lab_moments(e, gas, r), fd, fp);
  const double dfield = std::max(worst_difference(fd, ref("localframe_dfield.1.txt")),
                                 worst_difference(fp, ref("localframe_dfield.2.txt")));
  EXPECT_LT(dfield, 0.6e-4);
  std::vector<Vec3> ud(r.size()), up(r.size());
  for (std::size_t i = 0; i < r.size(); ++i)
    for (int j = 0; j < 3; ++j) {
      ud[i][j] = 0.1 * static_cast<double>(i + 1) + 0.03 * (j + 1);
      up[i][j] = 0.1 * static_cast<double>(i + 1) - 0.03 * (j + 1);
    }
  const double ufield = std::max(worst_difference(amoeba::mutual_field(e, gas, r, ud), ref("localframe_ufield.1.txt")),
                                 worst_difference(amoeba::mutual_field(e, gas, r, up), ref("localframe_ufield.2.txt")));
  EXPECT_LT(ufield, 0.6e-4);
  // The same with the pair tensors formed as they are used (the solver's way for large systems).
  EXPECT_LT(worst_difference(amoeba::mutual_field(e, gas, r, ud, false), amoeba::mutual_field(e, gas, r, ud)), 1e-14);
  const amoeba::InducedDipoles& u = term->induced();
  const double dipoles = std::max(worst_difference(u.ud, ref("localframe_induce.1.txt"), kDebye),
                                  worst_difference(u.up, ref("localframe_induce.2.txt"), kDebye));
  EXPECT_LT(dipoles, 0.6e-4);
  std::cout << "worst differences from Tinker: direct fields " << dfield << ", mutual fields " << ufield
            << ", induced dipoles " << dipoles << " Debye (" << u.iterations << " steps)\n";
  // The same with particle-mesh Ewald (20 Å cell, cutoff 7 Å, Tinker's alpha and 24^3 grid).
  ForceField ff_ewald = amoeba::load_tinker_force_field(lf.dir + "/localframe_polar_ewald.key");
  const amoeba::AmoebaTerm* ewald_term = bound_term(ff_ewald, s);
  ASSERT_NE(ewald_term, nullptr);
  amoeba::PairGeometry pme = periodic_geometry(Box::orthorhombic(20, 20, 20), 7);
  pme.ewald_alpha = amoeba::ewald_alpha(7);
  pme.pme_size = {24, 24, 24};
  const amoeba::ElectrostaticSystem& ee = ewald_term->electrostatics();
  amoeba::direct_fields(ee, pme, r, amoeba::lab_moments(ee, pme, r), fd, fp);
  const double dfield_pme = std::max(worst_difference(fd, ref("localframe_dfield.3.txt")),
                                     worst_difference(fp, ref("localframe_dfield.4.txt")));
  EXPECT_LT(dfield_pme, 0.6e-4);
  const double ufield_pme =
      std::max(worst_difference(amoeba::mutual_field(ee, pme, r, ud), ref("localframe_ufield.3.txt")),
               worst_difference(amoeba::mutual_field(ee, pme, r, up), ref("localframe_ufield.4.txt")));
  EXPECT_LT(ufield_pme, 0.6e-4);
  const amoeba::InducedDipoles& upme = ewald_term->induced();
  const double dipoles_pme = std::max(worst_difference(upme.ud, ref("localframe_induce.3.txt"), kDebye),
                                      worst_difference(upme.up, ref("localframe_induce.4.txt"), kDebye));
  EXPECT_LT(dipoles_pme, 0.6e-4);
  std::cout << "with PME: direct fields " << dfield_pme << ", mutual fields " << ufield_pme << ", induced dipoles "
            << dipoles_pme << " Debye (" << upme.iterations << " steps)\n";
}

TEST(AmoebaPolarization, LocalFramesWithParticleMeshEwaldMatchTinker) {
  expect_local_frame_case("localframe_polar_ewald.key", "localframe.4.txt", 222);
}

// Vasopressin with every AMOEBA-bio-2018 term, in the gas phase (the breakdown of Tinker's reference lists no
// angle- or stretch-torsions: the key turns those off, which this build does not compute yet).
TEST(AmoebaElectrostatics, VasopressinMatchesTinker) {
  const std::string dir = reference("tinker-test-file/vasopressin");
  const std::string prm = reference("tinker-test-file/commit_6bd0b6fd/amoebabio18.prm");
  const std::string ref = reference("tinker-test-ref/vasopressin/vasopressin.txt");
  if (dir.empty() || prm.empty() || ref.empty())
    return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  const auto scratch = test::scratch_dir("amoeba-vasopressin-all");
  const std::string key = (scratch / "all.key").string();
  std::ofstream(key) << "parameters " << prm << "\n";
  const Result got = evaluate_key(key, dir + "/vasopressin.xyz");
  const TinkerReference tinker = read_reference(ref);
  expect_matches(got, tinker, 0.6e-4, 0.6e-4, 0.6e-3, true);
  // Off the diagonal Tinker's printed virial is not sum x (x) g of its own gradients (by up to 1.1
  // kcal/mol: its pi-torsion virial, see amoeba_test); it is compared with that sum instead, which
  // the gradients' rounding (142 atoms, 0.5e-4 each) bounds to a few hundredths.
  const Structure s = io::read_tinker_xyz(dir + "/vasopressin.xyz");
  double worst = 0;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) {
      double w = 0;
      for (std::size_t i = 0; i < s.size(); ++i) w += s.positions[i][a] * tinker.gradient[i][b];
      worst = std::max(worst, std::abs(got.virial[3 * a + b] - w));
    }
  EXPECT_LT(worst, 0.05);
  std::cout << "virial against sum x (x) g of Tinker's gradients: worst " << worst << "\n";
  ForceField ff = amoeba::load_tinker_force_field(key);
  const Evaluation e = evaluate(ff, io::read_tinker_xyz(dir + "/vasopressin.xyz"), Backend::Cpu);
  expect_terms_match(ff, e, {{"Atomic Multipoles", -164.3791}, {"Polarization", -35.9886}}, 9611);
}

// Forces and virial against the energy's derivatives, for every frame type of the local-frame set:
// multipoles, and polarization both mutual (dipoles converged far below Tinker's default so that
// the variational gradient holds to the differences' accuracy) and direct.
TEST(AmoebaElectrostatics, ForcesAndVirialAreDerivativesOfTheEnergy) {
  const LocalFrame lf = local_frame();
  const std::string prm = reference("tinker-test-file/commit_6fe8e913/amoeba09.prm");
  if (!lf.present() || prm.empty())
    return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  const auto scratch = test::scratch_dir("amoeba-electrostatics-fd");
  const Structure gas = io::read_tinker_xyz(lf.dir + "/localframe.xyz");
  // Then in a periodic cell (the strain deforms it too): with a cutoff that cuts pairs, with
  // particle-mesh Ewald, and both terms with PME in a triclinic cell.
  const std::string cases[] = {"multipoleterm only\n",
                               "polarizeterm only\npolar-eps 1e-12\n",
                               "polarizeterm only\npolarization direct\n",
                               "vdwterm none\npolar-eps 1e-12\ncutoff 6.5\n",
                               "multipoleterm only\newald\newald-cutoff 6.5\npme-grid 20\n",
                               "polarizeterm only\npolar-eps 1e-12\newald\newald-cutoff 6.5\npme-grid 20\n",
                               "vdwterm none\npolar-eps 1e-12\newald\newald-cutoff 6.5\npme-grid 20\n# triclinic\n"};
  for (const std::string& c : cases) {
    const std::string key = (scratch / "fd.key").string();
    std::ofstream(key) << "parameters " << prm << "\n" << c;
    ForceField ff = amoeba::load_tinker_force_field(key);
    const bool periodic = c.find("cutoff") != std::string::npos;  // also the Ewald case
    Structure s = gas;
    if (periodic) s.box = Box::orthorhombic(14, 15, 16);
    if (c.find("triclinic") != std::string::npos) {
      Mat3 h{};
      h.r[0] = {14, 0, 0};
      h.r[1] = {2, 15, 0};
      h.r[2] = {1, -1.5, 16};
      s.box = Box::from_matrix(h);
    }
    const Evaluation pa = evaluate(ff, s, Backend::Cpu, true);
    expect_atom_sums(pa, pa.energy, pa.virial);
    std::cout << c.substr(0, c.find('\n')) << (c.find("direct") != std::string::npos ? " (direct)" : "")
              << (periodic ? " (periodic" : "") << (c.find("triclinic") != std::string::npos ? ", triclinic" : "")
              << (periodic ? ")" : "") << ": worst relative deviation from finite differences "
              << check_derivatives(ff, s, 1, 1e-7) << "\n";
  }
}

// Moving every atom by the same vector or turning the whole system leaves the energy as it is and
// turns the forces with it.
TEST(AmoebaElectrostatics, EnergyIsInvariantUnderRigidMotion) {
  const LocalFrame lf = local_frame();
  const std::string prm = reference("tinker-test-file/commit_6fe8e913/amoeba09.prm");
  if (!lf.present() || prm.empty())
    return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  const auto scratch = test::scratch_dir("amoeba-electrostatics-rigid");
  const std::string key = (scratch / "rigid.key").string();
  std::ofstream(key) << "parameters " << prm << "\nvdwterm none\npolar-eps 1e-12\n";
  ForceField ff = amoeba::load_tinker_force_field(key);
  const Structure s = io::read_tinker_xyz(lf.dir + "/localframe.xyz");
  const Evaluation e = evaluate(ff, s, Backend::Cpu);
  Structure moved = s;
  const double c = std::cos(0.7), sn = std::sin(0.7);
  for (Vec3& p : moved.positions) p = Vec3{c * p.x - sn * p.y + 3.1, sn * p.x + c * p.y - 1.7, p.z + 0.4};
  const Evaluation m = evaluate(ff, moved, Backend::Cpu);
  EXPECT_NEAR(m.energy, e.energy, 1e-11 * std::abs(e.energy));
  for (std::size_t i = 0; i < s.size(); ++i) {
    const Vec3 f = e.forces[i];
    const Vec3 turned{c * f.x - sn * f.y, sn * f.x + c * f.y, f.z};
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(m.forces[i][k], turned[k], 1e-9);
  }
}

// A mirror image has the same electrostatic energy and mirrored forces: the y components of the
// moments at chiral Z-then-X sites follow the side their y atom lies on, as Tinker's chkpole sets
// them. AMOEBA's own records have no y components there, so the key gives the nitrile's methyl
// carbon a chiral record with some (a key's records come before the parameter file's).
TEST(AmoebaElectrostatics, MirrorImageHasTheSameEnergy) {
  const LocalFrame lf = local_frame();
  const std::string prm = reference("tinker-test-file/commit_6fe8e913/amoeba09.prm");
  if (!lf.present() || prm.empty())
    return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  const auto scratch = test::scratch_dir("amoeba-mirror");
  const std::string key = (scratch / "chiral.key").string();
  std::ofstream(key) << "parameters " << prm << "\nvdwterm none\npolar-eps 1e-10\n"
                     << "multipole 212 210 213 213 -0.16118\n 0.1 0.2 0.17034\n -0.03526\n 0.05 -0.03526\n"
                     << " 0.02 0.03 0.07052\n";
  ForceField ff = amoeba::load_tinker_force_field(key);
  const Structure s = io::read_tinker_xyz(lf.dir + "/localframe.xyz");
  Structure mirror = s;
  for (Vec3& p : mirror.positions) p.x = -p.x;
  const Evaluation e = evaluate(ff, s, Backend::Cpu), m = evaluate(ff, mirror, Backend::Cpu);
  EXPECT_NEAR(m.energy, e.energy, 1e-10 * std::abs(e.energy));
  for (std::size_t i = 0; i < s.size(); ++i) {
    EXPECT_NEAR(m.forces[i].x, -e.forces[i].x, 1e-8);
    EXPECT_NEAR(m.forces[i].y, e.forces[i].y, 1e-8);
    EXPECT_NEAR(m.forces[i].z, e.forces[i].z, 1e-8);
  }
  const auto* term = dynamic_cast<const amoeba::AmoebaTerm*>(ff.terms().back().potential.get());
  ASSERT_NE(term, nullptr);
  const amoeba::MultipoleSite& site = term->electrostatics().sites[10];  // atom 11
  EXPECT_EQ(site.frame, amoeba::Frame::ZThenX);
  EXPECT_EQ(site.y >= 0 && site.local[2] != 0, true) << "the key's chiral record";
  // The forces at the chiral site are the energy's derivatives too.
  std::cout << "chiral site: worst relative deviation from finite differences " << check_derivatives(ff, s, 1, 1e-7)
            << "\n";
}

// Ewald's real-space part and self energy (multipole_term.hpp) with the reciprocal part summed
// directly over wave vectors (kept here as the reference; particle-mesh Ewald is not done yet):
//   E_rec = (f / 2V) sum_{k != 0} (4 pi / k^2) exp(-k^2 / 4 alpha^2) |rho(k)|^2,
//   rho(k) = sum_j exp(-i k . r_j) (q_j - i k . d_j - k . Q_j . k),
// in an orthorhombic cell, summed until the Gaussian factor is below 1e-18.
double ewald_energy(const amoeba::ElectrostaticSystem& e, const Structure& s, double alpha, double cutoff) {
  const amoeba::PairGeometry g = periodic_geometry(s.box, cutoff);
  double energy = amoeba::multipole_energy(e, g, s.positions, false, alpha).energy;
  const std::vector<amoeba::Moments> M = amoeba::lab_moments(e, g, s.positions);
  const double L[3] = {s.box.h(0, 0), s.box.h(1, 1), s.box.h(2, 2)};
  const double volume = L[0] * L[1] * L[2], kmax = 2 * alpha * std::sqrt(41.5);
  int nmax[3];
  for (int c = 0; c < 3; ++c) nmax[c] = static_cast<int>(std::ceil(kmax * L[c] / (2 * M_PI)));
  double recip = 0;
  for (int a = -nmax[0]; a <= nmax[0]; ++a)
    for (int b = -nmax[1]; b <= nmax[1]; ++b)
      for (int c = -nmax[2]; c <= nmax[2]; ++c) {
        if (a == 0 && b == 0 && c == 0) continue;
        const double k[3] = {2 * M_PI * a / L[0], 2 * M_PI * b / L[1], 2 * M_PI * c / L[2]};
        const double k2 = k[0] * k[0] + k[1] * k[1] + k[2] * k[2];
        if (k2 > kmax * kmax) continue;
        double re = 0, im = 0;
        for (std::size_t j = 0; j < s.size(); ++j) {
          const amoeba::Moments& m = M[j];
          double kd = 0, kqk = 0;
          for (int x = 0; x < 3; ++x) {
            kd += k[x] * m[static_cast<std::size_t>(1 + x)];
            for (int y = 0; y < 3; ++y) kqk += k[x] * m[static_cast<std::size_t>(4 + 3 * x + y)] * k[y];
          }
          const double phase = -(k[0] * s.positions[j].x + k[1] * s.positions[j].y + k[2] * s.positions[j].z);
          const double cr = m[0] - kqk, ci = -kd;  // (q - k.Q.k) - i k.d
          re += std::cos(phase) * cr - std::sin(phase) * ci;
          im += std::sin(phase) * cr + std::cos(phase) * ci;
        }
        recip += 4 * M_PI / k2 * std::exp(-k2 / (4 * alpha * alpha)) * (re * re + im * im);
      }
  return energy + e.electric / (2 * volume) * recip;
}

// The real-space part with its exclusion corrections and the self energy are right when the Ewald
// sum does not depend on alpha; and the sum is compared with Tinker's particle-mesh Ewald results
// (whose grids add their own error).
TEST(AmoebaMultipoles, EwaldRealSpaceAndSelfEnergyGiveAnAlphaIndependentSum) {
  const LocalFrame lf = local_frame();
  const std::string prm = reference("tinker-test-file/commit_6fe8e913/amoeba09.prm");
  const std::string nacl = reference("tinker-test-file/nacl");
  if (!lf.present() || prm.empty() || nacl.empty())
    return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  const auto scratch = test::scratch_dir("amoeba-ewald");
  ForceField ff;
  Structure s;
  const amoeba::AmoebaTerm* term =
      bind_in_cell(scratch, "parameters " + prm + "\nmultipoleterm only\n", lf.dir + "/localframe.xyz", ff, s);
  ASSERT_NE(term, nullptr);
  const double e45 = ewald_energy(term->electrostatics(), s, 0.45, 9.9) / 1.0;
  const double e55 = ewald_energy(term->electrostatics(), s, 0.55, 9.9);
  const double e65 = ewald_energy(term->electrostatics(), s, 0.65, 9.9);
  EXPECT_NEAR(e55, e45, 1e-7);
  EXPECT_NEAR(e65, e45, 1e-7);
  // Tinker's alpha for a 7 Å cutoff (erfc(alpha rc) / rc < 1e-8), as its PME case uses it.
  const double tinker = ewald_energy(term->electrostatics(), s, 0.5446, 7.0);
  std::cout << "local frames, Ewald sum: " << e45 << " (alpha 0.45), " << e55 - e45 << " and " << e65 - e45
            << " for 0.55 and 0.65; with Tinker's alpha and cutoff " << tinker << " against its PME -99.2298\n";
  // The bonded NaCl pair of Tinker's PME case (its key's own multipoles; the pair excluded, 1-2).
  term = bind_in_cell(scratch, nacl_key_without(nacl, prm, {"ewald", "parameters", "a-axis"}), nacl + "/nacl4.xyz",
                      ff, s);
  ASSERT_NE(term, nullptr);
  const double n45 = ewald_energy(term->electrostatics(), s, 0.45, 9.9),
               n65 = ewald_energy(term->electrostatics(), s, 0.65, 9.9);
  EXPECT_NEAR(n65, n45, 1e-7);
  std::cout << "NaCl pair, Ewald sum: " << n45 << " (alpha 0.45), " << n65 - n45
            << " for 0.65; with Tinker's alpha and cutoff " << ewald_energy(term->electrostatics(), s, 0.5446, 7.0)
            << " against its PME -0.3146\n";
}

// Particle-mesh Ewald's reciprocal part (pme_multipole.hpp) against the direct sum over wave vectors
// on a fine grid, its forces (through the frames) against finite differences, and the full Ewald sum
// with Tinker's alpha, cutoff and grids against Tinker's particle-mesh Ewald results.
TEST(AmoebaMultipoles, ParticleMeshEwaldMatchesTheDirectSumAndTinker) {
  const LocalFrame lf = local_frame();
  const std::string prm = reference("tinker-test-file/commit_6fe8e913/amoeba09.prm");
  const std::string nacl = reference("tinker-test-file/nacl");
  if (!lf.present() || prm.empty() || nacl.empty())
    return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  const auto scratch = test::scratch_dir("amoeba-pme");
  // Real space, self energy and the PME reciprocal part.
  auto pme_energy = [](const amoeba::ElectrostaticSystem& e, const Structure& s, double alpha, double cutoff,
                       int grid) {
    const amoeba::PairGeometry g = periodic_geometry(s.box, cutoff);
    const double real = amoeba::multipole_energy(e, g, s.positions, false, alpha).energy;
    const amoeba::PmeGrid pg{{grid, grid, grid}, 5, alpha};
    return real +
           amoeba::pme_multipole(s.positions, amoeba::lab_moments(e, g, s.positions), s.box, pg, e.electric).energy;
  };
  ForceField ff;
  Structure s;
  const amoeba::AmoebaTerm* term =
      bind_in_cell(scratch, "parameters " + prm + "\nmultipoleterm only\n", lf.dir + "/localframe.xyz", ff, s);
  ASSERT_NE(term, nullptr);
  const amoeba::ElectrostaticSystem& e = term->electrostatics();
  const double alpha = amoeba::ewald_alpha(7.0);
  EXPECT_NEAR(alpha, 0.5446, 0.5e-4);
  EXPECT_EQ(amoeba::pme_grid_size(20.0), 24);
  const double exact = ewald_energy(e, s, alpha, 7.0), fine = pme_energy(e, s, alpha, 7.0, 200);
  EXPECT_NEAR(fine, exact, 3e-5);
  const double tinker_grid = pme_energy(e, s, alpha, 7.0, 24);
  std::cout << "local frames: PME on 200^3 " << fine - exact << " from the direct sum; on Tinker's 24^3 " << tinker_grid
            << " against Tinker's -99.2298\n";
  EXPECT_NEAR(tinker_grid, -99.2298, 0.6e-4);
  // The reciprocal part's gradient at fixed moments plus its frames' chain rule, against differences.
  const amoeba::PairGeometry g = periodic_geometry(s.box);
  const amoeba::PmeGrid pg{{24, 24, 24}, 5, alpha};
  auto recip = [&](const std::vector<Vec3>& r) {
    return amoeba::pme_multipole(r, amoeba::lab_moments(e, g, r), s.box, pg, e.electric);
  };
  const amoeba::PmeResult at = recip(s.positions);
  std::vector<Vec3> grad = at.grad;
  for (std::size_t i = 0; i < s.size(); ++i)
    amoeba::add_frame_gradient(e, g, static_cast<int>(i), s.positions, at.dM[i].data(), grad, nullptr);
  double worst = 0;
  for (std::size_t i = 0; i < s.size(); ++i)
    for (int c = 0; c < 3; ++c) {
      std::vector<Vec3> plus = s.positions, minus = s.positions;
      plus[i][c] += 1e-5;
      minus[i][c] -= 1e-5;
      const double fd = (recip(plus).energy - recip(minus).energy) / 2e-5;
      worst = std::max(worst, std::abs(grad[i][c] - fd) / std::max(1.0, std::abs(fd)));
    }
  EXPECT_LT(worst, 1e-7);
  std::cout << "PME gradient: worst relative deviation from finite differences " << worst << "\n";
  // The virial at fixed lab moments against the energy's change under strain (W_ab = -dE/d eps_ba).
  const std::vector<amoeba::Moments> fixed = amoeba::lab_moments(e, g, s.positions);
  double worst_virial = 0;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) {
      double energy[2];
      for (int sign = 0; sign < 2; ++sign) {
        const double h = sign ? -1e-5 : 1e-5;
        std::vector<Vec3> r = s.positions;
        for (Vec3& p : r) p[b] += h * p[a];
        Mat3 hm = s.box.h;
        for (int row = 0; row < 3; ++row) hm(row, b) += h * s.box.h(row, a);
        Box strained = s.box;
        strained.set_matrix(hm);
        energy[sign] = amoeba::pme_multipole(r, fixed, strained, pg, e.electric).energy;
      }
      const double fd = -(energy[0] - energy[1]) / 2e-5;
      worst_virial = std::max(worst_virial, std::abs(at.virial[3 * a + b] - fd));
    }
  EXPECT_LT(worst_virial, 1e-6);
  std::cout << "PME virial at fixed moments: worst deviation from strained energies " << worst_virial << " kcal/mol\n";
  // The bonded NaCl pair with its key's multipoles on the key's 40^3 grid.
  term = bind_in_cell(scratch, nacl_key_without(nacl, prm, {"ewald", "parameters", "a-axis", "pme-grid"}),
                      nacl + "/nacl4.xyz", ff, s);
  ASSERT_NE(term, nullptr);
  const double pair = pme_energy(term->electrostatics(), s, alpha, 7.0, 40);
  std::cout << "NaCl pair: PME on 40^3 " << pair << " against Tinker's -0.3146\n";
  EXPECT_NEAR(pair, -0.3146, 0.6e-4);
}

}  // namespace
}  // namespace quasar
