#include <iostream>

#include "quasar/cli/args.hpp"
#include "quasar/cli/commands.hpp"
#include "quasar/device/backend.hpp"

namespace quasar::cli {

int info_command(const std::vector<std::string>& argv) {
  const Args a = Args::parse(argv, {"--help"}, {});
  if (a.has("--help")) {
    std::cout << "usage: quasar info\n\nPrints the version, the build options and the GPUs found.\n";
    return 0;
  }
  std::cout << "quasar " << QUASAR_VERSION << "\n"
            << "build: C++20, " << (built_with_cuda() ? "CUDA backend built (sm_90)" : "CPU only (built without CUDA)")
            << "\npotentials: lj, eam, deepmd (se_e2_a)\nintegrators: nve, langevin, bussi, npt, minimize (FIRE)\nGPUs:\n";
  for (const auto& g : gpu_descriptions()) std::cout << "  " << g << "\n";
  return 0;
}

}  // namespace quasar::cli
