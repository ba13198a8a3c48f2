#pragma once
// Families of potentials (Lennard-Jones, EAM, the Deep Potential, ...) and how shared code reaches
// them: each family folder registers its TOML type, its factories, how its model files are
// recognised and what it can do; MD, the command line, Python and LAMMPS go through this registry
// and include no family's own headers. potential/families.cpp lists the registration functions.
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "quasar/core/config.hpp"
#include "quasar/device/precision.hpp"
#include "quasar/potential/evaluate.hpp"
#include "quasar/potential/force_field.hpp"
#include "quasar/train/trainable.hpp"

namespace quasar {

// What a family can do. `quasar info` lists it; the engine checks it where it matters.
struct Capabilities {
  bool gpu = false;                                       // a CUDA evaluation
  std::vector<Precision> precisions{Precision::Double};  // GPU precisions (the CPU evaluates in double)
  bool ghost_atoms = false;  // centres with neighbours owned elsewhere (AtomState's n_local; LAMMPS)
  bool per_atom = false;     // per-atom energies and virials
  bool training = false;     // `quasar train` (see PotentialFamily::training)

  bool supports(Precision p) const;
};

// Options a model file takes from the command line (`quasar eval --units bohr,Ha`): name -> text.
// A family lists the names it accepts (PotentialFamily::model_options).
using ModelOptions = std::map<std::string, std::string>;

struct PotentialFamily {
  std::string name;                  // the TOML type; also what its potentials' family() returns
  std::vector<std::string> aliases;  // other TOML types that select it
  std::string description;           // one line for `quasar info`
  Capabilities capabilities;
  // A [potential] table (its `type` selected this family); file names relative to base_dir.
  std::function<std::unique_ptr<Potential>(const ConfigTable&, const std::filesystem::path& base_dir)> from_config;
  // Model files: recognised by how their names end (".eam.alloy"), or, for a model kept as a
  // folder, by a file the folder holds ("input.nn"); read by from_file.
  std::vector<std::string> model_extensions;
  std::vector<std::string> model_folder_files;
  std::vector<std::string> model_options;  // the ModelOptions its from_file understands ("units")
  std::function<std::unique_ptr<Potential>(const std::string& path, const ModelOptions& options)> from_file;
  // Model files that describe several terms (a Tinker key: one term per energy term): when set,
  // load_force_field reads them through it, and load_model, which wants one potential, refuses them.
  std::function<ForceField(const std::string& path, const ModelOptions& options)> force_field_from_file;
  // The text report of an evaluation in the family's own units and names (Tinker's analyze), which
  // `quasar eval` prints for a force field whose terms are all of this family.
  std::function<void(const ForceField& force_field, const Evaluation& e, std::ostream& out)> report;
  // Training (capabilities.training): the inputs it reads, by how their names end (".json") or by
  // their names ("input.nn", also inside a folder given instead), and the run such an input
  // describes on `backend`, in `precision` (none given: the input's own choice).
  std::vector<std::string> training_extensions;
  std::vector<std::string> training_files;
  std::function<train::TrainingJob(const std::string& input, Backend backend, std::optional<Precision> precision)>
      training;
};

class PotentialRegistry {
 public:
  // Throws Error when the family's name or an alias is taken, or it has no TOML factory.
  void add(PotentialFamily family);
  // In the order of registration.
  const std::vector<PotentialFamily>& families() const { return families_; }
  // By name or alias; null when there is none.
  const PotentialFamily* find(const std::string& type) const;
  // The family of a potential (by its family()); null for a potential no family made.
  const PotentialFamily* family_of(const Potential& potential) const;
  // The family of a [potential] table's `type`; an InputError at that key listing the valid types.
  const PotentialFamily& family_of(const ConfigTable& potential) const;
  // The family whose model `path` is: a folder by the files it holds, else by how the name ends
  // (the longest ending that matches); null when none claims it.
  const PotentialFamily* probe_model(const std::filesystem::path& path) const;
  // The family that trains from the input at `path` (a file, or a folder holding one of a family's
  // training_files); null when none claims it.
  const PotentialFamily* probe_training(const std::filesystem::path& path) const;
  // "lj, eam, deepmd"
  std::string type_names() const;
  // The model files the families read, for messages: ".eam, .eam.alloy (eam), ..."
  std::string model_formats() const;
  // Names of the families that support GPU precision p ("deepmd").
  std::vector<std::string> families_with(Precision p) const;

 private:
  std::vector<PotentialFamily> families_;
};

// Every family built in (potential/families.cpp). Mutable so that a program (or a test) can add
// families of its own before it reads input.
PotentialRegistry& potential_registry();

// Builds the potential of one [potential] table ("type" selects the family); file names in it are
// relative to base_dir (the input file's folder). The table may also hold `name` and `group`, which
// make_force_field reads.
std::unique_ptr<Potential> make_potential(const ConfigTable& potential, const std::filesystem::path& base_dir);

// The force field of a file's `potential` key: one [potential] table or an array of [[potential]]
// tables, one term each, in their order. A table's `name` names its term (default: its type, made
// unique with a suffix), its `group` (0..31, default 0) is the term's force group.
ForceField make_force_field(const ConfigTable& root, const std::filesystem::path& base_dir);

// A model file for `quasar eval --model`: a file (or folder) that a family's probe recognises, or
// a TOML file holding one [potential] table. Options go to the family's from_file; an option it
// does not list, or any option with a TOML file (whose tables hold their own keys), is an Error.
std::unique_ptr<Potential> load_model(const std::string& path, const ModelOptions& options = {});
// The same files as a force field; a TOML file may hold several [[potential]] tables.
ForceField load_force_field(const std::string& path, const ModelOptions& options = {});

// The training run of an input file (or folder), by the family that reads it: an InputError naming
// the file when no family does.
train::TrainingJob training_job(const std::string& input, Backend backend, std::optional<Precision> precision);

// GPU precision of a model ("double", "mixed32", "mixed16"). For a force field: every term whose
// family supports it (an error when none does and it is not double).
void set_model_precision(Potential& potential, const std::string& precision);
void set_model_precision(ForceField& force_field, const std::string& precision);

}  // namespace quasar
