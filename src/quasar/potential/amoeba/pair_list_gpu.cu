// The device pair candidates (pair_list_gpu.hpp): the engine's full list of the positions, each
// atom's row mapped to input indices and padded, CUB's segmented sort, and the rows' distinct entries
// compacted after an exclusive scan of their counts.
#include "quasar/potential/amoeba/pair_list_gpu.hpp"

#include <climits>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include "quasar/core/atoms.hpp"
#include "quasar/core/structure.hpp"
#include "quasar/device/cuda_check.cuh"
#include "quasar/device/grow.hpp"
#include "quasar/neighbor/neighbor_list.hpp"

namespace quasar::amoeba {

namespace {

constexpr int kBlock = 128;

__global__ void load_positions(const double* __restrict__ r, long n, double* x, double* y, double* z) {
  const long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  x[i] = r[3 * i], y[i] = r[3 * i + 1], z[i] = r[3 * i + 2];
}

// Row p (input index) of `rows`: its neighbours' input indices, INT_MAX past them and for itself
// (an atom's own image in a small cell is no pair).
__global__ void fill_rows(NeighborRef list, const long* __restrict__ id, int capacity, int* __restrict__ rows,
                          int* __restrict__ begin, int* __restrict__ end) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= list.n) return;
  const auto p = static_cast<int>(id[i]);
  int* row = rows + static_cast<long>(p) * capacity;
  const int count = list.count[i];
  for (int k = 0; k < capacity; ++k) {
    int q = INT_MAX;
    if (k < count) {
      q = static_cast<int>(id[list.index[list.slot_of(i, k)]]);
      if (q == p) q = INT_MAX;
    }
    row[k] = q;
  }
  begin[p] = p * capacity;
  end[p] = (p + 1) * capacity;
}

__global__ void count_distinct(const int* __restrict__ sorted, int n, int capacity, int* __restrict__ count) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p > n) return;
  if (p == n) {
    count[n] = 0;  // so that the exclusive scan's last entry is the total
    return;
  }
  const int* row = sorted + static_cast<long>(p) * capacity;
  int c = 0;
  for (int k = 0; k < capacity && row[k] != INT_MAX; ++k)
    if (k == 0 || row[k] != row[k - 1]) ++c;
  count[p] = c;
}

__global__ void compact(const int* __restrict__ sorted, int n, int capacity, const int* __restrict__ offset,
                        int* __restrict__ partner) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= n) return;
  const int* row = sorted + static_cast<long>(p) * capacity;
  int at = offset[p];
  for (int k = 0; k < capacity && row[k] != INT_MAX; ++k)
    if (k == 0 || row[k] != row[k - 1]) partner[at++] = row[k];
}

}  // namespace

struct DevicePairCandidates::Engine {
  std::unique_ptr<AtomState> atoms;
  std::unique_ptr<NeighborList> list;
  double reach = -1;
};

DevicePairCandidates::DevicePairCandidates() : engine_(std::make_unique<Engine>()) {}
DevicePairCandidates::~DevicePairCandidates() = default;
DevicePairCandidates::DevicePairCandidates(DevicePairCandidates&&) noexcept = default;
DevicePairCandidates& DevicePairCandidates::operator=(DevicePairCandidates&&) noexcept = default;

void DevicePairCandidates::build(const double* positions, long n, const Box& box, double reach) {
  Engine& e = *engine_;
  if (!e.atoms || static_cast<long>(e.atoms->size()) != n) {
    Structure s;
    s.type_names = {"X"};
    s.type_masses = {1.0};
    s.types.assign(static_cast<std::size_t>(n), 0);
    s.positions.assign(static_cast<std::size_t>(n), Vec3{});
    s.box = box;
    e.atoms = std::make_unique<AtomState>(Backend::Cuda, s);
    e.list.reset();
  }
  if (!e.list || e.reach != reach) {
    // The skin keeps pairs at the cutoff itself (the loops test <=), as pair_candidates does.
    e.list = std::make_unique<NeighborList>(Backend::Cuda, NeighborSettings{reach, 0.25, ListKind::Full, 0});
    e.reach = reach;
  }
  AtomState& atoms = *e.atoms;
  atoms.set_box(box);
  const unsigned blocks = grid_for(n, kBlock);
  if (n > 0) {
    load_positions<<<blocks, kBlock>>>(positions, n, atoms.x.data(), atoms.y.data(), atoms.z.data());
    QUASAR_LAUNCH_CHECK("amoeba load_positions");
  }
  e.list->build(atoms);
  e.list->check_overflow();
  const NeighborRef ref = e.list->ref();
  const int capacity = std::max(ref.capacity, 1), count = static_cast<int>(n);
  const long items = static_cast<long>(count) * capacity;
  if (items > INT_MAX) throw Error("amoeba: the device pair list of " + std::to_string(n) + " sites is too large");
  grow(rows_, static_cast<std::size_t>(items));
  grow(sorted_, static_cast<std::size_t>(items));
  grow(row_begin_, static_cast<std::size_t>(count) + 1);
  grow(row_end_, static_cast<std::size_t>(count) + 1);
  grow(count_, static_cast<std::size_t>(count) + 1);
  offset_.resize(static_cast<std::size_t>(count) + 1);
  if (count > 0) {
    fill_rows<<<blocks, kBlock>>>(ref, atoms.id.data(), capacity, rows_.data(), row_begin_.data(), row_end_.data());
    QUASAR_LAUNCH_CHECK("amoeba fill_rows");
    std::size_t bytes = 0;
    QUASAR_CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(nullptr, bytes, rows_.data(), sorted_.data(),
                                                         static_cast<int>(items), count, row_begin_.data(),
                                                         row_end_.data()));
    QUASAR_CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(grow(temp_, std::max<std::size_t>(bytes, 1)), bytes,
                                                         rows_.data(), sorted_.data(), static_cast<int>(items), count,
                                                         row_begin_.data(), row_end_.data()));
  }
  count_distinct<<<grid_for(count + 1, kBlock), kBlock>>>(sorted_.data(), count, capacity, count_.data());
  QUASAR_LAUNCH_CHECK("amoeba count_distinct");
  std::size_t bytes = 0;
  QUASAR_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, count_.data(), offset_.data(), count + 1));
  QUASAR_CUDA_CHECK(
      cub::DeviceScan::ExclusiveSum(grow(temp_, std::max<std::size_t>(bytes, 1)), bytes, count_.data(), offset_.data(), count + 1));
  int total = 0;
  offset_.download(&total, 1, static_cast<std::size_t>(count));
  pairs_ = total;
  partner_.resize(static_cast<std::size_t>(std::max(total, 1)));
  if (count > 0) {
    compact<<<blocks, kBlock>>>(sorted_.data(), count, capacity, offset_.data(), partner_.data());
    QUASAR_LAUNCH_CHECK("amoeba compact");
  }
}

}  // namespace quasar::amoeba
