#include "quasar/neighbor/neighbor_list.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "quasar/core/error.hpp"
#include "quasar/device/parallel.hpp"
#include "quasar/neighbor/neighbor_list_gpu.hpp"

namespace quasar {

namespace {
long max_cells_for(int n) { return std::max(27L, 2L * n); }
}  // namespace

NeighborList::NeighborList(Backend backend, const NeighborSettings& s)
    : backend_(backend), settings_(s), count_(backend), index_(backend), image_(backend), x0_(backend),
      y0_(backend), z0_(backend), cell_count_(backend), cell_atoms_(backend), flags_(backend), perm_(backend),
      h0_(backend), grids_dev_(backend), cell_begin_dev_(backend), system_rebuild_(backend) {
  if (!(s.cutoff > 0)) throw Error("neighbour list: cutoff must be positive");
  if (s.skin < 0) throw Error("neighbour list: skin must not be negative");
}

NeighborRef NeighborList::ref() const {
  const bool by_atom = backend_ == Backend::Cpu;
  return NeighborRef{n_, by_atom ? capacity_ : 1L, by_atom ? 1L : static_cast<long>(n_), capacity_, count_.data(),
                     index_.data(), image_.data()};
}

// How far an atom of `system` may move before the list can miss a pair: half the skin, less what a
// change of the cell does to the periodic translations stored in the list.
double NeighborList::move_threshold(const Box& box, int system) const {
  const CellGrid& grid = grids_[static_cast<std::size_t>(system)];
  const Box& box0 = box0_[static_cast<std::size_t>(system)];
  double dh = 0;
  for (int k = 0; k < 3; ++k)
    if (box.periodic[k]) dh += (grid.reach[k] + 1) * std::sqrt(norm2(box.h.r[k] - box0.h.r[k]));
  return 0.5 * (settings_.skin - dh);
}

void NeighborList::update(AtomState& atoms, long step) {
  const bool resort = settings_.sort_every > 0 && step > 0 && step % settings_.sort_every == 0;
  if (atoms.size() != n_ || static_cast<int>(grids_.size()) != atoms.num_systems() || resort) {
    if (resort) spatial_sort(atoms);
    build(atoms);
    return;
  }
  if (backend_ == Backend::Cpu) {
    if (!atoms.is_batch()) {
      if (needs_rebuild_cpu(atoms)) build_cpu(atoms);
      return;
    }
    // A batch rebuilds only the systems that need it, so that each system's list (and every sum
    // over it) is rebuilt at the steps where it would be alone.
    const std::vector<char> systems = systems_to_rebuild_cpu(atoms);
    if (std::find(systems.begin(), systems.end(), 1) != systems.end()) build_cpu(atoms, &systems);
  } else {
    build_gpu(atoms, false);
  }
}

void NeighborList::build(AtomState& atoms) {
  prepare(atoms);
  if (backend_ == Backend::Cpu) build_cpu(atoms);
  else build_gpu(atoms, true);
}

// Sizes per-atom arrays and the cell grids for the current atoms and cells.
void NeighborList::prepare(const AtomState& atoms) {
  n_ = atoms.size();
  x0_.resize(n_);
  y0_.resize(n_);
  z0_.resize(n_);
  count_.resize(n_);
  box0_.resize(static_cast<std::size_t>(atoms.num_systems()));
  make_grids(atoms);
}

// Each system's grid for its cell as it is now, and where its cells start.
void NeighborList::make_grids(const AtomState& atoms) {
  grids_revision_ = atoms.cell_revision();
  const int systems = atoms.num_systems();
  const std::vector<int>& offsets = atoms.system_offsets();
  grids_.resize(static_cast<std::size_t>(systems));
  cell_begin_.assign(1, 0);
  for (int s = 0; s < systems; ++s) {
    const int atoms_in = offsets[static_cast<std::size_t>(s) + 1] - offsets[static_cast<std::size_t>(s)];
    grids_[static_cast<std::size_t>(s)] =
        CellGrid::make(atoms.box(s), settings_.cutoff + settings_.skin, max_cells_for(atoms_in));
    cell_begin_.push_back(cell_begin_.back() + grids_[static_cast<std::size_t>(s)].count());
  }
}

bool NeighborList::needs_rebuild_cpu(AtomState& atoms) const {
  const std::vector<int>& offsets = atoms.system_offsets();
  for (int s = 0; s < atoms.num_systems(); ++s) {
    const double t = move_threshold(atoms.box(s), s);
    if (t <= 0) return true;
    const double t2 = t * t;
    for (int i = offsets[static_cast<std::size_t>(s)]; i < offsets[static_cast<std::size_t>(s) + 1]; ++i) {
      const double dx = atoms.x[i] - x0_[i], dy = atoms.y[i] - y0_[i], dz = atoms.z[i] - z0_[i];
      if (dx * dx + dy * dy + dz * dz > t2) return true;
    }
  }
  return false;
}

std::vector<char> NeighborList::systems_to_rebuild_cpu(AtomState& atoms) const {
  const std::vector<int>& offsets = atoms.system_offsets();
  std::vector<char> out(static_cast<std::size_t>(atoms.num_systems()), 0);
  for (int s = 0; s < atoms.num_systems(); ++s) {
    const double t = move_threshold(atoms.box(s), s);
    char& flag = out[static_cast<std::size_t>(s)];
    flag = t <= 0;
    const double t2 = t * t;
    for (int i = offsets[static_cast<std::size_t>(s)]; !flag && i < offsets[static_cast<std::size_t>(s) + 1]; ++i) {
      const double dx = atoms.x[i] - x0_[i], dy = atoms.y[i] - y0_[i], dz = atoms.z[i] - z0_[i];
      flag = dx * dx + dy * dy + dz * dz > t2;
    }
  }
  return out;
}

void NeighborList::build_cpu(AtomState& atoms, const std::vector<char>* only) {
  make_grids(atoms);
  const int systems = atoms.num_systems();
  const std::vector<int>& offsets = atoms.system_offsets();
  auto skipped = [&](int sys) { return only && !(*only)[static_cast<std::size_t>(sys)]; };
  AtomsRef a = atoms.ref();
  // Atoms are split over threads; each thread walks its range system by system. Every atom's
  // entries are found in the same order whatever the split, so the list does not depend on the
  // thread count.
  const int threads = device::threads_for(n_, 1024);
  auto for_atoms = [&](auto&& body) {
    device::parallel_ranges(n_, threads, [&](int t, long begin, long end) {
      int sys = static_cast<int>(std::upper_bound(offsets.begin(), offsets.end(), static_cast<int>(begin)) -
                                 offsets.begin()) - 1;
      for (int i = static_cast<int>(begin); i < end; ++i) {
        while (i >= offsets[static_cast<std::size_t>(sys) + 1]) ++sys;
        if (!skipped(sys)) body(t, sys, i);
      }
    });
  };
  // Wrap into the cell, keeping count of the crossings, and remember where the atoms were.
  // Atoms of systems not rebuilt keep cell -1.
  std::vector<int> cell(n_, -1);
  for_atoms([&](int, int sys, int i) {
    const Box& box = atoms.box(sys);
    int img[3] = {a.ix[i], a.iy[i], a.iz[i]};
    const Vec3 r = box.wrap({a.x[i], a.y[i], a.z[i]}, img);
    a.x[i] = x0_[i] = r.x;
    a.y[i] = y0_[i] = r.y;
    a.z[i] = z0_[i] = r.z;
    a.ix[i] = img[0];
    a.iy[i] = img[1];
    a.iz[i] = img[2];
    cell[i] = cell_begin_[static_cast<std::size_t>(sys)] + grids_[static_cast<std::size_t>(sys)].cell_of(box, r);
  });
  for (int sys = 0; sys < systems; ++sys)
    if (!skipped(sys)) box0_[static_cast<std::size_t>(sys)] = atoms.box(sys);
  // Cells in CSR form, atoms ascending within each cell.
  const int ncell = cell_begin_.back();
  std::vector<int> start(ncell + 1, 0), members(n_);
  for (int i = 0; i < n_; ++i)
    if (cell[i] >= 0) ++start[cell[i] + 1];
  std::partial_sum(start.begin(), start.end(), start.begin());
  {
    std::vector<int> fill(start.begin(), start.end() - 1);
    for (int i = 0; i < n_; ++i)
      if (cell[i] >= 0) members[fill[cell[i]]++] = i;
  }
  const double rl2 = std::pow(settings_.cutoff + settings_.skin, 2);
  const bool half = settings_.kind == ListKind::Half;
  // Each thread's entries back to back (its atoms' counts in `found_count`), then copied into the list.
  struct Found {
    std::vector<int> j, code;
    int most = 0;
  };
  std::vector<Found> found(static_cast<std::size_t>(threads));
  std::vector<int> found_count(n_, 0);
  for_atoms([&](int t, int sys, int i) {
    Found& f = found[static_cast<std::size_t>(t)];
    const Box& box = atoms.box(sys);
    const CellGrid& grid = grids_[static_cast<std::size_t>(sys)];
    const int base = cell_begin_[static_cast<std::size_t>(sys)];
    const std::size_t before = f.j.size();
    const Vec3 ri{a.x[i], a.y[i], a.z[i]};
    const Vec3 s = box.to_frac(ri);
    const int c[3] = {grid.coord(s.x, 0), grid.coord(s.y, 1), grid.coord(s.z, 2)};
    for (int o2 = -grid.reach[2]; o2 <= grid.reach[2]; ++o2) {
      int w2, m2;
      if (!grid.neighbor_coord(c[2], o2, 2, w2, m2)) continue;
      for (int o1 = -grid.reach[1]; o1 <= grid.reach[1]; ++o1) {
        int w1, m1;
        if (!grid.neighbor_coord(c[1], o1, 1, w1, m1)) continue;
        for (int o0 = -grid.reach[0]; o0 <= grid.reach[0]; ++o0) {
          int w0, m0;
          if (!grid.neighbor_coord(c[0], o0, 0, w0, m0)) continue;
          const Vec3 shift = box.shift(m0, m1, m2) - ri;
          const int code = pack_image(m0, m1, m2);
          const int cc = base + grid.index(w0, w1, w2);
          for (int p = start[cc]; p < start[cc + 1]; ++p) {
            const int j = members[p];
            if (j == i && code == 0) continue;
            if (half && !half_list_keeps(i, j, m0, m1, m2)) continue;
            const double dx = a.x[j] + shift.x, dy = a.y[j] + shift.y, dz = a.z[j] + shift.z;
            if (dx * dx + dy * dy + dz * dz < rl2) {
              f.j.push_back(j);
              f.code.push_back(code);
            }
          }
        }
      }
    }
    found_count[i] = static_cast<int>(f.j.size() - before);
    f.most = std::max(f.most, found_count[i]);
  });
  int most = 0;
  for (const Found& f : found) most = std::max(most, f.most);
  if (only) {
    // The other systems keep their rows; a row wider than any so far widens every row.
    if (most > capacity_) {
      std::vector<int> index(static_cast<std::size_t>(most) * n_), image(index.size());
      for (int i = 0; i < n_; ++i)
        for (int k = 0; k < count_[i]; ++k) {
          index[static_cast<std::size_t>(i) * most + k] = index_[static_cast<std::size_t>(i) * capacity_ + k];
          image[static_cast<std::size_t>(i) * most + k] = image_[static_cast<std::size_t>(i) * capacity_ + k];
        }
      index_.assign(index);
      image_.assign(image);
      capacity_ = most;
    }
  } else {
    capacity_ = most;
    index_.resize(static_cast<std::size_t>(capacity_) * n_);
    image_.resize(static_cast<std::size_t>(capacity_) * n_);
  }
  device::parallel_ranges(n_, threads, [&](int t, long begin, long end) {
    const Found& f = found[static_cast<std::size_t>(t)];
    std::size_t from = 0;
    for (long i = begin; i < end; ++i) {
      if (cell[i] < 0) continue;  // a system not rebuilt
      count_[i] = found_count[i];
      const std::size_t row = static_cast<std::size_t>(i) * capacity_;
      // Through data(): with no neighbour anywhere the rows are empty and the arrays hold no memory.
      std::copy_n(f.j.data() + from, count_[i], index_.data() + row);
      std::copy_n(f.code.data() + from, count_[i], image_.data() + row);
      from += static_cast<std::size_t>(count_[i]);
    }
  });
  ++builds_;
}

void NeighborList::spatial_sort(AtomState& atoms) {
  make_grids(atoms);
  const int n = atoms.size();
  perm_.resize(n);
  if (backend_ == Backend::Cpu) {
    // The key is the atom's cell; a system's cells follow the previous system's, so the systems stay in order.
    const std::vector<int>& offsets = atoms.system_offsets();
    std::vector<int> key(n);
    for (int sys = 0; sys < atoms.num_systems(); ++sys) {
      const Box& box = atoms.box(sys);
      const CellGrid& g = grids_[static_cast<std::size_t>(sys)];
      for (int i = offsets[static_cast<std::size_t>(sys)]; i < offsets[static_cast<std::size_t>(sys) + 1]; ++i)
        key[i] = cell_begin_[static_cast<std::size_t>(sys)] + g.cell_of(box, box.wrap({atoms.x[i], atoms.y[i], atoms.z[i]}));
    }
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int p, int q) { return key[p] < key[q]; });
    perm_.assign(order);
  } else {
#ifdef QUASAR_HAVE_CUDA
    neighbor_gpu::BuildArgs args{};
    args.atoms = atoms.ref();
    args.grid = grids_.front();
    if (atoms.is_batch()) {
      grids_dev_.assign(grids_);
      cell_begin_dev_.assign(cell_begin_);
      args.grids = grids_dev_.data();
      args.cell_begin = cell_begin_dev_.data();
      args.systems = atoms.num_systems();
    }
    args.cells = cell_begin_.back();
    neighbor_gpu::cell_order(args, perm_.data());
#else
    throw_no_cuda("GPU neighbour list");
#endif
  }
  atoms.permute(perm_);
}

