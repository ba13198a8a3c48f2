#include "quasar/potential/registry.hpp"

#include "quasar/potential/bonded/bonded_term.hpp"
#include "quasar/potential/dp/deep_potential.hpp"
#include "quasar/potential/pair/eam.hpp"
#include "quasar/potential/pair/lj.hpp"

namespace quasar {

std::unique_ptr<Potential> make_potential(const ConfigTable& t, const std::filesystem::path& base_dir) {
  const std::string type = t.get_string("type");
  if (type == "lj") return std::make_unique<LennardJones>(t);
  if (type == "eam") return std::make_unique<Eam>(Eam::from_config(t, base_dir));
  if (is_bonded_type(type)) return make_bonded_potential(t);
  if (type == "deepmd") {
    t.allow_only({"type", "name", "group", "file", "fparam", "aparam", "precision", "chunk_atoms"});
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
  t.fail("type", "unknown potential type \"" + type + "\"; valid types: lj, eam, deepmd, bond/harmonic, angle/harmonic");
}

namespace {
// The [potential] table or the [[potential]] tables of a file, with their key paths for messages.
std::vector<ConfigTable> potential_tables(const ConfigTable& root) {
  const toml::node* n = root.table->get("potential");
  if (!n) throw InputError(root.file, 0, "missing table [" + root.key_path("potential") + "]");
  if (n->is_table()) return {ConfigTable{n->as_table(), root.file, root.key_path("potential")}};
  if (!n->is_array_of_tables() || n->as_array()->empty())
    root.fail("potential", "expected a [potential] table or [[potential]] tables");
  std::vector<ConfigTable> tables;
  for (const toml::node& e : *n->as_array())
    tables.push_back({e.as_table(), root.file, root.key_path("potential") + "[" + std::to_string(tables.size()) + "]"});
  return tables;
}
}  // namespace

ForceField make_force_field(const ConfigTable& root, const std::filesystem::path& base_dir) {
  ForceField ff;
  for (const ConfigTable& t : potential_tables(root)) {
    const std::string name = t.get_string("name", "");
    if (t.has("name") && name.empty()) t.fail("name", "expected a non-empty name");
    const long group = t.get_int("group", 0);
    if (group < 0 || group >= ForceField::kMaxGroups)
      t.fail("group", "expected a force group from 0 to " + std::to_string(ForceField::kMaxGroups - 1));
    std::shared_ptr<Potential> p = make_potential(t, base_dir);
    try {
      ff.add(std::move(p), name, static_cast<int>(group));
    } catch (const InputError&) {
      throw;
    } catch (const Error& e) {
      t.fail("name", e.what());
    }
  }
  return ff;
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
    const std::vector<ConfigTable> tables = potential_tables(top);
    if (tables.size() != 1)
      throw InputError(path, 0, "holds " + std::to_string(tables.size()) +
                                    " [[potential]] tables where one model is expected (a force field of several "
                                    "terms goes where force fields do: quasar eval, run, model-devi)");
    return make_potential(tables.front(), std::filesystem::path(path).parent_path());
  }
  throw InputError(path, 0,
                   "unknown model format (expected .eam, .eam.alloy, a DeePMD-kit .yaml or .dp, or a .toml file with [potential])");
}

ForceField load_force_field(const std::string& path) {
  if (ends_with(path, ".toml") && std::filesystem::exists(path)) {
    const toml::table root = parse_toml_file(path);
    return make_force_field(ConfigTable{&root, path, ""}, std::filesystem::path(path).parent_path());
  }
  return ForceField(std::shared_ptr<Potential>(load_model(path)));
}

void set_model_precision(ForceField& force_field, const std::string& precision) {
  const dp::Precision p = dp::parse_precision(precision);
  bool any = false;
  for (const ForceField::Term& t : force_field.terms())
    if (auto* d = dynamic_cast<dp::DeepPotential*>(t.potential.get())) {
      d->set_precision(p);
      any = true;
    }
  if (!any && p != dp::Precision::Double) throw Error("precision " + precision + " applies to deepmd models only");
}

void set_model_precision(Potential& potential, const std::string& precision) {
  const dp::Precision p = dp::parse_precision(precision);
  if (auto* d = dynamic_cast<dp::DeepPotential*>(&potential)) d->set_precision(p);
  else if (p != dp::Precision::Double) throw Error("precision " + precision + " applies to deepmd models only");
}

}  // namespace quasar
