// The symmetry-function kernels compiled for each model at run time (nnp/generated_kernels.hpp):
// their source compiles for sm_90 for every type, cutoff kind and core (NVRTC, no GPU needed), and on
// the GPU they give the CPU reference's energies and forces, as the table kernels do.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>

#include "nnp_symmetry_direct.hpp"
#include "quasar/core/units.hpp"
#include "quasar/device/precision.hpp"
#include "quasar/io/n2p2_data.hpp"
#include "quasar/potential/evaluate.hpp"
#include "quasar/potential/nnp/descriptor.hpp"
#include "quasar/potential/nnp/generated_kernels.hpp"
#include "quasar/potential/nnp/nnp_potential.hpp"
#include "support.hpp"

namespace quasar::nnp {
namespace {

using namespace test_sf;

// The models of the symmetry tests with a small network and unit scaling.
std::vector<Model> every_type() {
  std::vector<Model> models;
  for (Model m : all_models()) {
    for (ElementModel& e : m.elements) {
      // The GPU evaluator's networks need an input: an element without functions gets a radial one.
      if (e.functions.empty()) add(m, static_cast<int>(&e - m.elements.data()), exp_sf(2, H, -1, 0.2, 0, 5.0));
      e.scaling.assign(e.functions.size(), Scaling{0, 1, 0, 1});
      e.hidden = {3};
      e.activations = "tl";
      e.weights.assign(e.parameter_count(), 0.1);
      for (std::size_t w = 0; w < e.weights.size(); ++w) e.weights[w] *= 1.0 + 0.37 * std::sin(double(w));
    }
    models.push_back(std::move(m));
  }
  return models;
}

#ifdef QUASAR_HAVE_CUDA
// NVRTC takes about a second per kernel here: the water model in both precisions, and in float
// one model with every exponential type and one with every compact type (the cutoff kinds and cores
// only change constants; NnpGeneratedKernels.GpuEqualsTheCpuForEveryType compiles and runs them all).
TEST(NnpGeneratedKernels, SourceCompilesForEveryTypeAndTheWaterModel) {
  const std::vector<Model> models = every_type();
  std::vector<std::pair<Model, bool>> cases = {{models.front(), true}, {models.back(), true}};
  const std::string water = test::shared_path("reference/n2p2/predict/H2O_RPBE-D3");
  if (!water.empty()) {
    cases.emplace_back(NnpPotential::from_files(water).model(), true);
    cases.emplace_back(NnpPotential::from_files(water).model(), false);
  }
  int compiled = 0;
  for (const auto& [m, single] : cases) {
    const Descriptor d(m, 1.0);
    for (int e = 0; e < d.element_count(); ++e) {
      if (d.count(e) < 2) continue;  // the elements with a single radial function add nothing
      for (GeneratedKernel kind : {GeneratedKernel::Functions, GeneratedKernel::Forces, GeneratedKernel::ForcesFixed}) {
        if (kind == GeneratedKernel::ForcesFixed && !single) continue;
        const std::string source = generated_source(d.plan(e), d.atomic_numbers(), single, kind);
        EXPECT_FALSE(device::compile_cubin(source, generated_kernel_headers(), 90, "a test").empty());
        ++compiled;
      }
    }
  }
  EXPECT_EQ(compiled, water.empty() ? 12 : 22);
  if (water.empty()) test::missing(test::Dependency::SharedData, "../shared/reference/n2p2 is not here");
}
#endif

// Chooses the kernels of the GPU evaluators made while it lives.
struct KernelChoice {
  explicit KernelChoice(const char* kind) { setenv("QUASAR_NNP_KERNELS", kind, 1); }
  ~KernelChoice() { unsetenv("QUASAR_NNP_KERNELS"); }
};

// A cluster of 24 atoms of the three elements (no box) for model m.
Structure cluster(const Model& m, std::mt19937_64& rng) {
  Structure s;
  s.type_names = {"H", "O", "Cu"};
  s.type_masses = {1.008, 15.999, 63.546};
  s.positions.push_back({0, 0, 0});
  s.types.push_back(0);
  for (const Atom3& a : random_cluster(rng, 23, boundaries(m, 1))) {
    s.positions.push_back({a.x, a.y, a.z});
    s.types.push_back(a.element);
  }
  s.box = Box::enclosing(s.positions);
  return s;
}

TEST(NnpGeneratedKernels, GpuEqualsTheCpuForEveryType) {
  if (!cuda_available()) GTEST_SKIP() << "no GPU here";
  std::mt19937_64 rng(11);
  test::MaxError generated("generated kernels, double: GPU - CPU energy and forces, relative to the largest");
  test::MaxError tables("table kernels, double: GPU - CPU energy and forces, relative to the largest");
  test::MaxError mixed("mixed32: generated - table kernels, relative to the largest");
  // Every model in double; in mixed32 every seventh (each compilation takes about a second).
  const std::vector<Model> models = every_type();
  for (std::size_t model = 0; model < models.size(); ++model) {
    const Model& m = models[model];
    for (int repeat = 0; repeat < 2; ++repeat) {
      const Structure s = cluster(m, rng);
      NnpPotential cpu_pot(m);
      const Evaluation want = evaluate(cpu_pot, s, Backend::Cpu);
      double largest = std::abs(want.energy);
      for (const Vec3& f : want.forces) largest = std::max({largest, std::abs(f.x), std::abs(f.y), std::abs(f.z)});
      auto compare = [&](const Evaluation& got, const Evaluation& ref, test::MaxError& err) {
        err.add(got.energy / largest, ref.energy / largest);
        for (std::size_t i = 0; i < s.size(); ++i)
          for (int c = 0; c < 3; ++c) err.add(got.forces[i][c] / largest, ref.forces[i][c] / largest);
      };
      Evaluation single[2];
      for (int kind = 0; kind < 2; ++kind) {
        const KernelChoice choice(kind == 0 ? "generated" : "tables");
        NnpPotential pot(m);
        compare(evaluate(pot, s, Backend::Cuda), want, kind == 0 ? generated : tables);
        if (model % 7 != 0) continue;
        pot.set_precision(Precision::Mixed32);
        single[kind] = evaluate(pot, s, Backend::Cuda);
      }
      if (model % 7 == 0) compare(single[0], single[1], mixed);
    }
  }
  // Measured on the H100: 3.1e-16, 3.1e-16 and 1.3e-8.
  EXPECT_TRUE(generated.within(2e-14));
  EXPECT_TRUE(tables.within(2e-14));
  EXPECT_TRUE(mixed.within(1e-6));
}

// n2p2's water example is in bohr and hartree.
const units::FileUnits kWaterUnits{units::bohr, units::hartree};

// The water potential on its example: the generated kernels against n2p2's numbers run in
// nnp_predict_test (NnpPredict, cuda); here double and mixed32 of both kernels agree.
TEST(NnpGeneratedKernels, WaterGeneratedEqualsTables) {
  if (!cuda_available()) GTEST_SKIP() << "no GPU here";
  const std::string dir = test::shared_path("reference/n2p2/predict/H2O_RPBE-D3");
  if (dir.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/n2p2 is not here");
  const Structure s = io::read_n2p2_data(dir + "/input.data", kWaterUnits).at(0);
  for (Precision p : {Precision::Double, Precision::Mixed32}) {
    Evaluation got[2];
    for (int kind = 0; kind < 2; ++kind) {
      const KernelChoice choice(kind == 0 ? "generated" : "tables");
      NnpPotential pot = NnpPotential::from_files(dir, kWaterUnits);
      pot.set_precision(p);
      got[kind] = evaluate(pot, s, Backend::Cuda);
    }
    double largest = 0;
    for (const Vec3& f : got[1].forces) largest = std::max({largest, std::abs(f.x), std::abs(f.y), std::abs(f.z)});
    test::MaxError energy(std::string(p == Precision::Double ? "double" : "mixed32") +
                          ": generated - tables energy per atom (eV)");
    test::MaxError force(std::string(p == Precision::Double ? "double" : "mixed32") +
                         ": generated - tables forces, relative to the largest");
    energy.add(got[0].energy / double(s.size()), got[1].energy / double(s.size()));
    for (std::size_t i = 0; i < s.size(); ++i)
      for (int c = 0; c < 3; ++c) force.add(got[0].forces[i][c] / largest, got[1].forces[i][c] / largest);
    // Measured on the H100: double 2.3e-13 eV and 7.5e-15, mixed32 4.5e-8 eV and 4.1e-6.
    EXPECT_TRUE(energy.within(p == Precision::Double ? 1e-11 : 4e-6));
    EXPECT_TRUE(force.within(p == Precision::Double ? 5e-13 : 4e-5));
  }
}

// Deterministic sums (fixed point) with the generated kernels: two evaluations give the same bits,
// and they stay within the fixed-point rounding of the plain evaluation.
TEST(NnpGeneratedKernels, DeterministicSumsRepeatOnWater) {
  if (!cuda_available()) GTEST_SKIP() << "no GPU here";
  const std::string dir = test::shared_path("reference/n2p2/predict/H2O_RPBE-D3");
  if (dir.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/n2p2 is not here");
  const Structure s = io::read_n2p2_data(dir + "/input.data", kWaterUnits).at(0);
  for (Precision p : {Precision::Double, Precision::Mixed32}) {
    NnpPotential pot = NnpPotential::from_files(dir, kWaterUnits);
    pot.set_precision(p);
    const Evaluation one = evaluate(pot, s, Backend::Cuda, true, -1, true);
    const Evaluation two = evaluate(pot, s, Backend::Cuda, true, -1, true);
    const Evaluation plain = evaluate(pot, s, Backend::Cuda, true);
    const std::string name = p == Precision::Double ? "double" : "mixed32";
    EXPECT_EQ(std::memcmp(&one.energy, &two.energy, sizeof(double)), 0) << name;
    test::MaxError repeat(name + ": two deterministic evaluations, forces (eV/Å)");
    test::MaxError rounding(name + ": deterministic - plain forces (eV/Å)");
    for (std::size_t i = 0; i < s.size(); ++i)
      for (int c = 0; c < 3; ++c) {
        repeat.add(one.forces[i][c], two.forces[i][c]);
        rounding.add(one.forces[i][c], plain.forces[i][c]);
      }
    EXPECT_TRUE(repeat.within(0));
    // Measured on the H100: double 5.9e-11 (fixed-point rounding), mixed32 1.2e-6 (the plain sums of
    // floats in another order).
    EXPECT_TRUE(rounding.within(p == Precision::Double ? 5e-9 : 1e-4));
  }
}

}  // namespace
}  // namespace quasar::nnp
