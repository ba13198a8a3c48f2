// Configurations per second of the modified Shepard interpolation (exact method, energy and
// gradient), for data sets shaped like those of the GPU paper's Table 1: O H3 (1972 points, group 6),
// N H4 (2000, 24) and C H5 (2344, 120). The data points are random distortions of one geometry with
// zero gradient and Hessian: the cost depends on the shapes and on how many points the weights keep
// (printed as the mean neighbour set), not on the energies. With --dataset, a data set from a file
// instead (a grown one, say: bench/shepard-grow.sh), at its points moved by up to 0.05 Å.
// usage: bench_shepard_bench [--configs N] [--threads] [--device cpu|cuda] [--dataset FILE [--full-group]] [--grid]
//   cpu (default): one thread (rates from the thread's CPU time, so that other work on the machine
//   does not count), the fast path and the scalar reference, and with --threads also evaluate_batch
//   on every thread (wall time; N = 200);
//   cuda: GpuInterpolant::evaluate_batch over N configurations (default 65536), host arrays in and
//   out, after one untimed call; the first 64 checked against the CPU (largest deviations printed).
//   --full-group: the file's set under every permutation of identical atoms.
//   --grid: grid points per second instead, energies by the approximate method (evaluate_grid), on
//   direct-product grids of Z-matrix coordinates about the data's geometry sized as the paper's
//   Table 2 (OH3 15 x 15 x 9^4 = 1,476,225 points, NH4 12 x 3^8 = 78,732, CH5 4 x 3^8 = 26,244; each
//   step 0.01 Å or 1 degree); on the CPU (one thread, or every thread with --threads) leading
//   coordinates are held at their middle value until at most N points remain (default 20000); the
//   first 64 grid points checked against the CPU's evaluation of each alone.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "quasar/device/backend.hpp"
#include "quasar/device/parallel.hpp"
#include "quasar/potential/shepard/coordinates.hpp"
#include "quasar/potential/shepard/gpu_interpolant.hpp"
#include "quasar/potential/shepard/grid.hpp"
#include "quasar/potential/shepard/interpolant.hpp"

using namespace quasar;

