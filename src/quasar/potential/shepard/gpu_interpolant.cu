// The host side of the interpolation on the GPU: the data set's tables uploaded once, and each
// batch sequenced through the kernels (gpu_weights.cu, gpu_taylor.cu) in pieces whose candidate
// lists fit their memory.
#include <cub/device/device_segmented_sort.cuh>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "quasar/core/error.hpp"
#include "quasar/device/array.hpp"
#include "quasar/device/grow.hpp"
#include "quasar/device/cuda_check.cuh"
#include "quasar/potential/shepard/gpu_interpolant.hpp"
#include "quasar/potential/shepard/gpu_tables.cuh"

namespace quasar::shepard {

namespace {

__global__ void list_bounds_kernel(const int* __restrict found, int count, int capacity, int* __restrict begin,
                                   int* __restrict end) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
  begin[k] = k * capacity;
  end[k] = k * capacity + min(found[k], capacity);
}

// Z of configuration index[k] (or k) into z[k pairs + l], as the CPU and the Taylor pass round it.
__global__ void inverse_distances_kernel(const double* __restrict configs, const int* __restrict index, int count,
                                         int atoms, double* __restrict z) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
  const double* x = configs + static_cast<long>(index ? index[k] : k) * 3 * atoms;
  const int pairs = atoms * (atoms - 1) / 2;
  for (int l = 0; l < pairs; ++l) z[static_cast<long>(k) * pairs + l] = gpu::inverse_distance(x, atoms, l);
}

}  // namespace

struct GpuInterpolant::Impl {
  Interpolant host_shape;  // sizes and parameters only (no arrays)
  Array<float> scale32{Backend::Cuda}, offset32{Backend::Cuda};
  Array<double> scale{Backend::Cuda}, offset{Backend::Cuda}, point_z{Backend::Cuda}, point_inv_d{Backend::Cuda},
      u{Backend::Cuda}, energy{Backend::Cuda}, gradient{Backend::Cuda}, hessian{Backend::Cuda},
      z_hessian{Backend::Cuda}, z_gradient{Backend::Cuda};
  Array<unsigned short> target{Backend::Cuda};
  Array<int> pair_source{Backend::Cuda};
  gpu::Tables tables{};
  // Work arrays, grown as batches need.
  Array<double> configs{Backend::Cuda}, energies{Backend::Cuda}, gradients{Backend::Cuda}, z{Backend::Cuda},
      estimate{Backend::Cuda}, far_partial{Backend::Cuda}, far{Backend::Cuda}, sorted_u{Backend::Cuda};
  Array<int> found{Backend::Cuda}, candidates{Backend::Cuda}, kept{Backend::Cuda}, sorted{Backend::Cuda},
      begin{Backend::Cuda}, end{Backend::Cuda}, index{Backend::Cuda}, set_of{Backend::Cuda};
  Array<unsigned char> sort_temp{Backend::Cuda};
  GpuLimits limits;
  int capacity = 0;  // candidate list entries per configuration
  double neighbours = 0;
  long found_for = 0;

  // M = U H U^T and gz = U g of every data point (Tables): the lane kernels' Taylor terms in Z.
  void z_taylor(const Interpolant& f) {
    const std::size_t nb = static_cast<std::size_t>(f.pairs), ni = static_cast<std::size_t>(f.internal),
                      w = static_cast<std::size_t>(f.width), np = static_cast<std::size_t>(f.data_points);
    std::vector<double> m(np * nb * nb), g(np * nb), uh(nb * ni);
    for (std::size_t i = 0; i < np; ++i) {
      const double* u_i = f.u.data() + i * nb * w;
      const double* h_i = f.hessian.data() + i * ni * w;
      for (std::size_t a = 0; a < nb; ++a) {
        double ga = 0;
        for (std::size_t k = 0; k < ni; ++k) {
          ga += u_i[a * w + k] * f.gradient[i * w + k];
          double s = 0;
          for (std::size_t q = 0; q < ni; ++q) s += u_i[a * w + q] * h_i[q * w + k];
          uh[a * ni + k] = s;
        }
        g[i * nb + a] = ga;
      }
      for (std::size_t a = 0; a < nb; ++a)
        for (std::size_t b = 0; b < nb; ++b) {
          double s = 0;
          for (std::size_t k = 0; k < ni; ++k) s += uh[a * ni + k] * u_i[b * w + k];
          m[(i * nb + a) * nb + b] = s;
        }
    }
    z_hessian.assign(m);
    z_gradient.assign(g);
  }

