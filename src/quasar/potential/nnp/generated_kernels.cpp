// The writer of the run-time compiled symmetry-function kernels (generated_kernels.hpp).
#include "quasar/potential/nnp/generated_kernels.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "quasar/potential/nnp/pair_walk.cuh"

namespace quasar::nnp {

namespace {

// A double as a literal of the kernel's type T: the same rounding as the tables' cast.
std::string num(double v) {
  if (std::isinf(v)) return v > 0 ? "T(1.0 / 0.0)" : "T(-1.0 / 0.0)";
  char text[40];
  std::snprintf(text, sizeof text, "T(%.17g)", v);
  return text;
}

std::string params(const SfParams<double>& p) {
  std::ostringstream o;
  o << "SfParams<T>{" << p.type << ", " << p.e1 << ", " << p.e2 << ", " << p.shape << ", " << p.alt << ", "
    << p.zeta_int;
  for (double v : {p.rc, p.rlow, p.inner, p.inv_width, p.centre, p.inv_rc, p.eta, p.rs, p.lambda, p.zeta,
                   p.prefactor, p.theta_left, p.theta_right, p.theta_centre, p.theta_inv_width})
    o << ", " << num(v);
  o << "}";
  return o.str();
}

// The zeta_int the tables give an entry (nnp_tables.cuh): -1 beyond their short range.
int entry_zeta_int(const SfParams<double>& f) { return f.zeta_int >= 1 && f.zeta_int < 32768 ? f.zeta_int : -1; }

// The cases of a switch over the neighbour's element e: each envelope of its radial functions once
// (env<index>), then term(s, f, weight, env) per function, weight the element's "Z * " for the weighted
// types and "" otherwise; then the radial factors into fac, `part` ".f" (values) or "" (Fdf).
template <class Term>
void write_radial_cases(std::ostringstream& o, const DescriptorPlan& plan, const std::vector<double>& z,
                        const char* part, Term term) {
  o << "  switch (e) {\n";
  for (std::size_t e = 0; e < plan.radial.size(); ++e) {
    if (plan.radial[e].empty()) continue;
    o << "    case " << e << ": {\n";
    std::map<int, bool> made;
    for (int s : plan.radial[e]) {
      const SfParams<double>& f = plan.functions[s];
      const int env = plan.envelope_of[s];
      if (!made[env])
        o << "      const Fdf<T> env" << env << " = envelope(" << params(plan.envelopes[env]) << ", r);\n";
      made[env] = true;
      term(s, f, sf_weighted(f.type) ? num(z[e]) + " * " : std::string(), "env" + std::to_string(env));
    }
    o << "      break;\n    }\n";
  }
  o << "    default: break;\n  }\n";
  for (std::size_t u = 0; u < plan.factors.size(); ++u)
    o << "  fac[" << u << "] = radial_term(" << params(plan.factors[u]) << ", r, envelope("
      << params(plan.envelopes[plan.factor_envelope[u]]) << ", r))" << part << ";\n";
}

// Per neighbour of element e: its radial terms into acc, its radial factors into fac.
void write_radial(std::ostringstream& o, const DescriptorPlan& plan, const std::vector<double>& z) {
  o << "__device__ __forceinline__ void radial(int e, T r, T* acc, T* fac) {\n";
  write_radial_cases(o, plan, z, ".f",
                     [&](int s, const SfParams<double>& f, const std::string& weight, const std::string& env) {
                       o << "      acc[" << s << "] += " << weight << "radial_term(" << params(f) << ", r, " << env
                         << ").f;\n";
                     });
  o << "}\n\n";
}

// Per neighbour of element e for the forces: sum_s g_s dR_s/dr of its radial terms, and its radial
// factors with their derivatives into fac.
void write_radial_forces(std::ostringstream& o, const DescriptorPlan& plan, const std::vector<double>& z) {
  o << "__device__ __forceinline__ T radial_forces(int e, T r, const T* g, Fdf<T>* fac) {\n  T radial = T(0);\n";
  write_radial_cases(o, plan, z, "",
                     [&](int s, const SfParams<double>& f, const std::string& weight, const std::string& env) {
                       o << "      radial += g[" << s << "] * " << weight << "radial_term(" << params(f) << ", r, "
                         << env << ").df;\n";
                     });
  o << "  return radial;\n}\n\n";
}

// The angular factor of function f at the pair (a Fdf<T> expression).
std::string angle_of(const SfParams<double>& f) {
  if (sf_compact(f.type)) return "window_angle(" + params(f) + ", angle)";
  return "exponential_angle(" + num(f.lambda) + ", " + num(f.zeta) + ", " + std::to_string(entry_zeta_int(f)) + ", " +
         num(f.prefactor) + ", g.cos)";
}

// The cases of a switch over the pair lists: per list its angle (compact types) and Z_j Z_k, the
// `locals`, then per run of one radial factor run(factor, f, jk, first) with jk the name of the list's
// envelope at r_jk ("" for the types without that factor), per function entry(s, f), and `end`.
template <class Run, class Entry>
void write_list_cases(std::ostringstream& o, const DescriptorPlan& plan, const std::vector<double>& z,
                      const char* locals, Run run, Entry entry, const char* end) {
  const int ne = static_cast<int>(plan.radial.size());
  for (int a = 0; a < ne; ++a)
    for (int b = a; b < ne; ++b) {
      const int p = a * ne + b;
      if (plan.angular[p].empty()) continue;
      o << "    case " << p << ": {\n";
      if (plan.angular_needs_angle[p]) o << "      const PairAngle<T> angle = pair_angle(g);\n";
      o << "      const T zz = " << num(z[a] * z[b]) << ";\n      (void)zz;\n      " << locals << "\n";
      std::map<int, bool> made;
      int factor = -1, jk = -1;
      for (int s : plan.angular[p]) {
        const SfParams<double>& f = plan.functions[s];
        const int uses_jk = sf_uses_rjk(f.type) ? 1 : 0;
        if (plan.factor_of[s] != factor || uses_jk != jk) {  // a new run
          const bool first = factor < 0;
          factor = plan.factor_of[s];
          jk = uses_jk;
          std::string name;
          if (uses_jk) {
            const int env = plan.envelope_of[s];
            name = "jk" + std::to_string(env);
            if (!made[env])
              o << "      const Fdf<T> " << name << " = envelope(" << params(plan.envelopes[env]) << ", g.rjk);\n";
            made[env] = true;
          }
          run(factor, f, name, first);
        }
        entry(s, f);
      }
      o << end << "      break;\n    }\n";
    }
}

// Per pair {j, k} of neighbours whose pair list is `list`: its angular terms into acc.
void write_pairs(std::ostringstream& o, const DescriptorPlan& plan, const std::vector<double>& z) {
  o << "__device__ __forceinline__ void pair(int list, const PairGeometry<T>& g, const T* fj, const T* fk, "
       "T* acc) {\n  switch (list) {\n";
  write_list_cases(
      o, plan, z, "T run = T(0);",
      [&](int u, const SfParams<double>& f, const std::string& jk, bool) {
        o << "      run = fj[" << u << "] * fk[" << u << "];\n";
        if (!jk.empty())
          o << "      { const T d = g.rjk - " << num(f.rs) << "; run *= sf_math::exp(-" << num(f.eta) << " * d * d) * "
            << jk << ".f; }\n";
      },
      [&](int s, const SfParams<double>& f) {
        o << "      acc[" << s << "] += " << (sf_weighted(f.type) ? "zz * " : "") << angle_of(f) << ".f * run;\n";
      },
      "");
  o << "    default: break;\n  }\n}\n\n";
}

// Per pair {j, k} for the forces: the sum over the list's functions of g_s times their partials,
// run by run of one radial factor (the order of forces_kernel).
void write_pair_partials(std::ostringstream& o, const DescriptorPlan& plan, const std::vector<double>& z) {
  o << "__device__ __forceinline__ AngularPartials<T> pair_partials(int list, const PairGeometry<T>& g, "
       "const Fdf<T>* fj, const Fdf<T>* fk, const T* gs) {\n  AngularPartials<T> sum;\n  switch (list) {\n";
  write_list_cases(
      o, plan, z, "Fdf<T> rj, rk, rjk, c;",
      [&](int u, const SfParams<double>& f, const std::string& jk, bool first) {
        if (!first) o << "      sum.add(T(1), angular_partials(c, rj, rk, rjk));\n";
        o << "      rj = fj[" << u << "];\n      rk = fk[" << u << "];\n      c = Fdf<T>{};\n";
        if (jk.empty()) {
          o << "      rjk = Fdf<T>{T(1), T(0)};\n";
          return;
        }
        o << "      { const T d = g.rjk - " << num(f.rs) << ", x = sf_math::exp(-" << num(f.eta) << " * d * d); rjk = "
          << "Fdf<T>{x * " << jk << ".f, x * (" << jk << ".df - T(2) * " << num(f.eta) << " * d * " << jk << ".f)}; }\n";
      },
      [&](int s, const SfParams<double>& f) {
        o << "      { const Fdf<T> a = " << angle_of(f) << "; const T gw = gs[" << s << "]"
          << (sf_weighted(f.type) ? " * zz" : "") << "; c.f += gw * a.f; c.df += gw * a.df; }\n";
      },
      "      sum.add(T(1), angular_partials(c, rj, rk, rjk));\n");
  o << "    default: break;\n  }\n  return sum;\n}\n\n";
}

// What the kernels share: the staged neighbours and the pair lists as the pair walk reads them.
constexpr const char* kCommon = R"(
struct Neighbours {
  using value_type = T;
  T* d;
  T* r;
  const int* start;
};
struct Lists {
  int elements;
  const int* pair_start;
  const unsigned char* pair_flags;
  const T* pair_reach;
};

// Neighbour j of a centre's staged row `mine` into shared memory (d, r, 1/r); its distance into rj,
// its element returned.
__device__ __forceinline__ int load_neighbour(const T* mine, int j, const int* start, T* d, T* r, T* inv_r, T& rj) {
  for (int m = 0; m < 3; ++m) d[3 * j + m] = mine[4 * j + m];
  rj = mine[4 * j + 3];
  r[j] = rj;
  inv_r[j] = T(1) / rj;
  int e = 0;
  while (j >= start[e + 1]) ++e;
  return e;
}
)";

// The symmetry-function kernel: neighbours into shared memory, radial terms per neighbour, angular
// terms per pair (the walk of pair_walk.cuh), the sums over the block in a fixed order.
constexpr const char* kFunctionsKernel = R"(
extern "C" __global__ void __launch_bounds__(kCentreBlock, kBlocksPerSm)
    nnp_generated_kernel(const T* staged, const int* staged_start, int capacity, const double* scale,
                            const double* shift, S* x) {
  extern __shared__ double shm[];
  __shared__ int start[kMaxElements + 1];
  __shared__ T partial[kCentreBlock / 32][kFunctions];
  const int c = blockIdx.x, lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (threadIdx.x <= kElements) start[threadIdx.x] = staged_start[c * (kMaxElements + 1) + threadIdx.x];
  __syncthreads();
  const int n = start[kElements];
  T* d = reinterpret_cast<T*>(shm);
  T* r = d + 3 * capacity;
  T* inv_r = r + capacity;
  T* fac = inv_r + capacity;
  unsigned* queue = reinterpret_cast<unsigned*>(fac + capacity * kFactorSlots);
  const T* mine = staged + 4l * c * capacity;
  T acc[kFunctions];
#pragma unroll
  for (int s = 0; s < kFunctions; ++s) acc[s] = T(0);
  for (int j = threadIdx.x; j < n; j += blockDim.x) {
    T rj;
    const int e = load_neighbour(mine, j, start, d, r, inv_r, rj);
    radial(e, rj, acc, fac + j * kFactorSlots);
  }
  __syncthreads();
  const Neighbours nb{d, r, start};
  const Lists lists{kElements, kPairStart, kPairFlags, kPairReach};
  const PairRows walk(nb, lists);
  for_each_pair(nb, lists, walk, queue, [&](int j, int k, bool valid) {
    if (!valid) return;
    int ej = 0, ek = 0;
    while (j >= start[ej + 1]) ++ej;
    while (k >= start[ek + 1]) ++ek;
    const int list = ej < ek ? ej * kElements + ek : ek * kElements + ej;
    pair(list, pair_geometry(d + 3 * j, r[j], inv_r[j], d + 3 * k, r[k], inv_r[k]), fac + j * kFactorSlots,
         fac + k * kFactorSlots, acc);
  });
#pragma unroll
  for (int s = 0; s < kFunctions; ++s) {
    T v = acc[s];
    for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
    if (lane == 0) partial[warp][s] = v;
  }
  __syncthreads();
  for (int s = threadIdx.x; s < kFunctions; s += blockDim.x) {
    T sum = T(0);
    for (int w = 0; w < kCentreBlock / 32; ++w) sum += partial[w][s];
    x[static_cast<long>(c) * kFunctions + s] = static_cast<S>(scale[s] * static_cast<double>(sum) + shift[s]);
  }
}
)";

