#pragma once
// What every fuzz target shares: the input bytes as a file (the readers take paths, as users give
// them), and the one rule every parser must keep: bad input ends in quasar::Error, nothing else.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "quasar/core/error.hpp"

namespace quasar::fuzz {

// Writes the input to a per-process scratch file named `name` and returns its path.
inline std::string input_file(const uint8_t* data, std::size_t size, const std::string& name) {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("quasar-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  const auto path = dir / name;
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data),
                                                                  static_cast<std::streamsize>(size));
  return path.string();
}

// Runs `parse`; a quasar::Error is the expected answer to bad input. Any other exception escapes
// and libFuzzer reports it as a crash (std::bad_alloc from an unchecked count, say).
template <class F>
int expect_input_error(F&& parse) {
  try {
    parse();
  } catch (const quasar::Error&) {
  }
  return 0;
}

}  // namespace quasar::fuzz