  Impl(const Interpolant& f, GpuLimits l) : limits(l) {
    host_shape.atoms = f.atoms;
    host_shape.pairs = f.pairs;
    host_shape.internal = f.internal;
    host_shape.points = f.points;
    host_shape.data_points = f.data_points;
    host_shape.group = f.group;
    host_shape.parameters = f.parameters;
    const std::size_t nb = static_cast<std::size_t>(f.pairs), ns = static_cast<std::size_t>(f.stride),
                      ng = static_cast<std::size_t>(f.group);
    std::vector<double> off(nb * ns);
    for (std::size_t k = 0; k < nb * ns; ++k) off[k] = -f.z_columns[k] * f.inv_d_columns[k];
    std::vector<unsigned short> to(ng * nb);
    int identity = -1;
    for (std::size_t g = 0; g < ng; ++g) {
      bool same = true;
      for (std::size_t l = 0; l < nb; ++l) {
        const int m = f.pair_source[g * nb + l];
        to[g * nb + static_cast<std::size_t>(m)] = static_cast<unsigned short>(l);
        same = same && m == static_cast<int>(l);
      }
      if (same && identity < 0) identity = static_cast<int>(g);
    }
    if (identity < 0) throw Error("shepard: the permutation group lacks the identity");
    scale.assign(f.inv_d_columns);
    offset.assign(off);
    scale32.assign(std::vector<float>(f.inv_d_columns.begin(), f.inv_d_columns.end()));
    offset32.assign(std::vector<float>(off.begin(), off.end()));
    target.assign(to);
    point_z.assign(f.point_z);
    point_inv_d.assign(f.point_inv_d);
    u.assign(f.u);
    energy.assign(f.energy);
    gradient.assign(f.gradient);
    hessian.assign(f.hessian);
    z_taylor(f);
    pair_source.assign(f.pair_source);
    const Parameters& p = f.parameters;
    const bool two_part = p.weight == WeightKind::TwoPart;
    const double s_floor = 1e-4;  // below, float's s (rounding about 1e-7 of each |Z/d|) ranks replicas poorly
    const double u_floor = two_part ? std::pow(s_floor, p.p) + std::pow(s_floor, p.q) : s_floor;
    tables = gpu::Tables{f.atoms, f.pairs, f.internal, f.group, f.data_points, f.stride, f.width, f.points, identity,
                         two_part, p.p, p.q, p.wtol, u_floor, scale.data(), offset.data(), scale32.data(),
                         offset32.data(), target.data(),
                         pair_source.data(), point_z.data(), point_inv_d.data(), u.data(), hessian.data(),
                         gradient.data(), energy.data(), z_hessian.data(), z_gradient.data()};
    capacity = std::min(f.points, 512);
  }

  // Configurations per piece for the current list capacity: a candidate list and its sorted copy
  // hold a replica each, and the sorted copy its u.
  int piece_size() const {
    const std::size_t per_entry = 2 * sizeof(int) + sizeof(double);
    const std::size_t by_memory = limits.list_bytes / (per_entry * static_cast<std::size_t>(capacity));
    return static_cast<int>(
        std::clamp<std::size_t>(by_memory, 1, static_cast<std::size_t>(std::max(1, limits.configurations))));
  }

