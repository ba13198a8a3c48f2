#pragma once
// The walk over the pairs of a centre's neighbours that the per-centre kernels of Behler-Parrinello
// potentials share (nnp_pairs.cuh) and that the kernels compiled for one model at run time include
// too (generated_kernels.hpp), and the sums per neighbour of their force kernels: it needs nothing but
// the CUDA built-ins, so that NVRTC compiles it.
//
// The staged neighbours (Nb) hold `d` (3 per neighbour), `r` and `start` (the neighbours of element e
// are [start[e], start[e + 1])), with `value_type` their arithmetic; the tables (Tab) hold
// `elements`, `pair_start` (a pair list's functions, to tell empty lists), `pair_flags` and
// `pair_reach` per pair list a * elements + b (a <= b).

#include "quasar/device/fixed_point_scales.hpp"
#ifdef __CUDACC__
#include "quasar/device/atomic_sum.cuh"
#endif

namespace quasar::nnp {

constexpr int kCentreBlock = 128;
constexpr int kMaxElements = 8;    // of a model on the GPU
constexpr int kPairQueue = 64;     // pairs queued per warp (4 bytes each)

enum PairFlags : unsigned char { kPairNeedsAngle = 1, kPairNarrow = 2 };

// The force arrays of the atoms and their number, as the kernels compiled at run time take them
// (AtomsRef's fields of the same names).
struct ForceArrays {
  double *fx, *fy, *fz;
  int n;
};

#ifdef __CUDACC__  // the constants above are for host code too

// The rows of the pairs j < k of the staged neighbours whose terms can be non-zero: element pair
// after element pair whose list has functions, each a triangle of one element's neighbours or the
// rectangle of two elements', row after row (neighbour j) within each.
struct PairBlock {
  int list;      // the pair list (pair_list)
  int a0, na;    // rows: neighbours [a0, a0 + na) (of the element with fewer)
  int b0, nb;    // columns: [b0, b0 + nb); b0 == a0 for a triangle (then k > j)
  int end_row;   // one past its last row in the walk
};

struct PairRows {
  const PairBlock* blocks;
  int rows;

  // Every thread of the block constructs it; ends with __syncthreads.
  template <class Nb, class Tab>
  __device__ PairRows(const Nb& nb, const Tab& tab) {
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
template <class Nb, class Tab, class Visit>
__device__ void for_each_pair(const Nb& nb, const Tab& tab, const PairRows& walk,
                              unsigned* queue, Visit&& visit) {
  using T = typename Nb::value_type;
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

// The slot of a fixed-point sum, or of a sum of T (std::conditional_t, which NVRTC lacks).
template <bool kFixed, class T>
struct SlotOf {
  using type = unsigned long long;
};
template <class T>
struct SlotOf<false, T> {
  using type = T;
};

// Sums of 3-vectors per neighbour in shared memory that every thread of a block adds to: atomics of
// T, or (kFixed) 64-bit fixed point with the force scale, so that deterministic runs give the same
// bits every time.
template <class T, bool kFixed>
struct NeighbourSums {
  using Slot = typename SlotOf<kFixed, T>::type;
  Slot* v;
  int* status;

  static __host__ __device__ decltype(sizeof(0)) bytes(int capacity) { return 3 * sizeof(Slot) * capacity; }
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
    return device::fixed_value(x, device::fixed_scale::kForce, status);
  }
};

// Adds v to the gradient sum of neighbour j for every run of lanes with the same j, once per run (the
// pairs of one row come to consecutive lanes): a segmented sum over the warp, then one atomic each.
template <class T, class Sums>
__device__ void add_per_run(Sums& grad, int j, T v[3]) {
  const int lane = threadIdx.x % 32;
  const int before = __shfl_up_sync(0xffffffffu, j, 1);
  const unsigned heads = __ballot_sync(0xffffffffu, lane == 0 || before != j);
  const int run = __popc(heads & ((2u << lane) - 1u));  // lanes <= this one that start a run
  for (int d = 1; d < 32; d *= 2) {
    const int other = __shfl_up_sync(0xffffffffu, run, d);
    T o[3];
    for (int m = 0; m < 3; ++m) o[m] = __shfl_up_sync(0xffffffffu, v[m], d);
    if (lane >= d && other == run)
      for (int m = 0; m < 3; ++m) v[m] += o[m];
  }
  const int after = __shfl_down_sync(0xffffffffu, run, 1);
  if (j >= 0 && (lane == 31 || after != run)) grad.add(j, v[0], v[1], v[2]);
}


// The forces and virials of centre i from the gradient of its energy with respect to each of its n
// neighbours' displacements, gradient(j, a): the neighbour atom(j) gets -gradient, the centre the sum
// over its neighbours, the neighbour's per-atom virial -gradient_p d_q with d = displacement(j, q),
// the totals the virial. `a` has the force arrays fx, fy, fz and the atom count n (AtomsRef).
template <class Atoms, class Gradient, class Atom, class Displacement, class Sum>
__device__ void add_forces(const Atoms& a, int i, int n, Gradient gradient, Atom atom_of, Displacement displacement,
                           double* totals, double* atom_virial, Sum add) {
  __shared__ double partial[kCentreBlock / 32 * 9];
  double fi[3] = {0, 0, 0}, w[9] = {};
  for (int j = threadIdx.x; j < n; j += blockDim.x) {
    const double gj[3] = {gradient(j, 0), gradient(j, 1), gradient(j, 2)};
    const int atom = atom_of(j);
    add(a.fx + atom, -gj[0], device::fixed_scale::kForce);
    add(a.fy + atom, -gj[1], device::fixed_scale::kForce);
    add(a.fz + atom, -gj[2], device::fixed_scale::kForce);
    const double d[3] = {displacement(j, 0), displacement(j, 1), displacement(j, 2)};
    for (int p = 0; p < 3; ++p) {
      fi[p] += gj[p];
      for (int q = 0; q < 3; ++q) {
        const double v = -gj[p] * d[q];
        w[3 * p + q] += v;
        if (atom_virial) add(atom_virial + static_cast<long>(3 * p + q) * a.n + atom, v, device::fixed_scale::kAtomVirial);
      }
    }
  }
  double* const own[3] = {a.fx, a.fy, a.fz};
  device::block_sum<kCentreBlock>(fi, partial, [&](int m, double s) { add(own[m] + i, s, device::fixed_scale::kForce); });
  device::block_sum<kCentreBlock>(w, partial, [&](int k, double s) { add(totals + 1 + k, s, device::fixed_scale::kTotal); });
}

#endif  // __CUDACC__

}  // namespace quasar::nnp
