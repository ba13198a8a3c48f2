// The Deep Potential's GPU evaluator (deep_potential_gpu.hpp): weights per precision, work
// buffers sized for one chunk, and the sequence of kernels and GEMMs per chunk.
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <cstdlib>
#include <numeric>

#include "quasar/device/array.hpp"
#include "quasar/device/grow.hpp"
#include "quasar/potential/fixed_point_outputs.hpp"
#include "quasar/nn/device_nets.cuh"
#include "quasar/potential/dp/dp_embed_net.cuh"
#include "quasar/potential/dp/dp_kernels.cuh"

namespace quasar::dp {

namespace {

constexpr int kPost = 256;

unsigned blocks(long n, int block) { return grid_for(n, block); }

// Kernels may use more than the default 48 kB of dynamic shared memory once told so.
template <class Kernel>
void allow_shared(Kernel kernel, std::size_t bytes) {
  if (bytes > 48 * 1024)
    QUASAR_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
}

}  // namespace

struct GpuEvaluator::Impl {
  virtual ~Impl() = default;
  virtual void set_extra(const std::vector<double>& v) = 0;
  virtual void compute(AtomsRef atoms, const NeighborRef& list, const int* model_type, const std::vector<int>& count,
                       double* totals, double* atom_energy, double* atom_virial, device::FixedPointSums* fixed,
                       bool outputs_hold_sums) = 0;
  double work = 0;
  long chunk = 0;
};

namespace {

template <class S, class A>
class Evaluator final : public GpuEvaluator::Impl {
 public:
  Evaluator(const DpModel& model, const EmbeddingTables* tables, long chunk_atoms, double work_bytes)
      : m_(gpu_model_constants(model)) {
    const SeE2A& de = model.descriptor;
    for (const nn::Network& n : de.embeddings) emb_.add(n);
    for (const nn::Network& n : model.fitting) fit_.add(n);
    emb_.upload();
    fit_.upload();
    davg_.assign(de.davg);
    dstd_.assign(de.dstd);
    for (const nn::Network& n : de.embeddings)
      for (const nn::Layer& L : n.layers) emb_width_ = std::max(emb_width_, L.out);
    fit_width_ = m_.fit_in;
    for (const nn::Network& n : model.fitting)
      for (const nn::Layer& L : n.layers) fit_width_ = std::max(fit_width_, L.out);
    max_sel_ = *std::max_element(de.sel.begin(), de.sel.end());
    for (const nn::Network& n : model.fitting) {
      int s = 0;
      for (const nn::Layer& L : n.layers) s += L.out;
      fit_outputs_ = std::max(fit_outputs_, s);
    }
    if (tables) {
      compressed_ = true;
      table_.m = tables->m;
      table_.n0 = tables->n0;
      table_.n1 = tables->n1;
      table_.lower = static_cast<A>(tables->lower);
      table_.upper = static_cast<A>(tables->upper);
      table_.max = static_cast<A>(tables->max);
      table_.stride0 = static_cast<A>(tables->stride0);
      table_.stride1 = static_cast<A>(tables->stride1);
      coef_.assign(std::vector<A>(tables->coef.begin(), tables->coef.end()));
      table_.coef = coef_.data();
      pad_.assign(padding_sums(model, *tables));
    }
    fused_ = !compressed_ && fused_net_fits(de);
    cublas_check(cublasCreate(&cublas_), "cublasCreate");
    // cuBLAS's default, stated: no GEMM algorithm that sums with atomics, so that on one GPU model
    // and toolkit every GEMM gives the same bits each run (all of them run on one stream).
    cublas_check(cublasSetAtomicsMode(cublas_, CUBLAS_ATOMICS_NOT_ALLOWED), "cublasSetAtomicsMode");
    chunk = chunk_atoms > 0 ? chunk_atoms : std::max(256L, static_cast<long>(work_bytes / bytes_per_atom()));
    work = chunk * bytes_per_atom();
  }
  ~Evaluator() override { cublasDestroy(cublas_); }

  void set_extra(const std::vector<double>& v) override { extra_.assign(v); }

  void compute(AtomsRef a, const NeighborRef& list, const int* model_type, const std::vector<int>& count,
               double* totals, double* atom_energy, double* atom_virial, device::FixedPointSums* fixed,
               bool outputs_hold_sums) override {
    const int n = a.n;
    if (n == 0) return;
    order_by_type(a, model_type);
    const long nc_max = std::min<long>(chunk, *std::max_element(count.begin(), count.end()));
    reserve(nc_max);
    if (!fixed) {
      run_chunks(a, list, model_type, count, totals, atom_energy, atom_virial, device::FloatSum{});
      return;
    }
    // Deterministic: forces, per-atom virials and totals summed in fixed point, converted once.
    const FixedPointOutputs::Targets t = fixed_outputs_.begin(a, atom_virial, outputs_hold_sums);
    run_chunks(t.atoms, list, model_type, count, totals, atom_energy, t.atom_virial, device::FixedSum{fixed->start()});
    fixed_outputs_.finish(*fixed, a, atom_virial, totals);
  }

