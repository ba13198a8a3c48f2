#pragma once
#include "quasar/core/atoms.hpp"
#include "quasar/neighbor/cell_grid.hpp"

namespace quasar {

enum class ListKind { Half, Full };

// Periodic image of a neighbour, packed as three signed 10-bit lattice translations so that the
// common case, no translation, is 0.
QUASAR_HD int pack_image(int a, int b, int c) { return (a & 1023) | ((b & 1023) << 10) | ((c & 1023) << 20); }
QUASAR_HD void unpack_image(int code, int& a, int& b, int& c) {
  a = (code << 22) >> 22;  // sign-extend each 10-bit field
  b = (code << 12) >> 22;
  c = (code << 2) >> 22;
}

// Read-only view of a Verlet list for CPU loops and kernels. Neighbour k of atom i is
// index[slot(i, k)], translated by the lattice vector image[slot(i, k)]: r_ij = r_j + image*h - r_i,
// valid until the next build. The GPU list is transposed (slot = k n + i: a warp reads consecutive
// words); the CPU list is by atom (slot = i capacity + k: one atom's neighbours share cache lines).
struct NeighborRef {
  int n = 0;
  long atom_stride = 0, k_stride = 0;
  int capacity = 0;  // neighbours per atom that fit
  const int* count;
  const int* index;
  const int* image;

  QUASAR_HD long slot_of(int i, int k) const { return i * atom_stride + k * k_stride; }
  QUASAR_HD Vec3 delta(const Box& box, const double* x, const double* y, const double* z, int i, int k,
                       int& j) const {
    const long slot = slot_of(i, k);
    j = index[slot];
    Vec3 d{x[j] - x[i], y[j] - y[i], z[j] - z[i]};
    const int code = image[slot];
    if (code) {
      int a, b, c;
      unpack_image(code, a, b, c);
      d += box.shift(a, b, c);
    }
    return d;
  }
};

// A neighbour list a potential needs: its cutoff and kind. Equal requests of the terms of a force
// field share one list (NeighborLists).
struct NeighborRequest {
  double cutoff = 0;  // Å
  ListKind kind = ListKind::Half;
  bool operator==(const NeighborRequest&) const = default;
};

struct NeighborSettings {
  double cutoff = 0;     // interaction cutoff (Å)
  double skin = 1.0;     // Verlet skin (Å); rebuild when an atom moves more than skin/2
  ListKind kind = ListKind::Half;
  int sort_every = 1000; // steps between spatial re-sorts of the atoms (0: never)
};

// Cell list + Verlet list with a skin, for any triclinic cell (also narrower than twice the
// cutoff: every periodic image within reach is listed) and partial periodicity. The rebuild
// decision is taken where the atoms live: on the GPU it is a device flag that gates the build
// kernels, so no step waits for the host. A batch of systems (AtomState::num_systems() > 1) gets
// one cell grid per system, the grids' cells one after another: an atom only sees atoms of its own
// system, with the periodic images of its own system's cell, and spatial sorting keeps each
// system's atoms together (the sort key is the cell, and a system's cells follow the previous
// system's). With one system the grid and the kernels are what they were without batches.
class NeighborList {
 public:
  NeighborList(Backend backend, const NeighborSettings& s);

  const NeighborSettings& settings() const { return settings_; }
  // Rebuilds the list if any atom moved more than skin/2 (or the cell changed enough) since the
  // last build; a batch rebuilds only the lists of the systems where that happened. Wraps positions
  // into the cell when it builds. At steps that are multiples of
  // sort_every the atoms are first re-sorted in space (the schedule depends on the step alone, so a
  // restarted run sorts where the uninterrupted one did).
  void update(AtomState& atoms, long step = 0);
  // Unconditional build.
  void build(AtomState& atoms);
  NeighborRef ref() const;
  // Number of builds so far (reads a device counter on the GPU: synchronises).
  long builds() const;
  // Throws if a build ran out of room (neighbours or cell slots); checked at output steps on the GPU.
  void check_overflow();

 private:
  void prepare(const AtomState& atoms);
  void make_grids(const AtomState& atoms);
  // Builds the list of every system, or of those flagged in `only` (the others keep theirs).
  void build_cpu(AtomState& atoms, const std::vector<char>* only = nullptr);
  bool needs_rebuild_cpu(AtomState& atoms) const;
  std::vector<char> systems_to_rebuild_cpu(AtomState& atoms) const;
  void build_gpu(AtomState& atoms, bool forced);
  void spatial_sort(AtomState& atoms);
  double move_threshold(const Box& box, int system) const;

  Backend backend_;
  NeighborSettings settings_;
  int n_ = 0, capacity_ = 0;
  Array<int> count_, index_, image_;
  Array<double> x0_, y0_, z0_;  // positions at the last build
  // Per system: its cell grid, the index of its first cell (and the total after the last system),
  // its cell at the last build.
  std::vector<CellGrid> grids_;
  std::vector<int> cell_begin_;
  std::vector<Box> box0_;
  std::uint64_t grids_revision_ = ~0ULL;  // the atoms' cell_revision() the grids were made for
  long builds_ = 0;
  Array<int> cell_count_, cell_atoms_;  // atoms per cell; atoms of each cell (cell_capacity_ slots)
  int cell_capacity_ = 0;
  Array<int> flags_;  // device: rebuild needed, max neighbours, max cell occupancy, builds
  Array<int> perm_;   // spatial sort permutation
  Array<double> h0_;  // device: cell at the last build (9 per system)
  Array<CellGrid> grids_dev_;  // device copies of grids_ and cell_begin_ for batches
  Array<int> cell_begin_dev_;
  Array<int> system_rebuild_;  // device, batches: the systems the next build rebuilds
};

}  // namespace quasar
