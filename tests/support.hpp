#pragma once
// Shared helpers for the tests: backends to run on, reference data paths, LAMMPS, missing
// dependencies, measured deviations.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "quasar/device/backend.hpp"
#include "quasar/potential/registry.hpp"

namespace quasar::test {

// The CMake option that builds a potential family's module.
inline std::string family_option(const std::string& family) {
  if (family == "deepmd") return "QUASAR_WITH_DP";
  if (family == "nnp") return "QUASAR_WITH_NNP";
  if (family == "lj" || family == "eam") return "QUASAR_WITH_PAIR";
  if (family == "amoeba") return "QUASAR_WITH_AMOEBA";
  return "QUASAR_WITH_BONDED";
}

}  // namespace quasar::test

// Skips a test (or the rest of a void helper) when this build leaves out the potential family `name`
// (configured with its module's option off), saying so.
#define QUASAR_REQUIRE_FAMILY(name)                                                                          \
  if (!quasar::potential_registry().find(name))                                                             \
  GTEST_SKIP() << "this build leaves out the " << (name) << " family (" << quasar::test::family_option(name) \
               << "=OFF)"

namespace quasar::test {

// CPU always; CUDA too when the build has it and a GPU answers. QUASAR_TEST_BACKENDS=cuda limits
// the runs to the GPU (the device script uses it).
inline std::vector<Backend> backends() {
  std::vector<Backend> out;
  const char* only = std::getenv("QUASAR_TEST_BACKENDS");
  const std::string want = only ? only : "cpu,cuda";
  if (want.find("cpu") != std::string::npos) out.push_back(Backend::Cpu);
  if (want.find("cuda") != std::string::npos && cuda_available()) out.push_back(Backend::Cuda);
  return out;
}

inline std::string backend_param_name(const testing::TestParamInfo<Backend>& info) {
  return backend_name(info.param);
}

// Path under ../shared, or "" when absent (the caller skips with a message).
inline std::string shared_path(const std::string& rel) {
  const char* env = std::getenv("QUASAR_SHARED");
  const std::filesystem::path base = env ? env : QUASAR_SHARED_DIR;
  const auto p = base / rel;
  return std::filesystem::exists(p) ? p.string() : std::string();
}

// Paths of the source and build trees ($QUASAR_SOURCE_DIR / $QUASAR_BINARY_DIR first: the GPU
// machine runs the tests from another folder).
inline std::string source_path(const std::string& rel) {
  const char* env = std::getenv("QUASAR_SOURCE_DIR");
  return (std::filesystem::path(env ? env : QUASAR_SOURCE_DIR) / rel).string();
}
inline std::string binary_path(const std::string& rel) {
  const char* env = std::getenv("QUASAR_BINARY_DIR");
  return (std::filesystem::path(env ? env : QUASAR_BINARY_DIR) / rel).string();
}

// Debian's LAMMPS executable ($QUASAR_LMP first: the GPU machine gets a carried copy), or "" when
// it is not installed.
inline std::string lammps_executable() {
  if (const char* env = std::getenv("QUASAR_LMP"); env && std::filesystem::exists(env)) return env;
  for (const char* p : {"/usr/bin/lmp", "/usr/local/bin/lmp"})
    if (std::filesystem::exists(p)) return p;
  return {};
}

// A potential file of Debian's lammps-data package ($QUASAR_LAMMPS_POTENTIALS first), or "" when absent.
inline std::string lammps_potential(const std::string& name) {
  const char* env = std::getenv("QUASAR_LAMMPS_POTENTIALS");
  const std::filesystem::path dir = env ? env : "/usr/share/lammps/potentials";
  return std::filesystem::exists(dir / name) ? (dir / name).string() : std::string();
}

// What a test needs beyond the build: a test that lacks it skips, saying what is missing, unless the
// run requires it. scripts/test installs DeePMD-kit and sets QUASAR_REQUIRE_DEEPMD_KIT=1; CI (.ci/run),
// which has every dependency, sets QUASAR_REQUIRE_DEPENDENCIES=1, so that none can go missing unseen.
enum class Dependency { DeepmdKit, Lammps, LammpsData, SharedData, Python };

inline bool dependency_required(Dependency d) {
  auto set = [](const char* name) {
    const char* v = std::getenv(name);
    return v && *v && std::string(v) != "0";
  };
  return set("QUASAR_REQUIRE_DEPENDENCIES") || (d == Dependency::DeepmdKit && set("QUASAR_REQUIRE_DEEPMD_KIT"));
}

// Skips the test for a missing dependency (`message` says which), or fails it where the run requires
// that dependency. Use as `return test::missing(...)` in the test body, SetUp or a void helper.
inline void missing(Dependency d, const std::string& message) {
  if (dependency_required(d))
    GTEST_FAIL() << message << " (required here: QUASAR_REQUIRE_DEPENDENCIES or QUASAR_REQUIRE_DEEPMD_KIT is set)";
  GTEST_SKIP() << message;
}

// A fresh scratch directory for one test.
inline std::filesystem::path scratch_dir(const std::string& name) {
  auto p = std::filesystem::temp_directory_path() / ("quasar-test-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  return p;
}

// The largest |got - want| of a group of comparisons. `within` prints it ("measured <what>: <value>"),
// so that a run on either backend shows what each tolerance guards (tolerances are kept within about
// 100x of the measured values), and fails where it exceeds the tolerance or is not a number.
class MaxError {
 public:
  explicit MaxError(std::string what) : what_(std::move(what)) {}
  void add(double got, double want) {
    const double d = std::abs(got - want);
    if (!(d <= value_)) value_ = d;  // NaN sticks
  }
  double value() const { return value_; }
  testing::AssertionResult within(double tolerance) const {
    std::printf("measured %s: %.2g (tolerance %.2g)\n", what_.c_str(), value_, tolerance);
    if (value_ <= tolerance) return testing::AssertionSuccess();
    return testing::AssertionFailure() << what_ << ": largest deviation " << value_ << " exceeds " << tolerance;
  }

 private:
  std::string what_;
  double value_ = 0;
};

// Prints one measured value (for statistical and other checks that are no MaxError).
inline void print_measured(const std::string& what, double value) {
  std::printf("measured %s: %.3g\n", what.c_str(), value);
}

}  // namespace quasar::test

#define QUASAR_INSTANTIATE_BACKENDS(Suite) \
  INSTANTIATE_TEST_SUITE_P(Backends, Suite, testing::ValuesIn(quasar::test::backends()), \
                           quasar::test::backend_param_name)