 private:
  double bytes_per_atom() const {
    const double rows = m_.nnei, emb_rows = max_sel_;
    double b = rows * (sizeof(int) + 3 * sizeof(double) + 4 * sizeof(A));  // environment
    if (!compressed_) {
      b += rows * 2.0 * m_.m * sizeof(A);  // G, dG
      if (!fused_) {
        b += emb_rows * 2.0 * 2 * emb_width_ * sizeof(S);                         // layer ping-pong
        if (!std::is_same_v<S, A>) b += emb_rows * 2.0 * emb_width_ * sizeof(A);  // GEMM output
      }
    }
    b += 4.0 * m_.m * sizeof(A) + (fit_outputs_ + 3.0 * fit_width_) * sizeof(A) + 3.0 * fit_width_ * sizeof(S);
    return b;
  }

  void reserve(long nc) {
    const long rows = nc * m_.nnei, emb_rows = nc * max_sel_;
    grow(nbr_, rows);
    grow(filled_, nc * m_.ntypes);
    grow(disp_, 3 * rows);
    grow(rhat_, 4 * rows);
    if (!compressed_) grow(gf_, 2 * rows * m_.m);
    if (!compressed_ && !fused_) {
      grow(es_[0], 2 * emb_rows * emb_width_);
      grow(es_[1], 2 * emb_rows * emb_width_);
      if (!std::is_same_v<S, A>) grow(ez_, 2 * emb_rows * emb_width_);
    }
    grow(gr_, 4 * nc * m_.m);
    grow(deriv_, nc * fit_outputs_);
    for (auto* b : {&fa_[0], &fa_[1], &fa_[2]}) grow(*b, nc * fit_width_);
    for (auto* b : {&fs_[0], &fs_[1], &fs_[2]}) grow(*b, nc * fit_width_);
  }

  // Centres ordered by model type (stable; the counts come from the host), ghosts after them.
  void order_by_type(AtomsRef a, const int* model_type) {
    const int n = a.n;
    grow(order_, n);
    if (m_.ntypes == 1 && a.n_local == n) {
      if (order_size_ != n) {
        std::vector<int> id(n);
        std::iota(id.begin(), id.end(), 0);
        order_.upload(id.data(), n);
        order_size_ = n;
      }
      return;
    }
    order_size_ = -1;
    grow(keys_, 2L * n);
    grow(idx_, n);
    type_keys(a, model_type, keys_.data(), idx_.data());
    std::size_t temp = 0;
    const int bits = 32 - __builtin_clz(static_cast<unsigned>(m_.ntypes));
    cub::DeviceRadixSort::SortPairs(nullptr, temp, keys_.data(), keys_.data() + n, idx_.data(), order_.data(), n, 0, bits);
    grow(temp_, temp);
    cub::DeviceRadixSort::SortPairs(temp_.data(), temp, keys_.data(), keys_.data() + n, idx_.data(), order_.data(), n, 0,
                                    bits);
  }
  void type_keys(AtomsRef a, const int* model_type, int* keys, int* idx);

  template <class Sum>
  void run_chunks(AtomsRef a, const NeighborRef& list, const int* model_type, const std::vector<int>& count,
                  double* totals, double* atom_energy, double* atom_virial, Sum add) {
    for (int ti = 0, start = 0; ti < m_.ntypes; start += count[ti], ++ti) {
      if (m_.atom_excluded[ti]) continue;  // no energy and no force from these centres
      for (int first = 0; first < count[ti]; first += static_cast<int>(chunk)) {
        const ChunkRef c{static_cast<int>(std::min<long>(chunk, count[ti] - first)), ti, order_.data() + start + first};
        run_chunk(a, list, model_type, c, totals, atom_energy, atom_virial, add);
      }
    }
  }

