// `quasar test`: a model's errors on labelled frames, as DeePMD-kit's `dp test` reports them.
#include <cmath>
#include <iomanip>
#include <iostream>

#include <nlohmann/json.hpp>

#include "quasar/cli/args.hpp"
#include "quasar/cli/commands.hpp"
#include "quasar/core/error.hpp"
#include "quasar/io/deepmd_npy.hpp"
#include "quasar/potential/evaluate.hpp"
#include "quasar/potential/registry.hpp"

namespace quasar::cli {

namespace {
const char* kHelp = R"(usage: quasar test --model MODEL --data DATA [--data DATA2 ...] [--device cpu|cuda|auto]
                   [--precision double|mixed32|mixed16] [--json]

Errors of MODEL on labelled frames: DATA is a deepmd/npy system (a folder with type.raw and set.*),
a folder holding such systems, or an extended XYZ file with energies, forces and stresses. Reports
the root mean square and mean absolute errors of the energy (total and per atom, eV), of the force
components (eV/Å) and, where the data has virials, of the virial per atom (eV). --json prints them
with keys energy_rmse, energy_mae, energy_rmse_per_atom, energy_mae_per_atom, force_rmse, force_mae,
virial_rmse_per_atom, virial_mae_per_atom, frames, atoms.
)";

struct Sums {
  double sq = 0, abs = 0;
  long n = 0;
  void add(double e) {
    sq += e * e;
    abs += std::abs(e);
    ++n;
  }
  double rmse() const { return n ? std::sqrt(sq / static_cast<double>(n)) : 0.0; }
  double mae() const { return n ? abs / static_cast<double>(n) : 0.0; }
};
}  // namespace

int test_command(const std::vector<std::string>& argv) {
  // --data may repeat: gather every value before the generic parser sees the rest.
  std::vector<std::string> rest, data;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    if (argv[i] == "--data" && i + 1 < argv.size()) data.push_back(argv[++i]);
    else rest.push_back(argv[i]);
  }
  const Args a = Args::parse(rest, {"--help", "--json"}, {"--model", "--device", "--precision"});
  if (a.has("--help")) {
    std::cout << kHelp;
    return 0;
  }
  if (!a.positional.empty()) throw UsageError("test takes no positional arguments");
  if (!a.has("--model") || data.empty()) throw UsageError("test needs --model and --data");
  const Backend backend = parse_backend(a.get("--device", "auto"));
  auto pot = load_model(a.get("--model"));
  set_model_precision(*pot, a.get("--precision", "double"));
  Sums energy, energy_per_atom, force, virial_per_atom;
  long atoms = 0;
  for (const auto& d : data)
    for (const Structure& s : io::read_labelled_frames(d)) {
      const Evaluation e = evaluate(*pot, s, backend);
      const double n = static_cast<double>(s.size());
      atoms += static_cast<long>(s.size());
      if (s.energy) {
        energy.add(e.energy - *s.energy);
        energy_per_atom.add((e.energy - *s.energy) / n);
      }
      for (std::size_t i = 0; i < s.forces.size(); ++i)
        for (int c = 0; c < 3; ++c) force.add(e.forces[i][c] - s.forces[i][c]);
      if (s.virial)
        for (int c = 0; c < 9; ++c) virial_per_atom.add((e.virial(c / 3, c % 3) - (*s.virial)(c / 3, c % 3)) / n);
    }
  const long frames = energy.n;
  if (a.has("--json")) {
    nlohmann::json j = {{"frames", frames},
                        {"atoms", atoms},
                        {"energy_rmse", energy.rmse()},
                        {"energy_mae", energy.mae()},
                        {"energy_rmse_per_atom", energy_per_atom.rmse()},
                        {"energy_mae_per_atom", energy_per_atom.mae()},
                        {"force_rmse", force.rmse()},
                        {"force_mae", force.mae()}};
    if (virial_per_atom.n) {
      j["virial_rmse_per_atom"] = virial_per_atom.rmse();
      j["virial_mae_per_atom"] = virial_per_atom.mae();
    }
    std::cout << std::setprecision(10) << j.dump(1) << "\n";
    return 0;
  }
  std::cout << std::setprecision(6) << "frames " << frames << ", atoms " << atoms << "\n"
            << "energy RMSE " << energy.rmse() << " eV, MAE " << energy.mae() << " eV\n"
            << "energy RMSE/atom " << energy_per_atom.rmse() << " eV, MAE/atom " << energy_per_atom.mae() << " eV\n"
            << "force RMSE " << force.rmse() << " eV/Å, MAE " << force.mae() << " eV/Å\n";
  if (virial_per_atom.n)
    std::cout << "virial RMSE/atom " << virial_per_atom.rmse() << " eV, MAE/atom " << virial_per_atom.mae() << " eV\n";
  return 0;
}

}  // namespace quasar::cli
