#pragma once
// A new se_e2_a model from a training input, and the data statistics DeePMD-kit sets before
// training: davg/dstd of the environment rows per centre type, and the energy bias per type.
#include <vector>

#include "quasar/core/structure.hpp"
#include "quasar/device/backend.hpp"
#include "quasar/potential/dp/model.hpp"
#include "quasar/potential/dp/train/input.hpp"

namespace quasar::dp {

// Weights N(0, 1/sqrt(in + out)), biases N(0, 1), timesteps N(0.1, 0.001), seeded by the input;
// embedding layers and hidden fitting layers residual where the widths allow; last layer linear.
DpModel make_model(const TrainInput& in);

// Environment statistics over the frames (every slot of every atom, padding included, as
// DeePMD-kit): davg = [mean of R0, 0, 0, 0], dstd = [std of R0, std of R1..3 (three times)],
// at least 1e-2. The energy bias per type: least squares, on the frames' type counts, of their
// energies minus what the initial networks give.
void set_statistics(DpModel& model, const std::vector<const Structure*>& frames, Backend backend = Backend::Cpu);

}  // namespace quasar::dp
