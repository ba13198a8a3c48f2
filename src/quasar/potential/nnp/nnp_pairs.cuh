#pragma once
// What the per-centre kernels of nnp_kernels.cuh share: the tables of a centre element on the device
// (the DescriptorPlan of descriptor.hpp, flattened), the centre's neighbours staged in shared memory,
// and a walk over the pairs of neighbours whose angular terms can be non-zero that keeps every lane
// of a warp busy with a whole pair, none waiting on another.
#include "quasar/core/atoms.hpp"
#include "quasar/device/fixed_point.cuh"
#include "quasar/neighbor/neighbor_list.hpp"
#include "quasar/potential/nnp/pair_walk.cuh"
#include "quasar/potential/nnp/symmetry_functions.hpp"

namespace quasar::nnp {

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
  using value_type = T;
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

}  // namespace quasar::nnp
