// Full MD steps (velocity Verlet or a thermostat, neighbour list with a 1 Å skin, forces; energies
// only at the last step) at 300 K: prints atom-steps/s and device memory. Systems: "lj" (argon
// fcc), "eam" (copper fcc), "water" (Deep Potential water: the first frame of DeePMD-kit's water
// data, 64 liquid molecules, repeated cells^3 times: 4 -> 12,288 atoms; data folder in
// $QUASAR_WATER_DATA, model in $QUASAR_DP_WATER), "copper" (Deep Potential fcc copper, cells^3
// unit cells, model in $QUASAR_DP_COPPER), "nnp" (n2p2's H2O_RPBE-D3 Behler-Parrinello water, in bohr
// and hartree: its 1080-atom box repeated cells^3 times; the folder of input.nn and input.data in
// $QUASAR_NNP_WATER).
// usage: bench_md_bench [--device cpu|cuda] [--cells "20 40 80"] [--steps N] [--systems "lj eam"]
//                       [--precision double|mixed32|mixed16] [--compress MIN_DIST] [--chunk ATOMS]
//                       [--integrator nve|langevin|bussi] [--deterministic]   (fixed-point GPU sums:
//                       deterministic = true of an input; with nve, LJ and EAM have none in force-only steps)
//        bench_md_bench [--compress MIN_DIST] --write-model FILE   (the water model as the benchmark
//                       runs it, for other codes; compressed models keep their table settings)
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "quasar/device/backend.hpp"
#include "quasar/core/error.hpp"
#include "quasar/core/units.hpp"
#include "quasar/io/deepmd_npy.hpp"
#include "quasar/io/lattice.hpp"
#include "quasar/io/n2p2_data.hpp"
#include "quasar/md/simulation.hpp"
#if QUASAR_WITH_DP
#include "quasar/potential/dp/deep_potential.hpp"
#include "quasar/potential/dp/model_io.hpp"
#endif
#include "quasar/potential/pair/eam.hpp"
#include "quasar/potential/pair/lj.hpp"
#include "quasar/potential/registry.hpp"

using namespace quasar;


namespace {
Structure water(int c) {
  const char* dir = std::getenv("QUASAR_WATER_DATA");
  if (!dir) throw Error("water: set QUASAR_WATER_DATA to a deepmd/npy water system (water-data/data_0)");
  return replicate(io::read_deepmd_frame(dir, 0, 0), {c, c, c});
}

// n2p2's water box (bohr) in Å, repeated c^3 times.
Structure nnp_water(int c) {
  const char* dir = std::getenv("QUASAR_NNP_WATER");
  if (!dir) throw Error("nnp: set QUASAR_NNP_WATER to n2p2's H2O_RPBE-D3 folder (predict/)");
  return replicate(io::read_n2p2_data(std::string(dir) + "/input.data", {units::bohr, units::hartree}).at(0), {c, c, c});
}

#if QUASAR_WITH_DP
// The benchmark models have random weights whose forces would crush the structure; scaled down
// 1000x, the atoms move thermally (list rebuilds as in real liquids) at the same cost.
dp::DpModel bench_model(const char* path) {
  dp::DpModel m = dp::read_dp_model(path);
  for (auto& net : m.fitting) {
    for (double& w : net.layers.back().w) w *= 1e-3;
    for (double& b : net.layers.back().b) b *= 1e-3;
  }
  return m;
}
#endif
}  // namespace

int main(int argc, char** argv) {
  std::string device = "auto", cells_arg = "20 40 80", systems_arg = "lj eam", precision = "double", write_model,
              integrator = "nve";
  long steps = 0, chunk = 0;
  double compress = 0;
  bool deterministic = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--deterministic")) {
      deterministic = true;
      continue;
    }
    if (i + 1 >= argc) break;
    if (!std::strcmp(argv[i], "--device")) device = argv[i + 1];
    else if (!std::strcmp(argv[i], "--cells")) cells_arg = argv[i + 1];
    else if (!std::strcmp(argv[i], "--steps")) steps = std::atol(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--systems")) systems_arg = argv[i + 1];
    else if (!std::strcmp(argv[i], "--precision")) precision = argv[i + 1];
    else if (!std::strcmp(argv[i], "--compress")) compress = std::atof(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--chunk")) chunk = std::atol(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--write-model")) write_model = argv[i + 1];
    else if (!std::strcmp(argv[i], "--integrator")) integrator = argv[i + 1];
    ++i;
  }
#if QUASAR_WITH_DP
  auto bench_dp = [compress](const char* file) {
    dp::DpModel m = bench_model(file);
    if (compress > 0) {
      m.compressed = true;
      m.compression.min_nbor_dist = compress;
    }
    return m;
  };
  if (!write_model.empty()) {
    const char* model = std::getenv("QUASAR_DP_WATER");
    if (!model) throw Error("--write-model: set QUASAR_DP_WATER to the water model");
    dp::write_model_dict(write_model, dp::model_to_dict(bench_dp(model)));
    return 0;
  }
