#pragma once
// What the per-centre kernels of nnp_kernels.cuh share: the tables of a centre element on the device
// (the DescriptorPlan of descriptor.hpp, flattened), the centre's neighbours staged in shared memory,
// and a walk over the pairs of neighbours whose angular terms can be non-zero that keeps every lane
// of a warp busy with a whole pair, none waiting on another.
#include "quasar/core/atoms.hpp"
#include "quasar/device/fixed_point.cuh"
#include "quasar/neighbor/neighbor_list.hpp"
#include "quasar/potential/nnp/symmetry_functions.hpp"

namespace quasar::nnp {

constexpr int kCentreBlock = 128;
constexpr int kMaxElements = 8;    // of a model on the GPU
constexpr int kPairQueue = 64;     // pairs queued per warp (4 bytes each)

enum PairFlags : unsigned char { kPairNeedsAngle = 1, kPairNarrow = 2 };

// One function of a pair list with what the pair loops need, in one aligned record (32 bytes in
// float). A pair list's entries come in three ranges (ElementTables::pair_split): the exponential
// types with a small integer zeta, the other exponential types, the compact types; within each,
// runs of one radial factor and one factor at r_jk.
template <class T>
struct alignas(16) AngularEntry {
  T lambda = 0, prefactor = 0, zeta = 0;  // the angular factor of the exponential types
  T eta = 0, rs = 0;                      // the radial factor exp(-eta (r - rs)^2) E(r) (compact types: eta 0)
  unsigned short function = 0;            // s, the network input
  unsigned short factor = 0;              // u, its radial factor in the per-neighbour table
  short jk_envelope = -1;                 // the envelope E of its factor at r_jk; -1: the type has none
  short zeta_int = 0;                     // >= 1 integer zeta, -1 any other zeta; 0: compact (the window
                                          // of params[function])
  unsigned char new_jk = 0;               // starts a run: its factor, or its factor at r_jk, is not the
                                          // previous entry's
  unsigned char weighted = 0;             // times Z_j Z_k
};

// Integer zetas up to this take the first range, whose powers are unrolled.
constexpr int kSmallZeta = 16;

// The functions of one centre element (DescriptorPlan): lists in CSR form.
template <class T>
struct ElementTables {
  int count = 0;  // functions (functions_kernel: of this pass, from `first` on)
  int first = 0;
  int elements = 0;
  const SfParams<T>* params;      // every function, in the network's input order
  const SfParams<T>* envelopes;   // one per distinct envelope
  const int* envelope_of;         // function -> envelope
  const int* radial_start;        // neighbour element e -> radial functions radial_fn[radial_start[e] ..)
  const int* radial_fn;
  const SfParams<T>* factors;     // one per distinct radial factor of the angular functions
  const int* factor_envelope;
  int factor_count = 0;
  const int* pair_start;          // element pair a * elements + b (a <= b) -> angular functions
  const int* pair_split;          //   entries[pair_start[p] ..): small integer zetas up to
                                  //   pair_split[2 p], other exponential ones up to pair_split[2 p + 1]
  const AngularEntry<T>* entries;
  int entry_count = 0;
  bool entries_shared = false;    // the kernels copy the entries to shared memory (entry_bytes)
  const unsigned char* pair_flags;
  const T* pair_reach;            // the largest rc of a pair's functions
  const T* atomic_number;         // per element (weighted types)
  T cutoff = 0;                   // Å, the largest rc of this element's functions
};

// A centre's neighbours within the cutoff, staged in shared memory, grouped by element: those of
// element e are [start[e], start[e + 1]).
template <class T>
struct Staged {
  T* d;  // 3 per neighbour
  T* r;
  int* element;
  int* atom;
  const int* start;
  int count;
};

template <class T>
__host__ __device__ inline std::size_t staged_bytes(int capacity) {
  return static_cast<std::size_t>(capacity) * (4 * sizeof(T) + 2 * sizeof(int));
}

// Rounds a byte count up so that what follows it stays 16-byte aligned.
__host__ __device__ inline std::size_t aligned16(std::size_t bytes) { return (bytes + 15) / 16 * 16; }

constexpr std::size_t kEntriesShared = 8 * 1024;  // pair-list entries up to this size go to shared memory

// The shared memory the kernels give the pair-list entries.
template <class T>
__host__ __device__ inline std::size_t entry_bytes(const ElementTables<T>& t) {
  return t.entries_shared ? static_cast<std::size_t>(t.entry_count) * sizeof(AngularEntry<T>) : 0;
}

// The entries where the kernels read them: copied into `shm` when they go to shared memory (every
// thread calls it; the caller synchronises before reading).
template <class T>
__device__ const AngularEntry<T>* place_entries(const ElementTables<T>& t, void* shm) {
  if (!t.entries_shared) return t.entries;
  AngularEntry<T>* copy = static_cast<AngularEntry<T>*>(shm);
  for (int q = threadIdx.x; q < t.entry_count; q += blockDim.x) copy[q] = t.entries[q];
  return copy;
}

// Stages the neighbours of atom i within rc, element after element and in list order within an
// element: each round of blockDim entries is compacted with warp ballots. Ends with __syncthreads.
template <class T>
__device__ Staged<T> stage_neighbours(const AtomsRef& a, const NeighborRef& list, const int* element_of, int i, T rc,
                                      int elements, void* shm) {
  Staged<T> s;
  const int cap = list.capacity;
  s.d = static_cast<T*>(shm);
  s.r = s.d + 3 * cap;
  s.element = reinterpret_cast<int*>(s.r + cap);
  s.atom = s.element + cap;
  __shared__ int warp_counts[kCentreBlock / 32];
  __shared__ int total;
  __shared__ int start[kMaxElements + 1];
  if (threadIdx.x == 0) total = 0;
  __syncthreads();
  const Box box = a.box_of(i);
  const int n = list.count[i];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int e = 0; e < elements; ++e) {
    if (threadIdx.x == 0) start[e] = total;
    for (int base = 0; base < n; base += blockDim.x) {
      const int k = base + threadIdx.x;
      int j = -1;
      Vec3 d{};
      double r = 0;
      bool keep = false;
      if (k < n) {
        d = list.delta(box, a.x, a.y, a.z, i, k, j);
        r = sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
        keep = r < static_cast<double>(rc) && element_of[a.type[j]] == e;
      }
      const unsigned ballot = __ballot_sync(0xffffffffu, keep);
      if (lane == 0) warp_counts[warp] = __popc(ballot);
      __syncthreads();
      int at = total;
      for (int w = 0; w < warp; ++w) at += warp_counts[w];
      at += __popc(ballot & ((1u << lane) - 1u));
      if (keep) {
        s.d[3 * at] = static_cast<T>(d.x);
        s.d[3 * at + 1] = static_cast<T>(d.y);
        s.d[3 * at + 2] = static_cast<T>(d.z);
        s.r[at] = static_cast<T>(r);
        s.element[at] = e;
        s.atom[at] = j;
      }
      __syncthreads();
      if (threadIdx.x == 0)
        for (int w = 0; w < static_cast<int>(blockDim.x / 32); ++w) total += warp_counts[w];
      __syncthreads();
    }
  }
  if (threadIdx.x == 0) start[elements] = total;
  __syncthreads();
  s.start = start;
  s.count = total;
  return s;
}

