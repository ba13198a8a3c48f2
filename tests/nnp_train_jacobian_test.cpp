// Training of Behler-Parrinello potentials (potential/nnp/train), its arithmetic: the Jacobians of
// energies and force components against finite differences, with and without kept symmetry-function
// derivatives; the Kalman filter against its dense formula on every backend; n2p2's gradient descent.
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "nnp_symmetry_direct.hpp"
#include "nnp_train_support.hpp"
#include "quasar/nn/kalman.hpp"
#include "quasar/potential/nnp/model_io.hpp"
#include "quasar/potential/nnp/train/data.hpp"
#include "quasar/potential/nnp/train/gpu_jacobians.hpp"
#include "quasar/potential/nnp/train/networks.hpp"
#include "quasar/potential/nnp/train/training.hpp"
#include "quasar/potential/nnp/train/updaters.hpp"
#include "support.hpp"

namespace quasar {
namespace {

namespace fs = std::filesystem;
using test::training_copy;

// A training on the water set (its shipped scaling.data; random initial weights) and one structure.
struct WaterNetworks {
  std::unique_ptr<nnp::N2p2Training> training;
  nnp::Model model;
  std::unique_ptr<nnp::TrainingNetworks> nets;
  nnp::TrainingStructure structure;
  nnp::StructureInputs inputs, kept;  // kept: with the symmetry functions' derivatives
  double conv_length = 1;
};

WaterNetworks water_networks() {
  WaterNetworks w;
  w.training = std::make_unique<nnp::N2p2Training>(training_copy("H2O_RPBE-D3", "networks"), Backend::Cpu);
  w.model = w.training->model();
  w.conv_length = w.model.conv_length;
  w.nets = std::make_unique<nnp::TrainingNetworks>(w.model, w.conv_length);
  // The smallest structure.
  const auto& data = w.training->structures();
  std::size_t smallest = 0;
  for (std::size_t s = 0; s < data.size(); ++s)
    if (data[s].size() < data[smallest].size()) smallest = s;
  w.structure = data[smallest];
  w.inputs = w.nets->inputs(w.structure);
  w.kept = w.nets->inputs(w.structure, true);
  return w;
}

// Weights to probe: in every element, first and last of each layer's weights and biases, and a few
// between.
std::vector<long> probe_weights(const nnp::Model& m, const nnp::TrainingNetworks& nets) {
  std::vector<long> out;
  for (std::size_t e = 0; e < m.elements.size(); ++e) {
    const auto sizes = m.elements[e].layer_sizes();
    long at = nets.offset(static_cast<int>(e));
    for (std::size_t l = 1; l < sizes.size(); ++l) {
      const long nw = static_cast<long>(sizes[l - 1] * sizes[l]), nb = static_cast<long>(sizes[l]);
      for (long k : {0L, nw / 3, nw - 1}) out.push_back(at + k);
      for (long k : {0L, nb - 1}) out.push_back(at + nw + k);
      at += nw + nb;
    }
  }
  return out;
}

// Four-point central difference of f(weights) in weight k.
template <class F>
double weight_derivative(nnp::TrainingNetworks& nets, std::vector<double> w, long k, double h, F f) {
  const double w0 = w[k];
  double v[4];
  const double steps[4] = {2, 1, -1, -2};
  for (int i = 0; i < 4; ++i) {
    w[k] = w0 + steps[i] * h;
    nets.set_weights(w.data());
    v[i] = f();
  }
  w[k] = w0;
  nets.set_weights(w.data());
  return (-v[0] + 8 * v[1] - 8 * v[2] + v[3]) / (12 * h);
}

TEST(NnpTrainJacobian, EnergyAndForceGradientsMatchFiniteDifferences) {
  QUASAR_REQUIRE_TRAINING_DATA();
  WaterNetworks w = water_networks();
  nnp::TrainingNetworks& nets = *w.nets;
  const std::vector<double> weights = nets.weights();
  const std::size_t n = weights.size();
  std::vector<double> je(n, 0.0), jf(n, 0.0);
  const double e0 = nets.energy(w.structure, w.inputs, je.data());
  EXPECT_EQ(e0, nets.energy(w.structure, w.inputs));
  const int atom = 1, component = 2;
  const double f0 = nets.force(w.structure, w.inputs, atom, component, jf.data());
  EXPECT_EQ(f0, nets.force(w.structure, w.inputs, atom, component));
  // The same from the kept derivatives of the symmetry functions.
  std::vector<double> jk(n, 0.0);
  test::MaxError kept("dF/dw from kept derivatives against recomputed ones, relative to the largest");
  const double fk = nets.force(w.structure, w.kept, atom, component, jk.data());
  double largest_e = 0, largest_f = 0;
  for (std::size_t k = 0; k < n; ++k) largest_e = std::max(largest_e, std::abs(je[k]));
  for (std::size_t k = 0; k < n; ++k) largest_f = std::max(largest_f, std::abs(jf[k]));
  kept.add(fk / std::abs(f0), f0 / std::abs(f0));
  for (std::size_t k = 0; k < n; ++k) kept.add(jk[k] / largest_f, jf[k] / largest_f);
  test::MaxError de("dE/dw against differences, relative to the largest"),
      df("dF/dw against differences, relative to the largest");
  const double h = 1e-3;
  for (long k : probe_weights(w.model, nets)) {
    de.add(je[k] / largest_e,
           weight_derivative(nets, weights, k, h, [&] { return nets.energy(w.structure, w.inputs); }) / largest_e);
    df.add(jf[k] / largest_f, weight_derivative(nets, weights, k, h, [&] {
                                return nets.force(w.structure, w.inputs, atom, component);
                              }) / largest_f);
  }
  // Measured 4e-13 and 1.2e-12.
  EXPECT_TRUE(de.within(4e-11));
  EXPECT_TRUE(df.within(1e-10));
  EXPECT_TRUE(kept.within(1e-13));
}

// The force of the Jacobian pass is minus the derivative of the energy along the atom's displacement
// (in the training length unit, conv_length times the file's), and equals the force of the gradient
// pass that the learning curve uses.
TEST(NnpTrainJacobian, ForcesAreMinusTheEnergyDerivative) {
  QUASAR_REQUIRE_TRAINING_DATA();
  WaterNetworks w = water_networks();
  const nnp::TrainingNetworks& nets = *w.nets;
  std::vector<double> all, from_kept;
  const double e = nets.energy_and_forces(w.structure, w.inputs, all);
  const double e_kept = nets.energy_and_forces(w.structure, w.kept, from_kept);
  EXPECT_EQ(e, e_kept);
  double largest = 0;
  for (double f : all) largest = std::max(largest, std::abs(f));
  test::MaxError passes("forces of the tangent and gradient passes, relative to the largest"),
      difference("forces against energy differences, relative to the largest"),
      kept("forces from kept derivatives against recomputed ones, relative to the largest");
  for (std::size_t k = 0; k < all.size(); ++k) kept.add(from_kept[k] / largest, all[k] / largest);
  const double h = 1e-4;  // in the file's length unit (bohr)
  for (int atom : {0, 1, static_cast<int>(w.structure.size()) - 1})
    for (int c = 0; c < 3; ++c) {
      const double f = nets.force(w.structure, w.inputs, atom, c);
      passes.add(f / largest, all[3 * atom + c] / largest);
      double v[4];
      const double steps[4] = {2, 1, -1, -2};
      for (int i = 0; i < 4; ++i) {
        nnp::TrainingStructure moved = w.structure;
        moved.positions[atom][c] += steps[i] * h;
        v[i] = nets.energy(moved, nets.inputs(moved));
      }
      const double dedx = (-v[0] + 8 * v[1] - 8 * v[2] + v[3]) / (12 * h);
      difference.add(f / largest, -dedx / w.conv_length / largest);
    }
  // Measured 7.8e-16 and 1.3e-11.
  EXPECT_TRUE(passes.within(1e-13));
  EXPECT_TRUE(difference.within(1e-9));
  EXPECT_TRUE(kept.within(1e-13));
}

// The GPU's rows through the networks give the CPU's predictions and Jacobians, by the fused kernel
// and by the GEMM path.
TEST(NnpTrainJacobian, GpuJacobiansEqualTheCpu) {
  QUASAR_REQUIRE_TRAINING_DATA();
  if (!cuda_available()) GTEST_SKIP() << "no GPU";
  WaterNetworks w = water_networks();
  const nnp::TrainingNetworks& nets = *w.nets;
  for (bool fused : {true, false}) {
    nnp::GpuJacobians gpu(nets, fused);
    gpu.add(7, w.structure, w.kept);
    const std::size_t n = static_cast<std::size_t>(nets.parameter_count());
    const std::string path = fused ? " (fused kernel)" : " (GEMMs)";
    test::MaxError values("GPU - CPU energy and forces, relative" + path),
        jac("GPU - CPU Jacobians, relative to the largest" + path);
    auto compare = [&](const std::vector<double>& g, const std::vector<double>& c) {
      double largest = 0;
      for (double x : c) largest = std::max(largest, std::abs(x));
      for (std::size_t k = 0; k < n; ++k) jac.add(g[k] / largest, c[k] / largest);
    };
    Array<double> dj(Backend::Cuda, n);
    std::vector<double> cj(n, 0.0);
    // Twice into the same Jacobian: the second call adds.
    values.add(gpu.energy(7, dj.data()) / nets.energy(w.structure, w.kept, cj.data()), 1);
    values.add(gpu.energy(7, dj.data()) / nets.energy(w.structure, w.kept, cj.data()), 1);
    values.add(gpu.energy(7) / nets.energy(w.structure, w.kept), 1);
    compare(dj.to_vector(), cj);
    for (int atom : {0, 5, static_cast<int>(w.structure.size()) - 1})
      for (int c = 0; c < 3; ++c) {
        dj.set_zero();
        std::fill(cj.begin(), cj.end(), 0.0);
        values.add(gpu.force(7, atom, c, dj.data()) / nets.force(w.structure, w.kept, atom, c, cj.data()), 1);
        values.add(gpu.force(7, atom, c) / nets.force(w.structure, w.kept, atom, c), 1);
        compare(dj.to_vector(), cj);
      }
    // Measured on the H100 (GEMMs): 1.1e-15 and 1.1e-15 (the same sums in another order).
    EXPECT_TRUE(values.within(1e-13));
    EXPECT_TRUE(jac.within(1e-13));
  }
}

// The inputs and derivatives the GPU computes for `structures` against TrainingNetworks::inputs, each
// relative to the largest of its structure, added to x and d.
void compare_gpu_inputs(const nnp::TrainingNetworks& nets, const std::vector<nnp::TrainingStructure>& structures,
                        test::MaxError& x, test::MaxError& d) {
  nnp::GpuJacobians gpu(nets);
  std::vector<nnp::Neighborhood> hoods;
  std::vector<const nnp::TrainingStructure*> pointers;
  std::vector<std::size_t> ids;
  for (std::size_t s = 0; s < structures.size(); ++s) {
    ids.push_back(s);
    pointers.push_back(&structures[s]);
    hoods.push_back(nnp::neighborhood(structures[s], nets.descriptor().cutoff()));
  }
  gpu.add_computed(ids, pointers, hoods);
  for (std::size_t s = 0; s < structures.size(); ++s) {
    const nnp::StructureInputs cpu = nets.inputs(structures[s], true), got = gpu.inputs(s);
    ASSERT_EQ(got.x.size(), cpu.x.size());
    double xmax = 1e-300, dmax = 1e-300;
    for (std::size_t i = 0; i < cpu.x.size(); ++i) {
      for (double v : cpu.x[i]) xmax = std::max(xmax, std::abs(v));
      for (double v : cpu.derivatives[i]) dmax = std::max(dmax, std::abs(v));
    }
    for (std::size_t i = 0; i < cpu.x.size(); ++i) {
      ASSERT_EQ(got.derivatives[i].size(), cpu.derivatives[i].size());
      for (std::size_t f = 0; f < cpu.x[i].size(); ++f) x.add(got.x[i][f] / xmax, cpu.x[i][f] / xmax);
      for (std::size_t k = 0; k < cpu.derivatives[i].size(); ++k)
        d.add(got.derivatives[i][k] / dmax, cpu.derivatives[i][k] / dmax);
    }
  }
}

// The inputs and their derivatives that the GPU computes equal the CPU's, for the model and the
// structure of every predict/ example (between them symmetry-function types 2, 3, 9, 20 and 22, with
// and without a box) and for the water training set.
TEST(NnpTrainJacobian, GpuInputsEqualTheCpu) {
  QUASAR_REQUIRE_TRAINING_DATA();
  if (!cuda_available()) GTEST_SKIP() << "no GPU";
  struct Case {
    std::string name;
    nnp::Model model;
    std::vector<nnp::TrainingStructure> structures;
  };
  std::vector<Case> cases;
  for (const std::string folder : {"H2O_RPBE-D3", "Cu2S_PBE", "Anisole_SCAN", "DMABN_SCAN"}) {
    const fs::path dir = test::shared_path("reference/n2p2/predict/" + folder);
    nnp::Model model = nnp::read_model(dir);
    auto structures = nnp::read_training_data(dir / "input.data", model, false);
    cases.push_back({folder, std::move(model), std::move(structures)});
  }
  WaterNetworks w = water_networks();
  cases.push_back({"water training set", w.model, {w.structure}});
  for (const Case& c : cases) {
    const double conv_length = c.model.normalized ? c.model.conv_length : 1.0;
    const nnp::TrainingNetworks nets(c.model, conv_length);
    test::MaxError x(c.name + ": GPU - CPU inputs, relative to the largest"),
        d(c.name + ": GPU - CPU derivatives, relative to the largest");
    compare_gpu_inputs(nets, c.structures, x, d);
    // The same terms summed in another order: measured on the H100 1.2e-14 and 8.9e-16 at worst.
    EXPECT_TRUE(x.within(1e-13));
    EXPECT_TRUE(d.within(1e-13));
  }
}

// The same for every symmetry-function type, cutoff kind, inner cutoff and compact core of the
// symmetry tests' models (nnp_symmetry_direct.hpp), on clusters of 19 atoms (no box).
TEST(NnpTrainJacobian, GpuInputsEqualTheCpuForEveryType) {
  std::mt19937_64 rng(3);
  // Each model with a small network and unit scaling; two clusters, centred on an H and on an O.
  struct Case {
    nnp::Model model;
    std::vector<nnp::TrainingStructure> structures;
  };
  std::vector<Case> cases;
  for (nnp::Model m : nnp::test_sf::all_models()) {
    for (nnp::ElementModel& e : m.elements) {
      e.scaling.assign(e.functions.size(), nnp::Scaling{0, 1, 0, 1});
      e.hidden = {3};
      e.activations = "tl";
      e.weights.assign(e.parameter_count(), 0.1);
    }
    Case c{m, std::vector<nnp::TrainingStructure>(2)};
    for (int centre = 0; centre < 2; ++centre) {
      nnp::TrainingStructure& t = c.structures[static_cast<std::size_t>(centre)];
      t.positions.push_back({0, 0, 0});
      t.element.push_back(centre);
      for (const auto& a : nnp::test_sf::random_cluster(rng, 18, nnp::test_sf::boundaries(m, 1))) {
        t.positions.push_back({a.x, a.y, a.z});
        t.element.push_back(a.element);
      }
      t.box = Box::enclosing(t.positions);  // no periodic images
      t.per_element.assign(m.elements.size(), 0);
      for (int e : t.element) ++t.per_element[static_cast<std::size_t>(e)];
    }
    cases.push_back(std::move(c));
  }
  if (!cuda_available()) GTEST_SKIP() << "no GPU";
  test::MaxError x("every type: GPU - CPU inputs, relative to the largest"),
      d("every type: GPU - CPU derivatives, relative to the largest");
  for (const Case& c : cases) compare_gpu_inputs(nnp::TrainingNetworks(c.model, 1.0), c.structures, x, d);
  // Measured on the H100: 1.3e-15 and 3.3e-15.
  EXPECT_TRUE(x.within(1e-13));
  EXPECT_TRUE(d.within(1e-13));
}

// ---------------------------------------------------------------------------------------------------
// The Kalman filter against its dense formula, written out with full matrices.

struct DenseKalman {
  int n;
  std::vector<double> p, w;  // P full, column-major
  double q, eta, lambda;
  nn::KalmanSettings s;
  DenseKalman(int size, const nn::KalmanSettings& settings, std::vector<double> state)
      : n(size), p(std::size_t(size) * size, 0.0), w(std::move(state)), s(settings) {
    for (int i = 0; i < n; ++i) p[i + std::size_t(n) * i] = 1 / s.epsilon;
    q = s.q0;
    eta = s.eta0;
    lambda = s.kind == nn::KalmanSettings::Kind::FadingMemory ? s.lambda : 1.0;
  }
  // Gauss-Jordan inverse of a small matrix.
  static std::vector<double> inverse(std::vector<double> a, int m) {
    std::vector<double> inv(std::size_t(m) * m, 0.0);
    for (int i = 0; i < m; ++i) inv[i + std::size_t(m) * i] = 1;
    for (int c = 0; c < m; ++c) {
      const double d = a[c + std::size_t(m) * c];
      for (int j = 0; j < m; ++j) a[c + std::size_t(m) * j] /= d, inv[c + std::size_t(m) * j] /= d;
      for (int r = 0; r < m; ++r) {
        if (r == c) continue;
        const double f = a[r + std::size_t(m) * c];
        for (int j = 0; j < m; ++j) {
          a[r + std::size_t(m) * j] -= f * a[c + std::size_t(m) * j];
          inv[r + std::size_t(m) * j] -= f * inv[c + std::size_t(m) * j];
        }
      }
    }
    return inv;
  }
  void update(const std::vector<double>& xi, const std::vector<double>& h, int m) {
    const bool standard = s.kind == nn::KalmanSettings::Kind::Standard;
    if (standard && eta < s.etamax) eta *= std::exp(s.etatau);
    std::vector<double> x(std::size_t(n) * m, 0.0), a(std::size_t(m) * m, 0.0), k(std::size_t(n) * m, 0.0);
    for (int o = 0; o < m; ++o)
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) x[i + std::size_t(n) * o] += p[i + std::size_t(n) * j] * h[j + std::size_t(n) * o];
    for (int r = 0; r < m; ++r)
      for (int c = 0; c < m; ++c)
        for (int i = 0; i < n; ++i) a[r + std::size_t(m) * c] += h[i + std::size_t(n) * r] * x[i + std::size_t(n) * c];
    for (int r = 0; r < m; ++r) a[r + std::size_t(m) * r] += standard ? 1 / eta : lambda;
    const std::vector<double> ai = inverse(a, m);
    for (int c = 0; c < m; ++c)
      for (int i = 0; i < n; ++i)
        for (int l = 0; l < m; ++l) k[i + std::size_t(n) * c] += x[i + std::size_t(n) * l] * ai[l + std::size_t(m) * c];
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        double kx = 0;
        for (int l = 0; l < m; ++l) kx += k[i + std::size_t(n) * l] * x[j + std::size_t(n) * l];
        p[i + std::size_t(n) * j] = (p[i + std::size_t(n) * j] - kx) / lambda + (i == j ? q : 0.0);
      }
    for (int i = 0; i < n; ++i)
      for (int l = 0; l < m; ++l) w[i] += k[i + std::size_t(n) * l] * xi[l];
    if (q > s.qmin) q *= std::exp(-s.qtau);
    if (!standard) lambda = s.nu * lambda + 1 - s.nu;
  }
};

