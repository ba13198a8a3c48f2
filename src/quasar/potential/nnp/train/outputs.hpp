#pragma once
// The files n2p2's training writes, in its formats: learning-curve.out (a commented header that names
// and describes every column, then per epoch the RMSE and MAE of energies and forces for training and
// test structures, in the units of the files and, for a normalised model, also in the training units),
// and the per-epoch comparison files (trainpoints/testpoints.NNNNNN.out: structure, reference and
// predicted energy per atom; trainforces/testforces.NNNNNN.out: structure, atom, reference and
// predicted force component; in the training units).
#include <ostream>
#include <string>
#include <vector>

namespace quasar::nnp {

// n2p2's file header: a title block, one line per column (number, name, description), then the
// column numbers and names right-aligned to the columns' widths.
struct FileColumn {
  std::size_t width;
  std::string name, info;
};
void write_n2p2_header(std::ostream& o, const std::vector<std::string>& title, const std::vector<FileColumn>& columns);

// The error metrics of one property over a set of structures.
struct ErrorMetrics {
  double rmse_pa = 0, rmse = 0, mae_pa = 0, mae = 0;  // energies (per atom and per structure)
  double force_rmse = 0, force_mae = 0;               // force components
};

// What the learning curve holds: with forces or not, and the factors from the training units to
// those of the files (1 without normalisation, when n2p2 writes one set of columns).
struct CurveLayout {
  bool forces = false, normalized = false;
  double energy_unit = 1, force_unit = 1;  // file unit per training unit
};
void write_curve_header(std::ostream& o, const CurveLayout& layout);
void write_curve_row(std::ostream& o, const CurveLayout& layout, long epoch, const ErrorMetrics& train,
                     const ErrorMetrics& test);

// The header of an energy or force comparison file.
void write_comparison_header(std::ostream& o, bool forces);

// printf-style formatting into a string.
std::string formatted(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace quasar::nnp
