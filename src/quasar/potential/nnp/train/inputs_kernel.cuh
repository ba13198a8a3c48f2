#pragma once
// A training's inputs on the GPU: the symmetry functions of every atom and their derivatives by
// every neighbour's displacement, as TrainingNetworks::inputs computes them on the CPU (its
// Descriptor::visit and JacobianVisitor are the reference; nnp_train_jacobian_test compares them).
// One thread per (centre, neighbour j) writes row j of the centre's derivatives, dG_s/d(d_j), from the
// radial terms of j and the angular terms of every pair that holds j (each pair is visited by both of
// its threads, so that no two threads write one row); the thread of a pair's first neighbour also
// adds the pair's values, summed per thread and then into the centre's values by one atomic each.
#include "quasar/potential/nnp/descriptor.hpp"
#include "quasar/potential/nnp/nnp_pairs.cuh"

namespace quasar::nnp::inputs {

constexpr int kThreads = 128;
// The values' per-thread sums live in local memory, sized by a template parameter: the smallest of
// these that holds an element's functions.
constexpr int kFunctionSizes[] = {64, 128, 512, 2048};

// The atoms of a slice of structures. Neighbour entries are n2p2's (NeighborEntry, lengths as the
// descriptor takes them); entry e belongs to atom entry_atom[e], whose entries start at entry_start.
struct Slice {
  const NeighborEntry* entries = nullptr;
  const int* entry_atom = nullptr;
  const long* entry_start = nullptr;
  const int* element = nullptr;  // per atom
  const long* x_at = nullptr;    // per atom: its raw values (sums) in g, its inputs in x
  const long* d_at = nullptr;    // per atom: its derivatives in d
  long entry_count = 0;
};

struct Tables {
  ElementTables<double> element[kMaxElements];
};

// The radial factor u of an element's angular functions at distance r.
__device__ inline Fdf<double> factor_at(const ElementTables<double>& tab, int u, double r) {
  return radial_term(tab.factors[u], r, envelope(tab.envelopes[tab.factor_envelope[u]], r));
}

template <int MaxFunctions>
__global__ void __launch_bounds__(kThreads) inputs_kernel(Tables tables, Slice slice, double* g, double* d) {
  const long e = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (e >= slice.entry_count) return;
  const int i = slice.entry_atom[e];
  const long start = slice.entry_start[i];
  const int n = static_cast<int>(slice.entry_start[i + 1] - start), j = static_cast<int>(e - start);
  const ElementTables<double>& tab = tables.element[slice.element[i]];
  const NeighborEntry* nb = slice.entries + start;
  const int nf = tab.count, ne = tab.elements;
  // row[c * nf + s] = dG_s / d(d_j)_c; without d (no derivatives wanted) only the values.
  double* row = d ? d + slice.d_at[i] + 3L * j * nf : nullptr;
  double sums[MaxFunctions];
  for (int s = 0; s < nf; ++s) sums[s] = 0;
  const NeighborEntry a = nb[j];
  // Radial terms of j.
  for (int q = tab.radial_start[a.element]; q < tab.radial_start[a.element + 1]; ++q) {
    const int s = tab.radial_fn[q];
    const SfParams<double>& p = tab.params[s];
    const Fdf<double> t = radial_term(p, a.r, envelope(tab.envelopes[tab.envelope_of[s]], a.r));
    const double w = sf_weighted(p.type) ? tab.atomic_number[a.element] : 1.0;
    sums[s] += w * t.f;
    if (!row) continue;
    const double c = w * t.df / a.r;
    row[s] += c * a.dx;
    row[nf + s] += c * a.dy;
    row[2 * nf + s] += c * a.dz;
  }
  // Angular terms of every pair (first, second) that holds j, first < second as the CPU visits them.
  // The radial factors of j and k are evaluated when the factor changes (the lists are sorted by it).
  for (int k = 0; k < n; ++k) {
    if (k == j) continue;
    const bool j_first = j < k;
    const NeighborEntry& b = nb[k];
    const NeighborEntry& f1 = j_first ? a : b;
    const NeighborEntry& f2 = j_first ? b : a;
    const int pair = min(a.element, b.element) * ne + max(a.element, b.element);
    const int begin = tab.pair_start[pair], end = tab.pair_start[pair + 1];
    const double reach = tab.pair_reach[pair];
    if (begin == end || a.r >= reach || b.r >= reach || (!row && !j_first)) continue;
    const double d1[3] = {f1.dx, f1.dy, f1.dz}, d2[3] = {f2.dx, f2.dy, f2.dz};
    const PairGeometry<double> geo = pair_geometry(d1, f1.r, d2, f2.r);
    const unsigned char flags = tab.pair_flags[pair];
    if ((flags & kPairNarrow) && geo.rjk >= reach) continue;
    const PairAngle<double> angle = (flags & kPairNeedsAngle) ? pair_angle(geo) : PairAngle<double>{};
    const double zz = tab.atomic_number[a.element] * tab.atomic_number[b.element];
    int factor_u = -1;
    Fdf<double> own, other, env_jk, factor_jk;
    for (int q = begin; q < end; ++q) {
      const AngularEntry<double>& en = tab.entries[q];
      const SfParams<double>& p = tab.params[en.function];
      const int u = en.factor;
      if (u != factor_u) own = factor_at(tab, u, a.r), other = factor_at(tab, u, b.r), factor_u = u;
      if (en.jk_envelope >= 0 && en.new_jk) {
        env_jk = envelope(tab.envelopes[en.jk_envelope], geo.rjk);
        factor_jk = radial_term(p, geo.rjk, env_jk);
      }
      const AngularTerm<double> t =
          angular_term(p, geo, angle, j_first ? own : other, j_first ? other : own, factor_jk);
      const double w = en.weighted ? zz : 1.0;
      const int s = en.function;
      if (j_first) sums[s] += w * t.value;
      if (!row) continue;
      // d_j's share: jj d1 + jk d2 when j is first, jk d1 + kk d2 when it is second.
      const double c1 = w * (j_first ? t.jj : t.jk), c2 = w * (j_first ? t.jk : t.kk);
      row[s] += c1 * d1[0] + c2 * d2[0];
      row[nf + s] += c1 * d1[1] + c2 * d2[1];
      row[2 * nf + s] += c1 * d1[2] + c2 * d2[2];
    }
  }
  double* gi = g + slice.x_at[i];
  for (int s = 0; s < nf; ++s)
    if (sums[s] != 0) atomicAdd(gi + s, sums[s]);
}

// x = scale G + shift per atom, in place; element el's scale and shift start at at[el].
struct ScaleShift {
  const double* scale = nullptr;
  const double* shift = nullptr;
  int at[kMaxElements] = {};
};

__global__ void scale_kernel(Tables tables, Slice slice, int atoms, ScaleShift ss, double* x) {
  const int i = blockIdx.x;
  if (i >= atoms) return;
  const int el = slice.element[i];
  const int nf = tables.element[el].count, at = ss.at[el];
  double* xi = x + slice.x_at[i];
  for (int s = threadIdx.x; s < nf; s += blockDim.x) xi[s] = ss.scale[at + s] * xi[s] + ss.shift[at + s];
}

}  // namespace quasar::nnp::inputs
