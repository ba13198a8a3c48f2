#pragma once
#include <string>
#include <vector>

namespace quasar::cli {

// Each returns the exit code; errors are thrown (UsageError for bad arguments).
int run_command(const std::vector<std::string>& args);
int eval_command(const std::vector<std::string>& args);
int info_command(const std::vector<std::string>& args);
int model_devi_command(const std::vector<std::string>& args);
int dp_command(const std::vector<std::string>& args);
int test_command(const std::vector<std::string>& args);
int train_command(const std::vector<std::string>& args);
int convert_command(const std::vector<std::string>& args);
int shepard_command(const std::vector<std::string>& args);
// `quasar gw epm` (cli/gw.cpp): GW's mean field.
int gw_command(const std::vector<std::string>& args);
// `quasar shepard qct` (cli/qct.cpp): quasi-classical trajectories on any force field.
int qct_command(const std::vector<std::string>& args);

}  // namespace quasar::cli
