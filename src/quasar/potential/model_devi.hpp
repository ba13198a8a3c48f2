#pragma once
// Model deviation for active learning, as DeePMD-kit's `dp model-devi` reports it: several models
// evaluate the same structure; the spread of their forces (per atom: the root mean square distance
// of each model's force from the models' mean) and of their virials (per component, divided by the
// number of atoms) is summarised by its maximum, minimum and mean. The models share one copy of the
// structure and one neighbour list on the backend (evaluate_all); many frames go as one batch.
#include <span>
#include <vector>

#include "quasar/potential/force_field.hpp"

namespace quasar {

struct ModelDeviation {
  double max_f = 0, min_f = 0, avg_f = 0;  // eV/Å
  double max_v = 0, min_v = 0, avg_v = 0;  // eV per atom
};

// Each model a force field (of one or more terms), or a potential.
ModelDeviation model_deviation(std::span<ForceField* const> models, const Structure& s, Backend backend);
ModelDeviation model_deviation(const std::vector<Potential*>& models, const Structure& s, Backend backend);
// The deviation of every frame, the frames evaluated as one batch (evaluate_batch_all).
std::vector<ModelDeviation> model_deviations(std::span<ForceField* const> models, std::span<const Structure> frames,
                                             Backend backend);

}  // namespace quasar