// The weight of a neighbour in a radial function: Z_j for the weighted types, else 1.
template <class T>
__device__ inline T weight(const ElementTables<T>& t, const SfParams<T>& p, int ej) {
  return sf_weighted(p.type) ? t.atomic_number[ej] : T(1);
}

// The index of the pair list of neighbours of elements a and b.
template <class T>
__device__ inline int pair_list(const ElementTables<T>& t, int a, int b) {
  return a < b ? a * t.elements + b : b * t.elements + a;
}

// The rows of the pairs j < k of the staged neighbours whose terms can be non-zero: element pair
// after element pair whose list has functions, each a triangle of one element's neighbours or the
// rectangle of two elements', row after row (neighbour j) within each.
struct PairBlock {
  int list;      // the pair list (pair_list)
  int a0, na;    // rows: neighbours [a0, a0 + na) (of the element with fewer)
  int b0, nb;    // columns: [b0, b0 + nb); b0 == a0 for a triangle (then k > j)
  int end_row;   // one past its last row in the walk
};

template <class T>
struct PairRows {
  const PairBlock* blocks;
  int rows;

  // Every thread of the block constructs it; ends with __syncthreads.
  __device__ PairRows(const Staged<T>& nb, const ElementTables<T>& tab) {
    __shared__ PairBlock shared_blocks[kMaxElements * (kMaxElements + 1) / 2];
    __shared__ int shared_rows;
    if (threadIdx.x == 0) {
      int count = 0, row = 0;
      for (int a = 0; a < tab.elements; ++a)
        for (int b = a; b < tab.elements; ++b) {
          const int p = a * tab.elements + b;
          int a0 = nb.start[a], na = nb.start[a + 1] - a0, b0 = nb.start[b], nbb = nb.start[b + 1] - b0;
          if (a != b && na > nbb) {  // rows of the smaller element: fewer part-filled rounds of 32
            const int t0 = a0, tn = na;
            a0 = b0, na = nbb;
            b0 = t0, nbb = tn;
          }
          const int rows_here = a == b ? na - 1 : (nbb > 0 ? na : 0);
          if (tab.pair_start[p + 1] == tab.pair_start[p] || rows_here <= 0) continue;
          row += rows_here;
          shared_blocks[count++] = PairBlock{p, a0, na, b0, nbb, row};
        }
      shared_rows = row;
    }
    __syncthreads();
    blocks = shared_blocks;
    rows = shared_rows;
  }
};

