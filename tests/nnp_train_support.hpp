#pragma once
// What the tests of n2p2's training share: the reference training folders and writable copies of them.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "support.hpp"

namespace quasar::test {

namespace fs = std::filesystem;

// A training folder of ../shared (the literal path lets bench/gpu-prepare.sh carry the folders), or "".
inline std::string train_dir(const std::string& system) {
  const std::string all = test::shared_path("reference/n2p2/train");
  return all.empty() || !std::filesystem::exists(all + "/" + system) ? std::string() : all + "/" + system;
}

// A writable copy of a training folder, with input.nn's lines edited: `replace` maps a keyword to its
// new line ("" removes it; a keyword not there is appended).
inline fs::path training_copy(const std::string& system, const std::string& name,
                              const std::vector<std::pair<std::string, std::string>>& replace = {},
                              bool scaling = true) {
  const fs::path from = train_dir(system), to = test::scratch_dir("nnp-train-" + name);
  fs::copy_file(from / "input.data", to / "input.data");
  if (scaling) fs::copy_file(from / "scaling.data", to / "scaling.data");
  std::ifstream in(from / "input.nn");
  std::ofstream out(to / "input.nn");
  std::vector<bool> used(replace.size(), false);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string key;
    words >> key;
    bool replaced = false;
    for (std::size_t k = 0; k < replace.size(); ++k)
      if (key == replace[k].first) {
        if (!replace[k].second.empty()) out << replace[k].second << "\n";
        used[k] = replaced = true;
      }
    if (!replaced) out << line << "\n";
  }
  for (std::size_t k = 0; k < replace.size(); ++k)
    if (!used[k] && !replace[k].second.empty()) out << replace[k].second << "\n";
  return to;
}

}  // namespace quasar::test

// Skips (or, where required, fails) a test without ../shared's n2p2 training sets.
#define QUASAR_REQUIRE_TRAINING_DATA()                \
  if (quasar::test::train_dir("H2O_RPBE-D3").empty()) \
  return quasar::test::missing(quasar::test::Dependency::SharedData, "../shared/reference/n2p2/train is not here")