class NnpKalman : public testing::TestWithParam<Backend> {};

// Sizes of one and of several blocks of the GPU's single-observation kernels.
TEST_P(NnpKalman, UpdatesFollowTheDenseFormula) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  for (const int n : {7, 300})
  for (auto kind : {nn::KalmanSettings::Kind::Standard, nn::KalmanSettings::Kind::FadingMemory}) {
    nn::KalmanSettings s;
    s.kind = kind;
    s.epsilon = 0.5;
    s.q0 = 0.02, s.qtau = 0.3, s.qmin = 0.01;  // q reaches qmin within the updates
    s.eta0 = 0.2, s.etatau = 0.4, s.etamax = 0.5;
    s.lambda = 0.9, s.nu = 0.8;
    std::vector<double> w0(n);
    for (double& x : w0) x = u(rng);
    nn::KalmanFilter filter(GetParam(), n, s);
    DenseKalman dense(n, s, w0);
    Array<double> state(GetParam(), n), error(GetParam()), jacobian(GetParam());
    state.upload(w0.data(), n);
    test::MaxError ew("Kalman state against the dense formula"),
        ep("Kalman P (lower triangle) against the dense formula");
    for (int m : {1, 3, 2, 1}) {
      std::vector<double> xi(m), h(std::size_t(n) * m);
      for (double& x : xi) x = u(rng);
      for (double& x : h) x = u(rng);
      error.assign(xi);
      jacobian.assign(h);
      filter.update(state, error, jacobian, m);
      dense.update(xi, h, m);
      const std::vector<double> w = state.to_vector(), p = filter.covariance();
      for (int i = 0; i < n; ++i) ew.add(w[i], dense.w[i]);
      for (int j = 0; j < n; ++j)
        for (int i = j; i < n; ++i) ep.add(p[i + std::size_t(n) * j], dense.p[i + std::size_t(n) * j]);
    }
    EXPECT_EQ(filter.updates(), 4);
    EXPECT_NEAR(filter.q(), dense.q, 1e-15);
    EXPECT_NEAR(filter.eta(), dense.eta, 1e-15);
    EXPECT_NEAR(filter.lambda(), dense.lambda, 1e-15);
    // Measured on the CPU: 2.2e-16 (state), 5.6e-16 (P).
    EXPECT_TRUE(ew.within(5e-14));
    EXPECT_TRUE(ep.within(5e-14));
  }
}

