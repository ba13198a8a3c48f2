// Fuzz target: GW's wavefunction file in HDF5 (docs/formats/gw-wavefunctions.md), structure-aware:
// the bytes are a JSON description of the file (fuzz/hdf5_description.hpp), which
// read_wavefunctions reads through the file-image API; a file that reads is written as an image
// again and read back, and must come back the same to the last bit. Seeds: small files of both
// flavours as JSON (fuzz/seeds/gw_wavefunctions).
#include <cstdio>
#include <cstdlib>

#include "fuzz_input.hpp"
#include "hdf5_description.hpp"
#include "quasar/gw/wavefunctions.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::vector<unsigned char> image = quasar::fuzz::description_image(data, size);
  if (image.empty()) return 0;  // not a description HDF5 writes
  quasar::gw::Wavefunctions w;
  bool read = false;
  quasar::fuzz::expect_input_error([&] {
    w = quasar::gw::read_wavefunctions(image.data(), image.size(), "fuzz.h5");
    read = true;
  });
  if (!read) return 0;
  const std::vector<unsigned char> again = quasar::gw::wavefunctions_image(w);
  const std::string difference =
      quasar::gw::wavefunctions_difference(w, quasar::gw::read_wavefunctions(again.data(), again.size(), "again.h5"));
  if (!difference.empty()) {
    std::fprintf(stderr, "the wavefunctions read back differ: %s\n", difference.c_str());
    std::abort();
  }
  return 0;
}