  template <class Sum>
  void run_chunk(AtomsRef a, const NeighborRef& list, const int* model_type, const ChunkRef& c, double* totals,
                 double* atom_energy, double* atom_virial, Sum add) {
    const std::size_t env_shm = list.capacity * (sizeof(double) + sizeof(int));
    environment_kernel<A><<<c.nc, kAtomBlock, env_shm>>>(m_, a, list, model_type, c, davg_.data(), dstd_.data(),
                                                         nbr_.data(), disp_.data(), rhat_.data(), filled_.data());
    QUASAR_LAUNCH_CHECK("dp environment_kernel");
    const std::size_t force_shm = 8 * m_.m * sizeof(A);
    const double* extra = extra_.size() ? extra_.data() : nullptr;
    if (compressed_) {
      const std::size_t desc_shm = descriptor_shared_bytes<TableSource<A>, A>(m_.m, m_.nnei);
      allow_shared(descriptor_kernel<S, A, TableSource<A>>, desc_shm);
      descriptor_kernel<S, A><<<c.nc, kAtomBlock, desc_shm>>>(m_, c, a.id, rhat_.data(), table_, filled_.data(),
                                                             pad_.data(), extra, gr_.data(), fs_[0].data());
    } else {
      embedding(c);
      const std::size_t desc_shm = descriptor_shared_bytes<GemmSource<A>, A>(m_.m, m_.nnei);
      allow_shared(descriptor_kernel<S, A, GemmSource<A>>, desc_shm);
      descriptor_kernel<S, A><<<c.nc, kAtomBlock, desc_shm>>>(m_, c, a.id, rhat_.data(), GemmSource<A>{gf_.data(), m_.m},
                                                             nullptr, nullptr, extra, gr_.data(), fs_[0].data());
    }
    QUASAR_LAUNCH_CHECK("dp descriptor_kernel");
    const A* gD = fitting(c, totals, atom_energy, add);
    if (compressed_)
      force_kernel<A><<<c.nc, kAtomBlock, force_shm>>>(m_, c, a, gr_.data(), gD, rhat_.data(), nbr_.data(),
                                                       disp_.data(), dstd_.data(), filled_.data(), table_, totals,
                                                       atom_virial, add);
    else
      force_kernel<A><<<c.nc, kAtomBlock, force_shm>>>(m_, c, a, gr_.data(), gD, rhat_.data(), nbr_.data(),
                                                       disp_.data(), dstd_.data(), filled_.data(),
                                                       GemmSource<A>{gf_.data(), m_.m}, totals, atom_virial, add);
    QUASAR_LAUNCH_CHECK("dp force_kernel");
  }

  // Embedding nets in forward mode, per neighbour type: [G; dG/ds] into gf_.
  void embedding(const ChunkRef& c) {
    for (int t = 0; t < m_.ntypes; ++t) {
      const long R = static_cast<long>(c.nc) * m_.sel[t];
      if (R == 0) continue;
      const auto& net = emb_[m_.type_one_side ? t : c.ti + t * m_.ntypes];
      const int last = static_cast<int>(net.layers.size()) - 1;
      A* out_final = gf_.data() + 2L * c.nc * m_.sec[t] * m_.m;
      const A* rh = rhat_.data() + 4L * c.nc * m_.sec[t];
      if constexpr (std::is_same_v<S, A>) {
        if (fused_) {
          EmbedNetRef<A> ref;
          ref.layers = last + 1;
          ref.ld[0] = net_ld_[0];
          ref.ld[1] = net_ld_[1];
          for (int l = 0; l <= last; ++l) ref.layer[l] = net.layers[l];
          const std::size_t shm = embed_net_shared_bytes<A>(net_ld_);
          allow_shared(embed_net_kernel<A>, shm);
          embed_net_kernel<A><<<blocks(R, kNetRows), 32 * kNetWarps, shm>>>(R, ref, rh, out_final);
          QUASAR_LAUNCH_CHECK("dp embed_net_kernel");
          continue;
        }
      }
      if (last == 0) {
        embed_first_kernel<<<blocks(R * net.layers[0].out, kPost), kPost>>>(R, net.layers[0], rh, out_final);
        continue;
      }
      embed_first_kernel<<<blocks(R * net.layers[0].out, kPost), kPost>>>(R, net.layers[0], rh, es_[0].data());
      QUASAR_LAUNCH_CHECK("dp embed_first_kernel");
      for (int l = 1; l <= last; ++l) {
        const auto& L = net.layers[l];
        const S* in = es_[(l - 1) % 2].data();
        if (l == last) {
          gemm<S, A>(cublas_, 2 * R, L.in, L.out, in, L.w, out_final, false);
          nn::tangent_post_kernel<<<blocks(R * L.out, kPost), kPost>>>(R, L, out_final, in, out_final);
        } else {
          S* out = es_[l % 2].data();
          A* z = std::is_same_v<S, A> ? reinterpret_cast<A*>(out) : ez_.data();
          gemm<S, A>(cublas_, 2 * R, L.in, L.out, in, L.w, z, false);
          nn::tangent_post_kernel<<<blocks(R * L.out, kPost), kPost>>>(R, L, z, in, out);
        }
        QUASAR_LAUNCH_CHECK("dp tangent_post_kernel");
      }
    }
  }

