#pragma once
// The files of grid evaluation (docs/formats/shepard.md, "Grids"): the TOML input of `quasar shepard
// eval --grid` (the data set, the Z-matrix and each coordinate's values) and the output, text with a
// header or HDF5.
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "quasar/core/config.hpp"
#include "quasar/potential/shepard/dataset.hpp"
#include "quasar/potential/shepard/grid.hpp"

namespace quasar::shepard {

struct GridSettings {
  std::string dataset;  // as written (relative to the input file's folder unless absolute)
  std::string output;   // likewise; .h5 or .hdf5: HDF5, else text; "" for none (the command needs one)
  std::string device = "cpu";
  bool exact = false;  // method = "exact" (default "approximate")
  bool gradients = false;
  long piece = 65536;
  Grid grid;
  KeyLocation dataset_key;             // where `dataset` is, and each row's 'element' key, for the
  std::vector<KeyLocation> elements;  // checks against the data set
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

// The whole job of an input: the data set (relative to base_dir; an InputError at `dataset` when it
// is missing), its atoms checked, every grid point evaluated on `backend`, the output file written
// when the input names one; every slab also goes to `sink` when it is set. Returns the output's path
// ("" when none).
std::string run_grid(const GridSettings& settings, const std::string& base_dir, Backend backend,
                     const std::function<void(const GridSlab&)>& sink = {}, std::ostream* progress = nullptr);

}  // namespace quasar::shepard
