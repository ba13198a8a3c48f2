// Deterministic runs (deterministic = true): on the GPU, sums that threads share are taken in 64-bit
// fixed point (device/fixed_point.hpp). Checked for Lennard-Jones, EAM and the Deep Potential:
// (1) deterministic evaluations agree with the CPU's double-precision reference within what the
// fixed-point resolution adds; (2) two evaluations, and two Langevin MD runs, are bit-identical;
// (3) a run restarted from its checkpoint at step 25 ends bit-identical to the uninterrupted run.
// On the CPU the option changes nothing: the same bits as without it.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>

#include "quasar/device/fixed_point.hpp"
#include "quasar/io/deepmd_npy.hpp"
#include "quasar/md/simulation.hpp"
#if QUASAR_WITH_DP
#include "quasar/potential/dp/deep_potential.hpp"
#endif
#include "quasar/potential/evaluate.hpp"
#include "quasar/potential/registry.hpp"
#include "test_systems.hpp"

namespace quasar {
namespace {

namespace scale = device::fixed_scale;

struct System {
  std::string name;
  Structure structure;
  std::function<std::unique_ptr<Potential>()> make;  // a fresh potential: nothing shared between runs
  double dt_fs = 2.0, temperature = 300;
  // Tolerances of the GPU against the CPU before fixed-point rounding (forces and per-atom values;
  // relative for the energy), within about 100x of what the H100 gives (each system says).
  double force_tol = 1e-11, energy_rel_tol = 1e-12, atom_energy_tol = 1e-11;
  // Most fixed-point contributions to one force and to one total (each rounded by at most half a unit).
  double force_terms = 0, total_terms = 0;
};

int blocks_of(std::size_t n, int block) { return static_cast<int>((n + block - 1) / block); }

// Argon, 2,048 atoms, cutoff 8.5 Å: forces are per-thread sums (no fixed point); the energy and
// virial are one block sum per 128 atoms.
System argon() {
  System s{"lj", test::distorted_fcc({8, 8, 8}, 5.72, 0.05, 0.1, 71, {"Ar"}), [] { return test::argon_lj(8.5); }};
  s.temperature = 100;
  // H100: forces 6.3e-17 eV/Å, per-atom energies 5.6e-17 eV, virials 9.4e-17 eV.
  s.force_tol = s.atom_energy_tol = 5e-15;
  s.total_terms = blocks_of(s.structure.size(), 128);
  return s;
}

// Copper with Cu_u3.eam, 864 atoms: the energy from two kernels' block sums (embedding, pairs).
std::optional<System> copper() {
  if (!test::copper_eam()) return std::nullopt;
  System s{"eam", test::distorted_fcc({6, 6, 6}, 3.615, 0.05, 0.05, 72), [] { return std::unique_ptr<Potential>(test::copper_eam()); }};
  s.temperature = 500;
  // H100: forces 3.4e-15 eV/Å, per-atom energies 5.8e-15 eV, virials 3.6e-15 eV.
  s.force_tol = s.atom_energy_tol = 3e-13;
  s.total_terms = 2.0 * blocks_of(s.structure.size(), 128);
  return s;
}

// DeePMD-kit's water model on the first frame of its water data (64 molecules, 192 atoms). The
// force on an atom is one contribution per centre that has it among its neighbours (about as many
// as a centre's 46 + 92 sel slots in this liquid) and one for its own centre; the energy is one
// contribution per 8 atoms (a block of the last fitting layer), each virial component one per atom.
std::optional<System> water() {
  const std::string model = test::shared_path("reference/deepmd/deeppot_sea.yaml");
  const std::string data = test::shared_path("reference/deepmd/water-data/data_0");
  if (model.empty() || data.empty()) return std::nullopt;
  System s{"deepmd", io::read_deepmd_frame(data, 0, 0),
           [model] { return load_model(model); }};
  s.dt_fs = 0.5;
  s.force_tol = 1e-10;  // H100: forces 8.8e-12 eV/Å (with fixed point), per-atom virials 8.7e-12 eV
  s.atom_energy_tol = 3e-12;  // H100: 2.8e-14 eV (no fixed point)
  s.energy_rel_tol = 1e-10 / 155.0;  // 1e-10 eV per atom of about -155 eV
  s.force_terms = 46 + 92 + 1;
  s.total_terms = static_cast<double>(s.structure.size());
  return s;
}

template <class T>
bool same_bits(const T& a, const T& b) {
  static_assert(std::is_trivially_copyable_v<T>);
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}
template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

// Values of two vectors of Vec3 that differ in any bit.
std::size_t differing(const std::vector<Vec3>& a, const std::vector<Vec3>& b) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    for (int k = 0; k < 3; ++k) n += !same_bits(a[i][k], b[i][k]);
  return n + 3 * (std::max(a.size(), b.size()) - std::min(a.size(), b.size()));
}

void expect_identical(const Evaluation& a, const Evaluation& b, const std::string& what) {
  EXPECT_TRUE(same_bits(a.energy, b.energy)) << what << ": energy " << a.energy << " vs " << b.energy;
  EXPECT_TRUE(same_bits(a.virial, b.virial)) << what << ": virial";
  EXPECT_EQ(differing(a.forces, b.forces), 0u) << what << ": force components that differ";
  EXPECT_TRUE(same_bits(a.atom_energy, b.atom_energy)) << what << ": per-atom energies";
  EXPECT_TRUE(same_bits(a.atom_virial, b.atom_virial)) << what << ": per-atom virials";
}

class Determinism : public testing::TestWithParam<Backend> {};

// (1) and (2) for one system: deterministic evaluations against the CPU reference and each other.
void check_evaluations(const System& sys, Backend b) {
  const Evaluation ref = evaluate(*sys.make(), sys.structure, Backend::Cpu, true);
  const Evaluation one = evaluate(*sys.make(), sys.structure, b, true, -1, true);
  const Evaluation two = evaluate(*sys.make(), sys.structure, b, true, -1, true);
  expect_identical(one, two, sys.name + " on " + backend_name(b) + ", two deterministic evaluations");
  if (b == Backend::Cpu) {  // the option changes nothing on the CPU
    expect_identical(one, ref, sys.name + ": deterministic CPU evaluation against the plain one");
    return;
  }
  const std::size_t n = sys.structure.size();
  // Each contribution to a total is rounded independently by at most half a unit, so the sum of N
  // errs by about unit sqrt(N/12) (sqrt(N) units is 3.5 standard deviations; the worst case N/2
  // units would be 30-260x above what the H100 gives: energy 1.3e-9 (LJ), 3.0e-9 (EAM), 1.4e-9 eV (DP)).
  const double e_tol = sys.energy_rel_tol * std::abs(ref.energy) + std::sqrt(sys.total_terms) / scale::kTotal;
  const double f_tol = sys.force_tol + sys.force_terms * 0.5 / scale::kForce;
  const double w_tol = sys.force_tol + sys.force_terms * 0.5 / scale::kAtomVirial;
  double df = 0, dw = 0, dwi = 0, dei = 0;
  for (std::size_t i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) df = std::max(df, std::abs(one.forces[i][k] - ref.forces[i][k]));
  for (int k = 0; k < 9; ++k) dw = std::max(dw, std::abs(one.virial(k / 3, k % 3) - ref.virial(k / 3, k % 3)));
  for (std::size_t i = 0; i < n; ++i) {
    dei = std::max(dei, std::abs(one.atom_energy[i] - ref.atom_energy[i]));
    for (int k = 0; k < 9; ++k) dwi = std::max(dwi, std::abs(one.atom_virial[i](k / 3, k % 3) - ref.atom_virial[i](k / 3, k % 3)));
  }
  std::printf("  %-6s deterministic GPU - CPU: energy %.2e eV (tol %.1e), virial %.2e eV (tol %.1e), force %.2e eV/A "
              "(tol %.1e), atom energy %.2e, atom virial %.2e (tol %.1e)\n",
              sys.name.c_str(), std::abs(one.energy - ref.energy), e_tol, dw, e_tol, df, f_tol, dei, dwi, w_tol);
  EXPECT_NEAR(one.energy, ref.energy, e_tol) << sys.name;
  EXPECT_LE(dw, e_tol) << sys.name << ": virial";
  EXPECT_LE(df, f_tol) << sys.name << ": forces";
  EXPECT_LE(dei, sys.atom_energy_tol) << sys.name << ": per-atom energies";
  EXPECT_LE(dwi, w_tol) << sys.name << ": per-atom virials";
  // For the record: whether the plain GPU sums differ between two evaluations (no assertion).
  const Evaluation p1 = evaluate(*sys.make(), sys.structure, b, true), p2 = evaluate(*sys.make(), sys.structure, b, true);
  std::printf("  %-6s plain GPU sums, two evaluations: energy %s, %zu of %zu force components differ\n", sys.name.c_str(),
              same_bits(p1.energy, p2.energy) ? "identical" : "differs", differing(p1.forces, p2.forces), 3 * n);
}

TEST_P(Determinism, LennardJonesEvaluationsAgreeWithTheCpuAndRepeat) { check_evaluations(argon(), GetParam()); }

TEST_P(Determinism, EamEvaluationsAgreeWithTheCpuAndRepeat) {
  const auto sys = copper();
  if (!sys) return test::missing(test::Dependency::LammpsData, "lammps-data's Cu_u3.eam is not installed");
  check_evaluations(*sys, GetParam());
}

TEST_P(Determinism, DeepPotentialEvaluationsAgreeWithTheCpuAndRepeat) {
  QUASAR_REQUIRE_FAMILY("deepmd");
  const auto sys = water();
  if (!sys) return test::missing(test::Dependency::SharedData, "../shared/reference/deepmd is not here");
  check_evaluations(*sys, GetParam());
#if QUASAR_WITH_DP
  if (GetParam() != Backend::Cuda) return;
  // The single-precision modes and the tabulated nets repeat too (their accuracy is dp_precision_test's).
  for (const bool compress : {false, true})
    for (const Precision p : {Precision::Mixed32, Precision::Mixed16}) {
      const auto make = [&] {
        auto pot = sys->make();
        auto& d = static_cast<dp::DeepPotential&>(*pot);
        if (compress) {
          dp::DpModel m = d.model();
          m.compressed = true;
          m.compression.min_nbor_dist = 0.5;
          pot = std::make_unique<dp::DeepPotential>(std::move(m));
        }
        static_cast<dp::DeepPotential&>(*pot).set_precision(p);
        return pot;
      };
      expect_identical(evaluate(*make(), sys->structure, Backend::Cuda, true, -1, true),
                       evaluate(*make(), sys->structure, Backend::Cuda, true, -1, true),
                       std::string(precision_name(p)) + (compress ? " compressed" : ""));
    }
#endif
}

// The end of one Langevin run, and its last checkpoint's bytes.
struct RunEnd {
  Structure state;  // positions, velocities, forces in input order
  double energy;
  md::Thermo thermo;
  std::string checkpoint;
};

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

RunEnd run_langevin(const System& sys, Backend b, long steps, const std::string& checkpoint, const std::string& restart) {
  md::MdSettings st;
  st.integrator.kind = "langevin";
  st.integrator.dt = sys.dt_fs * 1e-3;
  st.integrator.temperature = sys.temperature;
  st.integrator.tau_t = 0.05;
  st.integrator.seed = 8086;
  st.steps = steps;
  st.restart = restart;
  st.output.progress = false;
  st.output.thermo_screen = false;
  st.output.thermo_every = 25;
  st.output.checkpoint = checkpoint;
  st.output.checkpoint_every = 25;
  st.skin = 1.0;
  st.sort_every = 20;  // the atoms are re-sorted inside both halves
  st.deterministic = true;
  md::Simulation sim(sys.structure, sys.make(), st, b);
  sim.run();
  return {sim.atoms().to_structure(), sim.forces().energy(), sim.thermo(), file_bytes(checkpoint)};
}

void expect_identical(const RunEnd& a, const RunEnd& b, const std::string& what) {
  EXPECT_EQ(differing(a.state.positions, b.state.positions), 0u) << what << ": position components that differ";
  EXPECT_EQ(differing(a.state.velocities, b.state.velocities), 0u) << what << ": velocity components that differ";
  EXPECT_EQ(differing(a.state.forces, b.state.forces), 0u) << what << ": force components that differ";
  EXPECT_TRUE(same_bits(a.energy, b.energy)) << what << ": energy " << a.energy << " vs " << b.energy;
  EXPECT_TRUE(same_bits(a.thermo.kinetic, b.thermo.kinetic)) << what << ": kinetic energy";
  EXPECT_TRUE(same_bits(a.thermo.conserved, b.thermo.conserved)) << what << ": conserved energy";
  EXPECT_TRUE(same_bits(a.thermo.pressure_tensor, b.thermo.pressure_tensor)) << what << ": pressure tensor";
  EXPECT_TRUE(a.checkpoint == b.checkpoint) << what << ": the checkpoints at step 50 differ";
}

// (2) and (3): two 50-step Langevin runs, and one restarted at step 25, end with the same bits.
void check_runs(const System& sys, Backend b) {
  const auto dir = test::scratch_dir("determinism-" + sys.name + "-" + backend_name(b));
  const auto path = [&](const char* f) { return (dir / f).string(); };
  const RunEnd first = run_langevin(sys, b, 50, path("first.chk"), "");
  const RunEnd second = run_langevin(sys, b, 50, path("second.chk"), "");
  run_langevin(sys, b, 25, path("half.chk"), "");
  const RunEnd restarted = run_langevin(sys, b, 50, path("restarted.chk"), path("half.chk"));
  ASSERT_EQ(first.thermo.step, 50);
  ASSERT_EQ(restarted.thermo.step, 50);
  ASSERT_TRUE(std::isfinite(first.energy) && first.thermo.temperature > 0) << sys.name;
  std::printf("  %-6s 50 Langevin steps on %s: T %.1f K, E %.10f eV\n", sys.name.c_str(), backend_name(b),
              first.thermo.temperature, first.energy);
  expect_identical(first, second, sys.name + ": two runs");
  expect_identical(first, restarted, sys.name + ": the run restarted at step 25 against the uninterrupted one");
  std::filesystem::remove_all(dir);
}

TEST_P(Determinism, LennardJonesRunsAndRestartsAreBitIdentical) { check_runs(argon(), GetParam()); }

TEST_P(Determinism, EamRunsAndRestartsAreBitIdentical) {
  const auto sys = copper();
  if (!sys) return test::missing(test::Dependency::LammpsData, "lammps-data's Cu_u3.eam is not installed");
  check_runs(*sys, GetParam());
}

TEST_P(Determinism, DeepPotentialRunsAndRestartsAreBitIdentical) {
  QUASAR_REQUIRE_FAMILY("deepmd");
  const auto sys = water();
  if (!sys) return test::missing(test::Dependency::SharedData, "../shared/reference/deepmd is not here");
  check_runs(*sys, GetParam());
}

// A contribution that fixed point cannot hold (here a pair energy of 1e29 eV: two argon atoms
// 0.01 Å apart) turns the totals into NaN instead of wrapping into a plausible number. The CPU,
// in floating point, keeps the huge value.
TEST_P(Determinism, SumsOutOfTheFixedPointRangeBecomeNaN) {
  Structure s = test::distorted_fcc({4, 4, 4}, 5.72, 0.0, 0.0, 73, {"Ar"});
  s.positions[1] = s.positions[0] + Vec3{0.01, 0, 0};
  const Evaluation e = evaluate(*test::argon_lj(8.5), s, GetParam(), false, -1, true);
  if (GetParam() == Backend::Cpu) {
    EXPECT_GT(e.energy, 1e28);
  } else {
    EXPECT_TRUE(std::isnan(e.energy)) << e.energy;
    EXPECT_TRUE(std::isnan(e.virial(0, 0))) << e.virial(0, 0);
  }
}

QUASAR_INSTANTIATE_BACKENDS(Determinism);

}  // namespace
}  // namespace quasar