long NeighborList::builds() const {
  if (backend_ == Backend::Cpu) return builds_;
  if (flags_.empty()) return 0;
  return flags_.to_vector()[neighbor_gpu::kBuilds];
}

void NeighborList::check_overflow() {
  if (backend_ == Backend::Cpu || flags_.empty()) return;
  const auto f = flags_.to_vector();
  if (f[neighbor_gpu::kMaxNeighbors] > capacity_ || f[neighbor_gpu::kMaxCellAtoms] > cell_capacity_)
    throw Error("neighbour list overflow on the GPU: an atom had " + std::to_string(f[neighbor_gpu::kMaxNeighbors]) +
                " neighbours (room for " + std::to_string(capacity_) + ") or a cell " +
                std::to_string(f[neighbor_gpu::kMaxCellAtoms]) + " atoms (room for " +
                std::to_string(cell_capacity_) + "); the density rose far above the starting one");
}

void NeighborList::build_gpu(AtomState& atoms, bool forced) {
#ifdef QUASAR_HAVE_CUDA
  using namespace neighbor_gpu;
  const double r_list = settings_.cutoff + settings_.skin;
  const int systems = atoms.num_systems();
  // The grids depend on the cells alone: a step that changed none (every step of most runs) skips
  // them, which for a batch of thousands of systems is most of the host's work in a step.
  if (forced || grids_revision_ != atoms.cell_revision()) {
    const std::vector<CellGrid> old_grids = atoms.is_batch() ? grids_ : std::vector<CellGrid>();
    make_grids(atoms);
    if (atoms.is_batch()) {
      // The grids go to the device when they change (a cell changed) or were never there.
      const bool same = !forced && grids_dev_.size() == grids_.size() &&
                        std::equal(grids_.begin(), grids_.end(), old_grids.begin(), old_grids.end(),
                                   [](const CellGrid& p, const CellGrid& q) { return std::memcmp(&p, &q, sizeof p) == 0; });
      if (!same) {
        grids_dev_.assign(grids_);
        cell_begin_dev_.assign(cell_begin_);
      }
    }
  }
  const int cells = cell_begin_.back();
  if (flags_.empty()) flags_.resize(kFlagCount);
  h0_.resize(9 * static_cast<std::size_t>(systems));
  // Cell slots: twice the mean occupancy plus a margin; the first build measures and grows.
  if (cell_capacity_ == 0) cell_capacity_ = static_cast<int>(2.0 * n_ / cells) + 16;
  if (capacity_ == 0) {
    double density = 0;  // the densest system's
    const std::vector<int>& offsets = atoms.system_offsets();
    for (int s = 0; s < systems; ++s)
      density = std::max(density, (offsets[static_cast<std::size_t>(s) + 1] - offsets[static_cast<std::size_t>(s)]) /
                                      atoms.box(s).volume());
    const double sphere = 4.18879020478639 * r_list * r_list * r_list;
    capacity_ = static_cast<int>(1.5 * density * sphere * (settings_.kind == ListKind::Half ? 0.5 : 1.0)) + 16;
  }
  for (;;) {
    cell_count_.resize(cells);
    cell_atoms_.resize(static_cast<std::size_t>(cells) * cell_capacity_);
    index_.resize(static_cast<std::size_t>(capacity_) * n_);
    image_.resize(static_cast<std::size_t>(capacity_) * n_);
    BuildArgs args{atoms.ref(), grids_.front(), r_list * r_list, settings_.kind == ListKind::Half ? 1 : 0, flags_.data(),
                   cell_count_.data(), cell_atoms_.data(), cell_capacity_, count_.data(), index_.data(),
                   image_.data(), capacity_, x0_.data(), y0_.data(), z0_.data(), h0_.data(), settings_.skin};
    if (atoms.is_batch()) {
      args.grids = grids_dev_.data();
      args.cell_begin = cell_begin_dev_.data();
      args.systems = systems;
      if (system_rebuild_.size() != static_cast<std::size_t>(systems))
        system_rebuild_.assign(std::vector<int>(static_cast<std::size_t>(systems), 0));
      args.rebuild_system = system_rebuild_.data();
    }
    args.cells = cells;
    if (forced) set_rebuild_flag(args);
    else flag_moved_atoms(args);
    build_if_flagged(args);
    if (!forced) return;
    // A forced build (set-up, re-sort) may wait for the device: make sure everything fitted, and
    // leave room for density fluctuations during the run, also where the first guess just fitted.
    const auto f = flags_.to_vector();
    const int need_cell = f[kMaxCellAtoms], need_nb = f[kMaxNeighbors];
    const bool fitted = need_cell <= cell_capacity_ && need_nb <= capacity_;
    cell_capacity_ = std::max(cell_capacity_, need_cell + need_cell / 4 + 4);  // cells are refilled at each build
    capacity_ = std::max(capacity_, need_nb + need_nb / 4 + 8);
    if (fitted) {
      // The transposed list (slot k n + i) keeps its entries as it grows.
      index_.resize(static_cast<std::size_t>(capacity_) * n_);
      image_.resize(static_cast<std::size_t>(capacity_) * n_);
      return;
    }
  }
#else
  (void)atoms;
  (void)forced;
  throw_no_cuda("GPU neighbour list");
#endif
}

}  // namespace quasar