// An observation whose A is not positive (a NaN in the Jacobian) is refused: an error on the CPU,
// skipped and counted on the GPU.
TEST_P(NnpKalman, AnObservationWithoutPositiveAIsRefused) {
  const int n = 5;
  nn::KalmanFilter filter(GetParam(), n, nn::KalmanSettings{});
  const std::vector<double> w0{0.1, 0.2, 0.3, 0.4, 0.5};
  Array<double> state(GetParam(), n), error(GetParam()), jacobian(GetParam());
  state.upload(w0.data(), n);
  error.assign({0.5});
  jacobian.assign({1.0, 0.0, std::nan(""), 0.0, 1.0});
  if (GetParam() == Backend::Cpu) {
    EXPECT_THROW(filter.update(state, error, jacobian, 1), Error);
    return;
  }
  filter.update(state, error, jacobian, 1);
  EXPECT_EQ(filter.rejected(), 1);
  EXPECT_EQ(state.to_vector(), w0);
}

// Checkpoints: a filter restored from another's state() takes the same next update, bit for bit (on
// the GPU too: the same kernels on the same numbers); a bad state is refused and changes nothing.
TEST_P(NnpKalman, RestoredStateTakesTheSameUpdate) {
  const int n = 4;
  nn::KalmanSettings k;
  k.qtau = 0.1, k.etatau = 0.2;
  nn::KalmanFilter a(GetParam(), n, k), b(GetParam(), n, k);
  Array<double> wa(GetParam(), n), wb(GetParam(), n), error(GetParam()), jacobian(GetParam());
  const std::vector<double> w0{0.1, -0.2, 0.3, 0.4};
  wa.upload(w0.data(), n);
  error.assign({0.5});
  jacobian.assign({1.0, 0.5, -0.25, 2.0});
  for (int u = 0; u < 3; ++u) a.update(wa, error, jacobian, 1);
  const nn::KalmanFilter::State s = a.state();
  EXPECT_EQ(s.lower.size(), 10u);
  EXPECT_EQ(s.updates, 3);
  nn::KalmanFilter::State bad = s;
  bad.lower[0] = -1;  // P(0, 0)
  EXPECT_THROW(b.restore(bad), Error);
  EXPECT_EQ(b.updates(), 0);
  b.restore(s);
  wb.assign(wa.to_vector());
  a.update(wa, error, jacobian, 1);
  b.update(wb, error, jacobian, 1);
  EXPECT_EQ(wa.to_vector(), wb.to_vector());
  EXPECT_EQ(a.covariance(), b.covariance());
  EXPECT_EQ(a.q(), b.q());
  EXPECT_EQ(a.eta(), b.eta());
}

