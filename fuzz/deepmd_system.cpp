// Fuzz target: a deepmd/npy system folder. The input is the folder's files one after the other,
// separated by the line "==> quasar-fuzz-next-file <==": type.raw, type_map.raw, set.000/box.npy,
// set.000/coord.npy, set.000/energy.npy, set.000/force.npy, set.000/virial.npy. A missing or empty
// part leaves its file out, so the fuzzer reaches the checks between the files (atom counts of
// type.raw against coord.npy and force.npy, frame counts of the labels, type indices against
// type_map.raw) as well as each file's own.
#include <algorithm>
#include <array>
#include <string_view>

#include "fuzz_input.hpp"
#include "quasar/io/deepmd_npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  static constexpr std::string_view kMarker = "\n==> quasar-fuzz-next-file <==\n";
  static constexpr std::array<const char*, 7> kFiles = {"type.raw", "type_map.raw", "set.000/box.npy", "set.000/coord.npy",
                                                        "set.000/energy.npy", "set.000/force.npy", "set.000/virial.npy"};
  static const auto dir = std::filesystem::temp_directory_path() / ("quasar-fuzz-" + std::to_string(::getpid())) / "system";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "set.000");
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  std::size_t from = 0;
  for (const char* name : kFiles) {
    if (from > bytes.size()) break;
    const std::size_t at = std::min(bytes.find(kMarker, from), bytes.size());
    if (at > from) {
      const auto part = bytes.substr(from, at - from);
      std::ofstream(dir / name, std::ios::binary).write(part.data(), static_cast<std::streamsize>(part.size()));
    }
    from = at + kMarker.size();
  }
  return quasar::fuzz::expect_input_error([&] { quasar::io::read_labelled_frames(dir.string()); });
}
