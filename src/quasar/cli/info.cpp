#include <iostream>

#include "quasar/cli/args.hpp"
#include "quasar/cli/commands.hpp"
#include "quasar/device/backend.hpp"
#include "quasar/device/parallel.hpp"
#include "quasar/potential/registry.hpp"

namespace quasar::cli {

namespace {
// "gpu (double, mixed32), ghost atoms, per-atom, training"
std::string capabilities(const Capabilities& c) {
  std::string s;
  auto add = [&](const std::string& what) { s += (s.empty() ? "" : ", ") + what; };
  if (c.gpu) {
    std::string p;
    for (Precision q : c.precisions) p += (p.empty() ? "" : ", ") + std::string(precision_name(q));
    add("gpu (" + p + ")");
  } else {
    add("cpu only");
  }
  if (c.ghost_atoms) add("ghost atoms");
  if (c.per_atom) add("per-atom");
  if (c.training) add("training");
  return s;
}
}  // namespace

int info_command(const std::vector<std::string>& argv) {
  const Args a = Args::parse(argv, {"--help"}, {});
  if (a.has("--help")) {
    std::cout << "usage: quasar info\n\nPrints the version, the build options, the potential families with what "
                 "each can do, and the GPUs found.\n";
    return 0;
  }
  std::cout << "quasar " << QUASAR_VERSION << "\n"
            << "build: C++20, " << (built_with_cuda() ? "CUDA backend built (sm_90)" : "CPU only (built without CUDA)")
            << "\nmodules: " << QUASAR_MODULE_NAMES << " cli\nCPU threads: " << device::cpu_threads()
            << " (OMP_NUM_THREADS, or every core)"
            << "\npotentials (TOML type: what it is; capabilities; model files; training inputs):\n";
  for (const PotentialFamily& f : potential_registry().families()) {
    std::cout << "  " << f.name;
    for (const std::string& alias : f.aliases) std::cout << ", " << alias;
    std::cout << ": " << f.description << "\n    " << capabilities(f.capabilities);
    std::string files;
    for (const std::string& e : f.model_extensions) files += " " + e;
    for (const std::string& folder : f.model_folder_files) files += " folder with " + folder;
    std::string inputs;
    for (const std::string& e : f.training_extensions) inputs += " " + e;
    for (const std::string& file : f.training_files) inputs += " " + file;
    std::cout << (files.empty() ? "" : "; model files" + files) << (inputs.empty() ? "" : "; trains from" + inputs)
              << "\n";
  }
  std::cout << "integrators: nve, langevin, bussi, npt, minimize (FIRE)\nGPUs:\n";
  for (const auto& g : gpu_descriptions()) std::cout << "  " << g << "\n";
  return 0;
}

}  // namespace quasar::cli
