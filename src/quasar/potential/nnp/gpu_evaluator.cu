// The GPU evaluator of Behler-Parrinello potentials (gpu_evaluator.hpp): tables and networks per
// precision, work buffers sized for the largest element, and the sequence of kernels and GEMMs.
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <string>
#include <numeric>

#include "quasar/device/array.hpp"
#include "quasar/device/grow.hpp"
#include "quasar/potential/fixed_point_outputs.hpp"
#include "quasar/nn/device_nets.cuh"
#include "quasar/potential/nnp/generated_kernels.hpp"
#include "quasar/potential/nnp/gpu_evaluator.hpp"
#include "quasar/potential/nnp/nnp_kernels.cuh"
#include "quasar/potential/nnp/nnp_tables.cuh"

namespace quasar::nnp {

namespace {

constexpr int kPost = 256;
// Shared memory a functions block uses at most unless its neighbours alone need more: beyond it the
// functions are taken in several passes over the pairs (fewer blocks fit on a multiprocessor as a
// block takes more).
constexpr std::size_t kFunctionsShared = 64 * 1024;
// The most bytes of staged neighbours and their gradients that the generated kernels keep at once:
// centres are taken in chunks.
constexpr std::size_t kStagedBytes = 256u << 20;

// Whether the symmetry functions take the kernels compiled for the model at run time
// (generated_kernels.hpp) where they can: QUASAR_NNP_KERNELS=tables keeps the table kernels.
bool generated_kernels_wanted() {
  const char* v = std::getenv("QUASAR_NNP_KERNELS");
  if (!v || std::string(v) == "generated") return true;
  if (std::string(v) == "tables") return false;
  throw Error("QUASAR_NNP_KERNELS is \"" + std::string(v) + "\": generated or tables");
}

__global__ void element_keys_kernel(AtomsRef a, const int* element_of, int elements, int* keys, int* idx) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  keys[i] = a.id[i] < a.n_local ? element_of[a.type[i]] : elements;  // ghosts after every centre
  idx[i] = i;
}

template <class S, class A>
__global__ void output_gradient_kernel(long rows, const A* deriv, S* gp) {
  const long r = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (r < rows) gp[r] = nn::to<S>(static_cast<double>(deriv[r]));
}

}  // namespace

struct GpuEvaluator::Impl {
  virtual ~Impl() = default;
  virtual void compute(AtomsRef atoms, const NeighborRef& list, const int* element_of, const std::vector<int>& counts,
                       double* totals, double* atom_energy, double* atom_virial, device::FixedPointSums* fixed,
                       bool outputs_hold_sums) = 0;
};

namespace {

// T: the arithmetic of the symmetry functions; S, A: the networks' operands and arithmetic.
template <class T, class S, class A>
class Evaluator final : public GpuEvaluator::Impl {
 public:
  Evaluator(const Descriptor& descriptor, const PreparedModel& prepared) : prepared_(&prepared) {
    const int ne = descriptor.element_count();
    if (ne > kMaxElements)
      throw Error("nnp: the GPU evaluates models of up to " + std::to_string(kMaxElements) + " elements, not " +
                  std::to_string(ne));
    std::vector<T> z;
    for (double v : descriptor.atomic_numbers()) z.push_back(static_cast<T>(v));
    atomic_number_.assign(z);
    for (int e = 0; e < ne; ++e) {
      Element el;
      el.upload(descriptor.plan(e), ne);
      el.tables.atomic_number = atomic_number_.data();
      const PreparedElement& pe = prepared.elements[static_cast<std::size_t>(e)];
      el.scale.assign(pe.scale);
      el.shift.assign(pe.shift);
      nets_.add(pe.net);
      int outputs = 0;
      for (const nn::Layer& L : pe.net.layers) {
        width_ = std::max({width_, L.in, L.out});
        outputs += L.out;
      }
      outputs_ = std::max(outputs_, outputs);
      elements_.push_back(std::move(el));
    }
    nets_.upload();
    // The elements' own kernels (generated_kernels.hpp), compiled at once; those with fixed-point
    // sums when first asked for.
    if (generated_kernels_wanted()) {
      for (int e = 0; e < ne; ++e) {
        const int nf = elements_[e].tables.count;
        if (nf > 0 && nf <= kGeneratedMaxFunctions) generated_.push_back(e);
        descriptor_plans_.push_back(descriptor.plan(e));
      }
      atomic_numbers_ = descriptor.atomic_numbers();
      compile({GeneratedKernel::Functions, GeneratedKernel::Forces});
    }
    int device = 0, optin = 0;
    QUASAR_CUDA_CHECK(cudaGetDevice(&device));
    QUASAR_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    max_shared_ = static_cast<std::size_t>(optin);
    nn::cublas_check(cublasCreate(&cublas_), "cublasCreate");
    // No GEMM algorithm that sums with atomics: the same bits every run on one GPU model.
    nn::cublas_check(cublasSetAtomicsMode(cublas_, CUBLAS_ATOMICS_NOT_ALLOWED), "cublasSetAtomicsMode");
  }
  ~Evaluator() override { cublasDestroy(cublas_); }

