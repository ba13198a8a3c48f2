#include "quasar/potential/registry.hpp"

#include "quasar/potential/dp/deep_potential.hpp"
#include "quasar/potential/pair/eam.hpp"
#include "quasar/potential/pair/lj.hpp"

namespace quasar {

std::unique_ptr<Potential> make_potential(const ConfigTable& t, const std::filesystem::path& base_dir) {
  const std::string type = t.get_string("type");
  if (type == "lj") return std::make_unique<LennardJones>(t);
  if (type == "eam") return std::make_unique<Eam>(Eam::from_config(t, base_dir));
  if (type == "deepmd") {
    t.allow_only({"type", "file", "fparam", "aparam", "precision", "chunk_atoms"});
    std::filesystem::path p(t.get_string("file"));
    if (p.is_relative()) p = base_dir / p;
    if (!std::filesystem::is_regular_file(p)) t.fail("file", "model file '" + p.string() + "' not found");
    auto pot = std::make_unique<dp::DeepPotential>(dp::DeepPotential::from_file(p.string()));
    try {
      if (t.has("fparam")) pot->set_fparam(t.get_doubles("fparam"));
      if (t.has("aparam")) pot->set_aparam(t.get_doubles("aparam"));  // the same for every atom
    } catch (const InputError&) {
      throw;
    } catch (const Error& e) {
      t.fail(t.has("aparam") ? "aparam" : "fparam", e.what());
    }
    try {
      pot->set_precision(dp::parse_precision(t.get_string("precision", "double")), t.get_int("chunk_atoms", 0, 0));
    } catch (const InputError&) {
      throw;
    } catch (const Error& e) {
      t.fail("precision", e.what());
    }
    return pot;
  }
  t.fail("type", "unknown potential type \"" + type + "\"; valid types: lj, eam, deepmd");
}

namespace {
bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}
}  // namespace

std::unique_ptr<Potential> load_model(const std::string& path) {
  if (!std::filesystem::exists(path)) throw InputError(path, 0, "model file not found");
  if (ends_with(path, ".eam")) return std::make_unique<Eam>(Eam::from_funcfl({{"*", path}}));
  if (ends_with(path, ".eam.alloy") || ends_with(path, ".setfl")) return std::make_unique<Eam>(Eam::from_setfl(path));
  if (ends_with(path, ".yaml") || ends_with(path, ".yml") || ends_with(path, ".dp"))
    return std::make_unique<dp::DeepPotential>(dp::DeepPotential::from_file(path));
  if (ends_with(path, ".toml")) {
    const toml::table root = parse_toml_file(path);
    const ConfigTable top{&root, path, ""};
    return make_potential(top.require_sub("potential"), std::filesystem::path(path).parent_path());
  }
  throw InputError(path, 0,
                   "unknown model format (expected .eam, .eam.alloy, a DeePMD-kit .yaml or .dp, or a .toml file with [potential])");
}

void set_model_precision(Potential& potential, const std::string& precision) {
  const dp::Precision p = dp::parse_precision(precision);
  if (auto* d = dynamic_cast<dp::DeepPotential*>(&potential)) d->set_precision(p);
  else if (p != dp::Precision::Double) throw Error("precision " + precision + " applies to deepmd models only");
}

}  // namespace quasar
