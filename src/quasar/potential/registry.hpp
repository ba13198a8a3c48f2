#pragma once
#include <filesystem>
#include <memory>
#include <string>

#include "quasar/core/config.hpp"
#include "quasar/potential/force_field.hpp"

namespace quasar {

// Builds the potential of one [potential] table ("type" selects the family); file names in it are
// relative to base_dir (the input file's folder). The table may also hold `name` and `group`, which
// make_force_field reads.
std::unique_ptr<Potential> make_potential(const ConfigTable& potential, const std::filesystem::path& base_dir);

// The force field of a file's `potential` key: one [potential] table or an array of [[potential]]
// tables, one term each, in their order. A table's `name` names its term (default: its type, made
// unique with a suffix), its `group` (0..31, default 0) is the term's force group.
ForceField make_force_field(const ConfigTable& root, const std::filesystem::path& base_dir);

// A model file for `quasar eval --model`: an EAM file (.eam funcfl, .eam.alloy setfl), a
// DeePMD-kit .yaml or .dp model, or a TOML file holding one [potential] table.
std::unique_ptr<Potential> load_model(const std::string& path);
// The same files as a force field; a TOML file may hold several [[potential]] tables.
ForceField load_force_field(const std::string& path);

// GPU precision of a model ("double", "mixed32", "mixed16"); only Deep Potentials have other
// modes than double. For a force field: its Deep Potential terms (an error when it has none).
void set_model_precision(Potential& potential, const std::string& precision);
void set_model_precision(ForceField& force_field, const std::string& precision);

}  // namespace quasar
