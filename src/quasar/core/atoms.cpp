#include "quasar/core/atoms.hpp"

#include <cmath>

#include "quasar/core/error.hpp"
#include "quasar/device/gather.hpp"

namespace quasar {

namespace {
template <class T, class F>
std::vector<T> column(std::size_t n, F f) {
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = f(i);
  return v;
}

template <class T>
void permute_array(Array<T>& a, const Array<int>& perm, Array<T>& scratch) {
  if (a.empty()) return;
  scratch.resize(a.size());
  if (a.on_device()) {
#ifdef QUASAR_HAVE_CUDA
    device::gather(scratch.data(), a.data(), perm.data(), static_cast<int>(a.size()));
#endif
  } else {
    for (std::size_t i = 0; i < a.size(); ++i) scratch[i] = a[perm[i]];
  }
  a.swap(scratch);
}
}  // namespace

AtomState::AtomState(Backend backend, const Structure& s, int n_local)
    : x(backend), y(backend), z(backend), vx(backend), vy(backend), vz(backend), fx(backend), fy(backend),
      fz(backend), type(backend), charge(backend), type_mass(backend), ix(backend), iy(backend), iz(backend),
      id(backend), index_of(backend), backend_(backend) {
  load(s, n_local);
}

void AtomState::load(const Structure& s, int n_local) {
  s.validate("structure");
  const std::size_t n = s.size();
  n_ = static_cast<int>(n);
  n_local_ = n_local < 0 ? n_ : n_local;
  if (n_local_ > n_) throw Error("structure: " + std::to_string(n_local_) + " local atoms of " + std::to_string(n_));
  box_ = s.box;
  type_names_ = s.type_names;
  type_masses_host_ = s.type_masses;
  type_counts_.assign(type_names_.size(), 0);
  for (int t : s.types) ++type_counts_[t];
  local_type_counts_.assign(type_names_.size(), 0);
  for (int i = 0; i < n_local_; ++i) ++local_type_counts_[s.types[i]];
  x.assign(column<double>(n, [&](std::size_t i) { return s.positions[i].x; }));
  y.assign(column<double>(n, [&](std::size_t i) { return s.positions[i].y; }));
  z.assign(column<double>(n, [&](std::size_t i) { return s.positions[i].z; }));
  const bool v = !s.velocities.empty();
  vx.assign(column<double>(n, [&](std::size_t i) { return v ? s.velocities[i].x : 0.0; }));
  vy.assign(column<double>(n, [&](std::size_t i) { return v ? s.velocities[i].y : 0.0; }));
  vz.assign(column<double>(n, [&](std::size_t i) { return v ? s.velocities[i].z : 0.0; }));
  fx.resize(n);
  fy.resize(n);
  fz.resize(n);
  type.assign(s.types);
  if (!s.charges.empty()) charge.assign(s.charges);
  else charge.resize(0);
  type_mass.assign(s.type_masses);
  for (Array<int>* image : {&ix, &iy, &iz}) {
    image->resize(n);
    image->set_zero();
  }
  id.assign(column<long>(n, [](std::size_t i) { return static_cast<long>(i); }));
  index_of.assign(column<int>(n, [](std::size_t i) { return static_cast<int>(i); }));
  file_ids_ = s.ids;
}

AtomsRef AtomState::ref() {
  return AtomsRef{n_, box_, x.data(), y.data(), z.data(), vx.data(), vy.data(), vz.data(), fx.data(), fy.data(),
                  fz.data(), type.data(), charge.empty() ? nullptr : charge.data(), type_mass.data(), ix.data(),
                  iy.data(), iz.data(), id.data(), index_of.data(), n_local_};
}

Structure AtomState::to_structure() const {
  Structure s;
  s.box = box_;
  s.type_names = type_names_;
  s.type_masses = type_masses_host_;
  s.ids = file_ids_;
  const auto hx = x.to_vector(), hy = y.to_vector(), hz = z.to_vector();
  const auto hvx = vx.to_vector(), hvy = vy.to_vector(), hvz = vz.to_vector();
  const auto hfx = fx.to_vector(), hfy = fy.to_vector(), hfz = fz.to_vector();
  const auto ht = type.to_vector();
  const auto hid = id.to_vector();
  const auto hq = charge.to_vector();
  const std::size_t n = static_cast<std::size_t>(n_);
  s.positions.resize(n);
  s.velocities.resize(n);
  s.forces.resize(n);
  s.types.resize(n);
  if (!hq.empty()) s.charges.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto k = static_cast<std::size_t>(hid[i]);
    s.positions[k] = box_.wrap({hx[i], hy[i], hz[i]});
    s.velocities[k] = {hvx[i], hvy[i], hvz[i]};
    s.forces[k] = {hfx[i], hfy[i], hfz[i]};
    s.types[k] = ht[i];
    if (!hq.empty()) s.charges[k] = hq[i];
  }
  return s;
}

void AtomState::load_positions(const Structure& s) {
  if (static_cast<int>(s.size()) != n_) throw Error("load_positions: atom count differs");
  const auto hid = id.to_vector();
  const std::size_t n = static_cast<std::size_t>(n_);
  x.assign(column<double>(n, [&](std::size_t i) { return s.positions[hid[i]].x; }));
  y.assign(column<double>(n, [&](std::size_t i) { return s.positions[hid[i]].y; }));
  z.assign(column<double>(n, [&](std::size_t i) { return s.positions[hid[i]].z; }));
  if (!s.velocities.empty()) {
    vx.assign(column<double>(n, [&](std::size_t i) { return s.velocities[hid[i]].x; }));
    vy.assign(column<double>(n, [&](std::size_t i) { return s.velocities[hid[i]].y; }));
    vz.assign(column<double>(n, [&](std::size_t i) { return s.velocities[hid[i]].z; }));
  }
  box_ = s.box;
}

void AtomState::permute(const Array<int>& perm) {
  Array<double> sd(backend_);
  Array<int> si(backend_);
  Array<long> sl(backend_);
  for (Array<double>* a : {&x, &y, &z, &vx, &vy, &vz, &fx, &fy, &fz, &charge}) permute_array(*a, perm, sd);
  for (Array<int>* a : {&type, &ix, &iy, &iz}) permute_array(*a, perm, si);
  permute_array(id, perm, sl);
  update_index_of();
}

void AtomState::update_index_of() {
  index_of.resize(static_cast<std::size_t>(n_));
  if (index_of.on_device()) {
#ifdef QUASAR_HAVE_CUDA
    device::invert_permutation(index_of.data(), id.data(), n_);
#endif
  } else {
    for (int i = 0; i < n_; ++i) index_of[static_cast<std::size_t>(id[static_cast<std::size_t>(i)])] = i;
  }
}

}  // namespace quasar