  void compute(AtomsRef a, const NeighborRef& list, const int* element_of, const std::vector<int>& counts,
               double* totals, double* atom_energy, double* atom_virial, device::FixedPointSums* fixed,
               bool outputs_hold_sums) override {
    const int n = a.n;
    if (n == 0) return;
    order_by_element(a, element_of);
    if (!fixed) {
      run(a, list, element_of, counts, totals, atom_energy, atom_virial, device::FloatSum{});
      return;
    }
    // Deterministic: forces, per-atom virials and totals summed in fixed point, converted once.
    const FixedPointOutputs::Targets t = fixed_outputs_.begin(a, atom_virial, outputs_hold_sums);
    run(t.atoms, list, element_of, counts, totals, atom_energy, t.atom_virial, device::FixedSum{fixed->start()});
    fixed_outputs_.finish(*fixed, a, atom_virial, totals);
  }

 private:
  // A centre element's tables (nnp_tables.cuh) and its inputs' scale and shift.
  struct Element : DeviceTables<T> {
    Array<double> scale{Backend::Cuda}, shift{Backend::Cuda};
    // The generated kernels, when taken (by GeneratedKernel).
    std::unique_ptr<device::RuntimeModule> modules[3];
    const void* generated[3] = {nullptr, nullptr, nullptr};
  };

  // Compiles the generated kernels of `kinds` for the elements that take them, all at once.
  void compile(const std::vector<GeneratedKernel>& kinds) {
    std::vector<std::string> sources;
    for (int e : generated_)
      for (GeneratedKernel k : kinds)
        sources.push_back(generated_source(descriptor_plans_.at(e), atomic_numbers_, sizeof(T) == sizeof(float), k));
    auto modules = device::RuntimeModule::compile_all(sources, generated_kernel_headers(), "nnp element kernels");
    std::size_t m = 0;
    for (int e : generated_)
      for (GeneratedKernel k : kinds) {
        Element& el = elements_[e];
        el.modules[static_cast<int>(k)] = std::move(modules[m++]);
        el.generated[static_cast<int>(k)] = el.modules[static_cast<int>(k)]->kernel(kGeneratedKernel);
      }
  }

  void order_by_element(AtomsRef a, const int* element_of) {
    const int n = a.n;
    grow(order_, n);
    grow(keys_, 2L * n);
    grow(idx_, n);
    const int ne = static_cast<int>(elements_.size());
    element_keys_kernel<<<grid_for(n, kPost), kPost>>>(a, element_of, ne, keys_.data(), idx_.data());
    QUASAR_LAUNCH_CHECK("nnp element_keys_kernel");
    std::size_t temp = 0;
    const int bits = 32 - __builtin_clz(static_cast<unsigned>(ne));
    cub::DeviceRadixSort::SortPairs(nullptr, temp, keys_.data(), keys_.data() + n, idx_.data(), order_.data(), n, 0,
                                    bits);
    grow(temp_, temp);
    cub::DeviceRadixSort::SortPairs(temp_.data(), temp, keys_.data(), keys_.data() + n, idx_.data(), order_.data(), n,
                                    0, bits);
  }

