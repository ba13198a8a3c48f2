// Frames per second of batched evaluation (potential/evaluate.hpp: many frames as one AtomState of
// independent systems, one set of launches per batch) against one frame at a time, end to end
// (upload, neighbour list, energy, forces, virial, results on the host), for
//   water: frames of DeePMD-kit's water data (64 molecules, 192 atoms each; data folder in
//          $QUASAR_WATER_DATA) with a Deep Potential ($QUASAR_DP_WATER, .dp or .yaml);
//   lj:    6-atom argon molecules without a cell (random distortions of an octahedron), LJ 8.5 Å.
// "single" is evaluate() per frame (what `quasar eval` did for each frame); "reused" keeps one
// AtomState, list and output and loads each frame into them (the best a frame-by-frame loop can do).
// The largest relative difference of batched and single energies and forces is printed as a check.
// Without $QUASAR_DP_WATER and $QUASAR_WATER_DATA the water rows are skipped with a note.
// usage: bench_batch_bench [--device cpu|cuda] [--systems "water lj"] [--water-frames "64 1024"]
//                          [--lj-frames "1024 16384"] [--single-frames N] [--precision double|mixed32|mixed16]
// (--single-frames: frames timed one at a time, N for water and 8 N for LJ)
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "quasar/core/error.hpp"
#include "quasar/device/backend.hpp"
#include "quasar/io/deepmd_npy.hpp"
#include "quasar/neighbor/neighbor_lists.hpp"
#include "quasar/potential/evaluate.hpp"
#include "quasar/potential/pair/lj.hpp"
#include "quasar/potential/registry.hpp"

#include "bench_systems.hpp"

using namespace quasar;

