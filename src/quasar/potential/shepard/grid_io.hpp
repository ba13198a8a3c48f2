#pragma once
// The files of grid evaluation (docs/formats/shepard.md, "Grids"): the TOML input of `quasar shepard
// eval --grid` (the data set, the Z-matrix and each coordinate's values) and the output, text with a
// header or HDF5.
#include <memory>
#include <string>
#include <vector>

#include "quasar/core/config.hpp"
#include "quasar/potential/shepard/dataset.hpp"
#include "quasar/potential/shepard/grid.hpp"

namespace quasar::shepard {

struct GridSettings {
  std::string dataset;  // as written (relative to the input file's folder unless absolute)
  std::string output;   // likewise; .h5 or .hdf5: HDF5, else text
  std::string device = "cpu";
  bool exact = false;  // method = "exact" (default "approximate")
  bool gradients = false;
  long piece = 65536;
  Grid grid;
  std::vector<KeyLocation> elements;  // each row's 'element' key, for the check against the data set
};

// The input's every key checked: an InputError naming the file, line and key. Values: a number, a
// list of numbers, or {start, stop, count, endpoint = true} (as numpy.linspace); lengths Å, angles
// degrees.
GridSettings grid_settings_from_config(const ConfigTable& top);
// The rows' elements against the data set's atoms, in order (an InputError naming the key).
void check_grid_atoms(const GridSettings& settings, const DataSet& set);

// What the output's header says.
struct GridHeader {
  std::string dataset;  // the data set's file
  std::vector<std::string> elements;
  Parameters parameters;
  bool exact = false, gradients = false;
};

// The output file, written slab by slab in grid order (GridSlab) and renamed into place by
// finish(), so that it appears whole or not at all.
class GridWriter {
 public:
  virtual ~GridWriter() = default;
  virtual void write(const GridSlab& slab) = 0;
  virtual void finish() = 0;
};
std::unique_ptr<GridWriter> open_grid_output(const std::string& path, const Grid& grid, const GridHeader& header);

}  // namespace quasar::shepard
