#pragma once
// Kernel launchers of the GPU neighbour list (neighbor_list.cu). Every build kernel is gated by
// flags[kRebuild] on the device, so update() never waits for the host.
#include "quasar/core/atoms.hpp"
#include "quasar/neighbor/cell_grid.hpp"

namespace quasar::neighbor_gpu {

enum Flag { kRebuild = 0, kMaxNeighbors = 1, kMaxCellAtoms = 2, kBuilds = 3, kFlagCount = 4 };

struct BuildArgs {
  AtomsRef atoms;
  CellGrid grid;  // one system: its grid (a batch: each system's in grids, see below)
  double r_list2;
  int half;
  int* flags;
  int* cell_count;
  int* cell_atoms;
  int cell_capacity;
  int* count;
  int* index;
  int* image;
  int capacity;  // neighbours per atom; the list stride is atoms.n
  double *x0, *y0, *z0;
  double* h0;    // cell matrix at the last build (9 by rows, per system)
  double skin;
  // Batches (atoms.system not null): each system's grid, the index of its first cell (its cells
  // follow the previous system's), the number of systems and of cells in all.
  const CellGrid* grids = nullptr;
  const int* cell_begin = nullptr;
  int systems = 1;
  int cells = 0;
  // Batches: the systems a build rebuilds (set where an atom of the system moved, or all for a forced
  // build; cleared as the build finishes); the others keep their lists, positions and cells.
  int* rebuild_system = nullptr;
};

// Sets flags[kRebuild] (and the atom's system's rebuild_system) when an atom moved farther than half
// the skin, less the effect of any change of the cell since the last build (same rule as the CPU list).
void flag_moved_atoms(const BuildArgs& a);
// Flags a forced build (of every system of a batch).
void set_rebuild_flag(const BuildArgs& a);
// Wrap, bin, order each cell, build the list and count the build, all only if flagged.
void build_if_flagged(const BuildArgs& a);
// perm = atoms ordered by cell (stable), for spatial sorting.
void cell_order(const BuildArgs& a, int* perm);

}  // namespace quasar::neighbor_gpu
