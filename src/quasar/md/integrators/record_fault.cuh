#pragma once
// The device side of FaultRecord (md/safety.hpp) for the integrators' kernels.
#include "quasar/md/safety.hpp"

namespace quasar::md::gpu {

// Keeps the first fault of the run (see FaultSlots): a fault an earlier launch recorded wins; within
// a launch, the smallest input index.
__device__ inline void record(const FaultCheck& c, const AtomsRef& a, int i, const AtomFault& f) {
  if (f.kind == kNoFault || *c.slots.when < c.when) return;
  atomicMin(c.slots.when, c.when);
  const unsigned long long index = static_cast<unsigned long long>(a.id[i]);
  const unsigned bits = __float_as_uint(static_cast<float>(f.value)) >> 3;
  atomicMin(c.slots.detail, index << 32 | static_cast<unsigned long long>(f.kind << 29 | bits));
}

// A batch: the run's first fault as above, and the first fault of atom i's system `s` (its two
// words in c.system), which stops the system from the next launch on (SystemsRef::moves).
__device__ inline void record_in(const FaultCheck& c, const AtomsRef& a, int i, int s, const AtomFault& f) {
  if (f.kind == kNoFault) return;
  record(c, a, i, f);
  unsigned long long* w = c.system + 2 * s;
  if (*w < c.when) return;
  atomicMin(w, c.when);
  atomicMin(w + 1, fault_detail(a.id[i], f));
}

}  // namespace quasar::md::gpu