  // Whether every embedding net can run as one fused kernel (double or mixed32, on compute
  // capability 9.0 or later: two or more layers, the hidden ones narrow enough for shared
  // memory); sets net_ld_. mixed16 keeps the layer-by-layer half-precision GEMMs, and so does every
  // precision with QUASAR_DP_LAYERWISE=1 in the environment (to test that path on such GPUs).
  bool fused_net_fits(const SeE2A& de) {
    if (!std::is_same_v<S, A> || std::getenv("QUASAR_DP_LAYERWISE")) return false;
    int major = 0, dev = 0;
    QUASAR_CUDA_CHECK(cudaGetDevice(&dev));
    QUASAR_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    if (major < 9) return false;
    int hidden[2] = {1, 1};  // widest hidden layer of even and odd index
    for (const nn::Network& n : de.embeddings) {
      const int layers = static_cast<int>(n.layers.size());
      if (layers < 2 || layers > kNetMaxLayers || n.layers[0].in != 1) return false;
      for (int l = 0; l + 1 < layers; ++l) hidden[l % 2] = std::max(hidden[l % 2], n.layers[l].out);
    }
    for (int p = 0; p < 2; ++p) net_ld_[p] = net_stride(hidden[p]);
    return embed_net_shared_bytes<A>(net_ld_) <= kNetMaxShared;
  }

  // Fitting net forward and backward; returns dE/d(fitting input) (nc x fit_in).
  template <class Sum>
  const A* fitting(const ChunkRef& c, double* totals, double* atom_energy, Sum add) {
    const auto& net = fit_[c.ti];
    const int last = static_cast<int>(net.layers.size()) - 1;
    const long nc = c.nc;
    std::vector<A*> deriv(last);
    for (int l = 0, off = 0; l < last; off += net.layers[l].out, ++l) deriv[l] = deriv_.data() + nc * off;
    // Forward: S ping-pong in fs_, the last hidden layer's output in A (fa_[0]).
    for (int l = 0; l < last; ++l) {
      const auto& L = net.layers[l];
      const S* in = fs_[l % 2].data();
      A* z = fa_[1].data();
      gemm<S, A>(cublas_, nc, L.in, L.out, in, L.w, z, false);
      if (l == last - 1) nn::dense_post_kernel<<<blocks(nc * L.out, kPost), kPost>>>(nc, L, z, in, fa_[0].data(), deriv[l]);
      else nn::dense_post_kernel<<<blocks(nc * L.out, kPost), kPost>>>(nc, L, z, in, fs_[(l + 1) % 2].data(), deriv[l]);
      QUASAR_LAUNCH_CHECK("dp dense_post_kernel");
    }
    fit_last_kernel<<<blocks(nc * 32, kPost), kPost>>>(m_, c, net.layers[last], fa_[0].data(), deriv[last - 1],
                                                       fa_[1].data(), fs_[2].data(), totals, atom_energy, add);
    QUASAR_LAUNCH_CHECK("dp fit_last_kernel");
    // Backward: g (A) alternates fa_[1] / fa_[2], gp (S) alternates fs_[2] / fs_[0].
    int g = 1, gp = 2;
    for (int l = last - 1; l >= 0; --l) {
      const auto& L = net.layers[l];
      A* g_in = fa_[3 - g].data();
      gemm<S, A>(cublas_, nc, L.in, L.out, fs_[gp].data(), L.w, g_in, true);
      S* gp_in = fs_[gp == 2 ? 0 : 2].data();
      nn::dense_back_kernel<<<blocks(nc * L.in, kPost), kPost>>>(nc, L, g_in, fa_[g].data(), l > 0 ? deriv[l - 1] : nullptr,
                                                          g_in, gp_in);
      QUASAR_LAUNCH_CHECK("dp dense_back_kernel");
      g = 3 - g;
      gp = gp == 2 ? 0 : 2;
    }
    return fa_[g].data();
  }

