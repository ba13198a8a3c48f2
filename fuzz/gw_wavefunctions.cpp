// Fuzz target: GW's wavefunction file in HDF5 (docs/formats/gw-wavefunctions.md), structure-aware:
// the bytes are a JSON description of the file (fuzz/hdf5_description.hpp), which
// read_wavefunctions reads through the file-image API; a file that reads is written as an image
// again and read back, and must come back the same to the last bit. Seeds: small files of both
// flavours as JSON (fuzz/seeds/gw_wavefunctions).
#include "hdf5_description.hpp"
#include "quasar/gw/wavefunctions.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  namespace gw = quasar::gw;
  return quasar::fuzz::read_write_read(
      data, size, [](const void* b, std::size_t n, const std::string& origin) { return gw::read_wavefunctions(b, n, origin); },
      [](const gw::Wavefunctions& w) { return gw::wavefunctions_image(w); },
      [](const gw::Wavefunctions& a, const gw::Wavefunctions& b) { return gw::wavefunctions_difference(a, b); });
}