namespace {

using bench::Clock;
using bench::seconds_since;

std::vector<Structure> water_frames(long count) {
  const char* dir = std::getenv("QUASAR_WATER_DATA");
  if (!dir) throw Error("water: set QUASAR_WATER_DATA to a deepmd/npy water system (water-data/data_0)");
  std::vector<Structure> all = io::read_deepmd_system(dir);
  std::vector<Structure> out;
  for (long k = 0; k < count; ++k) {
    Structure s = all[static_cast<std::size_t>(k) % all.size()];
    s.forces.clear();
    s.energy.reset();
    s.virial.reset();
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<Structure> argon_molecules(long count) { return bench::argon_octahedra(count, 2.7, 0.15); }

// A full-size water model (the benchmark's has random weights: its energies mean nothing, its cost is real).
std::shared_ptr<Potential> water_model(const std::string& precision) {
  const char* path = std::getenv("QUASAR_DP_WATER");
  if (!path) throw Error("water: set QUASAR_DP_WATER to the water model (.dp or .yaml)");
  std::shared_ptr<Potential> dp = load_model(path);
  dp->set_precision(parse_precision(precision));
  return dp;
}

struct Rates {
  double single = 0, reused = 0, batched = 0;  // frames/s
  double max_rel_diff = 0;                     // batched against single
  long batches = 0;
};

Rates measure(ForceField& ff, const std::vector<Structure>& frames, long single_frames, Backend b) {
  Rates r;
  const long n_single = std::min<long>(single_frames, static_cast<long>(frames.size()));
  // Warm-up: models, evaluators and the first allocations.
  evaluate(ff, frames[0], b);
  evaluate_batch(ff, std::span<const Structure>(frames.data(), std::min<std::size_t>(frames.size(), 4)), b);
  // One at a time through evaluate().
  std::vector<Evaluation> single;
  auto t0 = Clock::now();
  for (long k = 0; k < n_single; ++k) single.push_back(evaluate(ff, frames[static_cast<std::size_t>(k)], b));
  r.single = static_cast<double>(n_single) / seconds_since(t0);
  // One at a time in reused arrays.
  {
    AtomState atoms(b, frames[0]);
    ff.bind(SystemSetup::of(frames[0]));
    NeighborLists lists(b, ff.neighbor_requests(b), 0.0, 0);
    ForceOutput out(b);
    t0 = Clock::now();
    double sink = 0;
    for (long k = 0; k < n_single; ++k) {
      atoms.load(frames[static_cast<std::size_t>(k)]);
      lists.build(atoms);
      ff.compute(atoms, lists.refs(), {true, true, false}, out);
      sink += out.summed_totals()[0] + atoms.fx.to_vector()[0];
    }
    r.reused = static_cast<double>(n_single) / seconds_since(t0);
    if (!std::isfinite(sink)) std::printf("(non-finite results)\n");
  }
  // Batched.
  std::vector<Evaluation> batched;
  t0 = Clock::now();
  for (const std::span<const Structure> batch : split_batches(frames)) {
    for (Evaluation& e : evaluate_batch(ff, batch, b)) batched.push_back(std::move(e));
    ++r.batches;
  }
  r.batched = static_cast<double>(frames.size()) / seconds_since(t0);
  for (long k = 0; k < n_single; ++k) {
    const Evaluation& s = single[static_cast<std::size_t>(k)];
    const Evaluation& p = batched[static_cast<std::size_t>(k)];
    r.max_rel_diff = std::max(r.max_rel_diff, std::abs(p.energy - s.energy) / std::abs(s.energy));
    double fmax = 0;
    for (const Vec3& f : s.forces) fmax = std::max({fmax, std::abs(f.x), std::abs(f.y), std::abs(f.z)});
    for (std::size_t i = 0; i < s.forces.size(); ++i)
      for (int c = 0; c < 3; ++c) r.max_rel_diff = std::max(r.max_rel_diff, std::abs(p.forces[i][c] - s.forces[i][c]) / fmax);
  }
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  std::string device = "auto", systems_arg = "water lj", water_frames_arg = "64 1024", lj_frames_arg = "1024 16384",
              precision = "double";
  long single_frames = 256;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--device")) device = argv[i + 1];
    else if (!std::strcmp(argv[i], "--systems")) systems_arg = argv[i + 1];
    else if (!std::strcmp(argv[i], "--water-frames")) water_frames_arg = argv[i + 1];
    else if (!std::strcmp(argv[i], "--lj-frames")) lj_frames_arg = argv[i + 1];
    else if (!std::strcmp(argv[i], "--single-frames")) single_frames = std::atol(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--precision")) precision = argv[i + 1];
    else {
      std::fprintf(stderr, "unknown option %s\n", argv[i]);
      return 2;
    }
  }
  try {
    const Backend b = parse_backend(device);
    std::istringstream ss(systems_arg);
    std::vector<std::string> systems;
    for (std::string s; ss >> s;) systems.push_back(s);
    auto counts_of = [](const std::string& text) {
      std::istringstream fs(text);
      std::vector<long> counts;
      for (long f; fs >> f;) counts.push_back(f);
      return counts;
    };
    std::printf("%-6s %6s %7s %6s %8s %14s %14s %14s %8s %10s\n", "system", "atoms", "frames", "dev", "batches",
                "single fr/s", "reused fr/s", "batched fr/s", "speedup", "max diff");
    for (const std::string& sys : systems) {
      if (sys != "water" && sys != "lj") throw Error("unknown system '" + sys + "' (water, lj)");
      if (sys == "water" && (!std::getenv("QUASAR_DP_WATER") || !std::getenv("QUASAR_WATER_DATA"))) {
        std::printf("water: skipped (set QUASAR_DP_WATER to the water model and QUASAR_WATER_DATA to water-data/data_0)\n");
        continue;
      }
      ForceField ff(sys == "water" ? water_model(precision)
                                   : std::make_shared<LennardJones>(
                                         std::map<std::string, LjSpecies>{{"Ar", {0.0104, 3.405}}}, 8.5, false, false));
      for (long count : counts_of(sys == "water" ? water_frames_arg : lj_frames_arg)) {
        const std::vector<Structure> frames = sys == "water" ? water_frames(count) : argon_molecules(count);
        const Rates r = measure(ff, frames, sys == "water" ? single_frames : 8 * single_frames, b);
        std::printf("%-6s %6zu %7ld %6s %8ld %14.4g %14.4g %14.4g %8.1f %10.2g\n", sys.c_str(), frames[0].size(), count,
                    backend_name(b), r.batches, r.single, r.reused, r.batched, r.batched / std::max(r.single, r.reused),
                    r.max_rel_diff);
        std::fflush(stdout);
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
