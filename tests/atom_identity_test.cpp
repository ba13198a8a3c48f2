// Atom identity through spatial sorting: every per-atom property of the registry (the built-in ones
// and one a test adds) follows its atom when the atoms are re-sorted, is checkpointed in input order
// and restored to the order the run had, so that a restarted run with sorting continues bit for bit;
// trajectories and structures come out in input order.
#include <cstring>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "quasar/core/error.hpp"
#include "quasar/io/extxyz.hpp"
#include "quasar/md/simulation.hpp"
#include "quasar/neighbor/neighbor_list.hpp"
#include "test_systems.hpp"

namespace quasar {
namespace {

// The value component c of the test's property takes for the atom of input index k.
double dipole_of(long k, int c) { return 0.25 * static_cast<double>(k) + 100.0 * c + 0.5; }

// Fills a width-3 property by input index.
void fill_dipoles(AtomState& atoms, Array<double>& dipole) {
  const auto ids = atoms.id.to_vector();
  const std::size_t n = ids.size();
  std::vector<double> v(3 * n);
  for (std::size_t i = 0; i < n; ++i)
    for (int c = 0; c < 3; ++c) v[c * n + i] = dipole_of(ids[i], c);
  dipole.assign(v);
}

// Whether every atom's property values are those of its input index.
::testing::AssertionResult dipoles_follow_atoms(AtomState& atoms) {
  Array<double>* dipole = atoms.find_property<double>("dipole");
  if (!dipole) return ::testing::AssertionFailure() << "no dipole property";
  const auto ids = atoms.id.to_vector();
  const auto v = dipole->to_vector();
  const std::size_t n = ids.size();
  if (v.size() != 3 * n) return ::testing::AssertionFailure() << v.size() << " values for " << n << " atoms";
  for (std::size_t i = 0; i < n; ++i)
    for (int c = 0; c < 3; ++c)
      if (v[c * n + i] != dipole_of(ids[i], c))
        return ::testing::AssertionFailure() << "atom " << ids[i] << " (at " << i << ") has dipole " << v[c * n + i];
  return ::testing::AssertionSuccess();
}

bool sorted_away(const AtomState& atoms) {
  const auto ids = atoms.id.to_vector();
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (ids[i] != static_cast<long>(i)) return true;
  return false;
}

class AtomIdentity : public testing::TestWithParam<Backend> {};

// A property added to the registry is permuted with the atoms, written by to_structure in input
// order, and loaded from a structure's column of its name.
TEST_P(AtomIdentity, AddedPropertyFollowsItsAtoms) {
  const Structure s = test::distorted_fcc({3, 3, 3}, 5.3, 0.1, 0.2, 5, {"Ar"});
  AtomState atoms(GetParam(), s);
  Array<double>& dipole = atoms.add_property<double>("dipole", 3);
  Array<int>& tag = atoms.add_property<int>("tag", 1, false);
  EXPECT_EQ(&atoms.add_property<double>("dipole", 3), &dipole) << "adding it again gives the same array";
  EXPECT_THROW(atoms.add_property<int>("dipole", 3), Error);
  EXPECT_THROW(atoms.add_property<double>("x"), Error);
  fill_dipoles(atoms, dipole);
  std::vector<int> tags(s.size());
  for (std::size_t i = 0; i < tags.size(); ++i) tags[i] = 7 * static_cast<int>(i);
  tag.assign(tags);
  NeighborList list(GetParam(), {3.0, 0.5, ListKind::Full, 1});
  list.build(atoms);
  list.update(atoms, 1);  // re-sorted
  ASSERT_TRUE(sorted_away(atoms));
  EXPECT_TRUE(dipoles_follow_atoms(atoms));
  const auto ids = atoms.id.to_vector();
  const auto t = tag.to_vector();
  for (std::size_t i = 0; i < ids.size(); ++i) ASSERT_EQ(t[i], 7 * ids[i]);
  // Output: in input order, the added property as a column (the tag was added without output).
  Structure back = atoms.to_structure();
  ASSERT_EQ(back.columns.count("dipole"), 1u);
  EXPECT_EQ(back.columns.count("tag"), 0u);
  const auto& col = back.columns.at("dipole");
  ASSERT_EQ(col.width, 3);
  for (std::size_t k = 0; k < s.size(); ++k)
    for (int c = 0; c < 3; ++c) ASSERT_EQ(col.values[3 * k + static_cast<std::size_t>(c)], dipole_of(static_cast<long>(k), c));
  for (std::size_t k = 0; k < s.size(); ++k)
    for (int c = 0; c < 3; ++c) ASSERT_EQ(back.positions[k][c], s.box.wrap(s.positions[k])[c]) << "atom " << k;
  // Loading: a structure's column of the property's name fills it, one without gives zeros.
  for (double& v : back.columns.at("dipole").values) v *= 2;
  atoms.load(back);
  const auto loaded = dipole.to_vector();
  const std::size_t n = s.size();
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(loaded[2 * n + i], 2 * dipole_of(static_cast<long>(i), 2));
  atoms.load(s);
  for (double v : dipole.to_vector()) ASSERT_EQ(v, 0.0);
}

// Langevin argon with the atoms re-sorted every 7 steps and a test property in the registry,
// deterministic (fixed-point sums on the GPU).
md::MdSettings sorted_langevin(long steps) {
  md::MdSettings st;
  st.integrator.kind = "langevin";
  st.integrator.temperature = 80;
  st.integrator.dt = 0.002;
  st.integrator.seed = 17;
  st.steps = steps;
  st.skin = 0.6;
  st.sort_every = 7;
  st.deterministic = true;
  st.output.progress = false;
  st.output.thermo_screen = false;
  st.output.thermo_every = 10;
  return st;
}

std::unique_ptr<md::Simulation> argon_run(const Structure& s, const md::MdSettings& st, Backend b) {
  auto sim = std::make_unique<md::Simulation>(s, std::shared_ptr<Potential>(test::argon_lj(6.0)), st, b);
  fill_dipoles(sim->atoms(), sim->atoms().add_property<double>("dipole", 3));
  return sim;
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Checkpoints hold every property in input order (with the order the atoms are in), and a run
// restarted from one continues bit for bit, sorting included; trajectories are in input order.
TEST_P(AtomIdentity, CheckpointsAndTrajectoriesAreInInputOrder) {
  const Backend b = GetParam();
  const auto dir = test::scratch_dir(std::string("atom-identity-") + backend_name(b));
  const Structure s = test::distorted_fcc({3, 3, 3}, 5.3, 0.05, 0.05, 9, {"Ar"});
  // Uninterrupted: 40 steps, checkpoints every 20 (a checkpoint rebuilds the lists, as in the run
  // that is interrupted), a trajectory every 10.
  md::MdSettings st = sorted_langevin(40);
  st.output.checkpoint = (dir / "full.chk").string();
  st.output.checkpoint_every = 20;
  st.output.trajectory = (dir / "traj.xyz").string();
  st.output.trajectory_every = 10;
  auto full = argon_run(s, st, b);
  full->run();
  ASSERT_TRUE(sorted_away(full->atoms()));
  EXPECT_TRUE(dipoles_follow_atoms(full->atoms()));
  const Structure want = full->atoms().to_structure();

  // The trajectory: input order, with the added property as a column.
  const std::vector<Structure> frames = io::read_extxyz(st.output.trajectory);
  ASSERT_EQ(frames.size(), 5u);
  test::MaxError drift(std::string("trajectory atom k - input atom k (Å) on ") + backend_name(b));
  for (const Structure& f : frames) {
    ASSERT_EQ(f.size(), s.size());
    ASSERT_EQ(f.columns.count("dipole"), 1u);
    for (std::size_t k = 0; k < f.size(); ++k) {
      ASSERT_EQ(f.columns.at("dipole").values[3 * k + 1], dipole_of(static_cast<long>(k), 1));
      drift.add(std::sqrt(norm2(s.box.minimum_image(f.positions[k] - s.positions[k]))), 0.0);
    }
  }
  // Thermal motion over 80 fs at 80 K: measured ~0.1 Å; a wrong order would put atoms ~3.7 Å apart.
  EXPECT_TRUE(drift.within(0.5));
  for (int c = 0; c < 3; ++c) EXPECT_EQ(frames.back().positions[5][c], want.positions[5][c]);

  // The checkpoint at step 40: the order, then x in input order (the state's own, bit for bit).
  const std::string bytes = read_bytes(st.output.checkpoint);
  const std::size_t h1 = bytes.find('\n'), h2 = bytes.find('\n', h1 + 1);
  const auto header = nlohmann::json::parse(bytes.substr(h1 + 1, h2 - h1 - 1));
  EXPECT_EQ(header["properties"].back()["name"], "dipole");
  EXPECT_EQ(header["properties"].back()["width"], 3);
  const std::size_t n = s.size();
  std::vector<long> order(n);
  std::vector<double> x(n);
  std::memcpy(order.data(), &bytes[h2 + 1], n * sizeof(long));
  std::memcpy(x.data(), &bytes[h2 + 1 + n * sizeof(long)], n * sizeof(double));
  EXPECT_EQ(order, full->atoms().id.to_vector());
  for (std::size_t k = 0; k < n; ++k) ASSERT_EQ(x[k], want.positions[k].x) << "atom " << k;

  // Interrupted at step 20 and restarted: the same bits at step 40, the property restored.
  md::MdSettings first = st;
  first.steps = 20;
  first.output.checkpoint = (dir / "half.chk").string();
  first.output.trajectory.clear();
  auto half = argon_run(s, first, b);
  half->run();
  const std::vector<long> order_at_20 = half->atoms().id.to_vector();
  ASSERT_TRUE(sorted_away(half->atoms()));
  md::MdSettings second = st;
  second.output.checkpoint.clear();
  second.output.trajectory.clear();
  auto resumed = std::make_unique<md::Simulation>(s, std::shared_ptr<Potential>(test::argon_lj(6.0)), second, b);
  resumed->atoms().add_property<double>("dipole", 3);
  resumed->read_checkpoint(first.output.checkpoint);
  EXPECT_TRUE(dipoles_follow_atoms(resumed->atoms()));
  EXPECT_EQ(resumed->atoms().id.to_vector(), order_at_20) << "the atoms in the order the run had";
  resumed->run();
  const Structure got = resumed->atoms().to_structure();
  for (std::size_t k = 0; k < n; ++k)
    for (int c = 0; c < 3; ++c) {
      ASSERT_EQ(got.positions[k][c], want.positions[k][c]) << "atom " << k;
      ASSERT_EQ(got.velocities[k][c], want.velocities[k][c]) << "atom " << k;
    }
  EXPECT_EQ(resumed->atoms().id.to_vector(), full->atoms().id.to_vector()) << "the same order as the uninterrupted run";
  EXPECT_TRUE(dipoles_follow_atoms(resumed->atoms()));

  // A run whose registry lacks the property cannot take the checkpoint, and says why.
  md::Simulation other(s, std::shared_ptr<Potential>(test::argon_lj(6.0)), sorted_langevin(0), b);
  try {
    other.read_checkpoint(first.output.checkpoint);
    ADD_FAILURE() << "a checkpoint with another property was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("iz dipole) differ from this run's (x y z vx vy vz fx fy fz type ix iy iz)"),
              std::string::npos)
        << e.what();
  }
  std::filesystem::remove_all(dir);
}

QUASAR_INSTANTIATE_BACKENDS(AtomIdentity);

}  // namespace
}  // namespace quasar
