#pragma once
// Binning of atoms into cells in fractional coordinates, shared by the CPU build and the kernels.
#include <cmath>

#include "quasar/core/box.hpp"

namespace quasar {

struct CellGrid {
  int bins[3] = {1, 1, 1};   // cells per lattice direction
  int reach[3] = {1, 1, 1};  // cells to search on each side
  int periodic[3] = {1, 1, 1};

  // Cells at least r_list wide where the cell allows; a cell narrower than r_list gets one bin and a
  // reach of several periodic images. |Δs_k| <= |Δr| / plane_spacing(k) bounds the search in any
  // triclinic cell.
  static CellGrid make(const Box& box, double r_list, long max_cells) {
    CellGrid g;
    for (int k = 0; k < 3; ++k) {
      const double spacing = box.plane_spacing(k);
      g.periodic[k] = box.periodic[k];
      // Capped before the conversion to int: a vanishing r_list (a model's cutoff of 1e-300) stays defined.
      const double cap = std::fmin(static_cast<double>(max_cells), 1 << 20);
      g.bins[k] = spacing > r_list ? static_cast<int>(std::fmin(spacing / r_list, cap)) : 1;
    }
    // Keep the grid within max_cells (sparse systems, huge vacuum) by coarsening evenly.
    while (static_cast<long>(g.bins[0]) * g.bins[1] * g.bins[2] > max_cells) {
      for (int k = 0; k < 3; ++k) g.bins[k] = g.bins[k] > 1 ? (g.bins[k] + 1) / 2 : 1;
    }
    for (int k = 0; k < 3; ++k) {
      const double width = box.plane_spacing(k) / g.bins[k];
      g.reach[k] = static_cast<int>(std::ceil(r_list / width - 1e-12));
      if (g.reach[k] < 1) g.reach[k] = 1;
      // A non-periodic direction never needs to look past its own bins.
      if (!g.periodic[k] && g.reach[k] > g.bins[k] - 1) g.reach[k] = g.bins[k] > 1 ? g.bins[k] - 1 : 0;
    }
    return g;
  }

  QUASAR_HD int count() const { return bins[0] * bins[1] * bins[2]; }
  // Cell coordinate along k of a fractional coordinate; atoms outside a non-periodic cell go to the
  // edge bins (a contraction, so no neighbour is lost).
  QUASAR_HD int coord(double s, int k) const {
    const double c = floor(s * bins[k]);  // clamped before the conversion: an atom far outside stays defined
    return c < 0 ? 0 : (c >= bins[k] ? bins[k] - 1 : static_cast<int>(c));
  }
  QUASAR_HD int index(int c0, int c1, int c2) const { return (c2 * bins[1] + c1) * bins[0] + c0; }
  QUASAR_HD int cell_of(const Box& box, Vec3 r) const {
    const Vec3 s = box.to_frac(r);
    return index(coord(s.x, 0), coord(s.y, 1), coord(s.z, 2));
  }
  // Neighbouring cell of (c + o) along k: the wrapped coordinate and the lattice image it lies in.
  // False when it falls outside a non-periodic direction.
  QUASAR_HD bool neighbor_coord(int c, int o, int k, int& out, int& image) const {
    int t = c + o;
    if (!periodic[k]) {
      image = 0;
      out = t;
      return t >= 0 && t < bins[k];
    }
    image = t >= 0 ? t / bins[k] : -((-t + bins[k] - 1) / bins[k]);
    out = t - image * bins[k];
    return true;
  }
};

// Which of the two entries of a pair a half list keeps: j after i, or for an atom and its own
// periodic image, the image whose first nonzero translation is positive.
QUASAR_HD bool half_list_keeps(int i, int j, int a, int b, int c) {
  if (j != i) return j > i;
  return a > 0 || (a == 0 && (b > 0 || (b == 0 && c > 0)));
}

}  // namespace quasar
