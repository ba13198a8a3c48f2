// Fuzz target: a modified Shepard data set in HDF5 (docs/formats/shepard.md), structure-aware: the
// bytes are a JSON description of the file (fuzz/hdf5_description.hpp), which read_dataset_hdf5
// reads through the file-image API; a data set that reads is written as an image again and read
// back, and must come back the same to the last bit. Seeds: the data sets of
// fuzz/seeds/shepard_dataset as JSON.
#include <cstdio>
#include <cstdlib>

#include "fuzz_input.hpp"
#include "hdf5_description.hpp"
#include "quasar/potential/shepard/dataset.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::vector<unsigned char> image = quasar::fuzz::description_image(data, size);
  if (image.empty()) return 0;  // not a description HDF5 writes
  quasar::shepard::DataSet set;
  bool read = false;
  quasar::fuzz::expect_input_error([&] {
    set = quasar::shepard::read_dataset_hdf5(image.data(), image.size(), "fuzz.h5");
    read = true;
  });
  if (!read) return 0;
  const std::vector<unsigned char> again = quasar::shepard::dataset_hdf5_image(set);
  const std::string difference =
      quasar::shepard::dataset_difference(set, quasar::shepard::read_dataset_hdf5(again.data(), again.size(), "again.h5"));
  if (!difference.empty()) {
    std::fprintf(stderr, "the data set read back differs: %s\n", difference.c_str());
    std::abort();
  }
  return 0;
}