  template <class Sum>
  void run(AtomsRef a, const NeighborRef& list, const int* element_of, const std::vector<int>& counts, double* totals,
           double* atom_energy, double* atom_virial, Sum add) {
    const long rows_max = *std::max_element(counts.begin(), counts.end());
    if (rows_max == 0) return;
    for (auto* b : {&ys_[0], &ys_[1], &gp_[0], &gp_[1]}) grow(*b, rows_max * width_);
    for (auto* b : {&za_, &ga_}) grow(*b, rows_max * width_);
    grow(deriv_, rows_max * outputs_);
    for (std::size_t e = 0, start = 0; e < elements_.size(); start += counts[e], ++e) {
      const int count = counts[e];
      if (count == 0) continue;
      const int* order = order_.data() + start;
      const Element& el = elements_[e];
      const int nf = el.tables.count;
      // 1. Symmetry functions into the network's input rows.
      const int cap = list.capacity, nfac = el.tables.factor_count;
      if (cap >= 65536) throw Error("nnp: more than 65535 neighbours per atom");
      S* x = ys_[0].data();
      if (el.generated[static_cast<int>(GeneratedKernel::Functions)])
        generated_functions(a, list, element_of, order, count, el, x);
      else
        table_functions(a, list, element_of, order, count, el, x);
      // 2. The network forward (keeping act'), the energies, and back to dE/dx.
      const auto& net = nets_[e];
      const int layers = static_cast<int>(net.layers.size());
      std::vector<A*> deriv(layers);
      for (int l = 0, off = 0; l < layers; off += net.layers[l].out, ++l) deriv[l] = deriv_.data() + count * off;
      const S* in = x;
      for (int l = 0; l < layers; ++l) {
        const auto& L = net.layers[l];
        A* z = za_.data();
        nn::gemm<S, A>(cublas_, count, L.in, L.out, in, L.w, z, false);
        S* out = ys_[(l + 1) % 2].data();
        nn::dense_post_kernel<<<grid_for(static_cast<long>(count) * L.out, kPost), kPost>>>(count, L, z, in, out,
                                                                                             deriv[l]);
        QUASAR_LAUNCH_CHECK("nnp dense_post_kernel");
        in = out;
      }
      const PreparedElement& pe = prepared_->elements[e];
      energy_kernel<S><<<grid_for(count, kCentreBlock), kCentreBlock>>>(count, order, in, prepared_->energy_scale,
                                                                        pe.energy_offset, atom_energy, totals, add);
      QUASAR_LAUNCH_CHECK("nnp energy_kernel");
      output_gradient_kernel<<<grid_for(count, kPost), kPost>>>(count, deriv[layers - 1], gp_[0].data());
      QUASAR_LAUNCH_CHECK("nnp output_gradient_kernel");
      int g = 0;
      for (int l = layers - 1; l >= 0; --l) {
        const auto& L = net.layers[l];
        A* g_in = ga_.data();
        nn::gemm<S, A>(cublas_, count, L.in, L.out, gp_[g].data(), L.w, g_in, true);
        if (l > 0) {
          nn::dense_back_kernel<<<grid_for(static_cast<long>(count) * L.in, kPost), kPost>>>(
              count, L, g_in, static_cast<const A*>(nullptr), deriv[l - 1], g_in, gp_[1 - g].data());
          QUASAR_LAUNCH_CHECK("nnp dense_back_kernel");
          g = 1 - g;
        }
      }
      // 3. Forces and virials from dE/dx (in ga_).
      if (el.generated[static_cast<int>(GeneratedKernel::Forces)]) {
        generated_forces(a, list, element_of, order, count, el, totals, atom_virial, add);
        continue;
      }
      const std::size_t shm = forces_shared_bytes<T, Sum::fixed>(cap, nfac, nf, entry_bytes(el.tables));
      const void* forces = reinterpret_cast<const void*>(&forces_kernel<T, A, Sum>);
      if (shm > dynamic_limit(forces))
        throw Error("nnp: the neighbours of one atom (" + std::to_string(cap) + "), their " + std::to_string(nfac) +
                    " radial factors and " + std::to_string(nf) + " functions do not fit in shared memory");
      allow_shared(forces, shm);
      forces_kernel<T, A><<<count, kCentreBlock, shm>>>(a, list, element_of, order, el.tables, el.scale.data(),
                                                       prepared_->energy_scale, ga_.data(), totals, atom_virial, add);
      QUASAR_LAUNCH_CHECK("nnp forces_kernel");
    }
  }

