#pragma once
// The interpolation on a CUDA GPU: one call evaluates a whole batch of configurations (trajectories
// or grid points), energies and Cartesian gradients, by the exact or the approximate method, with
// the CPU code (interpolant.*) as its reference. The data set is uploaded once. Per batch:
//   weights    Z of every configuration; blocks of (16 configurations x 2048 replicas), a thread per
//              replica holding the 16 configurations' sums s, keep the smallest weight denominator
//              u_min and sum u_min / u of each configuration, rescaled as a smaller u turns up, so
//              that one pass over the replicas gives both; the blocks' partial results are merged
//              in a fixed order;
//   selection  the same pass again keeps the replicas with u < u_min / (wtol sum) (the CPU's
//              w > wtol without a division; at a data point, u = 0), appended to each
//              configuration's list, which is then sorted (replica order, as on the CPU);
//   Taylor     a warp per configuration walks its list in order, exactly as `interpolate` does:
//              renormalised weights, Taylor terms in local coordinates, dV/dZ, dV/dx.
// Every sum is taken in a fixed order, so the results are the same bits from run to run. In the two
// weight passes each (Z_l - Z_l(i)) / d_l is one fused multiply-add with a transposed copy of the
// replicas' -Z(i)/d and 1/d; the Taylor pass uses the CPU's subtractions, so only a point within a
// rounding of wtol can be kept by one and dropped by the other (and at a data point, where the
// fused form leaves u about 1e-60 instead of 0, replicas lying exactly there may be kept or not,
// which changes nothing: the Taylor pass weighs those with u = 0 alone, as the CPU does).
// Double precision throughout.
// Plain data only here (no CUDA headers): the kernels are in gpu_interpolant.cu.
#include <cstddef>
#include <memory>
#include <span>

#include "quasar/potential/shepard/interpolant.hpp"

namespace quasar::shepard {

// How a batch is cut into pieces: at most `configurations` at once, and no more than the neighbour
// lists (two copies of an int per kept point, at the size the largest list needs) fit in
// `list_bytes`. Tests take small ones to see a batch go in pieces.
struct GpuLimits {
  int configurations = 32768;
  std::size_t list_bytes = std::size_t{512} << 20;
};

class GpuInterpolant {
 public:
  // The largest molecule the kernels take (their shared memory grows with the pairs).
  static constexpr int kMaxAtoms = 24;

  // Uploads the data set; an Error without CUDA.
  explicit GpuInterpolant(const Interpolant& f, GpuLimits limits = {});
  ~GpuInterpolant();
  GpuInterpolant(const GpuInterpolant&) = delete;
  GpuInterpolant& operator=(const GpuInterpolant&) = delete;

  // The GPU twins of evaluate_batch and evaluate_groups (same arguments, host memory).
  void evaluate_batch(std::span<const double> configs, std::span<double> energies, std::span<double> gradients = {});
  void evaluate_groups(std::span<const double> configs, std::span<const int> offsets, std::span<const int> centres,
                       std::span<double> energies, std::span<double> gradients = {});
  // The exact method on device memory: count configurations (3N values each), energies (count) and,
  // when not null, gradients (3N each).
  void evaluate_device(const double* configs, int count, double* energies, double* gradients);

  // The mean size of the neighbour sets found by the last call (benchmarks print it).
  double mean_neighbours() const;

  struct Impl;  // gpu_interpolant.cu

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace quasar::shepard
