// Fuzz target: an n2p2 potential folder. The input is its files one after the other, each after a line
// "==> NAME <==" naming it (input.nn, scaling.data or weights.ZZZ.data with three digits; a line
// naming anything else is text of the file before it); text before the first such line is input.nn.
// The folder is read (scaling.data and the weights only when the input has them); a potential that
// reads is written with Quasar's writer into a second folder and read back, and any difference from
// what was read first aborts, as does any error in writing what was read. A potential that reads has
// its training keywords read too (quasar train), where an InputError is the expected answer.
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "fuzz_input.hpp"
#include "quasar/potential/nnp/model_io.hpp"
#include "quasar/potential/nnp/train/settings.hpp"

namespace {

bool file_name(std::string_view name) {
  if (name == "input.nn" || name == "scaling.data") return true;
  return name.size() == 16 && name.substr(0, 8) == "weights." && name.substr(11) == ".data" &&
         std::isdigit(static_cast<unsigned char>(name[8])) && std::isdigit(static_cast<unsigned char>(name[9])) &&
         std::isdigit(static_cast<unsigned char>(name[10]));
}

// The name a marker line gives, or "" when the line is not a marker.
std::string_view marker(std::string_view line) {
  constexpr std::string_view open = "==> ", close = " <==";
  if (line.size() < open.size() + close.size() || line.substr(0, open.size()) != open ||
      line.substr(line.size() - close.size()) != close)
    return {};
  const auto name = line.substr(open.size(), line.size() - open.size() - close.size());
  return file_name(name) ? name : std::string_view{};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  namespace fs = std::filesystem;
  static const fs::path base = fs::temp_directory_path() / ("quasar-fuzz-" + std::to_string(::getpid()));
  const fs::path dir = base / "potential", out = base / "written";
  fs::remove_all(dir);
  fs::remove_all(out);
  fs::create_directories(dir);
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  std::string name = "input.nn", text;
  quasar::nnp::ModelFiles files{.scaling = false, .weights = false};
  auto flush = [&] {
    std::ofstream(dir / name, std::ios::binary).write(text.data(), static_cast<std::streamsize>(text.size()));
    files.scaling = files.scaling || name == "scaling.data";
    files.weights = files.weights || name.rfind("weights.", 0) == 0;
    text.clear();
  };
  for (std::size_t from = 0; from < bytes.size();) {
    const std::size_t end = std::min(bytes.find('\n', from), bytes.size());
    const std::string_view line = bytes.substr(from, end - from);
    if (const auto next = marker(line); !next.empty()) {
      flush();
      name = next;
    } else {
      text.append(line);
      if (end < bytes.size()) text += '\n';
    }
    from = end + 1;
  }
  flush();
  quasar::nnp::Model model;
  try {
    model = quasar::nnp::read_model(dir, files);
  } catch (const quasar::Error&) {
    return 0;  // the expected answer to bad input
  }
  try {
    (void)quasar::nnp::read_training_settings(model, dir / "input.nn");
  } catch (const quasar::Error&) {
  }
  // What was read must write and read back the same; an exception here escapes as a finding.
  quasar::nnp::write_model(model, out);
  const std::string difference = quasar::nnp::model_difference(model, quasar::nnp::read_model(out, files));
  if (!difference.empty()) {
    std::fprintf(stderr, "the potential read back differs: %s\n", difference.c_str());
    std::abort();
  }
  return 0;
}