// The force kernel, with sums per neighbour and into the atoms in floating point (kFixed false) or
// fixed point.
constexpr const char* kForcesKernel = R"(
// The gradient of the centre's energy with respect to each neighbour's displacement from dE/dx
// (dedx, the centre's row), summed as forces_kernel sums it, then the forces and virials (add_forces).
template <bool kFixed>
__device__ void forces_body(const T* staged, const int* staged_start, const int* staged_atom, int capacity,
                            const int* order, const T* dedx, const double* scale, double energy_scale,
                            ForceArrays atoms, double* totals, double* atom_virial, int* status) {
  extern __shared__ double shm[];
  __shared__ int start[kMaxElements + 1];
  __shared__ T g[kFunctions];
  const int c = blockIdx.x;
  if (threadIdx.x <= kElements) start[threadIdx.x] = staged_start[c * (kMaxElements + 1) + threadIdx.x];
  for (int s = threadIdx.x; s < kFunctions; s += blockDim.x)
    g[s] = static_cast<T>(energy_scale * scale[s] * static_cast<double>(dedx[static_cast<long>(c) * kFunctions + s]));
  __syncthreads();
  const int n = start[kElements];
  NeighbourSums<T, kFixed> sums;
  sums.v = reinterpret_cast<typename NeighbourSums<T, kFixed>::Slot*>(shm);
  sums.status = status;
  T* d = reinterpret_cast<T*>(sums.v + 3 * capacity);
  T* r = d + 3 * capacity;
  T* inv_r = r + capacity;
  Fdf<T>* fac = reinterpret_cast<Fdf<T>*>(inv_r + capacity);
  unsigned* queue = reinterpret_cast<unsigned*>(fac + capacity * kFactorSlots);
  const T* mine = staged + 4l * c * capacity;
  for (int j = threadIdx.x; j < n; j += blockDim.x) {
    T rj;
    const int e = load_neighbour(mine, j, start, d, r, inv_r, rj);
    const T radial = radial_forces(e, rj, g, fac + j * kFactorSlots);
    const double own[3] = {static_cast<double>(radial / rj * d[3 * j]), static_cast<double>(radial / rj * d[3 * j + 1]),
                           static_cast<double>(radial / rj * d[3 * j + 2])};
    sums.set(j, own);
  }
  __syncthreads();
  const Neighbours nb{d, r, start};
  const Lists lists{kElements, kPairStart, kPairFlags, kPairReach};
  const PairRows walk(nb, lists);
  for_each_pair(nb, lists, walk, queue, [&](int j, int k, bool valid) {
    T vj[3] = {T(0), T(0), T(0)};
    if (valid) {
      int ej = 0, ek = 0;
      while (j >= start[ej + 1]) ++ej;
      while (k >= start[ek + 1]) ++ek;
      const int list = ej < ek ? ej * kElements + ek : ek * kElements + ej;
      const T* dj = d + 3 * j;
      const T* dk = d + 3 * k;
      const T inv_j = inv_r[j], inv_k = inv_r[k];
      const PairGeometry<T> geo = pair_geometry(dj, r[j], inv_j, dk, r[k], inv_k);
      const AngularTerm<T> t = angular_gradient(
          geo, pair_partials(list, geo, fac + j * kFactorSlots, fac + k * kFactorSlots, g), inv_j, inv_k);
      for (int m = 0; m < 3; ++m) vj[m] = t.jj * dj[m] + t.jk * dk[m];
      sums.add(k, t.jk * dj[0] + t.kk * dk[0], t.jk * dj[1] + t.kk * dk[1], t.jk * dj[2] + t.kk * dk[2]);
    }
    add_per_run(sums, valid ? j : -1, vj);
  });
  __syncthreads();
  const long base = static_cast<long>(c) * capacity;
  add_forces(
      atoms, order[c], n, [&](int j, int m) { return sums.get(j, m); }, [&](int j) { return staged_atom[base + j]; },
      [&](int j, int q) { return static_cast<double>(d[3 * j + q]); }, totals, atom_virial,
      device::AtomicSum<kFixed>{status});
}

