#include "quasar/core/atoms.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

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

// Each of the `width` components of `a` (n values each) reordered by perm.
template <class T>
void permute_array(Array<T>& a, const Array<int>& perm, int n, int width, Array<T>& scratch) {
  if (a.empty()) return;
  if (a.size() != static_cast<std::size_t>(width) * n)
    throw Error("permute: a per-atom array holds " + std::to_string(a.size()) + " values for " + std::to_string(n) +
                " atoms of width " + std::to_string(width));
  scratch.resize(a.size());
  for (int c = 0; c < width; ++c) {
    const std::size_t at = static_cast<std::size_t>(c) * n;
    if (a.on_device()) {
#ifdef QUASAR_HAVE_CUDA
      device::gather(scratch.data() + at, a.data() + at, perm.data(), n);
#endif
    } else {
      for (int i = 0; i < n; ++i) scratch[at + i] = a[at + perm[i]];
    }
  }
  a.swap(scratch);
}
}  // namespace

AtomState::AtomState(Backend backend, const Structure& s, int n_local)
    : x(backend), y(backend), z(backend), vx(backend), vy(backend), vz(backend), fx(backend), fy(backend),
      fz(backend), type(backend), charge(backend), type_mass(backend), ix(backend), iy(backend), iz(backend),
      id(backend), index_of(backend), system(backend), system_box(backend), system_offset(backend),
      system_temperature(backend), system_stream(backend), system_active(backend), backend_(backend) {
  load(s, n_local);
}

AtomState::AtomState(Backend backend, std::span<const Structure> systems)
    : x(backend), y(backend), z(backend), vx(backend), vy(backend), vz(backend), fx(backend), fy(backend),
      fz(backend), type(backend), charge(backend), type_mass(backend), ix(backend), iy(backend), iz(backend),
      id(backend), index_of(backend), system(backend), system_box(backend), system_offset(backend),
      system_temperature(backend), system_stream(backend), system_active(backend), backend_(backend) {
  load(systems);
}

std::vector<AtomProperty> AtomState::properties() {
  std::vector<AtomProperty> p = {
      {.name = "x", .array = &x},          {.name = "y", .array = &y},   {.name = "z", .array = &z},
      {.name = "vx", .array = &vx},        {.name = "vy", .array = &vy}, {.name = "vz", .array = &vz},
      {.name = "fx", .array = &fx},        {.name = "fy", .array = &fy}, {.name = "fz", .array = &fz},
      {.name = "type", .array = &type},    {.name = "charge", .array = &charge, .optional = true},
      {.name = "ix", .array = &ix},        {.name = "iy", .array = &iy}, {.name = "iz", .array = &iz},
      // The input index: checkpoints keep it as the order the atoms are in (see md/checkpoint.cpp).
      {.name = "id", .array = &id, .saved = false},
      {.name = "system", .array = &system, .optional = true},
  };
  for (const Added& a : added_) p.push_back(a.property);
  return p;
}

template <class T>
Array<T>& AtomState::add_property(const std::string& name, int width, bool output) {
  if (width < 1) throw Error("per-atom property '" + name + "': width must be at least 1");
  for (const AtomProperty& p : properties()) {
    if (p.name != name) continue;
    auto* const* a = std::get_if<Array<T>*>(&p.array);
    const bool added = std::any_of(added_.begin(), added_.end(), [&](const Added& e) { return e.property.name == name; });
    if (!added || !a || p.width != width)
      throw Error("per-atom property '" + name + "' exists already" + (added ? " with another type or width" : ""));
    return **a;
  }
  auto storage = std::make_unique<Array<T>>(backend_, static_cast<std::size_t>(width) * n_);
  Array<T>& array = *storage;
  added_.push_back({AtomProperty{.name = name, .array = &array, .width = width, .output = output}, std::move(storage)});
  return array;
}

template <class T>
Array<T>* AtomState::find_property(const std::string& name) {
  for (const Added& a : added_)
    if (a.property.name == name)
      if (auto* const* p = std::get_if<Array<T>*>(&a.property.array)) return *p;
  return nullptr;
}

template Array<double>& AtomState::add_property<double>(const std::string&, int, bool);
template Array<int>& AtomState::add_property<int>(const std::string&, int, bool);
template Array<long>& AtomState::add_property<long>(const std::string&, int, bool);
template Array<double>* AtomState::find_property<double>(const std::string&);
template Array<int>* AtomState::find_property<int>(const std::string&);
template Array<long>* AtomState::find_property<long>(const std::string&);

void AtomState::load(const Structure& s, int n_local) {
  load_systems(std::span<const Structure>(&s, 1), n_local);
}

void AtomState::load(std::span<const Structure> systems) {
  if (systems.empty()) throw Error("a batch needs at least one system");
  load_systems(systems, -1);
}

