// Seconds per AMOEBA energy-and-force evaluation, term by term, of a Tinker key on a Tinker .xyz
// structure: the system set up once (atoms on the device, force field bound), one warm-up evaluation
// (which also copies the GPU terms' tables), then the mean and the best of REPEATS evaluations of
// ForceField::compute as a step of MD would run it. Each term times itself (AmoebaTerm::set_timing:
// on CUDA the device is synchronized before and after it): the valence terms together, van der Waals,
// the permanent multipoles (with Ewald sums: of which the real-space part with the self energy, and
// the reciprocal part, PME), polarization (of which the solve for the induced dipoles, with its
// conjugate-gradient steps); "total" is the whole compute, synchronized. A term's time includes its
// host copies on CUDA (multipoles and polarization run on the CPU there).
// usage: bench_amoeba_bench [--device cpu|cuda] [--precision double|mixed32] [--repeats N] [--warmup N] [KEY XYZ]
// (without KEY XYZ: bench5 of $QUASAR_SHARED, else ../shared, under reference/amoeba/bench; a note
// and no timing when it is not there)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "quasar/core/atoms.hpp"
#include "quasar/core/error.hpp"
#include "quasar/core/system_setup.hpp"
#include "quasar/core/units.hpp"
#include "quasar/device/backend.hpp"
#include "quasar/io/tinker_xyz.hpp"
#include "quasar/neighbor/neighbor_lists.hpp"
#include "quasar/potential/amoeba/amoeba_term.hpp"
#include "quasar/potential/force_output.hpp"
#include "quasar/potential/registry.hpp"

#include "bench_systems.hpp"

using namespace quasar;

namespace {

// The rows of the table, in order, with each evaluation's seconds.
struct Row {
  std::string name;
  std::vector<double> seconds;
  std::vector<int> iterations;  // polarization's steps
};

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}

int run(int argc, char** argv) {
  std::string device = "cpu", precision = "double";
  int repeats = 5, warmup = 1;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (!std::strcmp(argv[i], "--device") && has_value) device = argv[++i];
    else if (!std::strcmp(argv[i], "--precision") && has_value) precision = argv[++i];
    else if (!std::strcmp(argv[i], "--repeats") && has_value) repeats = std::stoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--warmup") && has_value) warmup = std::stoi(argv[++i]);
    else if (argv[i][0] == '-') throw Error(std::string("unknown option ") + argv[i]);
    else files.push_back(argv[i]);
  }
  if (files.empty()) {  // bench/gpu-check.sh runs every benchmark with no files: bench5 of the shared folder
    const char* env = std::getenv("QUASAR_SHARED");
    const std::string dir = std::string(env ? env : "../shared") + "/reference/amoeba/bench/";
    if (!std::filesystem::exists(dir + "bench5.key")) {
      std::printf("bench_amoeba_bench: no %sbench5.key (QUASAR_SHARED): nothing to time\n", dir.c_str());
      return 0;
    }
    files = {dir + "bench5.key", dir + "bench5.xyz"};
  }
  if (files.size() != 2 || repeats < 1 || warmup < 0)
    throw Error("usage: bench_amoeba_bench [--device cpu|cuda] [--precision double|mixed32] [--repeats N >= 1] [--warmup N] [KEY XYZ]");
  const Backend backend = parse_backend(device);
  ForceField ff = amoeba::load_tinker_force_field(files[0]);
  set_model_precision(ff, precision);
  const Structure s = io::read_tinker_xyz(files[1]);
  AtomState atoms(backend, s);
  ff.bind(SystemSetup::of(s));
  NeighborLists lists(backend, ff.neighbor_requests(backend), 0.0, 0);
  lists.build(atoms);
  ForceOutput out(backend);
  std::vector<amoeba::AmoebaTerm*> terms;
  for (const ForceField::Term& t : ff.terms()) {
    auto* a = dynamic_cast<amoeba::AmoebaTerm*>(t.potential.get());
    if (!a) throw Error("not an AMOEBA force field");
    a->set_timing(true);
    terms.push_back(a);
  }
  std::vector<Row> rows = {{"valence", {}, {}},        {"vdw", {}, {}},      {"mpole", {}, {}},
                           {"  real space", {}, {}},   {"  reciprocal", {}, {}}, {"polarize", {}, {}},
                           {"  solve dipoles", {}, {}}, {"sum of terms", {}, {}}, {"total", {}, {}}};
  std::vector<std::string> valence_names;
  for (const auto* t : terms)
    if (t->term() != amoeba::Term::Vdw && t->term() != amoeba::Term::Multipole && t->term() != amoeba::Term::Polarization)
      valence_names.push_back(t->name());
  double energy = 0;
  for (int k = 0; k < warmup + repeats; ++k) {
    if (backend == Backend::Cuda) device::synchronize();
    const auto t0 = bench::Clock::now();
    ff.compute(atoms, lists.refs(), {true, true, false}, out);
    if (backend == Backend::Cuda) device::synchronize();
    const double total = bench::seconds_since(t0);
    if (k < warmup) continue;
    double part[9] = {};
    int steps = 0;
    for (const auto* t : terms) {
      const amoeba::AmoebaTerm::Times& x = t->times();
      switch (t->term()) {
        case amoeba::Term::Vdw: part[1] += x.total; break;
        case amoeba::Term::Multipole:
          part[2] += x.total;
          part[3] += x.real_space;
          part[4] += x.reciprocal;
          break;
        case amoeba::Term::Polarization:
          part[5] += x.total;
          part[6] += x.induce;
          steps = x.iterations;
          break;
        default: part[0] += x.total;
      }
      part[7] += x.total;
    }
    part[8] = total;
    for (std::size_t r = 0; r < rows.size(); ++r) rows[r].seconds.push_back(part[r]);
    rows[6].iterations.push_back(steps);
    const std::vector<double> totals = out.system_term_totals();
    energy = 0;
    for (std::size_t t = 0; t < terms.size(); ++t) energy += totals[t * ForceOutput::kTotals];
  }
  std::string valence;
  for (const std::string& n : valence_names) valence += (valence.empty() ? "" : " ") + n;
  std::printf("%s on %s: %zu atoms, %s, %s; seconds per evaluation over %d after %d warm-up\n", files[0].c_str(),
              files[1].c_str(), s.size(), device.c_str(), precision.c_str(), repeats, warmup);
  std::printf("  %-18s %12s %12s\n", "term", "mean", "best");
  for (const Row& r : rows) {
    std::printf("  %-18s %12.6f %12.6f", r.name.c_str(), mean(r.seconds),
                *std::min_element(r.seconds.begin(), r.seconds.end()));
    if (!r.iterations.empty()) {
      double it = 0;
      for (int n : r.iterations) it += n;
      std::printf("   %.1f conjugate-gradient steps", it / static_cast<double>(r.iterations.size()));
    }
    if (r.name == "valence") std::printf("   (%s)", valence.c_str());
    std::printf("\n");
  }
  std::printf("  energy %.4f kcal/mol\n", energy / units::kcal_mol);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_amoeba_bench: %s\n", e.what());
    return 1;
  }
}
