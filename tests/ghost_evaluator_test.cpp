// GhostEvaluator (the engine of the LAMMPS pair style) against Quasar's periodic evaluation: the
// atoms of a periodic crystal as local atoms and their images near the box as ghosts, handed over
// as a domain-decomposed code does, first at a re-neighbouring and then moved without one.
#include <array>
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

class GhostEvaluatorTest : public testing::TestWithParam<Backend> {};

TEST_P(GhostEvaluatorTest, MatchesThePeriodicEvaluation) {
  const std::string model = test::source_path("examples/silicon/model.dp");
  GhostEvaluator ghost(model, backend_name(GetParam()), "double", 0);
  ghost.set_type_names({"Si"});
  const double a = 5.38, L = 2 * a, shell = ghost.cutoff() + 1.0;
  ASSERT_LT(shell, L);
  Structure s = io::make_lattice("diamond", "Si", a, {2, 2, 2});
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-0.1, 0.1);
  for (Vec3& p : s.positions) p = s.box.wrap(p + Vec3{u(rng), u(rng), u(rng)});
  const int nlocal = static_cast<int>(s.size());
  const std::vector<Ghost> ghosts = ghosts_of(s.positions, L, shell);
  const int nall = nlocal + static_cast<int>(ghosts.size());
  const std::vector<int> type(nall, 1);
  auto reference = load_model(model);
  // Energy: measured 0 on the CPU (it rounds at 6e-14 eV), 2.7e-12 eV on the H100, whose reductions
  // sum in another order. Virial: 2.8e-14 eV on the CPU, 4.7e-14 on the H100. Forces: 8.5e-15 eV/Å on
  // the CPU, 1e-14 on the H100 (also layer by layer).
  const bool cpu = GetParam() == Backend::Cpu;
  test::MaxError de(std::string("energy (eV) on ") + backend_name(GetParam()));
  test::MaxError dw(std::string("virial (eV) on ") + backend_name(GetParam()));
  test::MaxError df(std::string("forces (eV/Å) on ") + backend_name(GetParam()));

  for (int step = 0; step < 3; ++step) {
    // Step 0 is a re-neighbouring; then the atoms move (some out of the box) and the ghosts with them.
    if (step > 0)
      for (Vec3& p : s.positions) p = p + Vec3{u(rng), u(rng), u(rng)} * 0.3;
    std::vector<Vec3> all = s.positions;
    for (const Ghost& g : ghosts) all.push_back(s.positions[g.owner] + g.shift);
    const Evaluation ref = evaluate(*reference, s, Backend::Cpu);

    for (bool one_block : {true, false}) {
      SCOPED_TRACE("step " + std::to_string(step) + (one_block ? ", rows in one block" : ", rows apart"));
      Rows x(all, one_block), f(std::vector<Vec3>(nall), one_block);
      double energy = 0, virial[6] = {};
      ghost.compute(x.ptr.data(), type.data(), nlocal, nall, step == 0 && one_block, f.ptr.data(), &energy, virial,
                    nullptr, nullptr);
      de.add(energy, ref.energy);
      const int voigt[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}};
      for (int k = 0; k < 6; ++k) dw.add(virial[k], ref.virial(voigt[k][0], voigt[k][1]));
      // Ghost forces go to their owners, as the code's reverse communication does.
      std::vector<Vec3> total(nlocal);
      for (int i = 0; i < nall; ++i) {
        const int owner = i < nlocal ? i : ghosts[i - nlocal].owner;
        total[owner] = total[owner] + Vec3{f.ptr[i][0], f.ptr[i][1], f.ptr[i][2]};
      }
      for (int i = 0; i < nlocal; ++i)
        for (int m = 0; m < 3; ++m) df.add(total[i][m], ref.forces[i][m]);
    }
  }
  EXPECT_TRUE(de.within(cpu ? 1e-11 : 1e-10));
  EXPECT_TRUE(dw.within(1e-12));
  EXPECT_TRUE(df.within(5e-13));
}

QUASAR_INSTANTIATE_BACKENDS(GhostEvaluatorTest);

}  // namespace
}  // namespace quasar
