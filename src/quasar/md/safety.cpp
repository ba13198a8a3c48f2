#include "quasar/md/safety.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "quasar/core/error.hpp"

namespace quasar::md {

namespace {
std::string number(double v, const char* format = "%.4g") {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char s[32];
  std::snprintf(s, sizeof s, format, v);
  return s;
}
}  // namespace

FaultRecord::FaultRecord(Backend backend) : backend_(backend), words_(backend), system_words_(backend) {
  if (backend == Backend::Cuda) words_.assign({~0ULL, ~0ULL});
}

FaultSlots FaultRecord::slots() {
  if (words_.empty()) return {nullptr, nullptr};  // the CPU keeps its fault on the host
  return {words_.data(), words_.data() + 1};
}

void FaultRecord::note_fault(unsigned long long when, const Fault& f) {
  if (when < host_when_ || (when == host_when_ && f.atom < host_fault_.atom)) {
    host_when_ = when;
    host_fault_ = f;
  }
}

Fault fault_from_words(unsigned long long when, unsigned long long detail) {
  Fault f;
  f.step = static_cast<long>(when / 2);
  f.atom = static_cast<long>(detail >> 32);
  f.what.kind = static_cast<uint32_t>(detail >> 29) & 7u;
  const uint32_t bits = static_cast<uint32_t>(detail & 0x1FFFFFFFu) << 3;
  float value;
  std::memcpy(&value, &bits, sizeof value);
  f.what.value = value;
  return f;
}

void FaultRecord::throw_if_any(const AtomState& atoms, double skin, const std::string& step_name) const {
  if (isolate_) return;
  if (backend_ == Backend::Cpu) {
    if (host_when_ != ~0ULL) throw Error(describe(host_fault_, atoms, skin, step_name));
    return;
  }
  const std::vector<unsigned long long> w = words_.to_vector();
  if (w[0] == ~0ULL) return;
  throw Error(describe(fault_from_words(w[0], w[1]), atoms, skin, step_name));
}

void FaultRecord::track_systems(const std::vector<int>& offsets) {
  offsets_ = offsets;
  set_system_words({});
}

void FaultRecord::set_system_words(const std::vector<unsigned long long>& words) {
  const std::size_t size = 2 * (offsets_.empty() ? 0 : offsets_.size() - 1);
  if (!words.empty() && words.size() != size)
    throw Error("fault record: " + std::to_string(words.size()) + " words for " + std::to_string(size / 2) + " systems");
  system_words_.assign(words.empty() ? std::vector<unsigned long long>(size, ~0ULL) : words);
}

void FaultRecord::note_in(int system, long step, CheckSite site, long atom, const AtomFault& f) {
  if (f.kind == kNoFault) return;
  const unsigned long long when = fault_when(step, site);
  note_fault(when, {step, atom, f});
  unsigned long long* w = system_words_.data() + 2 * static_cast<std::size_t>(system);
  const unsigned long long detail = fault_detail(atom, f);
  if (when < w[0]) {
    w[0] = when;
    w[1] = detail;
  } else if (when == w[0] && detail < w[1]) {
    w[1] = detail;
  }
}

std::vector<Fault> FaultRecord::system_faults() const {
  const std::vector<unsigned long long> w = system_words_.to_vector();
  std::vector<Fault> out(w.size() / 2);
  for (std::size_t s = 0; s < out.size(); ++s)
    if (w[2 * s] != ~0ULL) out[s] = fault_from_words(w[2 * s], w[2 * s + 1]);
  return out;
}

std::string describe(const Fault& f, const AtomState& atoms, double skin, const std::string& step_name) {
  std::string atom = "atom " + std::to_string(f.atom) + " (id " + std::to_string(atoms.file_id(f.atom)) + ")";
  if (atoms.is_batch() && f.atom >= 0) {
    const std::vector<int>& offsets = atoms.system_offsets();
    const auto s = std::upper_bound(offsets.begin(), offsets.end(), static_cast<int>(f.atom)) - offsets.begin() - 1;
    atom = "atom " + std::to_string(f.atom - offsets[static_cast<std::size_t>(s)]) + " (id " +
           std::to_string(atoms.file_id(f.atom)) + ") of system " + std::to_string(s);
  }
  const std::string at = " at " + step_name + " " + std::to_string(f.step);
  const std::string is = " is " + number(f.what.value);
  switch (f.what.kind) {
    case kBadPosition: return "position of " + atom + is + at;
    case kBadVelocity: return "velocity of " + atom + is + at;
    case kBadForce: return "force on " + atom + is + at;
    case kLongMove:
      return atom + " moved " + number(f.what.value) + " Å in one step" + at + ", more than half the neighbour-list skin (" +
             number(skin, "%g") + " Å): the timestep is too large for these forces and velocities";
    case kBadEnergy:
      return (f.atom >= 0 ? "energy of " + atom : std::string("potential energy")) + is + at;
    default: return "unknown fault of " + atom + at;
  }
}

std::optional<Fault> find_nonfinite_rows(const double* x, const double* y, const double* z, const long* ids, int n,
                                         uint32_t kind, long step) {
  std::optional<Fault> first;
  for (int i = 0; i < n; ++i) {
    AtomFault f;
    if (find_nonfinite(x[i], y[i], z[i], kind, f) && (!first || ids[i] < first->atom)) first = Fault{step, ids[i], f};
  }
  return first;
}

std::optional<Fault> find_nonfinite_state(const AtomState& atoms, long step) {
  const std::vector<long> ids = atoms.id.to_vector();
  const uint32_t kinds[3] = {kBadPosition, kBadVelocity, kBadForce};
  const Array<double>* columns[9] = {&atoms.x,  &atoms.y,  &atoms.z,  &atoms.vx, &atoms.vy,
                                     &atoms.vz, &atoms.fx, &atoms.fy, &atoms.fz};
  for (int r = 0; r < 3; ++r) {
    const std::vector<double> x = columns[3 * r]->to_vector(), y = columns[3 * r + 1]->to_vector(),
                              z = columns[3 * r + 2]->to_vector();
    if (auto f = find_nonfinite_rows(x.data(), y.data(), z.data(), ids.data(), atoms.size(), kinds[r], step)) return f;
  }
  return std::nullopt;
}

}  // namespace quasar::md
