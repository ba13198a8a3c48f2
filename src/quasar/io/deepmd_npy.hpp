#pragma once
// DeePMD-kit's deepmd/npy data: a system folder with type.raw, type_map.raw and set.NNN/ folders of
// NumPy arrays (box [frames, 9], coord [frames, 3N], energy [frames], force [frames, 3N],
// virial [frames, 9]; float32 or float64).
#include <string>
#include <vector>

#include "quasar/core/structure.hpp"

namespace quasar::io {

struct NpyArray {
  std::vector<std::size_t> shape;
  std::vector<double> values;  // C order
};
// A little-endian float32/float64 (or int32/int64) .npy file, version 1-3, C order.
NpyArray read_npy(const std::string& path);

// Frame `frame` of set.NNN (set = NNN) of a deepmd/npy system, with its type names.
Structure read_deepmd_frame(const std::string& system_dir, int set, int frame);

// Every frame of every set.* of a system, with the labels present (energy, force, virial).
std::vector<Structure> read_deepmd_system(const std::string& system_dir);

// Labelled frames for training and testing: a deepmd/npy system folder, a folder holding such
// systems (at any depth), an n2p2 input.data file (in Å and eV) or an extended XYZ file.
std::vector<Structure> read_labelled_frames(const std::string& path);

}  // namespace quasar::io
