// Batches of systems: many frames in one AtomState (a batch), evaluated in one set of launches, give
// every frame what it gives alone, for Lennard-Jones, EAM and the Deep Potential, with frames of
// different sizes, cells and periodicity, force fields of one and of two terms, on both backends;
// spatial sorting of a batch changes nothing either; the commands (`quasar eval`, model deviation)
// evaluate their frames as batches.
#include <random>

#include <nlohmann/json.hpp>

#include "quasar/core/error.hpp"
#include "quasar/io/deepmd_npy.hpp"
#include "quasar/io/extxyz.hpp"
#include "quasar/neighbor/neighbor_lists.hpp"
#include "quasar/potential/evaluate.hpp"
#include "quasar/potential/model_devi.hpp"
#include "quasar/potential/registry.hpp"
#include "test_systems.hpp"

namespace quasar {
namespace {

// Frames of one element: crystals in cells of different shapes, a slab, a cluster without a cell,
// and a single atom among its own images.
std::vector<Structure> element_frames(const std::string& element, double a, unsigned seed) {
  std::vector<Structure> out;
  out.push_back(test::distorted_fcc({2, 2, 2}, a, 0.0, 0.05, seed, {element}));
  out.push_back(test::distorted_fcc({3, 2, 2}, a, 0.15, 0.08, seed + 1, {element}));
  Structure slab = test::distorted_fcc({2, 3, 2}, a, 0.1, 0.06, seed + 2, {element});
  slab.box = Box::from_matrix(slab.box.h, {}, {true, true, false});
  out.push_back(slab);
  Structure cluster = test::distorted_fcc({2, 2, 1}, a, 0.0, 0.1, seed + 3, {element});
  cluster.positions.resize(13);
  cluster.types.resize(13);
  cluster.box = Box::enclosing(cluster.positions);
  out.push_back(cluster);
  Structure one = io::make_lattice("sc", element, 0.75 * a, {1, 1, 1});  // one atom and its images
  out.push_back(one);
  for (Structure& s : out)
    for (double& m : s.type_masses) m = m > 0 ? m : 50.0;
  return out;
}

// Water from DeePMD-kit's training data: a whole frame, half of one (every other atom), one in a
// larger sheared cell, a cluster cut from one without a cell, and a frame whose type names come in
// the other order (H before O), which the batch merges with the rest.
std::vector<Structure> water_frames(const std::string& data) {
  std::vector<Structure> out;
  out.push_back(io::read_deepmd_frame(data, 0, 0));
  Structure half = io::read_deepmd_frame(data, 0, 1);
  Structure kept = half;
  kept.positions.clear();
  kept.types.clear();
  for (std::size_t i = 0; i < half.size(); i += 2) {
    kept.positions.push_back(half.positions[i]);
    kept.types.push_back(half.types[i]);
  }
  out.push_back(kept);
  Structure sheared = io::read_deepmd_frame(data, 0, 2);
  Mat3 h = sheared.box.h;
  h.r[0] = 1.1 * h.r[0];
  h.r[1] = h.r[1] + 0.2 * h.r[0];
  sheared.box.set_matrix(h);
  out.push_back(sheared);
  Structure cluster = io::read_deepmd_frame(data, 0, 3);
  cluster.positions.resize(40);
  cluster.types.resize(40);
  cluster.box = Box::enclosing(cluster.positions);
  out.push_back(cluster);
  Structure swapped = io::read_deepmd_frame(data, 0, 4);
  std::swap(swapped.type_names[0], swapped.type_names[1]);
  std::swap(swapped.type_masses[0], swapped.type_masses[1]);
  for (int& t : swapped.types) t = 1 - t;
  out.push_back(swapped);
  for (Structure& s : out) {  // the training labels do not fit the cut frames
    s.forces.clear();
    s.energy.reset();
    s.virial.reset();
  }
  return out;
}

// Batched (got) against one at a time (want), relative to each frame's largest magnitudes: energies
// and virials to the frame's energy and virial, forces to its largest force, per-atom values to the
// largest per-atom value.
struct BatchErrors {
  test::MaxError energy, forces, virial, per_atom;
  explicit BatchErrors(const std::string& what)
      : energy("energies, batched - single, " + what), forces("forces, batched - single, " + what),
        virial("virials, batched - single, " + what), per_atom("per-atom values, batched - single, " + what) {}
  void add(const Evaluation& got, const Evaluation& want) {
    const double e = std::max(std::abs(want.energy), 1e-300);
    energy.add(got.energy / e, want.energy / e);
    ASSERT_EQ(got.terms.size(), want.terms.size());
    for (std::size_t k = 0; k < want.terms.size(); ++k) {
      EXPECT_EQ(got.terms[k].name, want.terms[k].name);
      energy.add(got.terms[k].energy / e, want.terms[k].energy / e);
    }
    double fmax = 1e-300, wmax = 1e-300, amax = 1e-300;
    for (const Vec3& f : want.forces) fmax = std::max({fmax, std::abs(f.x), std::abs(f.y), std::abs(f.z)});
    for (int c = 0; c < 9; ++c) wmax = std::max(wmax, std::abs(want.virial(c / 3, c % 3)));
    for (double a : want.atom_energy) amax = std::max(amax, std::abs(a));
    for (const Mat3& w : want.atom_virial)
      for (int c = 0; c < 9; ++c) amax = std::max(amax, std::abs(w(c / 3, c % 3)));
    ASSERT_EQ(got.forces.size(), want.forces.size());
    for (std::size_t i = 0; i < want.forces.size(); ++i)
      for (int k = 0; k < 3; ++k) forces.add(got.forces[i][k] / fmax, want.forces[i][k] / fmax);
    for (int c = 0; c < 9; ++c) virial.add(got.virial(c / 3, c % 3) / wmax, want.virial(c / 3, c % 3) / wmax);
    ASSERT_EQ(got.atom_energy.size(), want.atom_energy.size());
    ASSERT_EQ(got.atom_virial.size(), want.atom_virial.size());
    for (std::size_t i = 0; i < want.atom_energy.size(); ++i) {
      per_atom.add(got.atom_energy[i] / amax, want.atom_energy[i] / amax);
      for (int c = 0; c < 9; ++c)
        per_atom.add(got.atom_virial[i](c / 3, c % 3) / amax, want.atom_virial[i](c / 3, c % 3) / amax);
    }
  }
  void expect_within(double tol) const {
    EXPECT_TRUE(energy.within(tol));
    EXPECT_TRUE(forces.within(tol));
    EXPECT_TRUE(virial.within(tol));
    EXPECT_TRUE(per_atom.within(tol));
  }
};

class Batches : public testing::TestWithParam<Backend> {
 protected:
  // The frames as one batch against each frame alone, with and without per-atom parts.
  void expect_batched_equals_single(ForceField& ff, const std::vector<Structure>& frames, const std::string& what,
                                    double tol) {
    const Backend b = GetParam();
    const std::string on = what + " on " + backend_name(b);
    BatchErrors err(on);
    for (bool per_atom : {true, false}) {
      const std::vector<Evaluation> batched = evaluate_batch(ff, frames, b, per_atom);
      ASSERT_EQ(batched.size(), frames.size());
      for (std::size_t k = 0; k < frames.size(); ++k) {
        SCOPED_TRACE(on + ", frame " + std::to_string(k));
        const Evaluation single = evaluate(ff, frames[k], b, per_atom);
        err.add(batched[k], single);
        EXPECT_GT(std::abs(single.energy), 0.0);
      }
    }
    err.expect_within(tol);
  }
};

// The batch's per-system energies and virials are sums of per-atom parts in another order than a
// single evaluation's totals, and on the GPU the Deep Potential's atomics land in any order; so they
// agree to rounding, not to the bit. Tolerances (relative to each frame's largest magnitude) are
// about 100x the largest of energies, forces, virials and per-atom values measured on the CPU (1, 2
// and 8 threads) and on an H100, at least 1e-14; each test says what was measured. On the CPU the
// forces agree to the bit (each system's list and pair sums are those of the system alone) up to
// the Deep Potential's on several threads; per-atom values are 0 with one term, up to 1e-15 with two,
// whose parts a batch adds up in another order.
bool on_gpu(Backend b) { return b == Backend::Cuda; }

TEST_P(Batches, LennardJonesOfOneAndTwoTerms) {
  const std::vector<Structure> frames = element_frames("Ar", 5.3, 11);
  ForceField one{std::shared_ptr<Potential>(test::argon_lj())};
  // Measured on the CPU 3.3e-15 (virials), on the H100 0; with the tail term 1.1e-14 (energies) and 0.
  const bool gpu = on_gpu(GetParam());
  expect_batched_equals_single(one, frames, "lj", gpu ? 1e-14 : 4e-13);
  // Two terms: per-term energies per system from each term's own per-atom parts.
  ForceField two;
  two.add(std::shared_ptr<Potential>(test::argon_lj()));
  two.add(std::make_shared<LennardJones>(std::map<std::string, LjSpecies>{{"Ar", {0.003, 4.1}}}, 6.0, false, false),
          "tail");
  expect_batched_equals_single(two, frames, "lj + tail", gpu ? 1e-14 : 1e-12);
}

TEST_P(Batches, EamAloneAndWithALennardJonesTerm) {
  auto eam = test::copper_eam();
  if (!eam) return test::missing(test::Dependency::LammpsData, "lammps-data's Cu_u3.eam is not installed");
  const std::vector<Structure> frames = element_frames("Cu", 3.615, 21);
  ForceField one(std::shared_ptr<Potential>(std::move(eam)));
  // Measured on the CPU 2.4e-15 (energies), on the H100 2.2e-16; with LJ 2.4e-15 and 3.3e-16.
  const bool gpu = on_gpu(GetParam());
  expect_batched_equals_single(one, frames, "eam", gpu ? 3e-14 : 3e-13);
  ForceField two;
  two.add(std::shared_ptr<Potential>(test::copper_eam()));
  two.add(std::make_shared<LennardJones>(std::map<std::string, LjSpecies>{{"Cu", {0.05, 2.3}}}, 6.0, true, false));
  expect_batched_equals_single(two, frames, "eam + lj", gpu ? 4e-14 : 3e-13);
}

TEST_P(Batches, DeepPotentialWaterOfEverySizeAndCell) {
  QUASAR_REQUIRE_FAMILY("deepmd");
  const std::string model = test::shared_path("reference/deepmd/deeppot_sea.yaml");
  const std::string data = test::shared_path("reference/deepmd/water-data/data_0");
  if (model.empty() || data.empty())
    return test::missing(test::Dependency::SharedData, "../shared/reference/deepmd (model, water data) is missing");
  const std::vector<Structure> frames = water_frames(data);
  ForceField ff(std::shared_ptr<Potential>(load_model(model)));
  // Measured on the CPU 2.9e-15 (forces, 8 threads; 0 on one), on the H100 1.3e-15 (forces); with LJ
  // 1.3e-15 (virials) and 2.2e-16.
  const bool gpu = on_gpu(GetParam());
  expect_batched_equals_single(ff, frames, "deepmd", gpu ? 2e-13 : 3e-13);
  // With a pair term after it: the Deep Potential's per-atom parts separated from the next term's.
  ForceField two;
  two.add(std::shared_ptr<Potential>(load_model(model)));
  two.add(std::make_shared<LennardJones>(std::map<std::string, LjSpecies>{{"O", {0.006, 3.1}}, {"H", {0.0, 1.0}}}, 5.0,
                                         true, false));
  expect_batched_equals_single(two, frames, "deepmd + lj", gpu ? 3e-14 : 2e-13);
}

// Deterministic sums on the GPU (fixed point): a batch evaluated twice gives the same bits, and the
// frames still agree with their single evaluations.
TEST_P(Batches, DeterministicBatchesRepeatBitForBit) {
  const std::vector<Structure> frames = element_frames("Ar", 5.3, 31);
  ForceField ff{std::shared_ptr<Potential>(test::argon_lj())};
  const auto a = evaluate_batch(ff, frames, GetParam(), true, true);
  const auto b = evaluate_batch(ff, frames, GetParam(), true, true);
  BatchErrors err(std::string("lj deterministic on ") + backend_name(GetParam()));
  for (std::size_t k = 0; k < frames.size(); ++k) {
    EXPECT_EQ(a[k].energy, b[k].energy);
    for (std::size_t i = 0; i < a[k].forces.size(); ++i)
      for (int c = 0; c < 3; ++c) ASSERT_EQ(a[k].forces[i][c], b[k].forces[i][c]);
    // Against the frame alone without fixed point: a batch's totals are sums of per-atom parts (the
    // same bits either way for LJ), a deterministic frame's totals are fixed-point block sums with a
    // resolution of 2^-28 eV (3.7e-9 eV: the H100 measured 2.5e-8 relative against them).
    err.add(a[k], evaluate(ff, frames[k], GetParam(), true));
  }
  // Measured on the CPU 1.4e-15 (energies and virials); on the H100 0 (a floor at rounding scale).
  err.expect_within(on_gpu(GetParam()) ? 1e-14 : 2e-13);
}

// A batch spatially sorted (as an ensemble run re-sorts) evaluates as before: each frame's forces
// come back in its input order.
TEST_P(Batches, SortedBatchGivesTheSameFrames) {
  const std::vector<Structure> frames = element_frames("Ar", 5.3, 41);
  ForceField ff{std::shared_ptr<Potential>(test::argon_lj())};
  const Backend b = GetParam();
  const std::vector<Evaluation> plain = evaluate_batch(ff, frames, b, true);
  AtomState atoms(b, frames);
  ff.bind(SystemSetup::of(std::span<const Structure>(frames)));
  NeighborLists lists(b, ff.neighbor_requests(b), 0.5, 1);
  lists.update(atoms, 1);  // sort_every = 1: re-sorted, then built
  const auto ids = atoms.id.to_vector();
  bool moved = false;
  for (std::size_t i = 0; i < ids.size(); ++i) moved = moved || ids[i] != static_cast<long>(i);
  EXPECT_TRUE(moved) << "the sort should have moved atoms";
  ForceOutput out(b);
  ff.compute(atoms, lists.refs(), {true, true, true}, out);
  const std::vector<double> totals = out.system_term_totals();
  const auto fx = atoms.fx.to_vector();
  const std::vector<int>& offsets = atoms.system_offsets();
  test::MaxError de("sorted batch energies"), df("sorted batch forces");
  for (std::size_t k = 0; k < frames.size(); ++k) de.add(totals[k * ForceOutput::kTotals], plain[k].energy);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const auto s = std::upper_bound(offsets.begin(), offsets.end(), static_cast<int>(ids[i])) - offsets.begin() - 1;
    df.add(fx[i], plain[static_cast<std::size_t>(s)].forces[static_cast<std::size_t>(ids[i] - offsets[s])].x);
  }
  // Another order of the same sums (the sort changes which atom's list comes first): measured 0 eV
  // (frames of up to 2.8 eV) and 3.5e-18 eV/Å (forces up to 0.27 eV/Å) on the CPU, 0 and 0 on the
  // H100; tolerances at rounding scale, about 1e-14 of those magnitudes.
  EXPECT_TRUE(de.within(5e-14));
  EXPECT_TRUE(df.within(3e-15));
}

TEST_P(Batches, ModelDeviationOfABatchEqualsFrameByFrame) {
  const std::vector<Structure> frames = element_frames("Ar", 5.3, 51);
  ForceField a{std::shared_ptr<Potential>(test::argon_lj())};
  ForceField b(std::make_shared<LennardJones>(std::map<std::string, LjSpecies>{{"Ar", {0.011, 3.3}}}, 8.0, true, false));
  ForceField* const models[2] = {&a, &b};
  const std::vector<ModelDeviation> batched = model_deviations(models, frames, GetParam());
  test::MaxError err(std::string("model deviation, batched - single, on ") + backend_name(GetParam()));
  for (std::size_t k = 0; k < frames.size(); ++k) {
    const ModelDeviation one = model_deviation(models, frames[k], GetParam());
    const double f = std::max(one.max_f, 1e-300), v = std::max(one.max_v, 1e-300);  // relative to the largest
    for (auto [got, want] : {std::pair{batched[k].max_f, one.max_f}, {batched[k].avg_f, one.avg_f}, {batched[k].min_f, one.min_f}})
      err.add(got / f, want / f);
    for (auto [got, want] : {std::pair{batched[k].max_v, one.max_v}, {batched[k].avg_v, one.avg_v}, {batched[k].min_v, one.min_v}})
      err.add(got / v, want / v);
    if (frames[k].size() > 1) {
      EXPECT_GT(one.max_f, 0.0);
    }
  }
  // Measured 2.4e-15 on the CPU, 0 on the H100.
  EXPECT_TRUE(err.within(on_gpu(GetParam()) ? 1e-14 : 3e-13));
}

QUASAR_INSTANTIATE_BACKENDS(Batches);

// Splitting frames into batches: at most so many atoms (a larger frame alone), charges alike.
TEST(BatchSplit, ByAtomsAndCharges) {
  std::vector<Structure> frames(7, io::make_lattice("sc", "Ar", 4.0, {1, 1, 2}));  // 2 atoms each
  frames[4].charges = {0.1, -0.1};
  frames[5].charges = {0.2, -0.2};
  frames[6] = io::make_lattice("sc", "Ar", 4.0, {2, 2, 2});  // 8 atoms
  std::vector<std::size_t> sizes;
  for (const auto& b : split_batches(frames, 6)) sizes.push_back(b.size());
  EXPECT_EQ(sizes, (std::vector<std::size_t>{3, 1, 2, 1}));
}

TEST(BatchState, MergesTypesAndRejectsMixedCharges) {
  Structure a = io::make_lattice("sc", "Ar", 4.0, {1, 1, 1});
  Structure b = io::make_lattice("sc", "Ne", 4.0, {2, 1, 1});
  b.type_index("Ar");
  b.types[1] = 1;
  const std::vector<Structure> both{a, b};
  AtomState atoms(Backend::Cpu, both);
  EXPECT_EQ(atoms.type_names(), (std::vector<std::string>{"Ar", "Ne"}));
  EXPECT_EQ(atoms.type.to_vector(), (std::vector<int>{0, 1, 0}));
  EXPECT_EQ(atoms.system_offsets(), (std::vector<int>{0, 1, 3}));
  const auto back = atoms.to_structures();
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1].type_names[back[1].types[1]], "Ar");
  EXPECT_THROW(atoms.to_structure(), Error);
  std::vector<Structure> mixed{a, b};
  mixed[1].charges = {1.0, -1.0};
  try {
    AtomState bad(Backend::Cpu, mixed);
    ADD_FAILURE() << "mixed charges were accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("system 1 has charges, system 0 has none"), std::string::npos) << e.what();
  }
  mixed[1].charges.clear();
  mixed[1].type_masses[1] = 12.0;  // Ar with another mass
  EXPECT_THROW(AtomState(Backend::Cpu, mixed), Error);
}

}  // namespace
}  // namespace quasar
