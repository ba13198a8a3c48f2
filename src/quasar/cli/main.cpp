// The `quasar` command: run, eval, train, test, convert, model-devi, dp, shepard, gw, info.
#include <iostream>
#include <string>
#include <vector>

#include "quasar/cli/args.hpp"
#include "quasar/cli/commands.hpp"
#include "quasar/core/error.hpp"

namespace {

const char* kUsage = R"(usage: quasar COMMAND [OPTIONS]

Atomistic simulation with ab initio accuracy on GPUs.

commands:
  run INPUT.toml     run the simulation an input file describes
  eval               energy, forces and virial of structures with a model
  train INPUT.json   train a Deep Potential (DeePMD-kit's input format)
  test               a model's energy, force and virial errors on labelled frames
  convert            labelled frames (pw.x outputs, deepmd/npy) to extended XYZ
  model-devi         spread of several models' forces and virials, for active learning
  dp compress|convert  tabulate a Deep Potential's embedding nets; convert .yaml <-> .dp
  shepard build|eval|grow|qct  modified Shepard surfaces: data sets, evaluation, growth, trajectories
  gw epm|epsilon     GW: the EPM mean field (BerkeleyGW's EPM input); Epsilon (its epsilon.inp)
  info               version, build options and GPUs found

Run `quasar COMMAND --help` for a command's options; `quasar --version` prints the version.
)";

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << kUsage;
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version") {
    std::cout << "quasar " << QUASAR_VERSION << "\n";
    return 0;
  }
  const std::string cmd = args[0];
  args.erase(args.begin());
  try {
    if (cmd == "run") return quasar::cli::run_command(args);
    if (cmd == "eval") return quasar::cli::eval_command(args);
    if (cmd == "info") return quasar::cli::info_command(args);
    if (cmd == "model-devi") return quasar::cli::model_devi_command(args);
    if (cmd == "dp") return quasar::cli::dp_command(args);
    if (cmd == "test") return quasar::cli::test_command(args);
    if (cmd == "train") return quasar::cli::train_command(args);
    if (cmd == "convert") return quasar::cli::convert_command(args);
    if (cmd == "shepard") return quasar::cli::shepard_command(args);
    if (cmd == "gw") return quasar::cli::gw_command(args);
    throw quasar::cli::UsageError("unknown command '" + cmd + "' (valid: run, eval, train, test, convert, model-devi, dp, shepard, gw, info)");
  } catch (const quasar::cli::UsageError& e) {
    std::cerr << "quasar: " << e.what() << "\n" << "run `quasar " << (cmd.rfind("-", 0) == 0 ? "" : cmd + " ") << "--help` for usage\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "quasar: error: " << e.what() << "\n";
    return 1;
  }
}
