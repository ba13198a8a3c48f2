// Fuzz target: a modified Shepard data set in HDF5 (docs/formats/shepard.md), structure-aware: the
// bytes are a JSON description of the file (fuzz/hdf5_description.hpp), which read_dataset_hdf5
// reads through the file-image API; a data set that reads is written as an image again and read
// back, and must come back the same to the last bit. Seeds: the data sets of
// fuzz/seeds/shepard_dataset as JSON.
#include "hdf5_description.hpp"
#include "quasar/potential/shepard/dataset.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  namespace sh = quasar::shepard;
  return quasar::fuzz::read_write_read(
      data, size, [](const void* b, std::size_t n, const std::string& origin) { return sh::read_dataset_hdf5(b, n, origin); },
      [](const sh::DataSet& s) { return sh::dataset_hdf5_image(s); },
      [](const sh::DataSet& a, const sh::DataSet& b) { return sh::dataset_difference(a, b); });
}
