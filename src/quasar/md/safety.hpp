#pragma once
// MD safety: a non-finite position, velocity, force or energy, or an atom that moves more than half
// the neighbour-list skin in one step, stops the run naming the step, the atom and the reason.
// The per-atom tests run inside the integrator's own loops and kernels, on values they have just
// loaded (no extra pass over memory). The CPU throws at once; on the GPU the first fault is kept in
// two device words (FaultRecord) and read where the host synchronises anyway (output and checkpoint
// steps), so no step waits for the host.
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include "quasar/core/atoms.hpp"

namespace quasar::md {

enum FaultKind : uint32_t { kNoFault = 0, kBadPosition, kBadVelocity, kBadForce, kLongMove, kBadEnergy };

// Where in a step a test runs. Faults are ordered by (step, site, input index), so that both
// backends report the same first one.
enum CheckSite : uint32_t { kAfterDrift = 0, kAfterForces = 1 };

struct AtomFault {
  uint32_t kind = kNoFault;
  double value = 0;  // the non-finite component, or the distance moved (Å)
};

// A fault located in a run: `atom` is the input index (-1: the whole system).
struct Fault {
  long step = 0;
  long atom = -1;
  AtomFault what;
};

QUASAR_HD bool finite(double v) {
#ifdef __CUDA_ARCH__
  return isfinite(v);
#else
  return std::isfinite(v);
#endif
}

// The first non-finite of three components as a fault of `kind`. The sum is tested first: it is
// finite whenever the three are (an overflowing sum only costs the closer look).
QUASAR_HD bool find_nonfinite(double x, double y, double z, uint32_t kind, AtomFault& f) {
  if (finite(x + y + z)) return false;
  const double c[3] = {x, y, z};
  for (int k = 0; k < 3; ++k)
    if (!finite(c[k])) {
      f = {kind, c[k]};
      return true;
    }
  return false;
}

// After the drift of a step: velocity, position, and the distance from `before` against
// `max_move` (half the skin; infinite without a skin).
QUASAR_HD AtomFault check_moved(const AtomsRef& a, int i, Vec3 before, double max_move) {
  AtomFault f;
  if (find_nonfinite(a.vx[i], a.vy[i], a.vz[i], kBadVelocity, f) ||
      find_nonfinite(a.x[i], a.y[i], a.z[i], kBadPosition, f))
    return f;
  const double dx = a.x[i] - before.x, dy = a.y[i] - before.y, dz = a.z[i] - before.z;
  const double d2 = dx * dx + dy * dy + dz * dz;
  if (d2 > max_move * max_move) f = {kLongMove, sqrt(d2)};
  return f;
}

// After a kick by the force (fx, fy, fz): force, then velocity.
QUASAR_HD AtomFault check_kicked_by(const AtomsRef& a, int i, double fx, double fy, double fz) {
  AtomFault f;
  if (!find_nonfinite(fx, fy, fz, kBadForce, f)) find_nonfinite(a.vx[i], a.vy[i], a.vz[i], kBadVelocity, f);
  return f;
}

// After the forces of a step and the second half kick: force, then velocity.
QUASAR_HD AtomFault check_kicked(const AtomsRef& a, int i) { return check_kicked_by(a, i, a.fx[i], a.fy[i], a.fz[i]); }

// The device record: two words, all ones while nothing is recorded. `when` keeps the smallest
// step * 2 + site and `detail` the smallest input index << 32 | kind << 29 | float bits of the
// value >> 3. A kernel records only when no earlier launch has (launches run in step order), so
// `detail` holds the smallest input index of the first faulty launch.
struct FaultSlots {
  unsigned long long* when;
  unsigned long long* detail;
};

// What a kernel needs to test and record one site of one step.
struct FaultCheck {
  FaultSlots slots;
  unsigned long long when;
  double max_move;
};

QUASAR_HD unsigned long long fault_when(long step, CheckSite site) {
  return static_cast<unsigned long long>(step) * 2 + site;
}

// The first fault of a run on the atoms' backend: kept by note() on the CPU, in device words on the GPU.
class FaultRecord {
 public:
  explicit FaultRecord(Backend backend);
  FaultSlots slots();
  // CPU loops: a fault of the atom with input index `atom` at (step, site); the first is kept.
  void note(long step, CheckSite site, long atom, const AtomFault& f) {
    if (f.kind != kNoFault) note_fault(fault_when(step, site), {step, atom, f});
  }
  // Throws the first fault recorded, if any (reads the device: synchronises there); `step_name`
  // names the steps in the message ("step", "minimisation step").
  void throw_if_any(const AtomState& atoms, double skin, const std::string& step_name = "step") const;

 private:
  void note_fault(unsigned long long when, const Fault& f);
  Backend backend_;
  Array<unsigned long long> words_;  // the GPU's FaultSlots
  unsigned long long host_when_ = ~0ULL;
  Fault host_fault_;
};

// "force on atom 17 (id 18) is nan at step 1234": the index is the input order (0-based), the id
// the input file's (1-based unless the file gives others). `skin` explains a long move.
std::string describe(const Fault& f, const AtomState& atoms, double skin, const std::string& step_name = "step");

// The smallest input index ids[i] whose (x, y, z)[i] is not finite, as a fault of `kind` at `step`.
std::optional<Fault> find_nonfinite_rows(const double* x, const double* y, const double* z, const long* ids, int n,
                                         uint32_t kind, long step);
// The first non-finite position, then velocity, then force (host copies: synchronises on the GPU).
std::optional<Fault> find_nonfinite_state(const AtomState& atoms, long step);

}  // namespace quasar::md
