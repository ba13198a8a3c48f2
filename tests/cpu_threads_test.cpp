// The CPU backend's threads (device/parallel.hpp): the static split, exceptions from threads, the
// per-thread arrays, and every threaded CPU loop (neighbour list, LJ, EAM, the Deep Potential) with
// 1, 2 and 3 threads: the same bits on every run with one thread count, and the serial results to
// rounding with another (forces, energies, virials, per-atom parts).
#include <gtest/gtest.h>

#include <stdexcept>

#include "quasar/device/parallel.hpp"
#include "quasar/neighbor/neighbor_list.hpp"
#include "quasar/potential/evaluate.hpp"
#include "quasar/potential/registry.hpp"
#include "support.hpp"
#include "test_systems.hpp"

namespace quasar {
namespace {

// Restores the thread count a test changed.
struct ThreadCount {
  explicit ThreadCount(int threads) { device::set_cpu_threads(threads); }
  ~ThreadCount() { device::set_cpu_threads(saved); }
  int saved = device::cpu_threads();
};

TEST(CpuThreads, StaticRangesCoverInOrder) {
  for (long n : {0L, 1L, 7L, 64L, 1001L})
    for (int threads : {1, 2, 3, 8}) {
      long next = 0;
      for (int t = 0; t < threads; ++t) {
        const device::Range r = device::static_range(n, threads, t);
        EXPECT_EQ(r.begin, next);
        EXPECT_GE(r.end, r.begin);
        EXPECT_LE(r.end - r.begin, n / threads + 1);
        next = r.end;
      }
      EXPECT_EQ(next, n);
    }
}

TEST(CpuThreads, EveryRangeRunsOnceAndErrorsReachTheCaller) {
  ThreadCount three(3);
  std::vector<int> hits(1000, 0);
  device::parallel_for(1000, [&](long i) { ++hits[static_cast<std::size_t>(i)]; }, 1);
  EXPECT_EQ(std::count(hits.begin(), hits.end(), 1), 1000);
  // The error of the lowest range that threw, after every range ran.
  std::vector<int> ran(3, 0);
  try {
    device::parallel_ranges(30, 3, [&](int t, long, long) {
      ran[static_cast<std::size_t>(t)] = 1;
      if (t > 0) throw std::runtime_error("range " + std::to_string(t));
    });
    ADD_FAILURE() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "range 1");
  }
  EXPECT_EQ(ran, (std::vector<int>{1, 1, 1}));
}

TEST(CpuThreads, BuffersAddInThreadOrder) {
  std::vector<double> out{1.0, 2.0, 3.0};
  device::ThreadBuffers b;
  b.prepare(3, {out.data(), nullptr}, {3, 5});
  EXPECT_EQ(b.get(0, 0), out.data());
  EXPECT_EQ(b.get(1, 1), nullptr);
  for (int t = 0; t < 3; ++t) b.get(t, 0)[1] += 1e-16 * (t + 1) + (t == 2 ? 1.0 : 0.0);
  b.reduce();
  EXPECT_EQ(out[0], 1.0);
  EXPECT_EQ(out[1], ((2.0 + 1e-16) + 2e-16) + (1.0 + 3e-16));
  // Prepared again: zeroed.
  b.prepare(3, {out.data()}, {3});
  EXPECT_EQ(b.get(2, 0)[1], 0.0);
}

// Evaluations with 1, 2 and 3 threads: bit-identical when repeated, the serial values to rounding.
void check_threads(Potential& pot, const Structure& s, const std::string& what, double tolerance) {
  Evaluation serial;
  {
    ThreadCount one(1);
    serial = evaluate(pot, s, Backend::Cpu, true);
  }
  double scale_f = 0, scale_w = 0, scale_ae = 0;
  for (const Vec3& f : serial.forces) scale_f = std::max(scale_f, std::sqrt(norm2(f)));
  for (int k = 0; k < 9; ++k) scale_w = std::max(scale_w, std::abs(serial.virial(k / 3, k % 3)));
  for (double e : serial.atom_energy) scale_ae = std::max(scale_ae, std::abs(e));
  for (int threads : {2, 3}) {
    ThreadCount count(threads);
    const Evaluation a = evaluate(pot, s, Backend::Cpu, true), b = evaluate(pot, s, Backend::Cpu, true);
    EXPECT_EQ(a.energy, b.energy);
    for (std::size_t i = 0; i < s.size(); ++i) {
      EXPECT_EQ(a.forces[i].x, b.forces[i].x);
      EXPECT_EQ(a.forces[i].z, b.forces[i].z);
      EXPECT_EQ(a.atom_virial[i](0, 1), b.atom_virial[i](0, 1));
    }
    const std::string label = what + " with " + std::to_string(threads) + " threads, relative to 1 thread";
    test::MaxError e(label + ": energy"), f(label + ": forces"), w(label + ": virial"), pa(label + ": per-atom");
    e.add(a.energy / std::abs(serial.energy), serial.energy / std::abs(serial.energy));
    for (std::size_t i = 0; i < s.size(); ++i) {
      f.add(a.forces[i].x / scale_f, serial.forces[i].x / scale_f);
      f.add(a.forces[i].y / scale_f, serial.forces[i].y / scale_f);
      f.add(a.forces[i].z / scale_f, serial.forces[i].z / scale_f);
      pa.add(a.atom_energy[i] / scale_ae, serial.atom_energy[i] / scale_ae);
      for (int k = 0; k < 9; ++k)
        pa.add(a.atom_virial[i](k / 3, k % 3) / scale_w, serial.atom_virial[i](k / 3, k % 3) / scale_w);
    }
    for (int k = 0; k < 9; ++k) w.add(a.virial(k / 3, k % 3) / scale_w, serial.virial(k / 3, k % 3) / scale_w);
    EXPECT_TRUE(e.within(tolerance));
    EXPECT_TRUE(f.within(tolerance));
    EXPECT_TRUE(w.within(tolerance));
    EXPECT_TRUE(pa.within(tolerance));
  }
}

// Measured: energies up to 2e-14 (LJ and EAM: sums over 2916 atoms in another order), forces and
// per-atom parts up to 1.6e-15, virials up to 9.8e-15 (LJ, EAM; the Deep Potential: forces 3.3e-16,
// energy and virial 0, per-atom parts 1.4e-17, hence its own tolerance).
constexpr double kTol = 1e-13;

TEST(CpuThreads, LennardJones) {
  auto lj = test::argon_lj();
  const Structure s = test::distorted_fcc({9, 9, 9}, 5.26, 0.05, 0.1, 7, {"Ar"});
  check_threads(*lj, s, "lj", kTol);
}

TEST(CpuThreads, Eam) {
  const std::string file = test::lammps_potential("Cu_u3.eam");
  if (file.empty()) return test::missing(test::Dependency::LammpsData, "lammps-data's Cu_u3.eam is not installed");
  Eam eam = Eam::from_funcfl({{"*", file}});
  const Structure s = test::distorted_fcc({9, 9, 9}, 3.615, 0.05, 0.08, 8);
  check_threads(eam, s, "eam", kTol);
}

TEST(CpuThreads, DeepPotential) {
  if (!potential_registry().find("deepmd")) GTEST_SKIP() << "built without the Deep Potential (QUASAR_WITH_DP=OFF)";
  auto dp = load_model(test::source_path("examples/silicon/model.dp"));
  Structure s = io::make_lattice("diamond", "Si", 5.38, {3, 3, 3});
  std::mt19937 rng(3);
  std::normal_distribution<double> g(0.0, 0.1);
  for (Vec3& r : s.positions) r = r + Vec3{g(rng), g(rng), g(rng)};
  check_threads(*dp, s, "deepmd", 4e-14);
}

TEST(CpuThreads, NeighbourListDoesNotDependOnThreads) {
  const Structure s = test::distorted_fcc({8, 8, 8}, 3.615, 0.1, 0.1, 9);
  std::vector<std::vector<int>> lists;
  for (int threads : {1, 2, 3}) {
    ThreadCount count(threads);
    AtomState atoms(Backend::Cpu, s);
    NeighborList list(Backend::Cpu, {5.0, 1.0, ListKind::Half});
    list.build(atoms);
    const NeighborRef r = list.ref();
    std::vector<int> flat;
    for (int i = 0; i < r.n; ++i)
      for (int k = 0; k < r.count[i]; ++k) {
        flat.push_back(r.index[r.slot_of(i, k)]);
        flat.push_back(r.image[r.slot_of(i, k)]);
      }
    lists.push_back(flat);
  }
  EXPECT_EQ(lists[0], lists[1]);
  EXPECT_EQ(lists[0], lists[2]);
}

}  // namespace
}  // namespace quasar
