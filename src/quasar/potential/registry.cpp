#include "quasar/potential/registry.hpp"

#include <algorithm>

namespace quasar {

bool Capabilities::supports(Precision p) const {
  return std::find(precisions.begin(), precisions.end(), p) != precisions.end();
}

void PotentialRegistry::add(PotentialFamily family) {
  if (family.name.empty() || !family.from_config) throw Error("potential family without a name or TOML factory");
  std::vector<std::string> names = family.aliases;
  names.push_back(family.name);
  for (const std::string& n : names)
    if (find(n)) throw Error("potential family '" + family.name + "': the type '" + n + "' is taken");
  families_.push_back(std::move(family));
}

const PotentialFamily* PotentialRegistry::find(const std::string& type) const {
  for (const PotentialFamily& f : families_)
    if (f.name == type || std::find(f.aliases.begin(), f.aliases.end(), type) != f.aliases.end()) return &f;
  return nullptr;
}

const PotentialFamily* PotentialRegistry::family_of(const Potential& potential) const {
  return find(potential.family());
}

const PotentialFamily& PotentialRegistry::family_of(const ConfigTable& t) const {
  const std::string type = t.get_string("type");
  const PotentialFamily* f = find(type);
  if (!f) t.fail("type", "unknown potential type \"" + type + "\"; valid types: " + type_names());
  return *f;
}

namespace {
bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}
}  // namespace

const PotentialFamily* PotentialRegistry::probe_model(const std::filesystem::path& path) const {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    for (const PotentialFamily& f : families_)
      for (const std::string& file : f.model_folder_files)
        if (std::filesystem::exists(path / file, ec)) return &f;
    return nullptr;
  }
  const std::string name = path.filename().string();
  const PotentialFamily* best = nullptr;
  std::size_t longest = 0;
  for (const PotentialFamily& f : families_)
    for (const std::string& ext : f.model_extensions)
      if (ext.size() > longest && ends_with(name, ext)) {
        best = &f;
        longest = ext.size();
      }
  return best;
}

const PotentialFamily* PotentialRegistry::probe_training(const std::filesystem::path& path) const {
  std::error_code ec;
  const bool folder = std::filesystem::is_directory(path, ec);
  const std::string name = path.filename().string();
  for (const PotentialFamily& f : families_) {
    if (!f.training) continue;
    for (const std::string& file : f.training_files)
      if (folder ? std::filesystem::exists(path / file, ec) : name == file) return &f;
    if (!folder)
      for (const std::string& ext : f.training_extensions)
        if (ends_with(name, ext)) return &f;
  }
  return nullptr;
}

std::string PotentialRegistry::type_names() const {
  std::string s;
  for (const PotentialFamily& f : families_) s += (s.empty() ? "" : ", ") + f.name;
  return s;
}

std::string PotentialRegistry::model_formats() const {
  std::string s;
  for (const PotentialFamily& f : families_) {
    std::string own;
    for (const std::string& e : f.model_extensions) own += (own.empty() ? "" : ", ") + e;
    for (const std::string& file : f.model_folder_files) own += (own.empty() ? "" : ", ") + ("a folder with " + file);
    if (!own.empty()) s += (s.empty() ? "" : "; ") + own + " (" + f.name + ")";
  }
  return s;
}

std::vector<std::string> PotentialRegistry::families_with(Precision p) const {
  std::vector<std::string> names;
  for (const PotentialFamily& f : families_)
    if (f.capabilities.supports(p)) names.push_back(f.name);
  return names;
}

std::unique_ptr<Potential> make_potential(const ConfigTable& t, const std::filesystem::path& base_dir) {
  return potential_registry().family_of(t).from_config(t, base_dir);
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
void check_options(const std::string& path, const std::string& family, const std::vector<std::string>& accepted,
                   const ModelOptions& options) {
  for (const auto& [name, value] : options) {
    if (std::find(accepted.begin(), accepted.end(), name) != accepted.end()) continue;
    std::string valid;
    for (const std::string& a : accepted) valid += (valid.empty() ? "" : ", ") + a;
    throw Error(path + ": " + family + " models take no option '" + name + "'" +
                (family == "TOML" ? " (set it in the [potential] table)"
                                  : valid.empty() ? " (they take none)" : " (valid: " + valid + ")"));
  }
}
}  // namespace

