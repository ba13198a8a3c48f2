#pragma once
// MD safety: a non-finite position, velocity, force or energy, or an atom that moves more than half
// the neighbour-list skin in one step, stops the run naming the step, the atom and the reason.
// The per-atom tests run inside the integrator's own loops and kernels, on values they have just
// loaded (no extra pass over memory). The CPU throws at once; on the GPU the first fault is kept in
// two device words (FaultRecord) and read where the host synchronises anyway (output and checkpoint
// steps), so no step waits for the host.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

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

// Batches of systems: an atom whose drift gave a non-finite position is put back where it was, so
// that the neighbour list never sees one (its system has faulted and moves no more).
QUASAR_HD void keep_finite_position(AtomsRef& a, int i, Vec3 before) {
  if (finite(a.x[i] + a.y[i] + a.z[i])) return;
  a.x[i] = before.x;
  a.y[i] = before.y;
  a.z[i] = before.z;
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

// What a kernel needs to test and record one site of one step. In a batch of systems, `system`
// (two words per system, as `slots`) also keeps each system's first fault.
struct FaultCheck {
  FaultSlots slots;
  unsigned long long when;
  double max_move;
  unsigned long long* system = nullptr;
};

QUASAR_HD unsigned long long fault_when(long step, CheckSite site) {
  return static_cast<unsigned long long>(step) * 2 + site;
}

// The two words of a fault as the device keeps them, and back (the value as a float, its low 3 bits
// of mantissa dropped).
QUASAR_HD unsigned long long fault_detail(long atom, const AtomFault& f) {
  const float v = static_cast<float>(f.value);
#ifdef __CUDA_ARCH__
  const unsigned bits = __float_as_uint(v) >> 3;
#else
  unsigned bits;
  std::memcpy(&bits, &v, sizeof bits);
  bits >>= 3;
#endif
  return static_cast<unsigned long long>(atom) << 32 | static_cast<unsigned long long>(f.kind << 29 | bits);
}
Fault fault_from_words(unsigned long long when, unsigned long long detail);

// The first fault of a run on the atoms' backend: kept by note() on the CPU, in device words on the GPU.
// A batch of systems (track_systems) also keeps each system's first fault, in two words per system on
// the atoms' backend on both (SystemsRef::moves reads them: a system stops moving after its fault).
class FaultRecord {
 public:
  explicit FaultRecord(Backend backend);
  FaultSlots slots();
  // CPU loops: a fault of the atom with input index `atom` at (step, site); the first is kept.
  void note(long step, CheckSite site, long atom, const AtomFault& f) {
    if (f.kind != kNoFault) note_fault(fault_when(step, site), {step, atom, f});
  }
  // Throws the first fault recorded, if any (reads the device: synchronises there); `step_name`
  // names the steps in the message ("step", "minimisation step"). Never throws while isolating.
  void throw_if_any(const AtomState& atoms, double skin, const std::string& step_name = "step") const;

  // Batches: `offsets` are the systems' (system s owns input indices [offsets[s], offsets[s + 1])).
  void track_systems(const std::vector<int>& offsets);
  bool tracks_systems() const { return !offsets_.empty(); }
  // The per-system words (2 per system, on the backend), null unless tracking.
  unsigned long long* system_words() { return system_words_.empty() ? nullptr : system_words_.data(); }
  const Array<unsigned long long>& system_word_array() const { return system_words_; }
  // CPU batch loops: as note(), and the system's own first fault.
  void note_in(int system, long step, CheckSite site, long atom, const AtomFault& f);
  // Each system's first fault (kind kNoFault where it has none; reads the device).
  std::vector<Fault> system_faults() const;
  // Restores the per-system words (checkpoints) or clears them (empty).
  void set_system_words(const std::vector<unsigned long long>& words);
  // With isolate, a fault stops only its system (the others go on) and throw_if_any never throws.
  void set_isolate(bool isolate) { isolate_ = isolate; }
  bool isolating() const { return isolate_; }

 private:
  void note_fault(unsigned long long when, const Fault& f);
  Backend backend_;
  Array<unsigned long long> words_;  // the GPU's FaultSlots
  unsigned long long host_when_ = ~0ULL;
  Fault host_fault_;
  std::vector<int> offsets_;
  Array<unsigned long long> system_words_;
  bool isolate_ = false;
};

// "force on atom 17 (id 18) is nan at step 1234": the index is the input order (0-based), the id
// the input file's (1-based unless the file gives others). In a batch, "atom 3 (id 4) of system 12",
// the index counted within the system. `skin` explains a long move.
std::string describe(const Fault& f, const AtomState& atoms, double skin, const std::string& step_name = "step");

// The smallest input index ids[i] whose (x, y, z)[i] is not finite, as a fault of `kind` at `step`.
std::optional<Fault> find_nonfinite_rows(const double* x, const double* y, const double* z, const long* ids, int n,
                                         uint32_t kind, long step);
// The first non-finite position, then velocity, then force (host copies: synchronises on the GPU).
std::optional<Fault> find_nonfinite_state(const AtomState& atoms, long step);

}  // namespace quasar::md