// Calls visit(j, k, valid) on every lane of every warp, for every pair j < k that a pair list can give
// a non-zero term (both within its reach, and r_jk too when every function of the list has the factor
// at r_jk), with all 32 lanes taking pairs at once: warp w takes rows w, w + warps, ...; the kept
// candidates of each row are queued with ballots and handed out 32 at a time, in the same order every
// run; the last call has lanes without a pair (valid false, j = k = -1). `queue` holds kPairQueue
// entries per warp. No __syncthreads inside.
template <class T, class Visit>
__device__ void for_each_pair(const Staged<T>& nb, const ElementTables<T>& tab, const PairRows<T>& walk,
                              unsigned* queue, Visit&& visit) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  unsigned* q = queue + warp * kPairQueue;
  unsigned head = 0, tail = 0;  // of the queue, counted from the start
  int b = 0;
  for (int row = warp; row < walk.rows; row += warps) {
    while (row >= walk.blocks[b].end_row) ++b;
    const PairBlock& B = walk.blocks[b];
    const int rows_here = B.b0 == B.a0 ? B.na - 1 : B.na;
    const int j = B.a0 + (row - (B.end_row - rows_here));
    const T reach = tab.pair_reach[B.list];
    if (!(nb.r[j] < reach)) continue;
    const bool narrow = (tab.pair_flags[B.list] & kPairNarrow) != 0;
    const T dj[3] = {nb.d[3 * j], nb.d[3 * j + 1], nb.d[3 * j + 2]};
    const int k_end = B.b0 + B.nb;
    for (int k0 = B.b0 == B.a0 ? j + 1 : B.b0; k0 < k_end; k0 += 32) {
      const int k = k0 + lane;
      bool keep = k < k_end && nb.r[k] < reach;
      if (keep && narrow) {
        T r2 = 0;
        for (int m = 0; m < 3; ++m) {
          const T e = nb.d[3 * k + m] - dj[m];
          r2 += e * e;
        }
        keep = r2 < reach * reach;
      }
      const unsigned ballot = __ballot_sync(0xffffffffu, keep);
      if (keep) q[(tail + __popc(ballot & ((1u << lane) - 1u))) % kPairQueue] = static_cast<unsigned>(j) | (static_cast<unsigned>(k) << 16);
      tail += __popc(ballot);
      __syncwarp();
      if (tail - head >= 32) {
        const unsigned e = q[(head + lane) % kPairQueue];
        visit(static_cast<int>(e & 0xffffu), static_cast<int>(e >> 16), true);
        head += 32;
        __syncwarp();
      }
    }
  }
  if (tail == head) return;
  const bool valid = static_cast<unsigned>(lane) < tail - head;
  const unsigned e = valid ? q[(head + lane) % kPairQueue] : 0u;
  visit(valid ? static_cast<int>(e & 0xffffu) : -1, valid ? static_cast<int>(e >> 16) : -1, valid);
}

// Sums of 3-vectors per neighbour in shared memory that every thread of a block adds to: atomics of
// T, or (kFixed) 64-bit fixed point with the force scale, so that deterministic runs give the same
// bits every time.
template <class T, bool kFixed>
struct NeighbourSums {
  using Slot = std::conditional_t<kFixed, unsigned long long, T>;
  Slot* v;
  int* status;

  static __host__ __device__ std::size_t bytes(int capacity) { return 3 * static_cast<std::size_t>(capacity) * sizeof(Slot); }
  __device__ void set(int j, const double g[3]) {
    for (int m = 0; m < 3; ++m) {
      if constexpr (kFixed) v[3 * j + m] = to_fixed(g[m]);
      else v[3 * j + m] = static_cast<T>(g[m]);
    }
  }
  __device__ void add(int j, T gx, T gy, T gz) {
    const T g[3] = {gx, gy, gz};
    for (int m = 0; m < 3; ++m) {
      if constexpr (kFixed) atomicAdd(&v[3 * j + m], to_fixed(static_cast<double>(g[m])));
      else atomicAdd(&v[3 * j + m], g[m]);
    }
  }
  __device__ double get(int j, int m) const {
    if constexpr (kFixed) return static_cast<double>(static_cast<long long>(v[3 * j + m])) / device::fixed_scale::kForce;
    else return static_cast<double>(v[3 * j + m]);
  }

 private:
  __device__ unsigned long long to_fixed(double x) const {
    const double s = x * device::fixed_scale::kForce;
    if (!(fabs(s) < device::kFixedContributionLimit)) {
      *status = 1;
      return 0;
    }
    return static_cast<unsigned long long>(__double2ll_rn(s));
  }
};

}  // namespace quasar::nnp
