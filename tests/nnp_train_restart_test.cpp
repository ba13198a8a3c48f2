// Checkpoints and restarts of n2p2 training (potential/nnp/train/checkpoint.cpp): N epochs in one run
// and K epochs, a checkpoint, then the rest from it give the same bits (weights, learning curve, the
// last checkpoint) for the Kalman filter (one and per element, threshold and sorted selection, the
// fading-memory filter) and n2p2's Adam on the CPU, and the same numbers on the GPU; bad checkpoints
// are refused naming the file and the problem, and leave the run as it was; a failed write keeps the
// last checkpoint; the command line; the fuzz target's seeds load.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "../fuzz/nnp_training_fixture.hpp"
#include "nnp_train_support.hpp"
#include "quasar/core/error.hpp"
#include "quasar/device/backend.hpp"
#include "quasar/potential/nnp/train/training.hpp"
#include "support.hpp"

namespace quasar {
namespace {

namespace fs = std::filesystem;
using Keys = std::vector<std::pair<std::string, std::string>>;

std::string contents(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The water set with small networks (6 and 6 neurons) so that an epoch is quick, `epochs` epochs.
fs::path water(const std::string& name, Keys keys, long epochs) {
  if (std::none_of(keys.begin(), keys.end(), [](const auto& k) { return k.first == "global_nodes_short"; }))
    keys.push_back({"global_nodes_short", "global_nodes_short 6 6"});
  keys.push_back({"epochs", "epochs " + std::to_string(epochs)});
  return test::training_copy("H2O_RPBE-D3", name, keys);
}

struct Outcome {
  std::vector<double> weights;
  fs::path out;
};

// `epochs` epochs in one run, or (from_checkpoint) continued from `checkpoint`.
Outcome train(const std::string& name, const Keys& keys, long epochs, Backend backend,
              const std::string& checkpoint = "") {
  const fs::path dir = water(name, keys, epochs);
  nnp::N2p2Training t(dir, backend);
  if (!checkpoint.empty()) t.restart(checkpoint);
  t.run((dir / "out").string(), nullptr);
  return {t.networks().weights(), dir / "out"};
}

const std::vector<Keys>& variants() {
  static const std::vector<Keys> v = {
      {},  // the water input: one Kalman filter, threshold selection, energies and forces
      {{"update_strategy", "update_strategy 1"}, {"selection_mode", "selection_mode 1"}},
      {{"kalman_type", "kalman_type 1"},
       {"kalman_lambda_short", "kalman_lambda_short 0.96"},
       {"kalman_nue_short", "kalman_nue_short 0.995"},
       {"jacobian_mode", "jacobian_mode 2"},
       {"task_batch_size_force", "task_batch_size_force 2"}},
      {{"updater_type", "updater_type 0"}, {"jacobian_mode", "jacobian_mode 0"}, {"gradient_type", "gradient_type 1"}},
      {{"updater_type", "updater_type 0"},
       {"jacobian_mode", "jacobian_mode 0"},
       {"gradient_type", "gradient_type 1"},
       {"update_strategy", "update_strategy 1"},
       {"selection_mode", "selection_mode 1"}},
  };
  return v;
}

// Three epochs, and one then two from the first run's checkpoint: the same bits.
TEST(NnpTrainRestart, ContinuesBitForBitOnTheCpu) {
  QUASAR_REQUIRE_TRAINING_DATA();
  for (std::size_t v = 0; v < variants().size(); ++v) {
    const std::string tag = std::to_string(v);
    const Outcome whole = train("whole-" + tag, variants()[v], 3, Backend::Cpu);
    const Outcome first = train("first-" + tag, variants()[v], 1, Backend::Cpu);
    const Outcome rest = train("rest-" + tag, variants()[v], 3, Backend::Cpu, (first.out / "training.ckpt").string());
    ASSERT_EQ(whole.weights.size(), rest.weights.size());
    long differ = 0;
    for (std::size_t k = 0; k < whole.weights.size(); ++k) differ += whole.weights[k] != rest.weights[k];
    EXPECT_EQ(differ, 0) << "variant " << v;
    const std::string curve = contents(whole.out / "learning-curve.out");
    EXPECT_NE(curve.find("\n         3 "), std::string::npos) << "variant " << v;
    EXPECT_EQ(contents(rest.out / "learning-curve.out"), curve) << "variant " << v;
    EXPECT_NE(contents(first.out / "learning-curve.out"), curve);
    for (const char* f : {"weights.001.data", "weights.008.data", "training.ckpt"})
      EXPECT_EQ(contents(rest.out / f), contents(whole.out / f)) << f << ", variant " << v;
  }
}

// The same on the GPU, where the updaters' states live on the device: two epochs, and one, a checkpoint
// and one more, take the same steps (random selection: no decision hangs on a rounding of the GPU's
// sums), and so do checkpoints continued on the other backend. An epoch on the GPU agrees with the
// CPU's to about 3e-11 (NnpTrainRun.GpuEpochTakesTheCpuSteps), and the Kalman filters' second epoch
// amplifies the GPU's varying sums. Measured on an H100, relative to the largest weight: one Kalman
// filter 2.1e-9 to 4e-9, one per element 5.2e-8 (GPU restarted) and 1.5e-6 (a CPU checkpoint continued
// on the GPU; 1.6e-7 and 1e-6 in a second run), Adam 8.3e-16 at most; held to 2e-5.
TEST(NnpTrainRestart, ContinuesOnTheGpu) {
  QUASAR_REQUIRE_TRAINING_DATA();
  if (!cuda_available()) GTEST_SKIP() << "no GPU";
  for (std::size_t v : {std::size_t(0), std::size_t(1), std::size_t(3)}) {
    Keys keys = variants()[v];
    std::erase_if(keys, [](const auto& k) { return k.first == "selection_mode"; });
    keys.push_back({"selection_mode", "selection_mode 0"});
    const std::string tag = std::to_string(v);
    const Outcome whole = train("gpu-whole-" + tag, keys, 2, Backend::Cuda);
    const Outcome first = train("gpu-first-" + tag, keys, 1, Backend::Cuda);
    const Outcome rest = train("gpu-rest-" + tag, keys, 2, Backend::Cuda, (first.out / "training.ckpt").string());
    double largest = 0;
    for (double w : whole.weights) largest = std::max(largest, std::abs(w));
    test::MaxError weights("GPU restarted - uninterrupted weights, relative to the largest, variant " + tag);
    for (std::size_t k = 0; k < whole.weights.size(); ++k)
      weights.add(rest.weights[k] / largest, whole.weights[k] / largest);
    // The GPU's symmetry functions are sums in a varying order, recomputed by the restarted run.
    EXPECT_TRUE(weights.within(2e-5));
    // And the restarted GPU run's checkpoint continues on the CPU.
    const Outcome cpu = train("gpu-cpu-" + tag, keys, 2, Backend::Cpu, (first.out / "training.ckpt").string());
    test::MaxError across("CPU continuation of a GPU checkpoint - GPU, relative to the largest, variant " + tag);
    for (std::size_t k = 0; k < whole.weights.size(); ++k)
      across.add(cpu.weights[k] / largest, whole.weights[k] / largest);
    EXPECT_TRUE(across.within(2e-5));
    // And a CPU checkpoint on the GPU.
    const Outcome cpu_first = train("gpu-cpu-first-" + tag, keys, 1, Backend::Cpu);
    const Outcome on_gpu = train("cpu-gpu-" + tag, keys, 2, Backend::Cuda, (cpu_first.out / "training.ckpt").string());
    test::MaxError back("GPU continuation of a CPU checkpoint - GPU, relative to the largest, variant " + tag);
    for (std::size_t k = 0; k < whole.weights.size(); ++k)
      back.add(on_gpu.weights[k] / largest, whole.weights[k] / largest);
    EXPECT_TRUE(back.within(2e-5));
  }
}

// The message of the InputError that restarting `t` from `path` throws ("" when none).
std::string refusal(nnp::N2p2Training& t, const fs::path& path) {
  try {
    t.restart(path.string());
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), path.string());
    return e.what();
  }
  return "";
}

TEST(NnpTrainRestart, BadCheckpointsNameTheFileAndTheProblem) {
  QUASAR_REQUIRE_TRAINING_DATA();
  const Outcome first = train("bad-first", {}, 1, Backend::Cpu);
  const fs::path good = first.out / "training.ckpt", dir = water("bad", {}, 2);
  const std::string bytes = contents(good);
  nnp::N2p2Training t(dir, Backend::Cpu);
  const std::vector<double> start = t.networks().weights();
  auto damaged = [&](const std::string& name, const std::string& b) {
    const fs::path p = dir / name;
    std::ofstream(p, std::ios::binary) << b;
    return p;
  };
  auto expect = [&](const fs::path& p, const std::string& text) {
    const std::string got = refusal(t, p);
    EXPECT_NE(got.find(text), std::string::npos) << "expected '" << text << "' in '" << got << "'";
  };
  const std::size_t header = bytes.find('\n', bytes.find('\n') + 1) + 1;
  expect(dir / "none.ckpt", "cannot open the checkpoint");
  expect(damaged("truncated.ckpt", bytes.substr(0, bytes.size() - 100)), "(truncated checkpoint)");
  expect(damaged("header.ckpt", bytes.substr(0, header - 20)), "the header is truncated");
  expect(damaged("longer.ckpt", bytes + "x"), "the payload holds");
  std::string flipped = bytes;
  flipped[header + (bytes.size() - header) / 2] ^= 1;
  expect(damaged("flipped.ckpt", flipped), "checksum");
  expect(damaged("magic.ckpt", "QUASAR-CHECKPOINT 2\n{}\n"), "not a checkpoint of n2p2 training");
  expect(damaged("version.ckpt", "QUASAR-NNP-TRAINING-CHECKPOINT 9\n" + bytes.substr(bytes.find('\n') + 1)),
         "checkpoint format 'QUASAR-NNP-TRAINING-CHECKPOINT 9'");
  std::string epoch = bytes;
  epoch.replace(epoch.find("\"epoch\":1"), 9, "\"epoch\":-1");
  expect(damaged("epoch.ckpt", epoch), ":2: header key 'epoch': expected a whole number");
  // Another input: larger networks, another seed (another test split), Adam instead of the filter.
  auto other = [&](const std::string& name, const Keys& keys, const std::string& text) {
    const fs::path d = water(name, keys, 2);
    nnp::N2p2Training o(d, Backend::Cpu);
    const std::string got = refusal(o, good);
    EXPECT_NE(got.find(text), std::string::npos) << "expected '" << text << "' in '" << got << "'";
  };
  other("bad-nodes", {{"global_nodes_short", "global_nodes_short 7 6"}}, "header key 'parameters': updater 0 has");
  other("bad-seed", {{"random_seed", "random_seed 99"}}, "energy candidates, this input 19 (another test split");
  other("bad-adam", {{"updater_type", "updater_type 0"}, {"jacobian_mode", "jacobian_mode 0"}},
        "header key 'updater': the checkpoint is of the kalman updater, this input asks for adam");
  other("bad-strategy", {{"update_strategy", "update_strategy 1"}}, "updaters, this input 2");
  // Nothing changed; the good checkpoint still restarts the run.
  EXPECT_EQ(t.epoch(), 0);
  EXPECT_EQ(t.networks().weights(), start);
  t.restart(good.string());
  EXPECT_EQ(t.epoch(), 1);
  EXPECT_EQ(t.networks().weights(), first.weights);
}

// A checkpoint is written beside the last one and renamed over it: a write that fails (here its
// temporary file cannot be made) leaves the last checkpoint as it was.
TEST(NnpTrainRestart, AFailedWriteKeepsTheLastCheckpoint) {
  const fs::path dir = test::scratch_dir("nnp-atomic");
  auto t = fuzz::tiny_training(dir, false);
  t->run((dir / "out").string(), nullptr);
  const fs::path ckpt = dir / "out" / "training.ckpt";
  const std::string last = contents(ckpt);
  ASSERT_FALSE(last.empty());
  fs::create_directories(ckpt.string() + ".tmp." + std::to_string(::getpid()));
  EXPECT_THROW(t->write_checkpoint(ckpt.string()), Error);
  EXPECT_EQ(contents(ckpt), last);
}

// `quasar train` with --checkpoint-every and --restart; no temporary file is left.
TEST(NnpTrainRestart, CommandLine) {
  QUASAR_REQUIRE_TRAINING_DATA();
  const fs::path dir = water("cli", {}, 2);
  auto quasar = [&](const std::string& args, std::string& out) {
    const std::string cmd =
        "cd " + dir.string() + " && " + test::binary_path("quasar") + " " + args + " > out.txt 2>&1";
    const int status = std::system(cmd.c_str());
    out = contents(dir / "out.txt");
    return WEXITSTATUS(status);
  };
  std::string out;
  ASSERT_EQ(quasar("train . --device cpu --output whole --checkpoint-every 1", out), 0) << out;
  for (const auto& e : fs::directory_iterator(dir / "whole"))
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
  // A restart from the last epoch's checkpoint trains no more: the same model and curve.
  ASSERT_EQ(quasar("train . --device cpu --output rest --restart whole/training.ckpt", out), 0) << out;
  EXPECT_NE(out.find("continuing from a checkpoint after epoch 2"), std::string::npos) << out;
  for (const char* f : {"weights.008.data", "learning-curve.out", "training.ckpt"})
    EXPECT_EQ(contents(dir / "rest" / f), contents(dir / "whole" / f)) << f;
  EXPECT_EQ(quasar("train . --device cpu --checkpoint-every -1", out), 2);
  EXPECT_NE(out.find("--checkpoint-every takes a whole number"), std::string::npos) << out;
  EXPECT_EQ(quasar("train . --device cpu --restart nothing.ckpt", out), 1);
  EXPECT_NE(out.find("nothing.ckpt: cannot open the checkpoint"), std::string::npos) << out;
}

// The fuzz target's seeds (fuzz/seeds/nnp_checkpoint: the checkpoints its trainings write after their
// epoch) restart its trainings; with QUASAR_WRITE_FUZZ_SEEDS=1 they are written first (after a change
// of the format or of the fixture).
TEST(NnpTrainRestart, FuzzSeedsLoad) {
  const fs::path seeds = test::source_path("fuzz/seeds/nnp_checkpoint");
  for (bool adam : {false, true}) {
    const std::string kind = adam ? "adam" : "kalman";
    const fs::path seed = seeds / (kind + "-epoch-1.ckpt");
    if (const char* w = std::getenv("QUASAR_WRITE_FUZZ_SEEDS"); w && std::string(w) == "1") {
      const fs::path dir = test::scratch_dir("nnp-seed-" + kind);
      fuzz::tiny_training(dir, adam)->run((dir / "out").string(), nullptr);
      fs::create_directories(seeds);
      fs::copy_file(dir / "out" / "training.ckpt", seed, fs::copy_options::overwrite_existing);
    }
    ASSERT_TRUE(fs::exists(seed)) << seed;
    auto t = fuzz::tiny_training(test::scratch_dir("nnp-seed-read-" + kind), adam);
    t->restart(seed.string());
    EXPECT_EQ(t->epoch(), 1) << seed;
  }
}

}  // namespace
}  // namespace quasar
