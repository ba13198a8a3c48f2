// The Deep Potential in the registry: TOML type "deepmd", DeePMD-kit's .dp and .yaml model files,
// and training from DeePMD-kit's input.json.
#include "quasar/potential/dp/deep_potential.hpp"
#include "quasar/potential/dp/train/trainable.hpp"
#include "quasar/potential/registry.hpp"

namespace quasar::dp {

namespace {
std::unique_ptr<Potential> from_config(const ConfigTable& t, const std::filesystem::path& base_dir) {
  t.allow_only({"type", "name", "group", "file", "fparam", "aparam", "precision", "chunk_atoms"});
  std::filesystem::path p(t.get_string("file"));
  if (p.is_relative()) p = base_dir / p;
  if (!std::filesystem::is_regular_file(p)) t.fail("file", "model file '" + p.string() + "' not found");
  auto pot = std::make_unique<DeepPotential>(DeepPotential::from_file(p.string()));
  try {
    if (t.has("fparam")) pot->set_fparam(t.get_doubles("fparam"));
    if (t.has("aparam")) pot->set_aparam(t.get_doubles("aparam"));  // the same for every atom
  } catch (const InputError&) {
    throw;
  } catch (const Error& e) {
    t.fail(t.has("aparam") ? "aparam" : "fparam", e.what());
  }
  try {
    pot->set_precision(parse_precision(t.get_string("precision", "double")), t.get_int("chunk_atoms", 0, 0));
  } catch (const InputError&) {
    throw;
  } catch (const Error& e) {
    t.fail("precision", e.what());
  }
  return pot;
}

train::TrainingJob training(const std::string& path, Backend backend, std::optional<Precision> precision) {
  TrainInput in = read_train_input(path);
  const Precision p = precision.value_or(in.precision == "float32" ? Precision::Mixed32 : Precision::Double);
  if (p == Precision::Mixed16) throw Error("deepmd training: the precision is double or mixed32");
  train::TrainingJob job;
  job.settings = train_settings(in);
  job.precision = p;
  job.model = std::make_unique<DpTrainable>(std::move(in), backend, p);
  return job;
}
}  // namespace

void register_family(PotentialRegistry& registry) {
  PotentialFamily f;
  f.name = "deepmd";
  f.description = "Deep Potential (se_e2_a descriptor, energy fitting) from DeePMD-kit's model files";
  f.capabilities.gpu = true;
  f.capabilities.precisions = {Precision::Double, Precision::Mixed32, Precision::Mixed16};
  f.capabilities.ghost_atoms = true;
  f.capabilities.per_atom = true;
  f.capabilities.training = true;
  f.from_config = from_config;
  f.model_extensions = {".dp", ".yaml", ".yml"};
  f.from_file = [](const std::string& path, const ModelOptions&) -> std::unique_ptr<Potential> {
    return std::make_unique<DeepPotential>(DeepPotential::from_file(path));
  };
  f.training_extensions = {".json"};
  f.training = training;
  registry.add(std::move(f));
}

}  // namespace quasar::dp