  // The symmetry functions of `count` centres of element `el` into x by the table kernel, in passes of
  // as many functions as fit.
  void table_functions(AtomsRef a, const NeighborRef& list, const int* element_of, const int* order, int count,
                       const Element& el, S* x) {
    const int cap = list.capacity, nfac = el.tables.factor_count, nf = el.tables.count;
    const std::size_t fixed_part = functions_shared_bytes<T>(cap, nfac, 0, entry_bytes(el.tables));
    const void* functions = reinterpret_cast<const void*>(&functions_kernel<T, S>);
    const std::size_t functions_limit = dynamic_limit(functions);
    if (fixed_part + kCentreBlock * sizeof(T) > functions_limit)  // not even one function per pass
      throw Error("nnp: the neighbours of one atom (" + std::to_string(cap) + ") and their " + std::to_string(nfac) +
                  " radial factors do not fit in shared memory");
    const std::size_t column = kCentreBlock * sizeof(T);
    const std::size_t budget = std::min(functions_limit, std::max(kFunctionsShared, fixed_part + column));
    const int per_pass = static_cast<int>((budget - fixed_part) / column);
    for (int first = 0; first < nf; first += per_pass) {
      ElementTables<T> part = el.tables;
      part.count = std::min(per_pass, nf - first);
      part.first = first;
      const std::size_t shm = functions_shared_bytes<T>(cap, nfac, part.count, entry_bytes(el.tables));
      allow_shared(functions, shm);
      functions_kernel<T, S><<<count, kCentreBlock, shm>>>(a, list, element_of, order, part, el.scale.data(),
                                                          el.shift.data(), x, nf);
      QUASAR_LAUNCH_CHECK("nnp functions_kernel");
    }
  }

  // Centres per chunk of the generated kernels' staged neighbours.
  int generated_chunk(int capacity, int count) const {
    const std::size_t per_centre = static_cast<std::size_t>(capacity) * (4 * sizeof(T) + sizeof(int));
    return static_cast<int>(std::clamp<std::size_t>(kStagedBytes / per_centre, 1, count));
  }

  // Stages the neighbours of the centres order[0..m) (stage_kernel) into staged_ and its companions.
  void stage(AtomsRef a, const NeighborRef& list, const int* element_of, const int* order, int m, const Element& el) {
    const int cap = list.capacity, chunk = generated_chunk(cap, m);
    grow(staged_, static_cast<std::size_t>(chunk) * cap * 4);
    grow(staged_start_, static_cast<std::size_t>(chunk) * (kMaxElements + 1));
    grow(staged_atom_, static_cast<std::size_t>(chunk) * cap);
    const std::size_t shm = staged_bytes<T>(cap);
    allow_shared(reinterpret_cast<const void*>(&stage_kernel<T>), shm);
    stage_kernel<T><<<m, kCentreBlock, shm>>>(a, list, element_of, order, el.tables.cutoff, el.tables.elements,
                                             staged_.data(), staged_start_.data(), staged_atom_.data());
    QUASAR_LAUNCH_CHECK("nnp stage_kernel");
  }

  // Launches a generated kernel after checking and raising its shared memory.
  void launch(const void* kernel, int blocks, std::size_t shm, void** args) {
    if (shm > dynamic_limit(kernel)) throw Error("nnp: the neighbours of one atom do not fit in shared memory");
    allow_shared(kernel, shm);
    QUASAR_CUDA_CHECK(cudaLaunchKernel(kernel, dim3(blocks), dim3(kCentreBlock), args, shm, nullptr));
  }

  // The symmetry functions of `count` centres of element `el` into x by its generated kernel, a
  // chunk of centres at a time.
  void generated_functions(AtomsRef a, const NeighborRef& list, const int* element_of, const int* order, int count,
                           const Element& el, S* x) {
    const int cap = list.capacity, nf = el.tables.count, chunk = generated_chunk(cap, count);
    const std::size_t shm = generated_functions_shared_bytes(el.tables.factor_count, cap, sizeof(T) == sizeof(float));
    const double* scale = el.scale.data();
    const double* shift = el.shift.data();
    for (int c0 = 0; c0 < count; c0 += chunk) {
      const int m = std::min(chunk, count - c0);
      stage(a, list, element_of, order + c0, m, el);
      T* staged = staged_.data();
      int* staged_start = staged_start_.data();
      S* rows = x + static_cast<long>(c0) * nf;
      int capacity = cap;
      void* args[] = {&staged, &staged_start, &capacity, &scale, &shift, &rows};
      launch(el.generated[static_cast<int>(GeneratedKernel::Functions)], m, shm, args);
    }
  }