QUASAR_INSTANTIATE_BACKENDS(NnpKalman);

// n2p2's gradient descent, written out: fixed step w += eta xi J; Adam on g = -xi J with the step
// eta sqrt(1 - b2^t) / (1 - b1^t) m / (sqrt(v) + eps).
TEST(NnpUpdaters, GradientDescentFollowsN2p2sFormulas) {
  nnp::TrainingSettings s;
  s.updater = nnp::TrainingSettings::Updater::GradientDescent;
  s.gradient_eta = 0.3;
  s.adam_eta = 0.01, s.adam_beta1 = 0.8, s.adam_beta2 = 0.9, s.adam_epsilon = 1e-3;
  const std::vector<double> w0{0.5, -1.0, 2.0}, xi{0.7, -0.2}, jac{1.0, 2.0, -0.5, -3.0, 0.25, 4.0};
  test::MaxError err("gradient descent against the formulas");
  for (auto descent : {nnp::TrainingSettings::Descent::Fixed, nnp::TrainingSettings::Descent::Adam}) {
    s.descent = descent;
    auto updater = nnp::make_updater(s, Backend::Cpu, 3, 10);
    Array<double> w(Backend::Cpu, 3), e(Backend::Cpu, 1), j(Backend::Cpu, 3);
    w.upload(w0.data(), 3);
    std::vector<double> want = w0, m(3, 0.0), v(3, 0.0);
    double b1t = s.adam_beta1, b2t = s.adam_beta2;
    for (int t = 0; t < 2; ++t) {
      e.upload(&xi[t], 1);
      j.upload(&jac[3 * t], 3);
      updater->update(w, e, j, 1);
      const double eta = s.adam_eta * std::sqrt(1 - b2t) / (1 - b1t);
      for (int i = 0; i < 3; ++i) {
        if (descent == nnp::TrainingSettings::Descent::Fixed) {
          want[i] += s.gradient_eta * xi[t] * jac[3 * t + i];
          continue;
        }
        const double g = -xi[t] * jac[3 * t + i];
        m[i] = s.adam_beta1 * m[i] + (1 - s.adam_beta1) * g;
        v[i] = s.adam_beta2 * v[i] + (1 - s.adam_beta2) * g * g;
        want[i] -= eta * m[i] / (std::sqrt(v[i]) + s.adam_epsilon);
      }
      b1t *= s.adam_beta1, b2t *= s.adam_beta2;
      const std::vector<double> got = w.to_vector();
      for (int i = 0; i < 3; ++i) err.add(got[i], want[i]);
    }
  }
  // The same arithmetic in the same order: measured 0.
  EXPECT_TRUE(err.within(1e-15));
}

}  // namespace
}  // namespace quasar