  // Padding rows (R = 0) of the tabulated nets: G (x) R_hat summed from each slot to the end of
  // its type, per centre type ([ti][slot][M][4], as descriptor_kernel reads it).
  static std::vector<A> padding_sums(const DpModel& model, const EmbeddingTables& tab) {
    const SeE2A& de = model.descriptor;
    const int nt = model.ntypes(), nnei = de.nnei(), M = tab.m;
    std::vector<double> sum(static_cast<std::size_t>(nt) * nnei * M * 4, 0.0), y(M), dy(M);
    for (int ti = 0; ti < nt; ++ti)
      for (int t = 0, sec = 0; t < nt; sec += de.sel[t], ++t)
        for (int s = de.sel[t] - 1; s >= 0; --s) {
          const std::size_t slot = static_cast<std::size_t>(ti) * nnei + sec + s, at = slot * 4;
          double rh[4];
          for (int k = 0; k < 4; ++k) rh[k] = -de.davg[at + k] / de.dstd[at + k];
          tab.eval(de.type_one_side ? t : ti + t * nt, rh[0], y.data(), dy.data());
          for (int q = 0; q < M; ++q)
            for (int k = 0; k < 4; ++k)
              sum[(slot * M + q) * 4 + k] = y[q] * rh[k] + (s + 1 < de.sel[t] ? sum[((slot + 1) * M + q) * 4 + k] : 0.0);
        }
    return std::vector<A>(sum.begin(), sum.end());
  }

  GpuModel m_;
  nn::DeviceNets<S, A> emb_, fit_;
  bool compressed_ = false, fused_ = false;
  int net_ld_[2] = {0, 0};
  TableSource<A> table_{};
  Array<A> coef_{Backend::Cuda};
  Array<double> davg_{Backend::Cuda}, dstd_{Backend::Cuda}, extra_{Backend::Cuda};
  int emb_width_ = 1, fit_width_ = 1, max_sel_ = 1, fit_outputs_ = 0;
  cublasHandle_t cublas_ = nullptr;
  Array<int> order_{Backend::Cuda}, keys_{Backend::Cuda}, idx_{Backend::Cuda};
  Array<char> temp_{Backend::Cuda};
  int order_size_ = -1;
  Array<int> nbr_{Backend::Cuda}, filled_{Backend::Cuda};
  Array<A> pad_{Backend::Cuda};
  Array<double> disp_{Backend::Cuda};
  Array<A> rhat_{Backend::Cuda}, gf_{Backend::Cuda}, ez_{Backend::Cuda}, gr_{Backend::Cuda}, deriv_{Backend::Cuda};
  Array<S> es_[2] = {Array<S>{Backend::Cuda}, Array<S>{Backend::Cuda}};
  Array<A> fa_[3] = {Array<A>{Backend::Cuda}, Array<A>{Backend::Cuda}, Array<A>{Backend::Cuda}};
  Array<S> fs_[3] = {Array<S>{Backend::Cuda}, Array<S>{Backend::Cuda}, Array<S>{Backend::Cuda}};
  FixedPointOutputs fixed_outputs_;
};

__global__ void type_keys_kernel(AtomsRef a, const int* model_type, int ntypes, int* keys, int* idx) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  keys[i] = a.id[i] < a.n_local ? model_type[a.type[i]] : ntypes;  // ghosts after every centre
  idx[i] = i;
}

template <class S, class A>
void Evaluator<S, A>::type_keys(AtomsRef a, const int* model_type, int* keys, int* idx) {
  type_keys_kernel<<<blocks(a.n, kPost), kPost>>>(a, model_type, m_.ntypes, keys, idx);
  QUASAR_LAUNCH_CHECK("dp type_keys_kernel");
}

}  // namespace

GpuEvaluator::GpuEvaluator(const DpModel& model, const EmbeddingTables* tables, Precision precision, long chunk_atoms,
                           double work_bytes) {
  switch (precision) {
    case Precision::Double: impl_ = std::make_unique<Evaluator<double, double>>(model, tables, chunk_atoms, work_bytes); break;
    case Precision::Mixed32: impl_ = std::make_unique<Evaluator<float, float>>(model, tables, chunk_atoms, work_bytes); break;
    case Precision::Mixed16: impl_ = std::make_unique<Evaluator<__half, float>>(model, tables, chunk_atoms, work_bytes); break;
  }
}
GpuEvaluator::~GpuEvaluator() = default;
void GpuEvaluator::set_extra(const std::vector<double>& v) { impl_->set_extra(v); }
void GpuEvaluator::compute(AtomsRef atoms, const NeighborRef& list, const int* model_type,
                           const std::vector<int>& type_counts, double* totals, double* atom_energy,
                           double* atom_virial, device::FixedPointSums* fixed, bool outputs_hold_sums) {
  impl_->compute(atoms, list, model_type, type_counts, totals, atom_energy, atom_virial, fixed, outputs_hold_sums);
}
double GpuEvaluator::work_bytes() const { return impl_->work; }
long GpuEvaluator::chunk_atoms() const { return impl_->chunk; }

}  // namespace quasar::dp
