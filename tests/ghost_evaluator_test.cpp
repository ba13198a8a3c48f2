// GhostEvaluator (the engine of the LAMMPS pair style) against Quasar's periodic evaluation: the
// atoms of a periodic crystal as local atoms and their images near the box as ghosts, handed over
// as a domain-decomposed code does, first at a re-neighbouring and then moved without one.
#include <array>
#include <fstream>
#include <memory>
#include <random>

#include "quasar/io/lattice.hpp"
#include "quasar/potential/evaluate.hpp"
#include "quasar/potential/ghost_evaluator.hpp"
#include "quasar/potential/registry.hpp"
#include "support.hpp"

namespace quasar {
namespace {

struct Ghost {
  int owner;
  Vec3 shift;
};

// Images within `shell` of the cubic box [0, L)^3 of the (wrapped) local atoms.
std::vector<Ghost> ghosts_of(const std::vector<Vec3>& local, double L, double shell) {
  std::vector<Ghost> out;
  for (int a = -1; a <= 1; ++a)
    for (int b = -1; b <= 1; ++b)
      for (int c = -1; c <= 1; ++c) {
        if (!a && !b && !c) continue;
        const Vec3 shift{a * L, b * L, c * L};
        for (int i = 0; i < static_cast<int>(local.size()); ++i) {
          const Vec3 q = local[i] + shift;
          if (q.x >= -shell && q.x < L + shell && q.y >= -shell && q.y < L + shell && q.z >= -shell &&
              q.z < L + shell)
            out.push_back({i, shift});
        }
      }
  return out;
}

// Positions as rows of three: one block (as LAMMPS allocates them) or one allocation per row.
struct Rows {
  std::vector<double> block;
  std::vector<std::unique_ptr<std::array<double, 3>>> separate;
  std::vector<double*> ptr;
  Rows(const std::vector<Vec3>& p, bool one_block) {
    const std::size_t n = p.size();
    block.assign(3 * n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
      double* row = block.data() + 3 * i;
      if (!one_block) row = separate.emplace_back(std::make_unique<std::array<double, 3>>())->data();
      row[0] = p[i].x, row[1] = p[i].y, row[2] = p[i].z;
      ptr.push_back(row);
    }
  }
};

// A model for the ghost evaluator, the crystal it is checked on and its tolerances (measured
// values in the comments where the cases are made).
struct Case {
  std::string name, model;
  std::vector<std::string> types;  // the code's atom types 1, 2, ... by name
  std::string lattice;
  double a;
  int cells;
  double energy_tol, virial_tol, force_tol, atom_tol;  // eV, eV, eV/Å, eV (per-atom energies and virials)
};

std::vector<Case> cases(const std::filesystem::path& dir) {
  std::vector<Case> out;
  // Energy: measured 0 on the CPU (it rounds at 6e-14 eV), 2.7e-12 eV on the H100, whose reductions
  // sum in another order. Virial: 2.8e-14 eV on the CPU, 8.4e-13 on the H100 (against the CPU's row
  // products; 1e-15 of the virial). Forces: 8.5e-15 eV/Å on
  // the CPU, 1e-14 on the H100 (also layer by layer). Per-atom energies and virials: 1.4e-14 and
  // 6.4e-15 eV on the CPU.
  if (potential_registry().find("deepmd"))
    out.push_back({"deepmd", test::source_path("examples/silicon/model.dp"), {"Si"}, "diamond", 5.38, 2, 1e-10, 8e-11,
                   5e-13, 1e-12});
  else
    std::printf("  the deepmd case is left out: this build has no Deep Potential (QUASAR_WITH_DP=OFF)\n");
  const std::string cu = test::lammps_potential("Cu_u3.eam"), cuni = test::lammps_potential("CuNi.eam.alloy");
  // EAM (108 atoms, -380 eV), measured on the CPU: energy 1.9e-12 eV, virial 3.4e-14 eV, forces
  // 5.4e-15 eV/Å, per-atom energies and virials 4e-15 and 3.6e-15 eV; with the LJ term 1.8e-12,
  // 3.7e-14, 7.4e-15, 4e-15 and 4.7e-15; the alloy 1.3e-12, 1.1e-13, 9.3e-15, 2e-14 and 5e-15.
  if (!cu.empty()) {
    out.push_back({"eam", cu, {"Cu"}, "fcc", 3.615, 3, 1e-10, 3e-12, 5e-13, 3e-13});
    // EAM + a Lennard-Jones tail for the same copper: one force field of two terms.
    const std::string toml = (dir / "eam_lj.toml").string();
    std::ofstream(toml) << "[[potential]]\ntype = \"eam\"\nfile = \"" << cu
                        << "\"\n[[potential]]\ntype = \"lj\"\ncutoff = 6.0\n"
                           "[potential.species.Cu]\nepsilon = 0.05\nsigma = 2.3\n";
    out.push_back({"eam + lj", toml, {"Cu"}, "fcc", 3.615, 3, 1e-10, 3e-12, 5e-13, 3e-13});
  }
  if (!cuni.empty()) out.push_back({"eam/alloy", cuni, {"Cu", "Ni"}, "fcc", 3.6, 3, 1e-10, 1e-11, 5e-13, 1e-12});
  // n2p2's Cu2S potential (cutoff 6 Å) on copper and sulphur alternating on an fcc lattice at Cu2S's
  // density (32 atoms, -99.5 eV). Measured on the CPU: energy 2e-13 eV, virial 9.7e-13 eV, forces
  // 1.3e-13 eV/Å, per-atom energies and virials 4.1e-14 and 2.2e-13 eV (neighbours in another order).
  // On the H100: 1.4e-13 eV, 6.3e-13 eV, 1.9e-13 eV/Å, 5.4e-14 and 3.2e-13 eV.
  if (const std::string cu2s = test::shared_path("reference/n2p2/predict/Cu2S_PBE");
      !cu2s.empty() && potential_registry().find("nnp"))
    out.push_back({"nnp", cu2s, {"Cu", "S"}, "fcc", 4.0, 2, 2e-11, 5e-11, 1e-11, 2e-11});
  return out;
}

class GhostEvaluatorTest : public testing::TestWithParam<Backend> {
 protected:
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_ = test::scratch_dir("ghost_evaluator");
};

TEST_P(GhostEvaluatorTest, MatchesThePeriodicEvaluation) {
  const std::vector<Case> all_cases = cases(dir_);
  const bool cpu = GetParam() == Backend::Cpu;
  for (const Case& c : all_cases) {
    SCOPED_TRACE(c.name);
    GhostEvaluator ghost(c.model, backend_name(GetParam()), "double", 0);
    ghost.set_type_names(c.types);
    const double L = c.cells * c.a, shell = ghost.cutoff() + 1.0;
    ASSERT_LT(shell, L);
    Structure s = io::make_lattice(c.lattice, c.types[0], c.a, {c.cells, c.cells, c.cells});
    for (std::size_t t = 1; t < c.types.size(); ++t) s.type_index(c.types[t]);
    for (std::size_t i = 0; i < s.size(); ++i) s.types[i] = static_cast<int>(i % c.types.size());
    std::mt19937 rng(11);
    std::uniform_real_distribution<double> u(-0.1, 0.1);
    for (Vec3& p : s.positions) p = s.box.wrap(p + Vec3{u(rng), u(rng), u(rng)});
    const int nlocal = static_cast<int>(s.size());
    const std::vector<Ghost> ghosts = ghosts_of(s.positions, L, shell);
    const int nall = nlocal + static_cast<int>(ghosts.size());
    std::vector<int> type(nall);
    for (int i = 0; i < nall; ++i) type[i] = 1 + s.types[i < nlocal ? i : ghosts[i - nlocal].owner];
    ForceField reference = load_force_field(c.model);
    const std::string on = std::string(" on ") + backend_name(GetParam()) + ", " + c.name;
    test::MaxError de("energy (eV)" + on), dw("virial (eV)" + on), df("forces (eV/Å)" + on);
    test::MaxError dae("per-atom energies (eV)" + on), daw("per-atom virials (eV)" + on);

    for (int step = 0; step < 3; ++step) {
      // Step 0 is a re-neighbouring; then the atoms move (some out of the box) and the ghosts with them.
      if (step > 0)
        for (Vec3& p : s.positions) p = p + Vec3{u(rng), u(rng), u(rng)} * 0.3;
      std::vector<Vec3> all = s.positions;
      for (const Ghost& g : ghosts) all.push_back(s.positions[g.owner] + g.shift);
      const Evaluation ref = evaluate(reference, s, Backend::Cpu, true);

      for (bool one_block : {true, false}) {
        SCOPED_TRACE("step " + std::to_string(step) + (one_block ? ", rows in one block" : ", rows apart"));
        Rows x(all, one_block), f(std::vector<Vec3>(nall), one_block);
        std::vector<double*> wrow(nall);  // six per-atom virial components per row
        std::vector<double> wv(6 * static_cast<std::size_t>(nall), 0.0), ae(nall, 0.0);
        for (int i = 0; i < nall; ++i) wrow[i] = wv.data() + 6 * i;
        double energy = 0, virial[6] = {};
        const bool per_atom = step == 2;
        ghost.compute(x.ptr.data(), type.data(), nlocal, nall, step == 0 && one_block, f.ptr.data(), &energy, virial,
                      per_atom ? ae.data() : nullptr, per_atom ? wrow.data() : nullptr);
        de.add(energy, ref.energy);
        const int voigt[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}};
        for (int k = 0; k < 6; ++k) dw.add(virial[k], ref.virial(voigt[k][0], voigt[k][1]));
        // Ghost forces and per-atom virials go to their owners, as the code's reverse communication does.
        std::vector<Vec3> total(nlocal);
        std::vector<double> atom_virial(6 * static_cast<std::size_t>(nlocal), 0.0);
        for (int i = 0; i < nall; ++i) {
          const int owner = i < nlocal ? i : ghosts[i - nlocal].owner;
          total[owner] = total[owner] + Vec3{f.ptr[i][0], f.ptr[i][1], f.ptr[i][2]};
          for (int k = 0; k < 6; ++k) atom_virial[6 * owner + k] += wrow[i][k];
        }
        for (int i = 0; i < nlocal; ++i)
          for (int m = 0; m < 3; ++m) df.add(total[i][m], ref.forces[i][m]);
        if (!per_atom) continue;
        for (int i = 0; i < nlocal; ++i) {
          dae.add(ae[i], ref.atom_energy[i]);
          for (int k = 0; k < 6; ++k) daw.add(atom_virial[6 * i + k], ref.atom_virial[i](voigt[k][0], voigt[k][1]));
        }
      }
    }
    EXPECT_TRUE(de.within(cpu && c.name == "deepmd" ? 1e-11 : c.energy_tol));
    EXPECT_TRUE(dw.within(c.virial_tol));
    EXPECT_TRUE(df.within(c.force_tol));
    EXPECT_TRUE(dae.within(c.atom_tol));
    EXPECT_TRUE(daw.within(c.atom_tol));
  }
  // The EAM cases need lammps-data's files; the Behler-Parrinello case ../shared.
  if (test::lammps_potential("Cu_u3.eam").empty() || test::lammps_potential("CuNi.eam.alloy").empty())
    return test::missing(test::Dependency::LammpsData, "lammps-data's Cu_u3.eam or CuNi.eam.alloy is not installed");
  if (potential_registry().find("nnp") && test::shared_path("reference/n2p2/predict/Cu2S_PBE").empty())
    return test::missing(test::Dependency::SharedData, "../shared/reference/n2p2 is not here (the nnp case)");
}

QUASAR_INSTANTIATE_BACKENDS(GhostEvaluatorTest);

// The GPU's ghost-atom path of the Behler-Parrinello potential (the LAMMPS pair style on a GPU)
// against the CPU's, output for output: forces on local and ghost atoms (before any reverse
// communication), energy, virial, per-atom energies and virials, over a re-neighbouring and two
// moves, in double and in mixed32.
TEST(GhostEvaluatorGpu, NnpEqualsTheCpuWithGhosts) {
  bool gpu = false;
  for (Backend b : test::backends()) gpu |= b == Backend::Cuda;
  if (!gpu) GTEST_SKIP() << "no GPU here";
  QUASAR_REQUIRE_FAMILY("nnp");
  const std::string cu2s = test::shared_path("reference/n2p2/predict/Cu2S_PBE");
  if (cu2s.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/n2p2 is not here");
  const double a = 4.0, L = 2 * a;
  Structure s = io::make_lattice("fcc", "Cu", a, {2, 2, 2});
  s.type_index("S");
  for (std::size_t i = 0; i < s.size(); ++i) s.types[i] = static_cast<int>(i % 2);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-0.1, 0.1);
  for (Vec3& p : s.positions) p = s.box.wrap(p + Vec3{u(rng), u(rng), u(rng)});
  const int nlocal = static_cast<int>(s.size());
  // Measured on the H100: double energy 2.3e-13 eV, virial 5.1e-13 eV, forces 2e-13 eV/Å, per-atom
  // energies 7.7e-14 and virials 4e-13 eV; mixed32 4.8e-5, 2.8e-4, 4.8e-5, 1.2e-5 and 1.1e-4.
  struct Bounds {
    const char* precision;
    double energy, virial, force, atom;
  };
  for (const Bounds& b : {Bounds{"double", 2e-11, 5e-11, 1e-11, 2e-11}, Bounds{"mixed32", 5e-4, 2e-3, 5e-4, 1e-3}}) {
    SCOPED_TRACE(b.precision);
    GhostEvaluator cpu(cu2s, "cpu", "double", 0), gpu_ghost(cu2s, "cuda", b.precision, 0);
    cpu.set_type_names({"Cu", "S"});
    gpu_ghost.set_type_names({"Cu", "S"});
    ASSERT_TRUE(gpu_ghost.on_gpu());
    const std::vector<Ghost> ghosts = ghosts_of(s.positions, L, cpu.cutoff() + 1.0);
    const int nall = nlocal + static_cast<int>(ghosts.size());
    std::vector<int> type(nall);
    for (int i = 0; i < nall; ++i) type[i] = 1 + s.types[i < nlocal ? i : ghosts[i - nlocal].owner];
    const std::string on = std::string(" (") + b.precision + ")";
    test::MaxError de("GPU - CPU energy (eV)" + on), dw("GPU - CPU virial (eV)" + on),
        df("GPU - CPU forces, ghosts included (eV/Å)" + on), dae("GPU - CPU per-atom energies (eV)" + on),
        daw("GPU - CPU per-atom virials (eV)" + on);
    std::vector<Vec3> local = s.positions;
    for (int step = 0; step < 3; ++step) {
      if (step > 0)
        for (Vec3& p : local) p = p + Vec3{u(rng), u(rng), u(rng)} * 0.3;
      std::vector<Vec3> all = local;
      for (const Ghost& g : ghosts) all.push_back(local[g.owner] + g.shift);
      Rows x(all, true);
      double energy[2] = {}, virial[2][6] = {};
      std::vector<double> f[2], ae[2], wv[2];
      for (int k = 0; k < 2; ++k) {
        Rows force(std::vector<Vec3>(nall), true);
        wv[k].assign(6 * static_cast<std::size_t>(nall), 0.0);
        ae[k].assign(nall, 0.0);
        std::vector<double*> wrow(nall);
        for (int i = 0; i < nall; ++i) wrow[i] = wv[k].data() + 6 * i;
        (k == 0 ? cpu : gpu_ghost)
            .compute(x.ptr.data(), type.data(), nlocal, nall, step == 0, force.ptr.data(), &energy[k], virial[k],
                     ae[k].data(), wrow.data());
        f[k] = force.block;
      }
      de.add(energy[1], energy[0]);
      for (int c = 0; c < 6; ++c) dw.add(virial[1][c], virial[0][c]);
      for (std::size_t j = 0; j < f[0].size(); ++j) df.add(f[1][j], f[0][j]);
      for (int i = 0; i < nlocal; ++i) dae.add(ae[1][i], ae[0][i]);
      for (std::size_t j = 0; j < wv[0].size(); ++j) daw.add(wv[1][j], wv[0][j]);
    }
    EXPECT_TRUE(de.within(b.energy));
    EXPECT_TRUE(dw.within(b.virial));
    EXPECT_TRUE(df.within(b.force));
    EXPECT_TRUE(dae.within(b.atom));
    EXPECT_TRUE(daw.within(b.atom));
  }
}

// A potential of a family that says it cannot take ghost atoms (no physics: it is refused first).
class NoGhosts : public Potential {
 public:
  std::string name() const override { return "no-ghosts"; }
  double cutoff() const override { return 0; }
  void bind(const SystemSetup&) override {}
  void compute(AtomState&, NeighborRefs, const ComputeRequest&, ForceOutput&) override {}
};

// A family whose potentials do not handle ghost atoms is refused, naming the term and the families
// that do.
TEST(GhostEvaluator, RefusesFamiliesWithoutGhostAtoms) {
  PotentialFamily f;
  f.name = "no-ghosts";
  f.description = "a test family without ghost atoms";
  f.capabilities.gpu = true;
  f.from_config = [](const ConfigTable&, const std::filesystem::path&) -> std::unique_ptr<Potential> {
    return std::make_unique<NoGhosts>();
  };
  potential_registry().add(f);
  const std::filesystem::path dir = test::scratch_dir("ghost_refused");
  const std::string toml = (dir / "ff.toml").string();
  std::ofstream(toml) << "[[potential]]\ntype = \"lj\"\ncutoff = 3.0\nspecies.Ar = { epsilon = 0.01, sigma = 3.4 }\n"
                         "[[potential]]\ntype = \"no-ghosts\"\nname = \"tail\"\n";
  try {
    GhostEvaluator ghost(toml, "cpu", "double", 0);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("ff.toml: the term 'tail' (no-ghosts) does not support ghost atoms"),
              std::string::npos)
        << e.what();
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace quasar
