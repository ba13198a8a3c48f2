#pragma once
// pair_list.hpp's candidates built on the device from device positions, for the GPU terms: each
// atom's partners (every other atom with an image within reach), in ascending order, listed by both
// atoms of a pair (full lists, so that a thread per atom visits its own). The engine's full cell and
// Verlet list on the CUDA backend finds them; each atom's row is then sorted (CUB's segmented sort)
// and its repeats (several images of one pair) dropped. The set is the host's pair_candidates made
// full, and so are the pair loops' sums, to the bit (amoeba_pair_list_test).
#include <memory>

#include "quasar/core/box.hpp"
#include "quasar/device/array.hpp"

namespace quasar::amoeba {

class DevicePairCandidates {
 public:
  DevicePairCandidates();
  ~DevicePairCandidates();
  DevicePairCandidates(DevicePairCandidates&&) noexcept;
  DevicePairCandidates& operator=(DevicePairCandidates&&) noexcept;

  // positions: 3 per atom (x, y, z) on the device, n atoms; box periodic in some direction.
  void build(const double* positions, long n, const Box& box, double reach);
  // Device arrays: offset (n + 1) and partner, valid until the next build.
  const int* offset() const { return offset_.data(); }
  const int* partner() const { return partner_.data(); }
  long pairs() const { return pairs_; }  // entries of partner (each pair twice)

 private:
  struct Engine;  // the engine's AtomState and NeighborList for the positions (pair_list_gpu.cu)
  std::unique_ptr<Engine> engine_;
  Array<int> rows_{Backend::Cuda}, sorted_{Backend::Cuda}, row_begin_{Backend::Cuda}, row_end_{Backend::Cuda};
  Array<int> count_{Backend::Cuda}, offset_{Backend::Cuda}, partner_{Backend::Cuda};
  Array<unsigned char> temp_{Backend::Cuda};
  long pairs_ = 0;
};

}  // namespace quasar::amoeba
