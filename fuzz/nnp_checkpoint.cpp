// Fuzz target: checkpoints of n2p2 training (N2p2Training::restart). Two tiny trainings are set up
// once (nnp_training_fixture.hpp: the Kalman filter and Adam); every input is read as a checkpoint
// into both, which either restores it or fails with an InputError and nothing changed; then again
// with its header's checksum made right, so that changes of the payload reach the sections' checks.
// Seeds: fuzz/seeds/nnp_checkpoint, the checkpoints of the two trainings after their one epoch,
// written by nnp_train_restart_test (QUASAR_WRITE_FUZZ_SEEDS=1), which also checks that they load.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "fuzz_input.hpp"
#include "nnp_training_fixture.hpp"

namespace {

quasar::nnp::N2p2Training& training(bool adam) {
  static const std::filesystem::path base =
      std::filesystem::temp_directory_path() / ("quasar-fuzz-nnp-" + std::to_string(::getpid()));
  static std::unique_ptr<quasar::nnp::N2p2Training> kalman = quasar::fuzz::tiny_training(base / "kalman", false);
  static std::unique_ptr<quasar::nnp::N2p2Training> descent = quasar::fuzz::tiny_training(base / "adam", true);
  return adam ? *descent : *kalman;
}

// The input with the header's checksum made the payload's, so that mutations of the payload reach
// the sections' checks (a mutation rarely keeps a checksum right); unchanged when there is none.
std::string with_checksum(std::string bytes) {
  const std::size_t header = bytes.find('\n'), payload = bytes.find('\n', header + 1);
  const std::string key = "\"fnv1a64\":\"";
  const std::size_t at = bytes.find(key, header);
  if (header == std::string::npos || payload == std::string::npos || at == std::string::npos || at > payload ||
      at + key.size() + 16 > payload)
    return bytes;
  std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a, as checkpoint.cpp
  for (std::size_t k = payload + 1; k < bytes.size(); ++k) {
    h ^= static_cast<unsigned char>(bytes[k]);
    h *= 0x100000001b3ull;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  bytes.replace(at + key.size(), 16, hex);
  return bytes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string raw(reinterpret_cast<const char*>(data), size), fixed = with_checksum(raw);
  for (const std::string* bytes : {&raw, &fixed}) {
    if (bytes == &fixed && fixed == raw) break;
    const auto path = quasar::fuzz::input_file(reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size(),
                                               "training.ckpt");
    for (bool adam : {false, true}) quasar::fuzz::expect_input_error([&] { training(adam).restart(path); });
  }
  return 0;
}
