#pragma once
// A tiny n2p2 training (one element, two radial symmetry functions, a 2-3-1 network, eight
// structures of three hydrogen atoms with made-up energies and forces) in a scratch folder, with the
// Kalman filter or n2p2's Adam: what the nnp_checkpoint fuzz target reads checkpoints into, and what
// writes its seeds (tests/nnp_train_restart_test.cpp, with QUASAR_WRITE_FUZZ_SEEDS=1).
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "quasar/potential/nnp/train/training.hpp"

namespace quasar::fuzz {

// The folder of the tiny training in `dir`, with the Kalman filter (`adam` false) or Adam.
inline std::filesystem::path write_tiny_training(const std::filesystem::path& dir, bool adam) {
  std::filesystem::create_directories(dir);
  std::ofstream nn(dir / "input.nn");
  nn << "number_of_elements 1\nelements H\ncutoff_type 2\nscale_symmetry_functions\nscale_min_short 0.0\n"
        "scale_max_short 1.0\nglobal_hidden_layers_short 1\nglobal_nodes_short 3\nglobal_activation_short t l\n"
        "use_short_forces\nrandom_seed 7\nepochs 1\nparallel_mode 0\nupdate_strategy 0\nselection_mode 2\n"
        "task_batch_size_energy 1\ntask_batch_size_force 1\ntest_fraction 0.2\nforce_weight 1.0\n"
        "energy_fraction 1.0\nforce_fraction 0.3\nrmse_threshold_trials 3\nweights_min -1.0\nweights_max 1.0\n"
        "write_weights_epoch 0\n"
        "symfunction_short H 2 H 0.5 0.0 6.0\nsymfunction_short H 2 H 2.0 0.0 6.0\n";
  if (adam)
    nn << "updater_type 0\njacobian_mode 0\ngradient_type 1\ngradient_adam_eta 1.0E-3\ngradient_adam_beta1 0.9\n"
          "gradient_adam_beta2 0.999\ngradient_adam_epsilon 1.0E-8\n";
  else
    nn << "updater_type 1\njacobian_mode 1\nkalman_type 0\nkalman_epsilon 0.01\nkalman_q0 0.01\nkalman_qtau 2.302\n"
          "kalman_qmin 1.0E-6\nkalman_eta 0.01\nkalman_etatau 2.302\nkalman_etamax 1.0\n";
  std::ofstream data(dir / "input.data");
  for (int s = 0; s < 8; ++s) {
    data << "begin\n";
    double energy = 0;
    for (int a = 0; a < 3; ++a) {
      const double x = 1.1 * a + 0.05 * s, y = 0.3 * std::sin(s + a), z = 0.2 * a * (s % 3);
      data << "atom " << x << " " << y << " " << z << " H 0.0 0.0 " << 0.1 * (a - 1) << " " << 0.01 * s << " "
           << -0.02 * a << "\n";
      energy += -0.5 + 0.01 * s * a;
    }
    data << "energy " << energy << "\ncharge 0.0\nend\n";
  }
  return dir;
}

// The tiny training set up (scaling computed from the structures) on the CPU.
inline std::unique_ptr<nnp::N2p2Training> tiny_training(const std::filesystem::path& dir, bool adam) {
  return std::make_unique<nnp::N2p2Training>(write_tiny_training(dir, adam), Backend::Cpu);
}

}  // namespace quasar::fuzz