namespace {

struct Shape {
  const char* name;
  std::vector<std::string> elements;
  std::vector<double> geometry;
  int points;
};

std::vector<double> distorted(const std::vector<double>& x, double amplitude, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-amplitude, amplitude);
  std::vector<double> y = x;
  for (double& v : y) v += u(rng);
  return y;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double thread_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// One line of the table: the set f at the configurations xs.
void run(const char* name, const shepard::Interpolant& f, const std::vector<double>& xs, bool gpu, bool threads) {
  const std::size_t n3 = static_cast<std::size_t>(3 * f.atoms);
  const int configs = static_cast<int>(xs.size() / n3);
  std::printf("%-5s %6d %6d %9d", name, f.data_points, f.group, f.points);
  if (gpu) {
    shepard::GpuInterpolant on_gpu(f);
    std::vector<double> e(static_cast<std::size_t>(configs)), g(xs.size());
    on_gpu.evaluate_batch(xs, e, g);  // untimed: the first launches, the lists' size
    const auto t0 = std::chrono::steady_clock::now();
    on_gpu.evaluate_batch(xs, e, g);
    const double rate = configs / seconds_since(t0);
    double de = 0, dg = 0;
    std::vector<double> g_ref(n3);
    for (int c = 0; c < std::min(configs, 64); ++c) {
      const std::size_t at = static_cast<std::size_t>(c) * n3;
      de = std::max(de, std::abs(e[static_cast<std::size_t>(c)] - shepard::evaluate(f, xs.data() + at, g_ref.data())));
      for (std::size_t i = 0; i < n3; ++i) dg = std::max(dg, std::abs(g[at + i] - g_ref[i]));
    }
    std::printf(" %12.1f %14.4g   GPU - CPU: energy %.1e eV, gradient %.1e eV/Å\n", on_gpu.mean_neighbours(), rate, de,
                dg);
    return;
  }
  shepard::Workspace ws;
  std::vector<double> grad(n3);
  double nforc = 0, sink = 0;
  double t0 = thread_seconds();
  for (int c = 0; c < configs; ++c) {
    sink += shepard::evaluate(f, xs.data() + static_cast<std::size_t>(c) * n3, grad.data(), ws);
    nforc += static_cast<double>(ws.set.size());
  }
  const double rate = configs / (thread_seconds() - t0);
  t0 = thread_seconds();
  for (int c = 0; c < configs; ++c) sink -= shepard::evaluate_reference(f, xs.data() + static_cast<std::size_t>(c) * n3, grad.data());
  const double reference = configs / (thread_seconds() - t0);
  std::printf(" %12.1f %14.1f %14.1f", nforc / configs, rate, reference);
  if (threads) {
    std::vector<double> e(static_cast<std::size_t>(configs)), g(xs.size());
    const auto t1 = std::chrono::steady_clock::now();
    shepard::evaluate_batch(f, xs, e, g);
    std::printf("   %.1f configs/s on every thread", configs / seconds_since(t1));
  }
  std::printf("   (fast - reference energies summed: %.1e)\n", sink);
}

// The paper's grid sizes per coordinate (Table 2's totals), about the geometry x of a Z-matrix that
// places every atom from atoms 1, 2 and 3; on the CPU leading coordinates held at their middle
// value until at most `most` points remain.
shepard::Grid paper_grid(const std::vector<double>& x, int atoms, long most) {
  shepard::Grid g;
  for (int row = 1; row <= atoms; ++row)
    g.rows.push_back({"X", row >= 2 ? 1 : 0, row >= 3 ? 2 : 0, row >= 4 ? 3 : 0});
  const std::vector<shepard::ZCoordinate> coords = shepard::zmatrix_coordinates(atoms);
  std::vector<double> q(coords.size());
  shepard::zmatrix_values(g.rows, x.data(), q.data());
  std::vector<long> counts(coords.size(), 1);
  if (atoms == 4) counts = {15, 15, 9, 9, 9, 9};
  if (atoms == 5) counts = {12, 3, 3, 3, 3, 3, 3, 3, 3};
  if (atoms == 6) counts = {4, 3, 3, 3, 3, 3, 3, 3, 3, 1, 1, 1};
  long total = 1;
  for (long c : counts) total *= c;
  for (std::size_t k = 0; k < counts.size() && total > most; ++k) {
    total /= counts[k];
    counts[k] = 1;
  }
  for (std::size_t k = 0; k < coords.size(); ++k) {
    const double step = coords[k].kind == shepard::ZKind::Bond ? 0.01 : 1.0;
    std::vector<double> v;
    for (long i = 0; i < counts[k]; ++i) v.push_back(q[k] + step * static_cast<double>(i - counts[k] / 2));
    g.values.push_back(v);
  }
  return g;
}

// Grid points per second of the approximate method (energies) on one backend.
void grid_bench(const char* name, const shepard::Interpolant& f, const std::vector<double>& x, bool gpu, bool threads,
                long most) {
  const shepard::Grid g = paper_grid(x, f.atoms, gpu ? 1L << 40 : most);
  shepard::GridEvaluation how;
  how.backend = gpu ? Backend::Cuda : Backend::Cpu;
  device::set_cpu_threads(gpu || threads ? 0 : 1);  // the GPU run makes its Cartesians on every thread
  std::vector<double> first;
  double sink = 0;
  auto collect = [&](const shepard::GridSlab& slab) {
    for (long k = 0; k < slab.count; ++k) sink += slab.energies[k];
    for (long k = 0; k < slab.count && first.size() < 64; ++k) first.push_back(slab.energies[k]);
  };
  if (gpu) {  // untimed: the first launches
    shepard::Grid small = g;
    for (auto& v : small.values) v.resize(1);
    shepard::evaluate_grid(f, small, how, [](const shepard::GridSlab&) {});
  }
  const auto t0 = std::chrono::steady_clock::now();
  shepard::evaluate_grid(f, g, how, collect);
  const double seconds = seconds_since(t0);
  device::set_cpu_threads(0);
  // The first points against each alone on the CPU, with its group centre's neighbour set.
  shepard::Workspace ws;
  std::vector<double> xi(static_cast<std::size_t>(3 * f.atoms)), xc(xi.size()), z(static_cast<std::size_t>(f.pairs));
  std::vector<int> set;
  double de = 0;
  for (std::size_t i = 0; i < first.size(); ++i) {
    g.cartesians(static_cast<long>(i), xi.data());
    g.cartesians(shepard::group_centre(g, static_cast<long>(i)), xc.data());
    shepard::inverse_distances(xc.data(), f.atoms, z.data());
    shepard::select_neighbours(f, z.data(), set, ws);
    de = std::max(de, std::abs(first[i] - shepard::interpolate(f, xi.data(), set, nullptr, ws)));
  }
  std::printf("%-4s grid", name);
  for (long c : g.shape()) std::printf(" %ld", c);
  std::printf(" = %ld points: %.3g s, %.4g points/s on %s; first 64 - each alone on the CPU: %.1e eV   (checksum %.6g)\n",
              g.points(), seconds, static_cast<double>(g.points()) / seconds,
              gpu ? "the GPU" : threads ? "every thread" : "one thread", de, sink);
}

}  // namespace

