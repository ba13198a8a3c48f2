// Trajectory-steps per second of MD of many small independent systems: md::Ensemble (every system in
// one batched state, one set of launches per step) against one md::Simulation per system, Langevin
// dynamics with each system's own seed, for
//   lj:    6-atom argon molecules without a cell (random distortions of an octahedron), LJ 8.5 Å, 5 fs;
//   water: clusters of 4 water molecules (12 atoms) cut from DeePMD-kit's water data
//          ($QUASAR_WATER_DATA), with DeePMD-kit's trained water model ($QUASAR_DP_MODEL: deeppot_sea,
//          rcut 6 Å), 0.5 fs.
// The lone runs take the first --single systems (their rate is per trajectory-step, as the
// ensemble's); the largest difference of their final positions from the ensemble's is printed as a
// check (0 on the CPU: each system follows its lone run bit for bit).
// usage: bench_ensemble_bench [--device cpu|cuda] [--systems "lj water"] [--lj-counts "1024 16384"]
//                             [--water-counts "256 4096"] [--steps N] [--single N]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "quasar/core/error.hpp"
#include "quasar/device/backend.hpp"
#include "quasar/io/deepmd_npy.hpp"
#include "quasar/md/ensemble.hpp"
#include "quasar/md/simulation.hpp"
#include "quasar/potential/dp/deep_potential.hpp"
#include "quasar/potential/pair/lj.hpp"

#include "bench_systems.hpp"

using namespace quasar;

