// Fuzz target: a modified Shepard data-set file (docs/formats/shepard.md). A file that reads is
// written and read back; any difference from what was read first aborts, as does any error in
// writing what was read.
#include <cstdio>
#include <cstdlib>

#include "fuzz_input.hpp"
#include "quasar/potential/shepard/dataset.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string path = quasar::fuzz::input_file(data, size, "input.shepard");
  quasar::shepard::DataSet set;
  try {
    set = quasar::shepard::read_dataset(path);
  } catch (const quasar::Error&) {
    return 0;  // the expected answer to bad input
  }
  const std::string written = quasar::fuzz::input_file(nullptr, 0, "written.shepard");
  quasar::shepard::write_dataset(written, set);
  const std::string difference = quasar::shepard::dataset_difference(set, quasar::shepard::read_dataset(written));
  if (!difference.empty()) {
    std::fprintf(stderr, "the data set read back differs: %s\n", difference.c_str());
    std::abort();
  }
  return 0;
}