void AtomState::load_systems(std::span<const Structure> systems, int n_local) {
  const bool batch = systems.size() > 1;
  std::size_t n = 0;
  for (std::size_t k = 0; k < systems.size(); ++k) {
    const Structure& s = systems[k];
    s.validate(batch ? "system " + std::to_string(k) : std::string("structure"));
    if (batch && s.charges.empty() != systems[0].charges.empty())
      throw Error("batch: system " + std::to_string(k) + (s.charges.empty() ? " has no charges" : " has charges") +
                  ", system 0 " + (s.charges.empty() ? "has" : "has none"));
    n += s.size();
  }
  MergedTypes merged = merge_types(systems);
  const std::vector<std::vector<int>>& type_map = merged.index;
  n_ = static_cast<int>(n);
  n_local_ = n_local < 0 ? n_ : n_local;
  if (n_local_ > n_) throw Error("structure: " + std::to_string(n_local_) + " local atoms of " + std::to_string(n_));
  type_names_ = std::move(merged.names);
  type_masses_host_ = std::move(merged.masses);
  boxes_.clear();
  ++cell_revision_;
  offsets_.assign(1, 0);
  // Every per-atom value in input order, the systems one after another.
  std::vector<double> px, py, pz, pvx, pvy, pvz, q;
  std::vector<int> types, systems_of;
  file_ids_.clear();
  const bool any_ids = std::any_of(systems.begin(), systems.end(), [](const Structure& s) { return !s.ids.empty(); });
  for (std::size_t k = 0; k < systems.size(); ++k) {
    const Structure& s = systems[k];
    for (std::size_t i = 0; i < s.size(); ++i) {
      px.push_back(s.positions[i].x);
      py.push_back(s.positions[i].y);
      pz.push_back(s.positions[i].z);
      const Vec3 v = s.velocities.empty() ? Vec3{} : s.velocities[i];
      pvx.push_back(v.x);
      pvy.push_back(v.y);
      pvz.push_back(v.z);
      types.push_back(type_map[k][static_cast<std::size_t>(s.types[i])]);
      if (!s.charges.empty()) q.push_back(s.charges[i]);
      if (any_ids) file_ids_.push_back(s.ids.empty() ? static_cast<long>(i) + 1 : s.ids[i]);
      systems_of.push_back(static_cast<int>(k));
    }
    boxes_.push_back(s.box);
    offsets_.push_back(offsets_.back() + static_cast<int>(s.size()));
  }
  type_counts_.assign(type_names_.size(), 0);
  for (int t : types) ++type_counts_[t];
  local_type_counts_.assign(type_names_.size(), 0);
  for (int i = 0; i < n_local_; ++i) ++local_type_counts_[types[static_cast<std::size_t>(i)]];
  x.assign(px);
  y.assign(py);
  z.assign(pz);
  vx.assign(pvx);
  vy.assign(pvy);
  vz.assign(pvz);
  fx.resize(n);
  fy.resize(n);
  fz.resize(n);
  type.assign(types);
  charge.assign(q);
  type_mass.assign(type_masses_host_);
  for (Array<int>* image : {&ix, &iy, &iz}) {
    image->resize(n);
    image->set_zero();
  }
  id.assign(column<long>(n, [](std::size_t i) { return static_cast<long>(i); }));
  index_of.assign(column<int>(n, [](std::size_t i) { return static_cast<int>(i); }));
  if (batch) {
    system.assign(systems_of);
    system_box.assign(boxes_);
    system_offset.assign(offsets_);
    system_temperature.assign(std::vector<double>(systems.size(), 0.0));
    system_stream.assign(column<std::uint64_t>(systems.size(), [](std::size_t k) { return static_cast<std::uint64_t>(k); }));
    system_active.assign(std::vector<int>(systems.size(), 1));
  } else {
    for (Array<int>* a : {&system, &system_offset, &system_active}) a->resize(0);
    system_box.resize(0);
    system_temperature.resize(0);
    system_stream.resize(0);
  }
  fill_added(systems);
}

// Added properties: each system's column of the same name, else zeros.
void AtomState::fill_added(std::span<const Structure> systems) {
  for (Added& a : added_) {
    const AtomProperty& p = a.property;
    const std::size_t w = static_cast<std::size_t>(p.width), n = static_cast<std::size_t>(n_);
    std::visit(
        [&](auto* array) {
          using T = typename std::remove_pointer_t<decltype(array)>::value_type;
          std::vector<T> values(w * n, T{});
          std::size_t first = 0;
          for (std::size_t k = 0; k < systems.size(); ++k) {
            const Structure& s = systems[k];
            const auto it = s.columns.find(p.name);
            if (it != s.columns.end()) {
              if (it->second.width != p.width)
                throw Error("column " + p.name + " has width " + std::to_string(it->second.width) +
                            ", the per-atom property " + std::to_string(p.width));
              for (std::size_t i = 0; i < s.size(); ++i)
                for (std::size_t c = 0; c < w; ++c) values[c * n + first + i] = static_cast<T>(it->second.values[i * w + c]);
            }
            first += s.size();
          }
          array->assign(values);
        },
        p.array);
  }
}

void AtomState::set_box(int s, const Box& b) {
  boxes_.at(static_cast<std::size_t>(s)) = b;
  ++cell_revision_;
  if (is_batch()) system_box.upload(&b, 1, static_cast<std::size_t>(s));
}

