// Behler-Parrinello potentials in the registry: TOML type "nnp" (aliases "hdnnp", "n2p2"), n2p2's
// model folders (recognised by their input.nn), with the units their files are in, and n2p2's
// training from input.nn with its training keywords (`quasar train input.nn` or its folder).
#include "quasar/core/units.hpp"
#include "quasar/potential/nnp/nnp_potential.hpp"
#include "quasar/potential/nnp/train/training.hpp"
#include "quasar/potential/registry.hpp"

namespace quasar::nnp {

namespace {
std::unique_ptr<Potential> from_config(const ConfigTable& t, const std::filesystem::path& base_dir) {
  t.allow_only({"type", "name", "group", "model", "length_unit", "energy_unit", "precision"});
  std::filesystem::path p(t.get_string("model"));
  if (p.is_relative()) p = base_dir / p;
  const std::filesystem::path input = std::filesystem::is_directory(p) ? p / "input.nn" : p;
  if (!std::filesystem::is_regular_file(input)) t.fail("model", "no n2p2 input.nn at '" + input.string() + "'");
  units::FileUnits u;
  try {
    u.length = units::length_unit(t.get_string("length_unit", "angstrom"));
  } catch (const InputError&) {
    throw;
  } catch (const Error& e) {
    t.fail("length_unit", e.what());
  }
  try {
    u.energy = units::energy_unit(t.get_string("energy_unit", "eV"));
  } catch (const InputError&) {
    throw;
  } catch (const Error& e) {
    t.fail("energy_unit", e.what());
  }
  auto pot = std::make_unique<NnpPotential>(NnpPotential::from_files(p, u));
  try {
    pot->set_precision(parse_precision(t.get_string("precision", "double")));
  } catch (const InputError&) {
    throw;
  } catch (const Error& e) {
    t.fail("precision", e.what());
  }
  return pot;
}

train::TrainingJob training(const std::string& input, Backend backend, std::optional<Precision> precision) {
  if (precision && *precision != Precision::Double)
    throw Error("nnp training: the training runs in double precision (--precision double)");
  train::TrainingJob job;
  job.run = std::make_unique<N2p2Training>(input, backend);
  return job;
}
}  // namespace

void register_family(PotentialRegistry& registry) {
  PotentialFamily f;
  f.name = "nnp";
  f.aliases = {"hdnnp", "n2p2"};
  f.description = "Behler-Parrinello neural-network potentials from n2p2's files (input.nn, scaling.data, weights)";
  f.capabilities.gpu = true;
  f.capabilities.precisions = {Precision::Double, Precision::Mixed32};
  f.capabilities.ghost_atoms = true;
  f.capabilities.per_atom = true;
  f.capabilities.training = true;
  f.from_config = from_config;
  f.model_extensions = {"input.nn"};
  f.model_folder_files = {"input.nn"};
  f.model_options = {"units"};
  f.from_file = [](const std::string& path, const ModelOptions& options) -> std::unique_ptr<Potential> {
    units::FileUnits u;
    if (const auto it = options.find("units"); it != options.end()) {
      try {
        u = units::parse_file_units(it->second);
      } catch (const Error& e) {
        throw Error(path + ": option 'units': " + e.what());
      }
    }
    return std::make_unique<NnpPotential>(NnpPotential::from_files(path, u));
  };
  f.training_files = {"input.nn"};
  f.training = training;
  registry.add(std::move(f));
}

}  // namespace quasar::nnp
