#include <filesystem>
#include <iostream>

#include "quasar/cli/args.hpp"
#include "quasar/cli/commands.hpp"
#include "quasar/md/ensemble_input.hpp"
#include "quasar/md/simulation.hpp"

namespace quasar::cli {

namespace {
const char* kRunHelp = R"(usage: quasar run INPUT.toml [--device auto|cpu|cuda] [--deterministic]

Runs the simulation described by INPUT.toml: tables [structure], [potential] (or several
[[potential]] tables, whose terms add), [md], [output], [neighbor] and the keys device and
deterministic (see docs/user-guide.md). With an [ensemble] table every frame of the structure
file (each repeated `copies` times) is an independent system, all integrated together.
--device overrides the file's device; --deterministic sets deterministic = true (bit-identical
GPU runs).
)";
}  // namespace

int run_command(const std::vector<std::string>& argv) {
  const Args a = Args::parse(argv, {"--help", "--deterministic"}, {"--device"});
  if (a.has("--help")) {
    std::cout << kRunHelp;
    return 0;
  }
  if (a.positional.size() != 1) throw UsageError("run takes one input file");
  const std::string path = a.positional[0];
  const toml::table root = parse_toml_file(path);
  const ConfigTable top{&root, path, ""};
  top.allow_only({"structure", "potential", "md", "output", "neighbor", "device", "deterministic", "ensemble"});
  Backend backend = Backend::Cpu;
  try {
    backend = parse_backend(a.get("--device", top.get_string("device", "auto")));
  } catch (const InputError&) {
    throw;
  } catch (const Error& e) {
    if (a.has("--device")) throw;
    top.fail("device", e.what());  // the file's choice: name it
  }
  const auto base = std::filesystem::absolute(path).parent_path();
  if (top.has("ensemble")) md::run_ensemble_from_config(top, base, backend, a.has("--deterministic"));
  else md::run_from_config(top, base, backend, a.has("--deterministic"));
  return 0;
}

}  // namespace quasar::cli
