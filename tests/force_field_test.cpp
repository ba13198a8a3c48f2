// Force fields of several terms: the terms add (against LAMMPS's hybrid/overlay and against each
// term alone), per-term energies, shared neighbour lists, solver state in checkpoints, [[potential]]
// tables and `quasar eval`'s terms.
#include <cmath>
#include <fstream>
#include <istream>
#include <ostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "lammps_runner.hpp"
#include "quasar/io/extxyz.hpp"
#include "quasar/md/simulation.hpp"
#include "quasar/potential/evaluate.hpp"
#include "quasar/potential/registry.hpp"
#include "test_systems.hpp"

namespace quasar {
namespace {

// Cu_u3 and a Lennard-Jones term for the same copper (a made-up long-range tail), as one
// [[potential]] file: EAM first, LJ second (with more keys of its own in lj_keys).
std::string eam_lj_toml(const std::string& eam_file, const std::string& lj_keys = "") {
  return "[[potential]]\ntype = \"eam\"\nfile = \"" + eam_file + "\"\n[[potential]]\ntype = \"lj\"\ncutoff = 6.0\n" +
         lj_keys + "[potential.species.Cu]\nepsilon = 0.05\nsigma = 2.3\n";
}

ForceField force_field_from(const std::string& toml_text) {
  const toml::table root = parse_toml_text(toml_text, "test.toml");
  return make_force_field(ConfigTable{&root, "test.toml", ""}, ".");
}

std::shared_ptr<Potential> silicon_dp() { return load_model(test::source_path("examples/silicon/model.dp")); }

// Whether this build has the Deep Potential (the cases with it are left out when not, saying so).
bool have_dp() {
  if (potential_registry().find("deepmd")) return true;
  std::printf("  the deepmd cases are left out: this build has no Deep Potential (QUASAR_WITH_DP=OFF)\n");
  return false;
}

std::shared_ptr<Potential> silicon_lj() {  // a weak pair term beside the Deep Potential
  return std::make_shared<LennardJones>(std::map<std::string, LjSpecies>{{"Si", {0.01, 2.1}}}, 5.0, false, false);
}

Structure silicon(unsigned seed) {
  Structure s = io::make_lattice("diamond", "Si", 5.38, {2, 2, 2});
  std::mt19937 rng(seed);
  std::normal_distribution<double> g(0.0, 0.08);
  for (auto& r : s.positions) r += Vec3{g(rng), g(rng), g(rng)};
  return s;
}

// got against want: energies and virials relative to their largest magnitude, forces and per-atom
// values relative to the largest force (and per-atom magnitude).
void expect_close(const Evaluation& got, const Evaluation& want, double tol, const std::string& what) {
  test::MaxError de("energy, " + what), df("forces, " + what), dw("virial, " + what), da("per-atom, " + what);
  const double e = std::max(std::abs(want.energy), 1e-300);
  de.add(got.energy / e, want.energy / e);
  for (std::size_t k = 0; k < want.terms.size() && k < got.terms.size(); ++k)
    de.add(got.terms[k].energy / e, want.terms[k].energy / e);
  double fmax = 1e-300, wmax = 1e-300, amax = 1e-300;
  for (const Vec3& f : want.forces) fmax = std::max({fmax, std::abs(f.x), std::abs(f.y), std::abs(f.z)});
  for (int c = 0; c < 9; ++c) wmax = std::max(wmax, std::abs(want.virial(c / 3, c % 3)));
  for (double a : want.atom_energy) amax = std::max(amax, std::abs(a));
  for (const Mat3& w : want.atom_virial)
    for (int c = 0; c < 9; ++c) amax = std::max(amax, std::abs(w(c / 3, c % 3)));
  ASSERT_EQ(got.forces.size(), want.forces.size());
  for (std::size_t i = 0; i < want.forces.size(); ++i)
    for (int k = 0; k < 3; ++k) df.add(got.forces[i][k] / fmax, want.forces[i][k] / fmax);
  for (int c = 0; c < 9; ++c) dw.add(got.virial(c / 3, c % 3) / wmax, want.virial(c / 3, c % 3) / wmax);
  ASSERT_EQ(got.atom_energy.size(), want.atom_energy.size());
  for (std::size_t i = 0; i < want.atom_energy.size(); ++i) {
    da.add(got.atom_energy[i] / amax, want.atom_energy[i] / amax);
    for (int c = 0; c < 9; ++c) da.add(got.atom_virial[i](c / 3, c % 3) / amax, want.atom_virial[i](c / 3, c % 3) / amax);
  }
  EXPECT_TRUE(de.within(tol));
  EXPECT_TRUE(df.within(tol));
  EXPECT_TRUE(dw.within(tol));
  EXPECT_TRUE(da.within(tol));
}

void expect_identical(const Evaluation& a, const Evaluation& b, const std::string& what) {
  EXPECT_EQ(a.energy, b.energy) << what;
  ASSERT_EQ(a.terms.size(), b.terms.size()) << what;
  for (std::size_t k = 0; k < a.terms.size(); ++k) EXPECT_EQ(a.terms[k].energy, b.terms[k].energy) << what;
  for (int c = 0; c < 9; ++c) EXPECT_EQ(a.virial(c / 3, c % 3), b.virial(c / 3, c % 3)) << what;
  ASSERT_EQ(a.forces.size(), b.forces.size()) << what;
  for (std::size_t i = 0; i < a.forces.size(); ++i)
    for (int k = 0; k < 3; ++k) ASSERT_EQ(a.forces[i][k], b.forces[i][k]) << what << ", atom " << i;
  ASSERT_EQ(a.atom_energy.size(), b.atom_energy.size()) << what;
  for (std::size_t i = 0; i < a.atom_energy.size(); ++i) {
    ASSERT_EQ(a.atom_energy[i], b.atom_energy[i]) << what << ", atom " << i;
    for (int c = 0; c < 9; ++c) ASSERT_EQ(a.atom_virial[i](c / 3, c % 3), b.atom_virial[i](c / 3, c % 3)) << what;
  }
}

class ForceFields : public testing::TestWithParam<Backend> {};

// (1) EAM + LJ for the same element against LAMMPS's pair_style hybrid/overlay eam lj/cut: total
// energy, forces, virial and per-atom energies, and each term's energy against `compute pair`.
TEST_P(ForceFields, EamPlusLjMatchesLammpsHybridOverlay) {
  if (test::lammps_executable().empty()) return test::missing(test::Dependency::Lammps, "Debian's LAMMPS is not installed");
  const std::string file = test::lammps_potential("Cu_u3.eam");
  if (file.empty()) return test::missing(test::Dependency::LammpsData, "lammps-data's Cu_u3.eam is not installed");
  const Structure s = test::distorted_fcc({4, 4, 4}, 3.615, 0.12, 0.08, 91);
  ForceField ff = force_field_from(eam_lj_toml(file));
  ASSERT_EQ(ff.describe(), "eam + lj");
  const Evaluation q = evaluate(ff, s, GetParam(), true);
  // The pair style and the computes come before the thermo and dump lines that name them.
  const auto l = test::run_lammps(s, "", "step pe pxx pyy pzz pxy pxz pyz vol c_peam c_plj", "fx fy fz c_pea", "p p p",
                                  "lammps-hybrid",
                                  "pair_style hybrid/overlay eam lj/cut 6.0\npair_coeff 1 1 eam " + file +
                                      "\npair_coeff 1 1 lj/cut 0.05 2.3\ncompute peam all pair eam\n"
                                      "compute plj all pair lj/cut\ncompute pea all pe/atom\n");
  ASSERT_EQ(l.thermo.size(), 11u);
  ASSERT_EQ(l.dump.size(), s.size());
  // Measured on the CPU: energies 3.6e-15, forces 2.5e-14, virial 2.1e-15, per-atom energies 3.7e-15
  // relative (the required 1e-12); on the H100 1.3e-15, 2.5e-14, 1.1e-15 and 3e-15.
  const bool cpu = GetParam() == Backend::Cpu;
  const double tol = cpu ? 1e-12 : 3e-12;
  const std::string on = std::string(" against LAMMPS on ") + backend_name(GetParam());
  test::MaxError de("energies" + on), df("forces" + on), dw("virial" + on), da("per-atom energies" + on);
  const double e = std::abs(l.thermo[1]);
  de.add(q.energy / e, l.thermo[1] / e);
  ASSERT_EQ(q.terms.size(), 2u);
  EXPECT_EQ(q.terms[0].name, "eam");
  EXPECT_EQ(q.terms[1].name, "lj");
  de.add(q.terms[0].energy / e, l.thermo[9] / e);
  de.add(q.terms[1].energy / e, l.thermo[10] / e);
  EXPECT_GT(std::abs(l.thermo[10]), 1.0) << "the LJ term should matter";
  double fmax = 0, amax = 0;
  for (const auto& row : l.dump) {
    for (int k = 0; k < 3; ++k) fmax = std::max(fmax, std::abs(row[k]));
    amax = std::max(amax, std::abs(row[3]));
  }
  for (std::size_t i = 0; i < s.size(); ++i) {
    for (int k = 0; k < 3; ++k) df.add(q.forces[i][k] / fmax, l.dump[i][k] / fmax);
    da.add(q.atom_energy[i] / amax, l.dump[i][3] / amax);
  }
  const double to_virial = l.thermo[8] / units::nktv2p;  // pressure (bar) of atoms at rest times volume
  const int rows[6] = {0, 1, 2, 0, 0, 1}, cols[6] = {0, 1, 2, 1, 2, 2};
  double wmax = 0;
  for (int c = 0; c < 6; ++c) wmax = std::max(wmax, std::abs(l.thermo[2 + c] * to_virial));
  for (int c = 0; c < 6; ++c) dw.add(q.virial(rows[c], cols[c]) / wmax, l.thermo[2 + c] * to_virial / wmax);
  // The per-atom virials add up to the total.
  Mat3 sum{};
  for (const Mat3& w : q.atom_virial) sum = sum + w;
  for (int c = 0; c < 9; ++c) dw.add(sum(c / 3, c % 3) / wmax, q.virial(c / 3, c % 3) / wmax);
  EXPECT_TRUE(de.within(tol));
  EXPECT_TRUE(df.within(tol));
  EXPECT_TRUE(dw.within(tol));
  EXPECT_TRUE(da.within(tol));
}

// Lennard-Jones is linear in epsilon: LJ(a) + LJ(b) is LJ(a + b), in every output.
TEST_P(ForceFields, SplitEpsilonAddsUp) {
  const Structure s = test::distorted_fcc({3, 3, 3}, 5.3, 0.1, 0.15, 92, {"Ar"});
  auto lj = [](double eps) {
    return std::make_shared<LennardJones>(std::map<std::string, LjSpecies>{{"Ar", {eps, 3.405}}}, 8.5, true, false);
  };
  ForceField split;
  split.add(lj(0.004), "a");
  split.add(lj(0.0064), "b");
  ForceField whole(lj(0.0104));
  const Evaluation got = evaluate(split, s, GetParam(), true), want = evaluate(whole, s, GetParam(), true);
  EXPECT_NEAR(got.terms[1].energy / got.terms[0].energy, 1.6, 1e-13);
  // Measured on the CPU: 4.4e-15 relative at most (the virial). 1e-13 on both backends.
  Evaluation w = want;
  w.terms.clear();
  Evaluation g = got;
  g.terms.clear();
  expect_close(g, w, 1e-13, std::string("LJ(a) + LJ(b) - LJ(a + b) on ") + backend_name(GetParam()));
}

// Every term after the first adds to what the earlier ones left, in either order and on every
// path (GPU kernels that overwrite as a first term, Deep Potential atomics, deterministic sums into
// scratch arrays): the force field equals the sum of its terms evaluated alone.
TEST_P(ForceFields, TermsAddInAnyOrderAndEveryMode) {
  const std::string file = test::lammps_potential("Cu_u3.eam");
  struct Case {
    std::string name;
    Structure s;
    std::shared_ptr<Potential> a, b;
  };
  std::vector<Case> cases;
  if (have_dp()) {
    cases.push_back({"Si: lj + deepmd", silicon(93), silicon_lj(), silicon_dp()});
    cases.push_back({"Si: deepmd + lj", silicon(93), silicon_dp(), silicon_lj()});
  }
  if (!file.empty()) {
    const Structure cu = test::distorted_fcc({3, 3, 3}, 3.615, 0.1, 0.08, 94);
    ForceField two = force_field_from(eam_lj_toml(file));
    cases.push_back({"Cu: eam + lj", cu, two.terms()[0].potential, two.terms()[1].potential});
    cases.push_back({"Cu: lj + eam", cu, two.terms()[1].potential, two.terms()[0].potential});
  }
  for (const Case& c : cases)
    for (bool deterministic : {false, true}) {
      ForceField ff;
      ff.add(c.a);
      ff.add(c.b);
      const std::string what = c.name + (deterministic ? ", deterministic" : "") + " on " + backend_name(GetParam());
      const Evaluation got = evaluate(ff, c.s, GetParam(), true, -1, deterministic);
      const Evaluation ea = evaluate(*c.a, c.s, GetParam(), true, -1, deterministic);
      const Evaluation eb = evaluate(*c.b, c.s, GetParam(), true, -1, deterministic);
      Evaluation want = ea;
      want.energy += eb.energy;
      want.terms = {{c.a->name(), ea.energy}, {c.b->name(), eb.energy}};
      for (std::size_t i = 0; i < want.forces.size(); ++i) {
        want.forces[i] += eb.forces[i];
        want.atom_energy[i] += eb.atom_energy[i];
        want.atom_virial[i] = want.atom_virial[i] + eb.atom_virial[i];
      }
      want.virial = want.virial + eb.virial;
      // Only the order of additions differs. Measured on the CPU: 1e-15 relative at most; on the
      // H100 6.7e-16, and 0 with deterministic sums (fixed-point sums add up terms exactly).
      const double tol = GetParam() == Backend::Cpu ? 1e-13 : deterministic ? 1e-14 : 7e-14;
      expect_close(got, want, tol, what);
      if (deterministic) expect_identical(got, evaluate(ff, c.s, GetParam(), true, -1, true), what + ", repeated");
    }
}

// (2) A force field of one term gives what its potential gives when driven by hand (bit for bit on
// the CPU), and the GPU what the CPU gives.
TEST_P(ForceFields, OneTermIsThePotentialAlone) {
  const std::string file = test::lammps_potential("Cu_u3.eam");
  struct Case {
    std::string name;
    Structure s;
    std::shared_ptr<Potential> p;
    double gpu_tol;  // relative, GPU against CPU
  };
  // GPU against CPU, measured on the H100: 1.9e-15 (LJ), 5.1e-14 (Deep Potential, its virial against
  // the CPU's row products), 2.1e-15 (EAM).
  std::vector<Case> cases;
  cases.push_back({"lj", test::distorted_fcc({3, 3, 3}, 5.3, 0.1, 0.15, 95, {"Ar"}), test::argon_lj(), 2e-13});
  if (have_dp()) cases.push_back({"deepmd", silicon(96), silicon_dp(), 5e-12});
  if (!file.empty())
    cases.push_back({"eam", test::distorted_fcc({3, 3, 3}, 3.615, 0.1, 0.08, 97), test::copper_eam(), 3e-13});
  const Backend b = GetParam();
  for (const Case& c : cases) {
    ForceField ff(c.p);
    const Evaluation one = evaluate(ff, c.s, b, true);
    if (b == Backend::Cpu) {
      // By hand: bind, one list, prepare the output, compute.
      AtomState atoms(b, c.s);
      c.p->bind(SystemSetup::of(c.s));
      const NeighborRequest r = c.p->neighbor_requests(b).front();
      NeighborList list(b, {r.cutoff, 0.0, r.kind, 0});
      list.build(atoms);
      ForceOutput out(b);
      const ComputeRequest req{true, true, true};
      out.begin(atoms, req, 1, c.p->overwrites_outputs(b));
      out.begin_term(0);
      const NeighborRef ref = list.ref();
      c.p->compute(atoms, {&ref, 1}, req, out);
      const auto fx = atoms.fx.to_vector(), fy = atoms.fy.to_vector(), fz = atoms.fz.to_vector();
      const auto ids = atoms.id.to_vector();
      const auto ae = out.atom_energy.to_vector();
      EXPECT_EQ(one.energy, out.energy()) << c.name;
      EXPECT_EQ(one.terms.at(0).energy, out.energy()) << c.name;
      for (int k = 0; k < 9; ++k) EXPECT_EQ(one.virial(k / 3, k % 3), out.virial()(k / 3, k % 3)) << c.name;
      for (std::size_t i = 0; i < ids.size(); ++i) {
        ASSERT_EQ(one.forces[ids[i]].x, fx[i]) << c.name;
        ASSERT_EQ(one.forces[ids[i]].y, fy[i]) << c.name;
        ASSERT_EQ(one.forces[ids[i]].z, fz[i]) << c.name;
        ASSERT_EQ(one.atom_energy[ids[i]], ae[i]) << c.name;
      }
    } else {
      expect_close(one, evaluate(*c.p, c.s, Backend::Cpu, true), c.gpu_tol, c.name + ": GPU against CPU");
    }
  }
}

// (3) Terms that request the same list (cutoff and kind) share it.
TEST_P(ForceFields, EqualRequestsShareOneList) {
  const Backend b = GetParam();
  auto lj = [](double rc) {
    return std::make_shared<LennardJones>(std::map<std::string, LjSpecies>{{"Si", {0.01, 2.1}}}, rc, false, false);
  };
  ForceField same;
  same.add(lj(5.0));
  same.add(lj(5.0));
  EXPECT_EQ(same.neighbor_requests(b).size(), 1u);
  EXPECT_EQ(same.terms()[1].name, "lj_2");
  ForceField other;
  other.add(lj(5.0));
  other.add(lj(6.0));
  EXPECT_EQ(other.neighbor_requests(b).size(), 2u);
  QUASAR_REQUIRE_FAMILY("deepmd");
  // The Deep Potential wants a full list; LJ on the CPU a half list of the same cutoff.
  ForceField mixed;
  mixed.add(silicon_dp());
  mixed.add(lj(silicon_dp()->cutoff()));
  mixed.add(lj(silicon_dp()->cutoff()));
  EXPECT_EQ(mixed.neighbor_requests(b).size(), b == Backend::Cpu ? 2u : 1u);
  md::MdSettings st;
  st.output.progress = false;
  st.output.thermo_screen = false;
  md::Simulation sim(silicon(98), mixed, st, b);
  EXPECT_EQ(sim.neighbor_lists().size(), b == Backend::Cpu ? 2 : 1);
  sim.run_to(5);
  EXPECT_EQ(sim.thermo().term_potential.size(), 3u);
}

// (3b) An evaluation of a subset of the groups gives that subset's forces, and the other terms keep
// the energy and virial of their last evaluation (the multiple-time-step integrator evaluates groups
// at different steps and reads every term's energy at output steps).
TEST_P(ForceFields, ASubsetOfGroupsKeepsTheOtherTermsTotals) {
  const std::string file = test::lammps_potential("Cu_u3.eam");
  if (file.empty()) return test::missing(test::Dependency::LammpsData, "lammps-data's Cu_u3.eam is not installed");
  const Backend b = GetParam();
  const Structure first = test::distorted_fcc({3, 3, 3}, 3.615, 0.1, 0.08, 102);
  Structure second = first;
  for (std::size_t i = 0; i < second.size(); ++i)
    second.positions[i] += Vec3{0.03, -0.02, 0.01} * std::sin(static_cast<double>(i));
  ForceField ff = force_field_from(eam_lj_toml(file, "group = 1\n"));
  ff.bind(SystemSetup::of(first));
  AtomState atoms(b, first);
  NeighborLists lists(b, ff.neighbor_requests(b), 1.0, 0);
  lists.build(atoms);
  ForceOutput out(b);
  ff.compute(atoms, lists.refs(), {true, true, false}, out);
  const std::vector<double> at_first = out.totals.to_vector();
  atoms.load_positions(second);
  lists.update(atoms, 0);
  const std::size_t k = ForceOutput::kTotals;
  // Group 1 (LJ) alone at the second positions, then group 0 (EAM) alone.
  for (const int group : {1, 0}) {
    const std::vector<double> before = out.totals.to_vector();
    ff.compute(atoms, lists.refs(), {true, true, false}, out, 1u << group);
    const std::vector<double> after = out.totals.to_vector();
    const Evaluation alone = evaluate(ff.potential(group), second, b);
    const std::size_t kept = group == 1 ? 0 : k, fresh = group == 1 ? k : 0;
    for (std::size_t c = 0; c < k; ++c) EXPECT_EQ(after[kept + c], before[kept + c]) << "group " << group << ", " << c;
    const double e = std::abs(alone.energy);
    test::MaxError de("group " + std::to_string(group) + " alone: energy, virial and forces against its own evaluation");
    de.add(after[fresh] / e, alone.energy / e);
    for (int c = 0; c < 9; ++c) de.add(after[fresh + 1 + c] / e, alone.virial(c / 3, c % 3) / e);
    const auto fx = atoms.fx.to_vector(), fy = atoms.fy.to_vector(), fz = atoms.fz.to_vector();
    const auto ids = atoms.id.to_vector();
    for (std::size_t i = 0; i < ids.size(); ++i) {
      const Vec3 f = alone.forces[static_cast<std::size_t>(ids[i])];
      de.add(fx[i], f.x);
      de.add(fy[i], f.y);
      de.add(fz[i], f.z);
    }
    // Measured on the CPU: 0 (LJ) and 1.1e-15 (EAM: its own lists sum in another order); the GPU's
    // atomics reorder the totals: 0 and 1.3e-15 on the H100.
    EXPECT_TRUE(de.within(b == Backend::Cpu ? 1e-14 : 2e-13));
  }
  // The first evaluation's EAM block was replaced, its LJ block before that: both moved.
  EXPECT_NE(out.totals.to_vector()[0], at_first[0]);
  EXPECT_NE(out.totals.to_vector()[k], at_first[k]);
}

QUASAR_INSTANTIATE_BACKENDS(ForceFields);

// A term without a neighbour list that keeps solver state between evaluations, as an iterative
// solver's predictor does: s <- (s + mean vx^2) / 2, and a uniform force c s along x. A restart
// that lost s would change the forces.
class MemoryTerm : public Potential {
 public:
  std::string name() const override { return "memory"; }
  double cutoff() const override { return 0; }
  std::vector<NeighborRequest> neighbor_requests(Backend) const override { return {}; }
  void bind(const SystemSetup&) override {}
  void compute(AtomState& atoms, NeighborRefs lists, const ComputeRequest&, ForceOutput& out) override {
    if (atoms.backend() != Backend::Cpu || !lists.empty()) throw Error("memory term: CPU only, no lists");
    double mean = 0;
    for (int i = 0; i < atoms.size(); ++i) mean += atoms.vx[i] * atoms.vx[i] / atoms.size();
    s_ = 0.5 * (s_ + mean);
    for (int i = 0; i < atoms.size(); ++i) atoms.fx[i] += 1e-4 * s_;
    out.term_totals()[0] += 0.0;
  }
  void save_state(std::ostream& o) const override { o.write(reinterpret_cast<const char*>(&s_), sizeof s_); }
  void restore_state(std::istream& i) override { i.read(reinterpret_cast<char*>(&s_), sizeof s_); }

