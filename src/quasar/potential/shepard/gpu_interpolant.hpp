#pragma once
// The interpolation on a CUDA GPU: one call evaluates a whole batch of configurations (trajectories
// or grid points), energies and Cartesian gradients, by the exact or the approximate method, with
// the CPU code (interpolant.*) as its reference. The data set is uploaded once, per data point (a
// replica is a data point read through a group element's pair map, never stored), so that it stays
// in the L2 cache. Per batch (gpu_tables.cuh lists the kernels):
//   estimate   each configuration's smallest u over the identity's replicas: a bound on u_min;
//   screen     blocks of (128 data points x a tile of 16 configurations), a thread per data point
//              looping over the group with the tile's Z in shared memory, u of every replica in
//              float: the candidates (u wtol within a margin of the smallest u known, a superset
//              of the kept: a kept replica has u < u_min / wtol), appended to each configuration's
//              list, and the sum of 1/u over the others (each below wtol, their share of the sum
//              at most wtol x replicas), merged over the blocks in a fixed order;
//   filter     each list sorted (replica order, as the CPU), its u recomputed in double with the
//              CPU's expression, and cut to u < u_min / (wtol sum) (the CPU's w > wtol without a
//              division, sum = sum_r u_min / u_r; at a data point, u = 0, the replicas there);
//   Taylor     a warp per configuration: V and dV/dx over its list with the CPU's expressions (a
//              lane per replica for molecules of up to 7 atoms, the whole warp per replica beyond).
// Every sum is taken in a fixed order, so the results are the same bits from run to run. Only a
// replica within about 1e-6 of wtol (the far replicas' float share of the sum) can be kept by one
// of CPU and GPU and dropped by the other. Double precision everywhere but the screen.
// Plain data only here (no CUDA headers): the kernels are in gpu_interpolant.cu.
#include <cstddef>
#include <memory>
#include <span>

#include "quasar/potential/shepard/interpolant.hpp"

namespace quasar::shepard {

// How a batch is cut into pieces: at most `configurations` at once, and no more than the candidate
// lists (a replica, its u and a sorted copy of the replica per entry, at the size the longest list
// needs) fit in `list_bytes`. Tests take small ones to see a batch go in pieces.
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
