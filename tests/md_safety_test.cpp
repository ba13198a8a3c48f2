// MD safety: non-finite forces and positions, and atoms that outrun half the skin in one step, stop
// the run naming the step and the atom; a checkpoint written before stays as it was. The expected
// step, atom and distance follow from how each case is built (a nan placed at a known step, atoms
// on top of each other, a known speed times the timestep in a lattice where forces vanish).
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include "quasar/md/integrators/fire.hpp"
#include "quasar/md/simulation.hpp"
#include "test_systems.hpp"

namespace quasar {
namespace {

// fcc argon at its LJ lattice constant: every force vanishes by symmetry.
Structure argon() { return io::make_lattice("fcc", "Ar", 5.26, {3, 3, 3}); }

md::MdSettings settings(const std::string& integrator, double dt_fs) {
  md::MdSettings s;
  s.integrator.kind = integrator;
  s.integrator.dt = dt_fs * 1e-3;
  s.integrator.temperature = 0;
  s.integrator.tau_t = 1000;  // Langevin: friction too weak to matter over a step
  s.init_velocities = false;
  s.steps = 10;
  s.output.progress = false;
  s.output.thermo_screen = false;
  s.output.thermo_every = 10;
  s.skin = 1.0;
  return s;
}

// The message of the Error that f throws ("" when it throws none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Array index of the atom with input index `input` (the list re-sorts atoms).
std::size_t index_of(const AtomState& atoms, long input) {
  const auto ids = atoms.id.to_vector();
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (ids[i] == input) return i;
  throw Error("no atom " + std::to_string(input));
}

class Safety : public testing::TestWithParam<Backend> {};

TEST_P(Safety, OverlappingAtomsStopTheRunAtStepZero) {
  // Atom 9 on top of atom 5: their pair force is inf times a zero distance, nan.
  Structure s = argon();
  s.positions[9] = s.positions[5];
  md::Simulation sim(s, test::argon_lj(), settings("nve", 2), GetParam());
  EXPECT_EQ(error_of([&] { sim.run(); }), "force on atom 5 (id 6) is nan at step 0");
}

TEST_P(Safety, NanPositionStopsAtItsStepAndKeepsTheCheckpoint) {
  const auto dir = test::scratch_dir("safety-" + std::string(backend_name(GetParam())));
  Structure s = argon();
  s.ids.resize(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) s.ids[i] = 1001 + static_cast<long>(i);  // as a data file may number them
  md::MdSettings st = settings("nve", 2);
  st.init_velocities = true;
  st.integrator.temperature = 40;
  st.steps = 30;
  st.output.checkpoint = (dir / "run.chk").string();
  st.output.checkpoint_every = 10;
  st.output.thermo_csv = (dir / "thermo.csv").string();
  md::Simulation sim(s, test::argon_lj(), st, GetParam());
  sim.run_to(14);  // the last step of a call writes a checkpoint
  const std::string checkpoint = slurp(dir / "run.chk");
  ASSERT_FALSE(checkpoint.empty());
  // x of input atom 17 becomes nan after step 14: step 15's drift carries it into the position.
  std::vector<double> x = sim.atoms().x.to_vector();
  x[index_of(sim.atoms(), 17)] = std::numeric_limits<double>::quiet_NaN();
  sim.atoms().x.assign(x);
  // The GPU finds out at the next output step (20) and still names step 15.
  EXPECT_EQ(error_of([&] { sim.run_to(30); }), "position of atom 17 (id 1018) is nan at step 15");
  EXPECT_EQ(slurp(dir / "run.chk"), checkpoint) << "the checkpoint of step 14 was overwritten";
  // Thermo lines of steps 0, 10 and 14; none after the fault.
  const std::string csv = slurp(dir / "thermo.csv");
  EXPECT_EQ(csv.substr(csv.rfind('\n', csv.size() - 2) + 1, 3), "14,") << csv;
  // Asked directly, the simulation refuses to checkpoint the bad state.
  EXPECT_NE(error_of([&] { sim.write_checkpoint((dir / "run.chk").string()); }).find("is nan at step"),
            std::string::npos);
  EXPECT_EQ(slurp(dir / "run.chk"), checkpoint);
  std::filesystem::remove_all(dir);
}

TEST_P(Safety, TooLargeTimestepStopsWhereAnAtomOutrunsHalfTheSkin) {
  // Two atoms given speeds in a lattice without forces move dt v in a step: 30 and 40 Å/ps against
  // half the 1 Å skin. 10 fs moves them 0.3 and 0.4 Å; 20 fs moves them 0.6 and 0.8 Å, and the
  // smaller input index is named.
  Structure s = argon();
  s.velocities.assign(s.size(), Vec3{});
  s.velocities[17] = {30, 0, 0};
  s.velocities[40] = {0, -40, 0};
  for (const std::string kind : {"nve", "langevin"}) {
    md::MdSettings ok = settings(kind, 10);
    ok.steps = 3;
    md::Simulation fine(s, test::argon_lj(), ok, GetParam());
    EXPECT_EQ(error_of([&] { fine.run(); }), "") << kind;
    md::Simulation sim(s, test::argon_lj(), settings(kind, 20), GetParam());
    EXPECT_EQ(error_of([&] { sim.run(); }),
              "atom 17 (id 18) moved 0.6 Å in one step at step 1, more than half the neighbour-list skin (1 Å): "
              "the timestep is too large for these forces and velocities")
        << kind;
  }
}

TEST_P(Safety, FireStopsAtANonFiniteForce) {
  Structure s = argon();
  s.positions[30] = s.positions[12];
  ForceField lj(test::argon_lj());
  AtomState atoms(GetParam(), s);
  lj.bind(SystemSetup::of(s));
  NeighborLists lists(GetParam(), lj.neighbor_requests(GetParam()), 1.0, 0);
  lists.build(atoms);
  ForceOutput out(GetParam());
  EXPECT_EQ(error_of([&] { md::minimize_fire(atoms, lists, lj, out, {}); }),
            "force on atom 12 (id 13) is nan at minimisation step 0");
}

QUASAR_INSTANTIATE_BACKENDS(Safety);

}  // namespace
}  // namespace quasar