 protected:
  double s_ = 0;
};

class ForgetfulMemoryTerm : public MemoryTerm {
 public:
  void restore_state(std::istream&) override { s_ = 0; }
};

// (4) A checkpoint of a run with two terms and solver state continues it bit for bit (CPU).
TEST(ForceFieldRestart, TwoTermsAndSolverStateContinueBitForBit) {
  const std::string file = test::lammps_potential("Cu_u3.eam");
  if (file.empty()) return test::missing(test::Dependency::LammpsData, "lammps-data's Cu_u3.eam is not installed");
  const auto dir = test::scratch_dir("force-field-restart");
  const Structure s = test::distorted_fcc({3, 3, 3}, 3.615, 0.05, 0.05, 99);
  auto make = [&] {
    ForceField ff = force_field_from(eam_lj_toml(file));
    ff.add(std::make_shared<MemoryTerm>());
    return ff;
  };
  md::MdSettings st;
  st.integrator.kind = "langevin";
  st.integrator.dt = 0.002;
  st.integrator.temperature = 500;
  st.steps = 120;
  st.sort_every = 50;
  st.output.progress = false;
  st.output.thermo_screen = false;
  st.output.thermo_every = 20;
  st.output.checkpoint = (dir / "full.chk").string();  // as the interrupted run: checkpoints wrap positions
  st.output.checkpoint_every = 60;
  md::Simulation full(s, make(), st, Backend::Cpu);
  full.run();
  const Structure want = full.atoms().to_structure();
  const md::Thermo want_thermo = full.thermo();

  md::MdSettings first = st;
  first.steps = 60;
  first.output.checkpoint = (dir / "half.chk").string();
  md::Simulation a(s, make(), first, Backend::Cpu);
  a.run();
  md::MdSettings second = st;
  second.restart = first.output.checkpoint;
  second.output.checkpoint.clear();
  md::Simulation b(s, make(), second, Backend::Cpu);
  b.run();
  const Structure got = b.atoms().to_structure();
  for (std::size_t i = 0; i < got.size(); ++i)
    for (int k = 0; k < 3; ++k) {
      ASSERT_EQ(got.positions[i][k], want.positions[i][k]) << "atom " << i;
      ASSERT_EQ(got.velocities[i][k], want.velocities[i][k]) << "atom " << i;
    }
  const md::Thermo got_thermo = b.thermo();
  ASSERT_EQ(got_thermo.term_potential.size(), 3u);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(got_thermo.term_potential[k], want_thermo.term_potential[k]);

  // A term that drops its state continues differently: the state matters, and it went through the
  // checkpoint. A force field without the term cannot take the checkpoint.
  ForceField forgetful = force_field_from(eam_lj_toml(file));
  forgetful.add(std::make_shared<ForgetfulMemoryTerm>());
  md::Simulation c(s, forgetful, second, Backend::Cpu);
  c.run();
  const Structure other = c.atoms().to_structure();
  bool differs = false;
  for (std::size_t i = 0; i < other.size(); ++i) differs = differs || other.positions[i].x != want.positions[i].x;
  EXPECT_TRUE(differs);
  EXPECT_THROW(md::Simulation(s, force_field_from(eam_lj_toml(file)), second, Backend::Cpu), InputError);
  std::filesystem::remove_all(dir);
}

// (5) [[potential]] tables through the command line: eval's energy is the sum of its terms, run's
// thermo has a column per term, and bad tables are named by their key.
class ForceFieldCli : public testing::Test {
 protected:
  void SetUp() override { dir_ = test::scratch_dir("force-field-cli"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::pair<int, std::string> quasar(const std::string& args) {
    const std::string cmd =
        "cd " + dir_.string() + " && " + test::binary_path("quasar") + " " + args + " > out.txt 2>&1";
    const int status = std::system(cmd.c_str());
    std::ifstream in(dir_ / "out.txt");
    std::stringstream ss;
    ss << in.rdbuf();
    return {WEXITSTATUS(status), ss.str()};
  }
  void write(const std::string& name, const std::string& text) { std::ofstream(dir_ / name) << text; }
  std::filesystem::path dir_;
};

TEST_F(ForceFieldCli, EvalReportsEachTermAndTheirSum) {
  const std::string file = test::lammps_potential("Cu_u3.eam");
  if (file.empty()) return test::missing(test::Dependency::LammpsData, "lammps-data's Cu_u3.eam is not installed");
  const Structure s = test::distorted_fcc({2, 2, 2}, 3.615, 0.1, 0.08, 100);
  io::write_extxyz((dir_ / "cu.xyz").string(), {s});
  write("ff.toml", eam_lj_toml(file, "name = \"tail\"\ngroup = 1\n"));
  const auto [code, out] = quasar("eval --model ff.toml --structure cu.xyz --json --device cpu");
  ASSERT_EQ(code, 0) << out;
  const auto j = nlohmann::json::parse(out);
  const double eam = j["terms"]["eam"].get<double>(), tail = j["terms"]["tail"].get<double>();
  EXPECT_EQ(j["terms"].size(), 2u);
  EXPECT_EQ(j["energy"].get<double>(), eam + tail);  // summed in term order, printed to 17 digits
  ForceField ff = force_field_from(eam_lj_toml(file));
  const Evaluation e = evaluate(ff, s, Backend::Cpu);
  EXPECT_EQ(eam, e.terms[0].energy);
  EXPECT_EQ(tail, e.terms[1].energy);
  EXPECT_EQ(j["forces"][3][1].get<double>(), e.forces[3].y);
  const auto [text_code, text] = quasar("eval --model ff.toml --structure cu.xyz --device cpu");
  EXPECT_EQ(text_code, 0);
  EXPECT_NE(text.find("\n  tail "), std::string::npos) << text;
  // A run: thermo columns per term, and the potential energy is their sum.
  write("run.toml", "[structure]\nfile = \"cu.xyz\"\n" + eam_lj_toml(file) +
                        "[md]\nsteps = 4\n[output]\nthermo_every = 2\nthermo_csv = \"thermo.csv\"\nprogress = false\n");
  const auto [run_code, run_out] = quasar("run run.toml --device cpu");
  ASSERT_EQ(run_code, 0) << run_out;
  EXPECT_NE(run_out.find("eam + lj force field"), std::string::npos) << run_out;
  EXPECT_NE(run_out.find("pe_eam"), std::string::npos) << run_out;
  std::ifstream csv(dir_ / "thermo.csv");
  std::string header, line;
  std::getline(csv, header);
  EXPECT_EQ(header, "step,time_ps,temp_K,ke_eV,pe_eV,etot_eV,press_bar,vol_A3,conserved_eV,pe_eam_eV,pe_lj_eV");
  while (std::getline(csv, line)) {
    std::vector<double> v;
    std::stringstream ls(line);
    for (std::string cell; std::getline(ls, cell, ',');) v.push_back(std::stod(cell));
    ASSERT_EQ(v.size(), 11u);
    EXPECT_NEAR(v[4], v[9] + v[10], 1e-9 * std::abs(v[4]));  // 12 digits in the file
  }
}

TEST_F(ForceFieldCli, BadTablesNameTheirKey) {
  // A [[potential]] table of LJ with more keys of its own.
  auto lj = [](const std::string& keys = "") {
    return "[[potential]]\ntype = \"lj\"\ncutoff = 6.0\n" + keys + "[potential.species.Cu]\nepsilon = 0.05\nsigma = 2.3\n";
  };
  const std::string head = "[structure]\nlattice = \"fcc\"\nelement = \"Cu\"\na = 3.6\nrepeat = [2,2,2]\n";
  struct Bad {
    std::string text, message;
  };
  const std::vector<Bad> bad = {
      {head + lj() + lj("typo = 1\n"),
       "bad.toml:15: unknown key 'potential[1].typo'; valid keys in [potential[1]]: type name group cutoff"},
      {head + lj("name = \"x\"\n") + lj("name = \"x\"\n"),
       "bad.toml:16: 'potential[1].name': force field: two terms are named 'x'"},
      {head + lj("group = 32\n"), "bad.toml:9: 'potential[0].group': expected a force group from 0 to 31"},
      {head + lj("name = \"a b\"\n"), "bad.toml:9: 'potential[0].name': force field: term name 'a b' must be"},
      {"potential = 3\n" + head, "bad.toml:1: 'potential': expected a [potential] table or [[potential]] tables"},
  };
  for (const Bad& b : bad) {
    write("bad.toml", b.text);
    const auto [code, out] = quasar("run bad.toml --device cpu");
    EXPECT_EQ(code, 1) << b.text;
    EXPECT_NE(out.find(b.message), std::string::npos) << out;
  }
  // One model where one is expected: a file of two terms is no single model.
  write("two.toml", lj() + lj());
  EXPECT_THROW(load_model((dir_ / "two.toml").string()), InputError);
  EXPECT_EQ(load_force_field((dir_ / "two.toml").string()).size(), 2);
}

}  // namespace
}  // namespace quasar