extern "C" __global__ void __launch_bounds__(kCentreBlock, kBlocksPerSm)
    nnp_generated_kernel(const T* staged, const int* staged_start, const int* staged_atom, int capacity,
                         const int* order, const T* dedx, const double* scale, double energy_scale, ForceArrays atoms,
                         double* totals, double* atom_virial, int* status) {
  forces_body<kFixed>(staged, staged_start, staged_atom, capacity, order, dedx, scale, energy_scale, atoms, totals,
                      atom_virial, status);
}
)";

}  // namespace

std::string generated_source(const DescriptorPlan& plan, const std::vector<double>& atomic_numbers, bool single,
                             GeneratedKernel kind) {
  const int ne = static_cast<int>(plan.radial.size());
  std::ostringstream o;
  o << "// A kernel of one centre element of one model (written by generated_kernels.cpp).\n"
    << "#include \"quasar/potential/nnp/pair_walk.cuh\"\n"
    << "#include \"quasar/potential/nnp/symmetry_functions.hpp\"\n\n"
    << "namespace quasar::nnp {\n\n"
    << "using T = " << (single ? "float" : "double") << ";\nusing S = T;\n"
    << "constexpr int kElements = " << ne << ";\n"
    << "constexpr int kFunctions = " << plan.functions.size() << ";\n"
    << "constexpr int kFactorSlots = " << std::max<std::size_t>(plan.factors.size(), 1) << ";\n"
    // The register caps of nnp_kernels.cuh (64 in float, 128 in double): 6 or 7 blocks in float
    // were 3 to 5% slower on the H100, 3 in double 1.4%.
    << "constexpr int kBlocksPerSm = " << (single ? 8 : 4) << ";\n"
    << "constexpr bool kFixed = " << (kind == GeneratedKernel::ForcesFixed ? "true" : "false") << ";\n";
  o << "__device__ const int kPairStart[] = {0";
  for (int p = 0, at = 0; p < ne * ne; ++p) o << ", " << (at += static_cast<int>(plan.angular[p].size()));
  o << "};\n__device__ const unsigned char kPairFlags[] = {";
  for (int p = 0; p < ne * ne; ++p)
    o << (p ? ", " : "")
      << ((plan.angular_needs_angle[p] ? kPairNeedsAngle : 0) | (plan.angular_narrow[p] ? kPairNarrow : 0));
  o << "};\n__device__ const T kPairReach[] = {";
  for (int p = 0; p < ne * ne; ++p) o << (p ? ", " : "") << num(plan.angular_reach[p]);
  o << "};\n\n";
  if (kind == GeneratedKernel::Functions) {
    write_radial(o, plan, atomic_numbers);
    write_pairs(o, plan, atomic_numbers);
  } else {
    write_radial_forces(o, plan, atomic_numbers);
    write_pair_partials(o, plan, atomic_numbers);
  }
  o << kCommon << (kind == GeneratedKernel::Functions ? kFunctionsKernel : kForcesKernel)
    << "\n}  // namespace quasar::nnp\n";
  return o.str();
}

std::size_t generated_functions_shared_bytes(int factors, int capacity, bool single) {
  const std::size_t slots = std::max(factors, 1);
  return static_cast<std::size_t>(capacity) * (5 + slots) * (single ? sizeof(float) : sizeof(double)) +
         kPairQueue * (kCentreBlock / 32) * sizeof(unsigned);
}

std::size_t generated_forces_shared_bytes(int factors, int capacity, bool single, bool fixed) {
  const std::size_t slots = std::max(factors, 1), real = single ? sizeof(float) : sizeof(double);
  return static_cast<std::size_t>(capacity) * (3 * (fixed ? 8 : real) + (5 + 2 * slots) * real) +
         kPairQueue * (kCentreBlock / 32) * sizeof(unsigned);
}

}  // namespace quasar::nnp