  // The sorted neighbour lists of `count` configurations of `x` (those named by `centre`, device
  // indices, when not null). False when the candidates outgrew the piece's memory: the caller takes
  // smaller pieces (capacity has grown) and calls again.
  bool find_neighbours(const double* x, const int* centre, int count) {
    const std::size_t n = static_cast<std::size_t>(count);
    inverse_distances_kernel<<<grid_for(count, 128), 128>>>(x, centre, count, tables.atoms,
                                                            grow(z, n * static_cast<std::size_t>(tables.pairs)));
    QUASAR_LAUNCH_CHECK("shepard inverse_distances_kernel");
    gpu::estimate(tables, z.data(), count, grow(estimate, n));
    double* part = grow(far_partial, static_cast<std::size_t>(gpu::weight_chunks(tables)) * n);
    std::vector<int> counts(n);
    for (;;) {
      const std::size_t entries = n * static_cast<std::size_t>(capacity);
      gpu::screen(tables, z.data(), count, estimate.data(), part, grow(found, n), grow(candidates, entries), capacity);
      found.download(counts.data(), n);
      const int most = *std::max_element(counts.begin(), counts.end());
      if (most <= capacity) break;
      capacity = std::min(tables.replicas, (most + 63) / 64 * 64);
      if (n * static_cast<std::size_t>(capacity) * (2 * sizeof(int) + sizeof(double)) > limits.list_bytes && count > 1)
        return false;
    }
    gpu::merge(tables, part, count, grow(far, n));
    // Sort each list (replica order, as the CPU's loop finds them), then cut it to the kept.
    list_bounds_kernel<<<grid_for(count, 128), 128>>>(found.data(), count, capacity, grow(begin, n), grow(end, n));
    QUASAR_LAUNCH_CHECK("shepard list_bounds_kernel");
    const int items = count * capacity;
    grow(sorted, static_cast<std::size_t>(items));
    std::size_t temp_bytes = 0;
    QUASAR_CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(nullptr, temp_bytes, candidates.data(), sorted.data(), items,
                                                         count, begin.data(), end.data()));
    QUASAR_CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(grow(sort_temp, std::max<std::size_t>(temp_bytes, 1)),
                                                         temp_bytes, candidates.data(), sorted.data(), items, count,
                                                         begin.data(), end.data()));
    gpu::filter(tables, z.data(), count, far.data(), found.data(), sorted.data(),
                grow(sorted_u, static_cast<std::size_t>(items)), capacity, grow(kept, n));
    kept.download(counts.data(), n);
    if (*std::min_element(counts.begin(), counts.end()) == 0) throw Error("shepard: no data point in the neighbour set");
    for (int c : counts) neighbours += c;
    found_for += count;
    return true;
  }

  void exact(const double* x, int count, double* e, double* g) {
    neighbours = 0;
    found_for = 0;
    const long n3 = 3L * tables.atoms;
    for (int done = 0; done < count;) {
      const int piece = std::min(count - done, piece_size());
      if (!find_neighbours(x + done * n3, nullptr, piece)) continue;
      gpu::taylor(tables, x + done * n3, piece, nullptr, kept.data(), sorted.data(), sorted_u.data(), capacity,
                  e + done, g ? g + done * n3 : nullptr);
      done += piece;
    }
    QUASAR_CUDA_CHECK(cudaDeviceSynchronize());
  }

  void groups(const double* x, std::span<const int> offsets, std::span<const int> centres, double* e, double* g) {
    neighbours = 0;
    found_for = 0;
    const long n3 = 3L * tables.atoms;
    const int total = static_cast<int>(centres.size());
    std::vector<int> local;
    for (int g0 = 0; g0 < total;) {
      const int g1 = std::min(total, g0 + piece_size());
      const int first = offsets[static_cast<std::size_t>(g0)], last = offsets[static_cast<std::size_t>(g1)];
      // Centres relative to the piece's first configuration; each configuration's group in the piece.
      local.assign(centres.begin() + g0, centres.begin() + g1);
      for (int& c : local) c -= first;
      grow(index, local.size());
      index.upload(local.data(), local.size());
      if (!find_neighbours(x + first * n3, index.data(), g1 - g0)) continue;
      local.resize(static_cast<std::size_t>(last - first));
      for (int grp = g0; grp < g1; ++grp)
        for (int c = offsets[static_cast<std::size_t>(grp)]; c < offsets[static_cast<std::size_t>(grp) + 1]; ++c)
          local[static_cast<std::size_t>(c - first)] = grp - g0;
      grow(set_of, local.size());
      set_of.upload(local.data(), local.size());
      if (last > first)
        gpu::taylor(tables, x + first * n3, last - first, set_of.data(), kept.data(), sorted.data(), nullptr,
                    capacity, e + first, g ? g + first * n3 : nullptr);
      g0 = g1;
    }
    QUASAR_CUDA_CHECK(cudaDeviceSynchronize());
  }
};

GpuInterpolant::GpuInterpolant(const Interpolant& f, GpuLimits limits) {
  if (f.atoms > kMaxAtoms)
    throw Error("shepard: the GPU evaluation takes molecules of up to " + std::to_string(kMaxAtoms) + " atoms, not " +
                std::to_string(f.atoms));
  impl_ = std::make_unique<Impl>(f, limits);
}

GpuInterpolant::~GpuInterpolant() = default;

void GpuInterpolant::evaluate_device(const double* configs, int count, double* energies, double* gradients) {
  if (count > 0) impl_->exact(configs, count, energies, gradients);
}

void GpuInterpolant::evaluate_batch(std::span<const double> configs, std::span<double> energies,
                                    std::span<double> gradients) {
  Impl& m = *impl_;
  check_batch(m.host_shape, configs, energies, gradients);
  if (energies.empty()) return;
  grow(m.configs, configs.size());
  m.configs.upload(configs.data(), configs.size());
  grow(m.energies, energies.size());
  if (!gradients.empty()) grow(m.gradients, gradients.size());
  m.exact(m.configs.data(), static_cast<int>(energies.size()), m.energies.data(),
          gradients.empty() ? nullptr : m.gradients.data());
  m.energies.download(energies.data(), energies.size());
  if (!gradients.empty()) m.gradients.download(gradients.data(), gradients.size());
}

void GpuInterpolant::evaluate_groups(std::span<const double> configs, std::span<const int> offsets,
                                     std::span<const int> centres, std::span<double> energies,
                                     std::span<double> gradients) {
  Impl& m = *impl_;
  check_groups(m.host_shape, configs, offsets, centres, energies, gradients);
  if (energies.empty()) return;
  grow(m.configs, configs.size());
  m.configs.upload(configs.data(), configs.size());
  grow(m.energies, energies.size());
  if (!gradients.empty()) grow(m.gradients, gradients.size());
  m.groups(m.configs.data(), offsets, centres, m.energies.data(), gradients.empty() ? nullptr : m.gradients.data());
  m.energies.download(energies.data(), energies.size());
  if (!gradients.empty()) m.gradients.download(gradients.data(), gradients.size());
}

double GpuInterpolant::mean_neighbours() const {
  return impl_->found_for ? impl_->neighbours / static_cast<double>(impl_->found_for) : 0.0;
}

}  // namespace quasar::shepard