#endif
  const Backend backend = parse_backend(device);
  std::istringstream cs(cells_arg), ss(systems_arg);
  std::vector<int> cells;
  for (int c; cs >> c;) cells.push_back(c);
  std::vector<std::string> systems;
  for (std::string s; ss >> s;) systems.push_back(s);
  const std::string eam_file = "/usr/share/lammps/potentials/Cu_u3.eam";
  const char* env = std::getenv("QUASAR_LAMMPS_POTENTIALS");
  const std::string eam_path = env ? std::string(env) + "/Cu_u3.eam" : eam_file;
  std::printf("%-5s %10s %6s %8s %14s %12s %10s\n", "sys", "atoms", "dev", "steps", "atom-steps/s", "ms/step", "B/atom");
  for (const auto& sys : systems) {
    for (int c : cells) {
      const double sigma = 3.405;
      Structure s = sys == "lj"    ? io::make_lattice("fcc", "Ar", std::cbrt(4 / 0.8442) * sigma, {c, c, c})
                    : sys == "water" ? water(c)
                    : sys == "nnp"   ? nnp_water(c)
                                     : io::make_lattice("fcc", "Cu", 3.615, {c, c, c});
      const bool deepmd = sys == "water" || sys == "copper";
      const bool nnp = sys == "nnp";
      std::unique_ptr<Potential> pot;
      if (nnp) {
        pot = load_model(std::getenv("QUASAR_NNP_WATER"), {{"units", "bohr,Ha"}});
        set_model_precision(*pot, precision);
      } else if (deepmd) {
        const char* model = std::getenv(sys == "water" ? "QUASAR_DP_WATER" : "QUASAR_DP_COPPER");
        if (!model) {
          std::printf("%s: set QUASAR_DP_WATER / QUASAR_DP_COPPER to the model (.yaml or .dp)\n", sys.c_str());
          continue;
        }
#if QUASAR_WITH_DP
        auto d = std::make_unique<dp::DeepPotential>(bench_dp(model));
        d->set_precision(parse_precision(precision), chunk);
        pot = std::move(d);
#else
        std::printf("%s: this build has no Deep Potential (QUASAR_WITH_DP=OFF)\n", sys.c_str());
        continue;
#endif
      } else if (sys == "lj")
        pot = std::make_unique<LennardJones>(std::map<std::string, LjSpecies>{{"Ar", {0.0104, sigma}}}, 2.5 * sigma,
                                             false, false);
      else
        pot = std::make_unique<Eam>(Eam::from_funcfl({{"*", eam_path}}));
      const long n = static_cast<long>(s.size());
      // Enough steps for a stable number: about 2e8 atom-steps on the GPU, 2e6 on the CPU.
      const long budget = deepmd || nnp ? (backend == Backend::Cuda ? 2000000L : 2000L)
                                         : (backend == Backend::Cuda ? 200000000L : 2000000L);
      const long nsteps = steps > 0 ? steps : std::max(20L, budget / n);
      md::MdSettings st;
      st.integrator.kind = integrator;
      st.integrator.dt = sys == "water" || nnp ? 0.0005 : 0.002;
      st.integrator.temperature = 300;
      st.integrator.seed = 4928459;
      st.output.progress = false;
      st.output.thermo_every = 1000000000;
      st.skin = 1.0;
      st.sort_every = 1000;
      st.deterministic = deterministic;
      const std::size_t mem0 = backend == Backend::Cuda ? device::memory_in_use() : 0;
      md::Simulation sim(s, std::move(pot), st, backend);
      // Warm-up, then the timed steps.
      auto advance = [&](long k0, long count) {
        for (long k = k0; k < k0 + count; ++k)
          sim.advance(k, {false, false, false});
      };
      const long warm = std::min(10L, nsteps);
      advance(1, warm);
      if (backend == Backend::Cuda) device::synchronize();
      const auto t0 = std::chrono::steady_clock::now();
      advance(1 + warm, nsteps);
      if (backend == Backend::Cuda) device::synchronize();
      const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      sim.neighbor_lists().check_overflow();
      const md::Thermo t = sim.thermo();
      const double mem = backend == Backend::Cuda ? static_cast<double>(device::memory_in_use() - mem0) / static_cast<double>(n) : 0.0;
      std::printf("%-5s %10ld %6s %8ld %14.4g %12.4g %10.0f   (T %.1f K, builds %ld, %s%s", sys.c_str(), n,
                  backend_name(backend), nsteps, static_cast<double>(n) * nsteps / secs, 1e3 * secs / nsteps, mem,
                  t.temperature, sim.neighbor_lists().builds(), integrator.c_str(),
                  deterministic ? ", deterministic" : "");
#if QUASAR_WITH_DP
      if (deepmd)
        if (const auto* g = static_cast<dp::DeepPotential&>(sim.force_field().potential(0)).gpu_evaluator())
          std::printf(", %s%s, chunk %ld atoms, work %.2f GB", precision.c_str(), compress > 0 ? " compressed" : "",
                      g->chunk_atoms(), g->work_bytes() / 1e9);
#endif
      std::printf(")\n");
      std::fflush(stdout);
    }
  }
  return 0;
}