int main(int argc, char** argv) {
  int configs = 0;
  bool threads = false, gpu = false, full_group = false, grid = false;
  std::string dataset;
  for (int k = 1; k < argc; ++k) {
    if (!std::strcmp(argv[k], "--configs") && k + 1 < argc) configs = std::atoi(argv[++k]);
    else if (!std::strcmp(argv[k], "--threads")) threads = true;
    else if (!std::strcmp(argv[k], "--device") && k + 1 < argc) gpu = !std::strcmp(argv[++k], "cuda");
    else if (!std::strcmp(argv[k], "--dataset") && k + 1 < argc) dataset = argv[++k];
    else if (!std::strcmp(argv[k], "--full-group")) full_group = true;
    else if (!std::strcmp(argv[k], "--grid")) grid = true;
  }
  const long grid_most = configs > 0 ? configs : 20000;
  if (configs <= 0) configs = gpu ? 65536 : 200;
  if (gpu && !cuda_available()) {
    std::fprintf(stderr, "--device cuda: no GPU answers (or this build has no CUDA)\n");
    return 1;
  }
  if (!grid) {
    std::printf("%-5s %6s %6s %9s %12s %14s", "", "points", "group", "replicas", "mean nforc",
                gpu ? "configs/s (GPU)" : "configs/s (1 thread)");
    std::printf(gpu ? "\n" : " %14s\n", "reference");
  }
  std::mt19937_64 rng(1);
  if (!dataset.empty()) {
    shepard::DataSet set = shepard::read_dataset(dataset);
    if (full_group) set.permutations = shepard::full_permutation_group(set.elements);
    std::vector<double> xs;
    for (int c = 0; c < configs; ++c) {
      const auto x = distorted(set.points[rng() % set.points.size()].positions, 0.05, rng);
      xs.insert(xs.end(), x.begin(), x.end());
    }
    run("file", shepard::Interpolant::from(set), xs, gpu, threads);
    return 0;
  }
  const double a = 0.63;
  const std::vector<Shape> shapes = {
      {"OH3", {"O", "H", "H", "H"}, {0, 0, 0.1, 0.95, 0.1, -0.2, -0.45, 0.85, -0.25, -0.5, -0.8, -0.3}, 1972},
      {"NH4", {"N", "H", "H", "H", "H"}, {0, 0, 0, a, a, a, -a, -a, a, -a, a, -a, 1.3, -1.3, -1.3}, 2000},
      {"CH5", {"C", "H", "H", "H", "H", "H"}, {0, 0, 0, a, a, a, -a, -a, a, -a, a, -a, a, -a, -a, 1.9, 1.8, 1.7}, 2344}};
  for (const Shape& s : shapes) {
    rng.seed(1);
    shepard::DataSet set;
    set.elements = s.elements;
    set.masses.assign(s.elements.size(), 1.0);
    set.permutations = shepard::full_permutation_group(s.elements);
    const std::size_t n3 = s.geometry.size();
    for (int i = 0; i < s.points; ++i) {
      shepard::CartesianPoint p;
      p.positions = distorted(s.geometry, 0.2, rng);
      p.gradient.assign(n3, 0.0);
      p.hessian.assign(n3 * n3, 0.0);
      set.points.push_back(shepard::make_data_point(p, std::vector<double>(static_cast<std::size_t>(set.pairs()), 0.1)));
    }
    if (grid) {
      grid_bench(s.name, shepard::Interpolant::from(set), s.geometry, gpu, threads, grid_most);
      continue;
    }
    std::vector<double> xs;
    for (int c = 0; c < configs; ++c) {
      const auto x = distorted(s.geometry, 0.15, rng);
      xs.insert(xs.end(), x.begin(), x.end());
    }
    run(s.name, shepard::Interpolant::from(set), xs, gpu, threads);
  }
  return 0;
}
