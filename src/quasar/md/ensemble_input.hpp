#pragma once
// `quasar run` with an [ensemble] table: many independent systems integrated together (md::Ensemble).
#include <filesystem>
#include <span>
#include <vector>

#include "quasar/core/config.hpp"
#include "quasar/md/ensemble.hpp"

namespace quasar::md {

// The [ensemble] table for these systems (its keys checked, errors naming them).
EnsembleSettings ensemble_settings_from_config(const ConfigTable& table, std::span<const Structure> systems,
                                               const std::filesystem::path& base_dir);
// The systems: every frame of [structure] (one for a data file or a lattice), each repeated
// [ensemble] copies times (frame after frame: system f copies + c is copy c of frame f).
std::vector<Structure> ensemble_systems_from_config(const ConfigTable& root, const std::filesystem::path& base_dir);

// Builds and runs the ensemble an input file describes ([structure], [potential], [md], [output],
// [neighbor], [ensemble]; deterministic: as if the file said deterministic = true).
void run_ensemble_from_config(const ConfigTable& root, const std::filesystem::path& base_dir, Backend backend,
                              bool deterministic = false);

}  // namespace quasar::md