  // The forces and virials of the same centres from dE/dx (ga_) by the generated force kernel. With
  // one chunk the neighbours staged for the symmetry functions are still there.
  template <class Sum>
  void generated_forces(AtomsRef a, const NeighborRef& list, const int* element_of, const int* order, int count,
                        const Element& el, double* totals, double* atom_virial, Sum add) {
    const int cap = list.capacity, nf = el.tables.count, chunk = generated_chunk(cap, count);
    const std::size_t shm =
        generated_forces_shared_bytes(el.tables.factor_count, cap, sizeof(T) == sizeof(float), Sum::fixed);
    const GeneratedKernel kind = Sum::fixed ? GeneratedKernel::ForcesFixed : GeneratedKernel::Forces;
    if (!el.generated[static_cast<int>(kind)]) compile({kind});
    const double* scale = el.scale.data();
    double energy_scale = prepared_->energy_scale;
    ForceArrays atoms{a.fx, a.fy, a.fz, a.n};
    int* status = add.status;
    for (int c0 = 0; c0 < count; c0 += chunk) {
      const int m = std::min(chunk, count - c0);
      if (chunk < count) stage(a, list, element_of, order + c0, m, el);
      T* staged = staged_.data();
      int* staged_start = staged_start_.data();
      int* staged_atom = staged_atom_.data();
      const int* centres = order + c0;
      const A* dedx = ga_.data() + static_cast<long>(c0) * nf;
      int capacity = cap;
      void* args[] = {&staged,       &staged_start, &staged_atom, &capacity, &centres, &dedx,
                      &scale,        &energy_scale, &atoms,       &totals,   &atom_virial, &status};
      launch(el.generated[static_cast<int>(kind)], m, shm, args);
    }
  }

  // Raises a kernel's dynamic shared memory limit to `bytes` (beyond 48 kB less its static part a
  // launch fails without it).
  // The dynamic shared memory a kernel's block may take: the opt-in limit less its static part.
  std::size_t dynamic_limit(const void* kernel) {
    auto [it, added] = shared_limit_.try_emplace(kernel, 0);
    if (added) {
      cudaFuncAttributes attributes{};
      QUASAR_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
      it->second = max_shared_ - std::min(max_shared_, attributes.sharedSizeBytes);
    }
    return it->second;
  }
  void allow_shared(const void* kernel, std::size_t bytes) {
    std::size_t& allowed = shared_allowed_[kernel];
    if (bytes <= allowed) return;
    QUASAR_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
    allowed = bytes;
  }

  const PreparedModel* prepared_;
  std::size_t max_shared_ = 0;  // per block, opted in
  std::map<const void*, std::size_t> shared_allowed_, shared_limit_;
  std::vector<Element> elements_;
  Array<T> atomic_number_{Backend::Cuda};
  nn::DeviceNets<S, A> nets_;
  int width_ = 1, outputs_ = 1;
  cublasHandle_t cublas_ = nullptr;
  Array<int> order_{Backend::Cuda}, keys_{Backend::Cuda}, idx_{Backend::Cuda};
  Array<char> temp_{Backend::Cuda};
  Array<S> ys_[2] = {Array<S>{Backend::Cuda}, Array<S>{Backend::Cuda}};
  Array<S> gp_[2] = {Array<S>{Backend::Cuda}, Array<S>{Backend::Cuda}};
  Array<A> za_{Backend::Cuda}, ga_{Backend::Cuda}, deriv_{Backend::Cuda};
  std::vector<int> generated_;  // the elements that take generated kernels
  std::vector<DescriptorPlan> descriptor_plans_;
  std::vector<double> atomic_numbers_;
  Array<T> staged_{Backend::Cuda};  // of the generated kernels (stage)
  Array<int> staged_start_{Backend::Cuda}, staged_atom_{Backend::Cuda};
  FixedPointOutputs fixed_outputs_;
};

}  // namespace

GpuEvaluator::GpuEvaluator(const Descriptor& descriptor, const PreparedModel& prepared, Precision precision) {
  switch (precision) {
    case Precision::Double: impl_ = std::make_unique<Evaluator<double, double, double>>(descriptor, prepared); break;
    case Precision::Mixed32: impl_ = std::make_unique<Evaluator<float, float, float>>(descriptor, prepared); break;
    case Precision::Mixed16: throw Error("nnp: precision mixed16 is not offered (double, mixed32)");
  }
}
GpuEvaluator::~GpuEvaluator() = default;
void GpuEvaluator::compute(AtomsRef atoms, const NeighborRef& list, const int* element_of,
                           const std::vector<int>& element_counts, double* totals, double* atom_energy,
                           double* atom_virial, device::FixedPointSums* fixed, bool outputs_hold_sums) {
  impl_->compute(atoms, list, element_of, element_counts, totals, atom_energy, atom_virial, fixed, outputs_hold_sums);
}

}  // namespace quasar::nnp