long AtomState::file_id(long index) const {
  if (!file_ids_.empty()) return file_ids_[static_cast<std::size_t>(index)];
  const auto at = std::upper_bound(offsets_.begin(), offsets_.end(), static_cast<int>(index)) - 1;
  return index - *at + 1;
}

std::vector<double> AtomState::input_charges() const {
  const auto q = charge.to_vector();
  if (q.empty()) return q;
  const auto hid = id.to_vector();
  std::vector<double> out(q.size());
  for (std::size_t i = 0; i < q.size(); ++i) out[static_cast<std::size_t>(hid[i])] = q[i];
  return out;
}

AtomsRef AtomState::ref() {
  AtomsRef r{n_, boxes_.front(), x.data(), y.data(), z.data(), vx.data(), vy.data(), vz.data(), fx.data(), fy.data(),
             fz.data(), type.data(), charge.empty() ? nullptr : charge.data(), type_mass.data(), ix.data(),
             iy.data(), iz.data(), id.data(), index_of.data(), n_local_};
  if (is_batch()) {
    r.system = system.data();
    r.boxes = system_box.data();
  }
  return r;
}

Structure AtomState::to_structure() const {
  if (is_batch())
    throw Error("to_structure: the state holds " + std::to_string(num_systems()) + " systems (use to_structures)");
  return to_structures().front();
}

std::vector<Structure> AtomState::to_structures() const {
  const auto hx = x.to_vector(), hy = y.to_vector(), hz = z.to_vector();
  const auto hvx = vx.to_vector(), hvy = vy.to_vector(), hvz = vz.to_vector();
  const auto hfx = fx.to_vector(), hfy = fy.to_vector(), hfz = fz.to_vector();
  const auto ht = type.to_vector();
  const auto hid = id.to_vector();
  const auto hq = charge.to_vector();
  const std::size_t n = static_cast<std::size_t>(n_);
  std::vector<Structure> out(static_cast<std::size_t>(num_systems()));
  for (std::size_t k = 0; k < out.size(); ++k) {
    Structure& s = out[k];
    const std::size_t first = static_cast<std::size_t>(offsets_[k]), count = static_cast<std::size_t>(offsets_[k + 1]) - first;
    s.box = boxes_[k];
    s.type_names = type_names_;
    s.type_masses = type_masses_host_;
    if (!file_ids_.empty()) s.ids.assign(file_ids_.begin() + static_cast<long>(first), file_ids_.begin() + static_cast<long>(first + count));
    s.positions.resize(count);
    s.velocities.resize(count);
    s.forces.resize(count);
    s.types.resize(count);
    if (!hq.empty()) s.charges.resize(count);
  }
  std::vector<std::size_t> system_of(n);
  for (std::size_t k = 0; k < out.size(); ++k)
    for (int i = offsets_[k]; i < offsets_[k + 1]; ++i) system_of[static_cast<std::size_t>(i)] = k;
  for (std::size_t i = 0; i < n; ++i) {
    const auto input = static_cast<std::size_t>(hid[i]);
    const std::size_t k = system_of[input], at = input - static_cast<std::size_t>(offsets_[k]);
    Structure& s = out[k];
    s.positions[at] = boxes_[k].wrap({hx[i], hy[i], hz[i]});
    s.velocities[at] = {hvx[i], hvy[i], hvz[i]};
    s.forces[at] = {hfx[i], hfy[i], hfz[i]};
    s.types[at] = ht[i];
    if (!hq.empty()) s.charges[at] = hq[i];
  }
  // Added properties with output: Structure columns, atom after atom, in input order.
  for (const Added& a : added_) {
    const AtomProperty& p = a.property;
    if (!p.output) continue;
    const std::size_t w = static_cast<std::size_t>(p.width);
    std::visit(
        [&](auto* array) {
          const auto v = array->to_vector();
          for (std::size_t k = 0; k < out.size(); ++k) {
            auto& c = out[k].columns[p.name];
            c.width = p.width;
            c.values.assign(w * out[k].size(), 0.0);
          }
          for (std::size_t i = 0; i < n; ++i) {
            const auto input = static_cast<std::size_t>(hid[i]);
            const std::size_t k = system_of[input], at = input - static_cast<std::size_t>(offsets_[k]);
            auto& c = out[k].columns[p.name];
            for (std::size_t q = 0; q < w; ++q) c.values[at * w + q] = static_cast<double>(v[q * n + i]);
          }
        },
        p.array);
  }
  return out;
}

void AtomState::load_positions(const Structure& s) {
  if (is_batch()) throw Error("load_positions: the state holds several systems");
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
  set_box(s.box);
}

void AtomState::permute(const Array<int>& perm) {
  // One scratch array per value type, swapped with each array in turn.
  std::tuple<Array<double>, Array<int>, Array<long>> scratch{Array<double>(backend_), Array<int>(backend_),
                                                             Array<long>(backend_)};
  for (const AtomProperty& p : properties())
    std::visit(
        [&](auto* a) {
          using T = typename std::remove_pointer_t<decltype(a)>::value_type;
          permute_array(*a, perm, n_, p.width, std::get<Array<T>>(scratch));
        },
        p.array);
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
