// Fuzz target: checkpoints of n2p2 training (N2p2Training::restart). Two tiny trainings are set up
// once (nnp_training_fixture.hpp: the Kalman filter and Adam); every input is read as a checkpoint
// into both, which either restores it or fails with an InputError and nothing changed. Seeds:
// fuzz/seeds/nnp_checkpoint, checkpoints of the two trainings after epochs 0 and 1, written by
// nnp_train_restart_test (QUASAR_WRITE_FUZZ_SEEDS=1), which also checks that they load.
#include <unistd.h>

#include "fuzz_input.hpp"
#include "nnp_training_fixture.hpp"

namespace {

quasar::nnp::N2p2Training& training(bool adam) {
  static const std::filesystem::path base =
      std::filesystem::temp_directory_path() / ("quasar-fuzz-nnp-" + std::to_string(::getpid()));
  static std::unique_ptr<quasar::nnp::N2p2Training> kalman = quasar::fuzz::tiny_training(base / "kalman", false);
  static std::unique_ptr<quasar::nnp::N2p2Training> descent = quasar::fuzz::tiny_training(base / "adam", true);
  return adam ? *descent : *kalman;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const auto path = quasar::fuzz::input_file(data, size, "training.ckpt");
  for (bool adam : {false, true}) quasar::fuzz::expect_input_error([&] { training(adam).restart(path); });
  return 0;
}
