// Tabulated ("compressed") embeddings, and the GPU evaluation per precision mode and chunk size
// against the double-precision CPU reference on a 512-molecule water box. Every deviation is printed
// as "measured <what>: ..." (the GPU tests' tolerances are kept within about 100x of those numbers).
#include <cmath>
#include <cstdio>

#include "quasar/core/error.hpp"
#include "quasar/io/deepmd_npy.hpp"
#include "quasar/potential/dp/compress.hpp"
#include "quasar/potential/dp/deep_potential.hpp"
#include "quasar/potential/dp/model_io.hpp"
#include "quasar/potential/evaluate.hpp"
#include "support.hpp"

namespace quasar {
namespace {

// 512 molecules: frame 0 of DeePMD-kit's water data (64 molecules) repeated 2 x 2 x 2.
Structure water512() {
  const std::string dir = test::shared_path("reference/deepmd/water-data/data_0");
  if (dir.empty()) return {};
  return replicate(io::read_deepmd_frame(dir, 0, 0), {2, 2, 2});
}

dp::DpModel compressed(dp::DpModel m, double min_dist) {
  m.compressed = true;
  m.compression.min_nbor_dist = min_dist;
  return m;
}

struct Deviation {
  double energy_per_molecule, force_rms, force_max, virial_max;
};

Deviation deviation(const Evaluation& a, const Evaluation& b, double molecules) {
  const double n = static_cast<double>(a.forces.size());
  Deviation d{std::abs(a.energy - b.energy) / molecules, 0, 0, 0};
  for (std::size_t i = 0; i < a.forces.size(); ++i) {
    const double e = norm2(a.forces[i] - b.forces[i]);
    d.force_rms += e;
    d.force_max = std::max(d.force_max, std::sqrt(e));
  }
  d.force_rms = std::sqrt(d.force_rms / (3.0 * n));
  for (int q = 0; q < 9; ++q) d.virial_max = std::max(d.virial_max, std::abs(a.virial(q / 3, q % 3) - b.virial(q / 3, q % 3)));
  return d;
}

void report(const std::string& what, const Deviation& d) {
  std::printf("measured %-40s dE %.2e eV/molecule  dF rms %.2e max %.2e eV/A  dW max %.2e eV\n", (what + ":").c_str(),
              d.energy_per_molecule, d.force_rms, d.force_max, d.virial_max);
}

class Compression : public testing::Test {
 protected:
  void SetUp() override {
    model_ = test::shared_path("reference/deepmd/deeppot_sea.yaml");
    water_ = water512();
    if (model_.empty() || water_.size() == 0)
      return test::missing(test::Dependency::SharedData, "../shared/reference/deepmd is not here");
  }
  double molecules() const { return static_cast<double>(water_.size()) / 3.0; }
  std::string model_;
  Structure water_;
};

TEST_F(Compression, TablesReproduceTheNetworks) {
  dp::DeepPotential exact = dp::DeepPotential::from_file(model_);
  dp::DeepPotential table(compressed(dp::read_dp_model(model_), 0.8));
  const Evaluation e = evaluate(exact, water_, Backend::Cpu), t = evaluate(table, water_, Backend::Cpu);
  const Deviation d = deviation(e, t, molecules());
  report("compressed (step 0.01) vs exact, CPU", d);
  EXPECT_LT(d.energy_per_molecule, 1e-12);  // measured 0 (the energy rounds at 1e-13 eV/molecule)
  EXPECT_LT(d.force_max, 1e-13);            // measured 6e-15
  EXPECT_LT(d.virial_max, 1e-11);           // measured 2e-13
}

TEST_F(Compression, FlatOutsideTheTable) {
  const dp::DpModel m = compressed(dp::read_dp_model(model_), 0.8);
  const dp::EmbeddingTables t = dp::build_tables(m.descriptor, m.compression);
  std::vector<double> y0(t.m), d0(t.m), y1(t.m), d1(t.m), y(t.m), d(t.m);
  t.eval(0, t.max, y0.data(), d0.data());
  t.eval(0, t.max + 3, y1.data(), d1.data());
  t.eval(0, t.lower - 1, y.data(), d.data());
  std::vector<double> ylo, dlo;
  m.descriptor.embeddings[0].forward_scalar(t.lower, ylo, dlo);
  for (int q = 0; q < t.m; ++q) {
    EXPECT_EQ(y1[q], y0[q]);
    EXPECT_EQ(d1[q], 0.0);
    EXPECT_NEAR(y[q], ylo[q], 1e-14);  // measured 0: the first node holds the net's value
    EXPECT_EQ(d[q], 0.0);
  }
  EXPECT_NE(d0[0], 0.0);
}

TEST_F(Compression, ForcesAreTheDerivativesOfTheTabulatedEnergy) {
  dp::DeepPotential table(compressed(dp::read_dp_model(model_), 0.8));
  Structure s = io::read_deepmd_frame(test::shared_path("reference/deepmd/water-data/data_0"), 0, 0);
  const Evaluation e = evaluate(table, s, Backend::Cpu);
  const double h = 1e-4;  // the total energy (~1e4 eV) rounds at ~1e-12 eV
  for (std::size_t i : {std::size_t{0}, std::size_t{70}})
    for (int m = 0; m < 3; ++m) {
      Structure p = s, q = s;
      p.positions[i][m] += h;
      q.positions[i][m] -= h;
      const double fd = -(evaluate(table, p, Backend::Cpu).energy - evaluate(table, q, Backend::Cpu).energy) / (2 * h);
      EXPECT_NEAR(e.forces[i][m], fd, 2e-7);  // measured 1e-7: the O(h^2) error of the difference
    }
}

TEST_F(Compression, SettingsTravelThroughModelFiles) {
  nlohmann::json dict = dp::read_model_dict(model_);
  dict["model"]["quasar_compress"] = {{"min_nbor_dist", 0.8}, {"step", 0.02}, {"extrapolate", 4}};
  const auto path = test::scratch_dir("dp-compress") / "c.dp";
  dp::write_model_dict(path.string(), dict);
  const dp::DpModel m = dp::read_dp_model(path.string());
  EXPECT_TRUE(m.compressed);
  EXPECT_EQ(m.compression.min_nbor_dist, 0.8);
  EXPECT_EQ(m.compression.step, 0.02);
  EXPECT_EQ(m.compression.extrapolate, 4);
  dict["model"]["quasar_compress"]["step"] = -1;
  EXPECT_THROW(dp::model_from_json(dict, "bad"), Error);
}

// GPU against the CPU reference, per precision, exact and compressed nets, several chunk sizes.
class GpuPrecision : public Compression {
 protected:
  void SetUp() override {
    Compression::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    bool cuda = false;
    for (Backend b : test::backends()) cuda |= b == Backend::Cuda;
    if (!cuda) GTEST_SKIP() << "no GPU here";
  }
  // Deviation of the GPU from the CPU double reference on the water box.
  Deviation gpu_vs_cpu(const dp::DpModel& model, Precision p, long chunk, const Structure& s) {
    dp::DeepPotential cpu(model), gpu(model);
    gpu.set_precision(p, chunk);
    return deviation(evaluate(gpu, s, Backend::Cuda), evaluate(cpu, s, Backend::Cpu), static_cast<double>(s.size()) / 3.0);
  }
};

// H100, the largest over the chunk sizes, exact and compressed nets, also layer by layer: 1.1e-12
// eV/molecule, forces 6.7e-17 eV/Å, virial 8.5e-13 eV.
TEST_F(GpuPrecision, DoubleEqualsTheCpuForAnyChunkSize) {
  for (bool comp : {false, true}) {
    const dp::DpModel m = comp ? compressed(dp::read_dp_model(model_), 0.8) : dp::read_dp_model(model_);
    for (long chunk : {0L, 7L, 333L}) {
      const Deviation d = gpu_vs_cpu(m, Precision::Double, chunk, water_);
      report(std::string("double") + (comp ? ", compressed" : "") + ", chunk " + std::to_string(chunk), d);
      EXPECT_LT(d.energy_per_molecule, 1e-11) << comp << " " << chunk;
      EXPECT_LT(d.force_max, 5e-15) << comp << " " << chunk;
      EXPECT_LT(d.virial_max, 5e-11) << comp << " " << chunk;
    }
  }
}

TEST_F(GpuPrecision, TwoSidedEmbeddingsOnTheGpu) {
  nlohmann::json dict = dp::read_model_dict(model_);
  auto& emb = dict["model"]["descriptor"]["embeddings"];
  const nlohmann::json one = emb["networks"];
  emb["networks"] = {one[0], one[1], one[1], one[0]};  // a different net per (centre, neighbour) pair
  emb["ndim"] = 2;
  dict["model"]["descriptor"]["type_one_side"] = false;
  const dp::DpModel m = dp::model_from_json(dict, "two-sided");
  const Deviation d = gpu_vs_cpu(m, Precision::Double, 0, water_);
  report("double, two-sided embeddings", d);
  EXPECT_LT(d.energy_per_molecule, 1e-11);  // H100: 1.3e-12 (also layer by layer)
  EXPECT_LT(d.force_max, 5e-15);            // H100: 6.4e-17
}

// The trained model (deeppot_sea) in each mode against CPU double. Tolerances from the deviations
// measured on the H100 (docs/performance.md, "Precision modes against double"; the largest of the
// exact and compressed nets, also layer by layer): mixed32 9.9e-8 eV/molecule, forces 3.2e-9 RMS and
// 1.6e-8 max eV/Å, inside the required 1e-5 eV/molecule; mixed16 1.7e-5 eV/molecule, 7.2e-6 RMS and
// 2.9e-5 max eV/Å, below DeePMD-kit's published mixed-precision figures (3.6e-3 eV/molecule, 5.7e-3 eV/Å).
TEST_F(GpuPrecision, MixedPrecisionDeviationsOnWater) {
  std::printf("deeppot_sea.yaml, 512 water molecules, GPU vs CPU double:\n");
  for (bool comp : {false, true}) {
    const dp::DpModel m = comp ? compressed(dp::read_dp_model(model_), 0.8) : dp::read_dp_model(model_);
    const Deviation d32 = gpu_vs_cpu(m, Precision::Mixed32, 0, water_);
    const Deviation d16 = gpu_vs_cpu(m, Precision::Mixed16, 0, water_);
    report(comp ? "mixed32, compressed" : "mixed32", d32);
    report(comp ? "mixed16, compressed" : "mixed16", d16);
    EXPECT_LT(d32.energy_per_molecule, 5e-6);
    EXPECT_LT(d32.force_rms, 1e-7);
    EXPECT_LT(d32.force_max, 1e-6);
    EXPECT_LT(d16.energy_per_molecule, 1e-3);
    EXPECT_LT(d16.force_rms, 5e-4);
    EXPECT_LT(d16.force_max, 2e-3);
  }
}

// DeePMD-kit's full water architecture (random weights: the energies mean nothing, the rounding
// errors of the architecture do). Measured on the H100 (docs/performance.md; the largest of the exact
// and compressed nets, also layer by layer): double 1.7e-13 eV/molecule, forces 6.4e-16 eV/Å max;
// mixed32 8.2e-8 eV/molecule, 2.6e-8 RMS, 1.1e-7 max; mixed16 2.0e-4, 5.4e-5 RMS, 2.1e-4 max.
TEST_F(GpuPrecision, FullSizeWaterArchitecture) {
  const std::string bench = test::shared_path("reference/deepmd/bench/water-se_e2_a-bench.dp");
  if (bench.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/deepmd/bench is not here");
  const dp::DpModel exact = dp::read_dp_model(bench);
  std::printf("water-se_e2_a-bench.dp, 512 water molecules, GPU vs CPU double:\n");
  for (bool comp : {false, true}) {
    const dp::DpModel m = comp ? compressed(exact, 0.8) : exact;
    dp::DeepPotential cpu(m);
    const Evaluation ref = evaluate(cpu, water_, Backend::Cpu);
    for (Precision p : {Precision::Double, Precision::Mixed32, Precision::Mixed16}) {
      dp::DeepPotential gpu(m);
      gpu.set_precision(p);
      const Deviation d = deviation(evaluate(gpu, water_, Backend::Cuda), ref, molecules());
      report(std::string("bench net, ") + precision_name(p) + (comp ? ", compressed" : ""), d);
      if (p == Precision::Double) {
        EXPECT_LT(d.energy_per_molecule, 1e-11);
        EXPECT_LT(d.force_max, 5e-14);
      } else if (p == Precision::Mixed32) {
        EXPECT_LT(d.energy_per_molecule, 1e-6);
        EXPECT_LT(d.force_rms, 1e-6);
        EXPECT_LT(d.force_max, 1e-5);
      } else {
        EXPECT_LT(d.energy_per_molecule, 1e-2);
        EXPECT_LT(d.force_rms, 5e-3);
        EXPECT_LT(d.force_max, 2e-2);
      }
    }
  }
}

}  // namespace
}  // namespace quasar
