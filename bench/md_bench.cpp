// Full MD steps (velocity Verlet, neighbour list with a 1 Å skin, forces; energies only at the last
// step) at 300 K: prints atom-steps/s and device memory. Systems: "lj" (argon fcc), "eam" (copper
// fcc), "water" (Deep Potential water: molecules on a cubic lattice at 1 g/cm^3, cells^3 molecules,
// with the model in $QUASAR_DP_WATER, DeePMD-kit's water architecture).
// usage: bench_md_bench [--device cpu|cuda] [--cells "20 40 80"] [--steps N] [--systems "lj eam"]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "quasar/device/backend.hpp"
#include "quasar/io/lattice.hpp"
#include "quasar/md/simulation.hpp"
#include "quasar/potential/pair/eam.hpp"
#include "quasar/potential/pair/lj.hpp"
#include "quasar/potential/registry.hpp"
#include "quasar/core/random.hpp"

using namespace quasar;

namespace {
// c^3 water molecules on a cubic lattice at 1 g/cm^3 (3.104 Å apart), each randomly oriented.
Structure water_box(int c) {
  Structure s;
  const int o = s.type_index("O"), h = s.type_index("H");
  const double a = 3.104, bond = 0.9572, half = 0.5 * 104.52 * 3.14159265358979 / 180;
  s.box = Box::orthorhombic(a * c, a * c, a * c);
  uint32_t k = 0;
  for (int i = 0; i < c; ++i)
    for (int j = 0; j < c; ++j)
      for (int l = 0; l < c; ++l, ++k) {
        double g[3], e[3];
        normal3(7, 0, k, 0, g);
        normal3(7, 0, k, 1, e);
        Vec3 u{g[0], g[1], g[2]};
        u = (1.0 / std::sqrt(norm2(u))) * u;
        Vec3 v = cross(u, Vec3{e[0], e[1], e[2]});
        v = (1.0 / std::sqrt(norm2(v))) * v;
        const Vec3 r{a * i, a * j, a * l};
        s.positions.push_back(r);
        s.types.push_back(o);
        for (double sgn : {1.0, -1.0}) {
          s.positions.push_back(r + bond * (std::cos(half) * u + sgn * std::sin(half) * v));
          s.types.push_back(h);
        }
      }
  return s;
}
}  // namespace

int main(int argc, char** argv) {
  std::string device = "auto", cells_arg = "20 40 80", systems_arg = "lj eam";
  long steps = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--device")) device = argv[i + 1];
    else if (!std::strcmp(argv[i], "--cells")) cells_arg = argv[i + 1];
    else if (!std::strcmp(argv[i], "--steps")) steps = std::atol(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--systems")) systems_arg = argv[i + 1];
  }
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
                    : sys == "eam" ? io::make_lattice("fcc", "Cu", 3.615, {c, c, c})
                                   : water_box(c);
      std::unique_ptr<Potential> pot;
      if (sys == "water") {
        const char* model = std::getenv("QUASAR_DP_WATER");
        if (!model) {
          std::printf("water: set QUASAR_DP_WATER to a water model (.yaml or .dp)\n");
          continue;
        }
        pot = load_model(model);
      } else if (sys == "lj")
        pot = std::make_unique<LennardJones>(std::map<std::string, LjSpecies>{{"Ar", {0.0104, sigma}}}, 2.5 * sigma,
                                             false, false);
      else
        pot = std::make_unique<Eam>(Eam::from_funcfl({{"*", eam_path}}));
      const long n = static_cast<long>(s.size());
      // Enough steps for a stable number: about 2e8 atom-steps on the GPU, 2e6 on the CPU.
      const long budget = sys == "water" ? (backend == Backend::Cuda ? 2000000L : 2000L)
                                         : (backend == Backend::Cuda ? 200000000L : 2000000L);
      const long nsteps = steps > 0 ? steps : std::max(20L, budget / n);
      md::MdSettings st;
      st.integrator.kind = "nve";
      st.integrator.dt = sys == "water" ? 0.0005 : 0.002;
      st.integrator.temperature = 300;
      st.integrator.seed = 4928459;
      st.output.progress = false;
      st.output.thermo_every = 1000000000;
      st.skin = 1.0;
      st.sort_every = 1000;
      const std::size_t mem0 = device::memory_in_use();
      md::Simulation sim(s, std::move(pot), st, backend);
      // Warm-up, then the timed steps.
      auto advance = [&](long k0, long count) {
        for (long k = k0; k < k0 + count; ++k)
          sim.integrator().advance(k, sim.atoms(), sim.neighbor_list(), sim.potential(), sim.forces(), {false, false, false});
      };
      advance(1, 10);
      device::synchronize();
      const auto t0 = std::chrono::steady_clock::now();
      advance(11, nsteps);
      device::synchronize();
      const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      sim.neighbor_list().check_overflow();
      const md::Thermo t = sim.thermo();
      const double mem = static_cast<double>(device::memory_in_use() - mem0) / static_cast<double>(n);
      std::printf("%-5s %10ld %6s %8ld %14.4g %12.4g %10.0f   (T %.1f K, builds %ld)\n", sys.c_str(), n,
                  backend_name(backend), nsteps, static_cast<double>(n) * nsteps / secs, 1e3 * secs / nsteps, mem,
                  t.temperature, sim.neighbor_list().builds());
      std::fflush(stdout);
    }
  }
  return 0;
}
