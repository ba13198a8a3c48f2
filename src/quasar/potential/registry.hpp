#pragma once
#include <filesystem>
#include <memory>
#include <string>

#include "quasar/core/config.hpp"
#include "quasar/potential/potential.hpp"

namespace quasar {

// Builds the potential of a [potential] table ("type" selects the family); file names in it are
// relative to base_dir (the input file's folder).
std::unique_ptr<Potential> make_potential(const ConfigTable& potential, const std::filesystem::path& base_dir);

// A model file for `quasar eval --model`: an EAM file (.eam funcfl, .eam.alloy setfl), a
// DeePMD-kit .yaml model, or a TOML file holding a [potential] table.
std::unique_ptr<Potential> load_model(const std::string& path);

// GPU precision of a model ("double", "mixed32", "mixed16"); only Deep Potentials have other
// modes than double.
void set_model_precision(Potential& potential, const std::string& precision);

}  // namespace quasar
