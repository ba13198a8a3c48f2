// `quasar train`: a Deep Potential from DeePMD-kit's training input.
#include <iostream>

#include "quasar/cli/args.hpp"
#include "quasar/cli/commands.hpp"
#include "quasar/train/trainer.hpp"

namespace quasar::cli {

namespace {
const char* kHelp = R"(usage: quasar train INPUT.json [--restart CHECKPOINT] [--output PREFIX] [--device auto|cpu|cuda]
                    [--precision double|mixed32]

Trains an se_e2_a Deep Potential from DeePMD-kit's input.json (model, learning_rate, loss and
training sections) on deepmd/npy systems, n2p2 input.data or extended XYZ files, on the GPU when
one is usable (the same steps as on the CPU in double precision; mixed32 runs the networks in float,
default when the input's descriptor precision is float32). Writes the learning
curve (training.disp_file: step, RMSE of the loss, of the energy per atom and of the forces for
validation and training data, learning rate), checkpoints (training.save_ckpt, every save_freq
steps; --restart continues one exactly) and PREFIX.yaml and PREFIX.dp (default: model), which
DeePMD-kit also reads.
)";
}  // namespace

int train_command(const std::vector<std::string>& argv) {
  const Args a = Args::parse(argv, {"--help"}, {"--restart", "--output", "--device", "--precision"});
  if (a.has("--help")) {
    std::cout << kHelp;
    return 0;
  }
  if (a.positional.size() != 1) throw UsageError("train needs the input file");
  const Backend backend = parse_backend(a.get("--device", "auto"));
  train::TrainInput input = train::read_train_input(a.positional[0]);
  const Precision precision =
      parse_precision(a.get("--precision", input.precision == "float32" ? "mixed32" : "double"));
  if (precision == Precision::Mixed16) throw UsageError("train: --precision is double or mixed32");
  if (backend == Backend::Cpu && precision != Precision::Double)
    std::cout << "note: the CPU trains in double precision\n";
  train::Trainer t(std::move(input), a.get("--restart"), backend, precision);
  std::cout << "training on " << backend_name(backend)
            << (backend == Backend::Cuda ? std::string(" in ") + precision_name(precision) : "") << "\n";
  t.run(a.get("--output", "model"), &std::cout);
  std::cout << "wrote " << a.get("--output", "model") << ".yaml and .dp\n";
  return 0;
}

}  // namespace quasar::cli