namespace {

using bench::Clock;
using bench::seconds_since;

std::vector<Structure> argon_molecules(long count) { return bench::argon_octahedra(count, 3.7, 0.1); }

// The `molecules` water molecules nearest to oxygen `centre` of a periodic frame (oxygens first, each
// with its two nearest hydrogens), unwrapped around it, without a cell.
Structure water_cluster(const Structure& frame, int centre, int molecules) {
  std::vector<int> oxygens, hydrogens;
  for (std::size_t i = 0; i < frame.size(); ++i)
    (frame.type_names[static_cast<std::size_t>(frame.types[i])] == "O" ? oxygens : hydrogens).push_back(static_cast<int>(i));
  const Vec3 c = frame.positions[static_cast<std::size_t>(centre)];
  auto offset = [&](int i) { return frame.box.minimum_image(frame.positions[static_cast<std::size_t>(i)] - c); };
  std::vector<int> near = oxygens;
  std::sort(near.begin(), near.end(), [&](int a, int b) { return norm2(offset(a)) < norm2(offset(b)); });
  Structure s;
  s.type_names = frame.type_names;
  s.type_masses = frame.type_masses;
  for (int m = 0; m < molecules; ++m) {
    const int o = near[static_cast<std::size_t>(m)];
    const Vec3 ro = c + offset(o);
    std::vector<int> hs = hydrogens;
    std::partial_sort(hs.begin(), hs.begin() + 2, hs.end(), [&](int a, int b) {
      return norm2(frame.box.minimum_image(frame.positions[static_cast<std::size_t>(a)] - ro)) <
             norm2(frame.box.minimum_image(frame.positions[static_cast<std::size_t>(b)] - ro));
    });
    s.positions.push_back(ro);
    s.types.push_back(frame.types[static_cast<std::size_t>(o)]);
    for (int h = 0; h < 2; ++h) {
      s.positions.push_back(ro + frame.box.minimum_image(frame.positions[static_cast<std::size_t>(hs[h])] - ro));
      s.types.push_back(frame.types[static_cast<std::size_t>(hs[h])]);
    }
  }
  s.box = Box::enclosing(s.positions);
  return s;
}

std::vector<Structure> water_clusters(long count) {
  const char* dir = std::getenv("QUASAR_WATER_DATA");
  if (!dir) throw Error("water: set QUASAR_WATER_DATA to a deepmd/npy water system (water-data/data_0)");
  const std::vector<Structure> frames = io::read_deepmd_system(dir);
  std::vector<Structure> out;
  for (long k = 0; k < count; ++k) {
    const Structure& f = frames[static_cast<std::size_t>(k / 64) % frames.size()];
    Structure s = water_cluster(f, static_cast<int>(k % 64), 4);
    s.forces.clear();
    s.energy.reset();
    s.virial.reset();
    out.push_back(std::move(s));
  }
  return out;
}

struct Rates {
  double single = 0, ensemble = 0;  // trajectory-steps per second
  double max_diff = 0;              // Å, final positions of the lone runs against the ensemble's
};

Rates measure(const std::function<ForceField()>& make, const std::vector<Structure>& systems, const md::MdSettings& st,
              long single, Backend b) {
  Rates r;
  const long steps = st.steps, count = static_cast<long>(systems.size());
  // Warm-up: the first allocations and model uploads.
  {
    md::MdSettings w = st;
    w.steps = 2;
    md::Ensemble e(std::vector<Structure>(systems.begin(), systems.begin() + 2), make(), w, {}, b);
    e.run();
  }
  auto t0 = Clock::now();
  md::Ensemble ens(systems, make(), st, {}, b);
  ens.run();
  r.ensemble = static_cast<double>(count * steps) / seconds_since(t0);
  const std::vector<Structure> got = ens.structures();
  const long n_single = std::min(single, count);
  t0 = Clock::now();
  std::vector<Structure> alone;
  for (long k = 0; k < n_single; ++k) {
    md::MdSettings one = st;
    one.integrator.seed = st.integrator.seed + static_cast<uint64_t>(k);
    md::Simulation sim(systems[static_cast<std::size_t>(k)], make(), one, b);
    sim.run();
    alone.push_back(sim.atoms().to_structure());
  }
  r.single = static_cast<double>(n_single * steps) / seconds_since(t0);
  for (long k = 0; k < n_single; ++k)
    for (std::size_t i = 0; i < alone[static_cast<std::size_t>(k)].size(); ++i)
      for (int c = 0; c < 3; ++c)
        r.max_diff = std::max(r.max_diff, std::abs(got[static_cast<std::size_t>(k)].positions[i][c] -
                                                   alone[static_cast<std::size_t>(k)].positions[i][c]));
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  std::string device = "auto", systems_arg = "lj water", lj_arg = "1024 16384", water_arg = "256 4096";
  long steps = 200, single = 64;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--device")) device = argv[i + 1];
    else if (!std::strcmp(argv[i], "--systems")) systems_arg = argv[i + 1];
    else if (!std::strcmp(argv[i], "--lj-counts")) lj_arg = argv[i + 1];
    else if (!std::strcmp(argv[i], "--water-counts")) water_arg = argv[i + 1];
    else if (!std::strcmp(argv[i], "--steps")) steps = std::atol(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--single")) single = std::atol(argv[i + 1]);
    else {
      std::fprintf(stderr, "unknown option %s\n", argv[i]);
      return 2;
    }
  }
  try {
    const Backend b = parse_backend(device);
    auto words = [](const std::string& text) {
      std::istringstream in(text);
      std::vector<std::string> out;
      for (std::string w; in >> w;) out.push_back(w);
      return out;
    };
    std::printf("%-6s %6s %8s %6s %6s %18s %18s %8s %10s\n", "system", "atoms", "systems", "dev", "steps",
                "single traj-st/s", "ensemble traj-st/s", "speedup", "max diff");
    for (const std::string& kind : words(systems_arg)) {
      if (kind != "lj" && kind != "water") throw Error("unknown system '" + kind + "' (lj, water)");
      const char* model = std::getenv("QUASAR_DP_MODEL");
      if (kind == "water" && (!model || !std::getenv("QUASAR_WATER_DATA"))) {
        std::printf("water: skipped (set QUASAR_DP_MODEL to deeppot_sea.yaml and QUASAR_WATER_DATA to water-data/data_0)\n");
        continue;
      }
      std::function<ForceField()> make;
      md::MdSettings st;
      st.integrator.kind = "langevin";
      st.steps = steps;
      st.output.progress = st.output.thermo_screen = false;
      st.output.thermo_every = steps;
      st.sort_every = 0;
      if (kind == "lj") {
        make = [] {
          return ForceField(std::make_shared<LennardJones>(std::map<std::string, LjSpecies>{{"Ar", {0.0104, 3.405}}}, 8.5,
                                                           false, false));
        };
        st.integrator.dt = 0.005;
        st.integrator.temperature = 30;
      } else {
        const std::string path = model;
        make = [path] { return ForceField(std::make_shared<dp::DeepPotential>(dp::DeepPotential::from_file(path))); };
        st.integrator.dt = 0.0005;
        st.integrator.temperature = 300;
      }
      for (const std::string& count_text : words(kind == "lj" ? lj_arg : water_arg)) {
        const long count = std::atol(count_text.c_str());
        const std::vector<Structure> systems = kind == "lj" ? argon_molecules(count) : water_clusters(count);
        const Rates r = measure(make, systems, st, single, b);
        std::printf("%-6s %6zu %8ld %6s %6ld %18.4g %18.4g %8.1f %10.2g\n", kind.c_str(), systems[0].size(), count,
                    backend_name(b), steps, r.single, r.ensemble, r.ensemble / r.single, r.max_diff);
        std::fflush(stdout);
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
