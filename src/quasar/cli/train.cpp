// `quasar train`: a model from a training input, of the family that reads it (potential/registry.hpp).
#include <charconv>
#include <iostream>
#include <optional>

#include "quasar/cli/args.hpp"
#include "quasar/cli/commands.hpp"
#include "quasar/potential/registry.hpp"
#if QUASAR_WITH_TRAIN
#include "quasar/train/trainer.hpp"
#endif

namespace quasar::cli {

namespace {
const char* kHelp = R"(usage: quasar train INPUT [--restart CHECKPOINT] [--output PREFIX] [--device auto|cpu|cuda]
                    [--precision double|mixed32] [--checkpoint-every N]

Trains a model from its family's training input: DeePMD-kit's input.json (model, learning_rate,
loss and training sections) trains an se_e2_a Deep Potential on deepmd/npy systems, n2p2
input.data or extended XYZ files, on the GPU when one is usable (the same steps as on the CPU in
double precision; mixed32 runs the networks in float, default when the input's descriptor
precision is float32). Writes the learning curve (training.disp_file: step, RMSE of the loss, of
the energy per atom and of the forces for validation and training data, learning rate),
checkpoints (training.save_ckpt, every save_freq steps; --restart continues one exactly) and the
model's files named from PREFIX (default: model; a Deep Potential: PREFIX.yaml and PREFIX.dp,
which DeePMD-kit also reads). --checkpoint-every N replaces save_freq.

n2p2's input.nn with its training keywords (or the folder holding it, with input.data and
scaling.data, computed as nnp-scaling does when missing) trains a Behler-Parrinello potential as
nnp-train does: epochs of single Kalman-filter or gradient-descent updates on energies and force
components, the Kalman filter on the GPU when one is usable, in double precision. Writes into the
folder PREFIX learning-curve.out, weights.ZZZ.NNNNNN.out and the comparison files as the write_*
keywords ask, and the potential (input.nn, scaling.data, weights.ZZZ.data) that n2p2 also reads.
Checkpoints go to PREFIX/training.ckpt after the epochs whose weights files write_weights_epoch
asks for and after the last (--checkpoint-every N: every N epochs instead, 0: the last only);
--restart PREFIX/training.ckpt continues one (bit for bit on the CPU), rewriting learning-curve.out
up to its epoch.
)";
}  // namespace

int train_command(const std::vector<std::string>& argv) {
  const Args a =
      Args::parse(argv, {"--help"}, {"--restart", "--output", "--device", "--precision", "--checkpoint-every"});
  if (a.has("--help")) {
    std::cout << kHelp;
    return 0;
  }
  if (a.positional.size() != 1) throw UsageError("train needs the input file");
#if !QUASAR_WITH_TRAIN
  throw Error(a.positional[0] + ": this build has no trainable family and no trainer (configured with QUASAR_WITH_DP=OFF)");
#else
  const Backend backend = parse_backend(a.get("--device", "auto"));
  std::optional<Precision> precision;
  if (a.has("--precision")) precision = parse_precision(a.get("--precision"));
  train::TrainingJob job = training_job(a.positional[0], backend, precision);
  if (backend == Backend::Cpu && job.precision != Precision::Double)
    std::cout << "note: the CPU trains in double precision\n";
  const Precision used = job.precision;
  const std::unique_ptr<train::TrainingRun> run = train::make_run(std::move(job), a.get("--restart"));
  if (a.has("--checkpoint-every")) {
    const std::string n = a.get("--checkpoint-every");
    long every = -1;
    const auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), every);
    if (ec != std::errc() || end != n.data() + n.size() || every < 0)
      throw UsageError("--checkpoint-every takes a whole number >= 0, not '" + n + "'");
    run->checkpoint_every(every);
  }
  std::cout << "training on " << backend_name(backend)
            << (backend == Backend::Cuda ? std::string(" in ") + precision_name(used) : "") << "\n";
  const std::vector<std::string> files = run->run(a.get("--output", "model"), &std::cout);
  std::cout << "wrote";
  for (std::size_t k = 0; k < files.size(); ++k) std::cout << (k ? " and " : " ") << files[k];
  std::cout << "\n";
  return 0;
#endif
}

}  // namespace quasar::cli