std::unique_ptr<Potential> load_model(const std::string& path, const ModelOptions& options) {
  if (!std::filesystem::exists(path)) throw InputError(path, 0, "model file not found");
  if (ends_with(path, ".toml")) {
    check_options(path, "TOML", {}, options);
    const toml::table root = parse_toml_file(path);
    const ConfigTable top{&root, path, ""};
    const std::vector<ConfigTable> tables = potential_tables(top);
    if (tables.size() != 1)
      throw InputError(path, 0, "holds " + std::to_string(tables.size()) +
                                    " [[potential]] tables where one model is expected (a force field of several "
                                    "terms goes where force fields do: quasar eval, run, model-devi)");
    return make_potential(tables.front(), std::filesystem::path(path).parent_path());
  }
  const PotentialRegistry& registry = potential_registry();
  const PotentialFamily* f = registry.probe_model(path);
  if (!f || (!f->from_file && !f->force_field_from_file))
    throw InputError(path, 0, "unknown model format (expected " + registry.model_formats() +
                                  ", or a .toml file with [potential])");
  check_options(path, f->name, f->model_options, options);
  if (!f->from_file)
    throw InputError(path, 0, "a " + f->name + " model holds several terms: it is a force field (quasar eval, run)");
  return f->from_file(path, options);
}

ForceField load_force_field(const std::string& path, const ModelOptions& options) {
  if (ends_with(path, ".toml") && std::filesystem::exists(path)) {
    check_options(path, "TOML", {}, options);
    const toml::table root = parse_toml_file(path);
    return make_force_field(ConfigTable{&root, path, ""}, std::filesystem::path(path).parent_path());
  }
  if (const PotentialFamily* f = potential_registry().probe_model(path); f && f->force_field_from_file) {
    check_options(path, f->name, f->model_options, options);
    return f->force_field_from_file(path, options);
  }
  return ForceField(std::shared_ptr<Potential>(load_model(path, options)));
}

train::TrainingJob training_job(const std::string& input, Backend backend, std::optional<Precision> precision) {
  std::error_code ec;
  if (!std::filesystem::exists(input, ec)) throw InputError(input, 0, "training input not found");
  const PotentialRegistry& registry = potential_registry();
  const PotentialFamily* f = registry.probe_training(input);
  if (!f) {
    std::string known;
    for (const PotentialFamily& g : registry.families()) {
      if (!g.training) continue;
      std::string own;
      for (const std::string& e : g.training_extensions) own += (own.empty() ? "" : ", ") + e;
      for (const std::string& file : g.training_files) own += (own.empty() ? "" : ", ") + file;
      known += (known.empty() ? "" : "; ") + own + " (" + g.name + ")";
    }
    throw InputError(input, 0, "no family trains from this input (known: " + known + ")");
  }
  return f->training(input, backend, precision);
}

namespace {
// Sets p on the potential when its family supports it; returns whether it did.
bool apply_precision(Potential& potential, Precision p) {
  const PotentialFamily* f = potential_registry().family_of(potential);
  if (!(f ? f->capabilities.supports(p) : p == Precision::Double)) return false;
  potential.set_precision(p);
  return true;
}

[[noreturn]] void unsupported(const std::string& precision, Precision p) {
  std::string names;
  for (const std::string& n : potential_registry().families_with(p)) names += (names.empty() ? "" : ", ") + n;
  throw Error("precision " + precision + " applies to " + (names.empty() ? "no" : names) + " models only");
}
}  // namespace

void set_model_precision(ForceField& force_field, const std::string& precision) {
  const Precision p = parse_precision(precision);
  bool any = false;
  for (const ForceField::Term& t : force_field.terms()) any = apply_precision(*t.potential, p) || any;
  if (!any && p != Precision::Double) unsupported(precision, p);
}

void set_model_precision(Potential& potential, const std::string& precision) {
  const Precision p = parse_precision(precision);
  if (!apply_precision(potential, p) && p != Precision::Double) unsupported(precision, p);
}

}  // namespace quasar
