#pragma once
// The surface on a direct-product grid of Z-matrix coordinates, as quantum-dynamics codes need it:
// every grid point converted to Cartesians and evaluated by the approximate method, whose groups
// are the grid's own neighbourhoods (3 consecutive values along each coordinate, 3^k points for k
// coordinates of more than one value), each evaluated with the neighbour set found at its centre;
// or by the exact method. On the CPU (interpolant.*) or on a GPU (GpuInterpolant), piece by piece.
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "quasar/core/error.hpp"
#include "quasar/device/backend.hpp"
#include "quasar/potential/shepard/interpolant.hpp"
#include "quasar/potential/shepard/zmatrix.hpp"

namespace quasar::shepard {

struct Grid {
  std::vector<ZMatrixRow> rows;
  // Per coordinate of zmatrix_coordinates(rows.size()), its values (Å, degrees), at least one.
  std::vector<std::vector<double>> values;
  KeyLocation where;  // the input's Z-matrix, named in errors (none for a grid made in code)

  int atoms() const { return static_cast<int>(rows.size()); }
  std::vector<long> shape() const;
  long points() const;
  // "" when the rows are a Z-matrix and every coordinate has values; else what is wrong.
  std::string problem() const;
  // The coordinates of grid point `index` (row-major: the last coordinate varies fastest).
  void coordinates(long index, double* q) const;
  // Its Cartesians (3N, Å): an error naming `where`, the grid point and its coordinates where the
  // Z-matrix has no geometry (collinear reference atoms, coinciding atoms).
  void cartesians(long index, double* x) const;
};

// The approximate method's group of a grid point: along each coordinate the values 3t, 3t+1, 3t+2
// (at the end of a coordinate one or two values), the direct product of those; its centre is the
// middle value along every coordinate (3t + 1, or the last value where fewer remain). The index of
// the centre of grid point `index`'s group.
long group_centre(const Grid& grid, long index);

struct GridEvaluation {
  Backend backend = Backend::Cpu;
  bool exact = false;      // every point by the exact method instead
  bool gradients = false;  // dV/dx (3N per point, eV/Å) too
  long piece = 65536;      // configurations evaluated together: one call of the CPU's threads or the GPU's
};

// Results of the grid points [first, first + count), in grid order.
struct GridSlab {
  long first = 0, count = 0;
  const double* energies = nullptr;   // count, eV
  const double* gradients = nullptr;  // 3N per point, or null
};

// Evaluates the surface at every grid point. Slabs go to `sink` in grid order: a slab is one group's
// values of the first coordinate that has more than one value, with every value of the later ones
// (whole groups, contiguous in grid order); within it, pieces of at most how.piece configurations
// (a group larger than that is cut, each part evaluated with its centre's set). Progress lines go
// to `progress` when it is not null.
void evaluate_grid(const Interpolant& f, const Grid& grid, const GridEvaluation& how,
                   const std::function<void(const GridSlab&)>& sink, std::ostream* progress = nullptr);

}  // namespace quasar::shepard
