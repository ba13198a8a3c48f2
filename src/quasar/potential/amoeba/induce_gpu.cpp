#include "quasar/potential/amoeba/induce_gpu.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>

#include "quasar/core/error.hpp"
#include "quasar/device/backend.hpp"
#include "quasar/potential/amoeba/induce_launch.hpp"
#include "quasar/potential/amoeba/induce_solver.hpp"
#include "quasar/potential/amoeba/multipole_frame.hpp"

namespace quasar::amoeba {

InduceTables induce_tables(const ElectrostaticSystem& e, const PairGeometry& g, const std::vector<Vec3>& r) {
  const std::size_t n = r.size();
  InduceTables t;
  t.position.resize(3 * n);
  for (std::size_t i = 0; i < n; ++i)
    for (int a = 0; a < 3; ++a) t.position[3 * i + static_cast<std::size_t>(a)] = r[i][a];
  t.alpha = e.alpha;
  t.damp = e.damp;
  // Thole's a by pairs of classes (an atom's type and own a, which is all thole_of reads).
  std::map<std::pair<int, double>, int> class_of;
  std::vector<int> first;
  t.thole_class.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::pair<int, double> key{e.type.empty() ? -1 : e.type[i], e.thole[i]};
    const auto [it, added] = class_of.emplace(key, static_cast<int>(class_of.size()));
    if (added) first.push_back(static_cast<int>(i));
    t.thole_class[i] = it->second;
  }
  t.thole_classes = static_cast<int>(first.size());
  t.thole_table.resize(first.size() * first.size());
  for (std::size_t c = 0; c < first.size(); ++c)
    for (std::size_t d = 0; d < first.size(); ++d)
      t.thole_table[c * first.size() + d] =
          e.thole_of(static_cast<std::size_t>(first[c]), static_cast<std::size_t>(first[d]));
  // Each pair's scales as the CPU's loop takes them (from the lower atom's list), listed by both.
  std::vector<std::vector<std::pair<int, const PairScale*>>> by_atom(n);
  for (std::size_t i = 0; i < n; ++i)
    for (int q = e.scale_offset[i]; q < e.scale_offset[i + 1]; ++q) {
      const PairScale& s = e.scales[static_cast<std::size_t>(q)];
      if (static_cast<std::size_t>(s.partner) <= i) continue;
      by_atom[i].emplace_back(s.partner, &s);
      by_atom[static_cast<std::size_t>(s.partner)].emplace_back(static_cast<int>(i), &s);
    }
  t.scale_offset.push_back(0);
  for (auto& list : by_atom) {
    std::stable_sort(list.begin(), list.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    for (std::size_t q = 0; q < list.size(); ++q) {
      // A partner listed twice takes its last record, as the CPU's scratch does.
      if (q + 1 < list.size() && list[q + 1].first == list[q].first) continue;
      t.scale_partner.push_back(list[q].first);
      t.scale_d.push_back(list[q].second->d);
      t.scale_p.push_back(list[q].second->p);
      t.scale_u.push_back(list[q].second->u);
    }
    t.scale_offset.push_back(static_cast<int>(t.scale_partner.size()));
  }
  // In a cell, the candidates listed by both atoms in ascending order (the lower partners, then the higher).
  if (g.candidates) {
    const PairCandidates& half = *g.candidates;
    std::vector<int>& off = t.pair_offset;
    off.assign(n + 1, 0);
    for (std::size_t k = 0; k < n; ++k)
      for (int q = half.offset[k]; q < half.offset[k + 1]; ++q) {
        ++off[static_cast<std::size_t>(half.partner[static_cast<std::size_t>(q)]) + 1];
        ++off[k + 1];
      }
    for (std::size_t i = 0; i < n; ++i) off[i + 1] += off[i];
    std::vector<int>& full = t.pair_partner;
    full.resize(static_cast<std::size_t>(off.back()));
    std::vector<int> at(off.begin(), off.end() - 1);
    for (std::size_t k = 0; k < n; ++k)
      for (int q = half.offset[k]; q < half.offset[k + 1]; ++q)
        full[static_cast<std::size_t>(at[static_cast<std::size_t>(half.partner[static_cast<std::size_t>(q)])]++)] =
            static_cast<int>(k);
    for (std::size_t i = 0; i < n; ++i)
      for (int q = half.offset[i]; q < half.offset[i + 1]; ++q)
        full[static_cast<std::size_t>(at[i]++)] = half.partner[static_cast<std::size_t>(q)];
  }
  return t;
}

InduceArgs induce_args(const InduceTables& t, const ElectrostaticSystem& e, const PairGeometry& g) {
  InduceArgs a;
  a.n = static_cast<int>(t.alpha.size());
  a.periodic = g.periodic;
  a.box = g.box;
  a.cutoff = g.cutoff;
  a.usolve_cutoff = e.usolve_cutoff;
  a.ewald_alpha = g.ewald_alpha;
  a.thole_classes = t.thole_classes;
  a.position = t.position.data();
  a.alpha = t.alpha.data();
  a.damp = t.damp.data();
  a.thole_class = t.thole_class.data();
  a.thole_table = t.thole_table.data();
  a.scale_offset = t.scale_offset.data();
  a.scale_partner = t.scale_partner.data();
  a.scale_d = t.scale_d.data();
  a.scale_p = t.scale_p.data();
  a.scale_u = t.scale_u.data();
  a.pair_offset = g.candidates ? t.pair_offset.data() : nullptr;
  a.pair_partner = g.candidates ? t.pair_partner.data() : nullptr;
  a.mixed = g.mixed;
  return a;
}

std::vector<double> flatten(const std::vector<Vec3>& v) {
  std::vector<double> out(3 * v.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    for (int a = 0; a < 3; ++a) out[3 * i + static_cast<std::size_t>(a)] = v[i][a];
  return out;
}

std::vector<Vec3> unflatten(const std::vector<double>& f, std::size_t n) {
  std::vector<Vec3> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = {f[3 * i], f[3 * i + 1], f[3 * i + 2]};
  return out;
}

#ifdef QUASAR_HAVE_CUDA

ReciprocalFieldHook host_reciprocal_hook(const PairGeometry& g, const std::vector<Vec3>& r) {
  return [g, r](const double* sources, int width, double* field) {
    const std::size_t n = r.size();
    if (width != 3 && width != 13) throw Error("amoeba host_reciprocal_hook: width " + std::to_string(width));
    std::vector<double> flat(n * static_cast<std::size_t>(width)), f(3 * n);
    device::copy_to_host(flat.data(), sources, flat.size() * sizeof(double));
    device::copy_to_host(f.data(), field, f.size() * sizeof(double));
    std::vector<Moments> M(n, Moments{});
    for (std::size_t i = 0; i < n; ++i)
      if (width == 13) std::copy_n(flat.begin() + static_cast<long>(13 * i), 13, M[i].begin());
      else M[i] = dipole_moments({flat[3 * i], flat[3 * i + 1], flat[3 * i + 2]});
    std::vector<Vec3> add(n);
    add_reciprocal_field(g, r, M, add);
    const double self = ewald_self_field(g.ewald_alpha);
    for (std::size_t i = 0; i < n; ++i) {
      // The order of induced_dipoles.cpp: the reciprocal field, then the self field.
      const Vec3 d{M[i][1], M[i][2], M[i][3]};
      const Vec3 sum = width == 13 ? add[i] + self * d : add[i];
      for (int a = 0; a < 3; ++a) f[3 * i + static_cast<std::size_t>(a)] += sum[a];
      if (width == 3)
        for (int a = 0; a < 3; ++a) f[3 * i + static_cast<std::size_t>(a)] += self * d[a];
    }
    device::copy_to_device(field, f.data(), f.size() * sizeof(double));
  };
}

ReciprocalFieldHook device_reciprocal_hook(PmeGpu& pme, const PairGeometry& g, const std::vector<Vec3>& r) {
  pme.prepare(r, g.box, PmeGrid{g.pme_size, g.pme_order, g.ewald_alpha});
  const double self = ewald_self_field(g.ewald_alpha);
  return [&pme, self](const double* sources, int width, double* field) {
    pme.add_ewald_field(sources, width, self, field);
  };
}

InduceGpu::InduceGpu(const ElectrostaticSystem& e, const PairGeometry& g, const std::vector<Vec3>& r)
    : e_(e), g_(g), n_(static_cast<int>(r.size())) {
  const InduceTables t = induce_tables(e, g, r);
  host_args_ = induce_args(t, e, g);
  position_.assign(t.position);
  alpha_.assign(t.alpha);
  damp_.assign(t.damp);
  thole_class_.assign(t.thole_class);
  thole_table_.assign(t.thole_table);
  scale_offset_.assign(t.scale_offset);
  scale_partner_.assign(t.scale_partner);
  scale_d_.assign(t.scale_d);
  scale_p_.assign(t.scale_p);
  scale_u_.assign(t.scale_u);
  pair_offset_.assign(t.pair_offset);
  pair_partner_.assign(t.pair_partner);
  const std::size_t n = r.size();
  for (auto* v : {&field_d_, &field_p_, &product_, &applied_}) v->resize(3 * n);
  for (int f = 0; f < 2; ++f)
    for (auto* v : {&x_[f], &rs_[f], &z_[f], &p_[f]}) v->resize(3 * n);
  moments_.resize(13 * n);
  scalar_.resize(1);
}

// The device's arrays in the arguments (the host pointers of host_args_ are gone with its tables).
InduceArgs InduceGpu::device_args() const {
  InduceArgs a = host_args_;
  a.position = position_.data();
  a.alpha = alpha_.data();
  a.damp = damp_.data();
  a.thole_class = thole_class_.data();
  a.thole_table = thole_table_.data();
  a.scale_offset = scale_offset_.data();
  a.scale_partner = scale_partner_.data();
  a.scale_d = scale_d_.data();
  a.scale_p = scale_p_.data();
  a.scale_u = scale_u_.data();
  a.pair_offset = g_.candidates ? pair_offset_.data() : nullptr;
  a.pair_partner = g_.candidates ? pair_partner_.data() : nullptr;
  return a;
}

// The direct fields into field_d_, field_p_: real space, then the hook's part for both.
void InduceGpu::direct_product(const std::vector<Moments>& M, const ReciprocalFieldHook& hook) {
  std::vector<double> flat(13 * M.size());
  for (std::size_t i = 0; i < M.size(); ++i) std::copy(M[i].begin(), M[i].end(), flat.begin() + static_cast<long>(13 * i));
  moments_.assign(flat);
  launch_direct_fields(device_args(), moments_.data(), field_d_.data(), field_p_.data());
  if (g_.ewald_alpha > 0 && hook) {
    applied_.set_zero();
    hook(moments_.data(), 13, applied_.data());
    launch_direction(n_, 1.0, applied_.data(), field_d_.data());  // field = applied + field
    launch_direction(n_, 1.0, applied_.data(), field_p_.data());
  }
}

void InduceGpu::direct_fields(const std::vector<Moments>& M, std::vector<Vec3>& field_d, std::vector<Vec3>& field_p,
                              const ReciprocalFieldHook& hook) {
  direct_product(M, hook);
  field_d = unflatten(field_d_.to_vector(), M.size());
  field_p = unflatten(field_p_.to_vector(), M.size());
}

void InduceGpu::mutual_product(const double* u, double* field, const ReciprocalFieldHook& hook) {
  launch_mutual_field(device_args(), u, field);
  if (g_.ewald_alpha > 0 && hook) hook(u, 3, field);
}

std::vector<Vec3> InduceGpu::mutual_field(const std::vector<Vec3>& u, const ReciprocalFieldHook& hook) {
  Array<double> ud(Backend::Cuda);
  ud.assign(flatten(u));
  mutual_product(ud.data(), product_.data(), hook);
  return unflatten(product_.to_vector(), u.size());
}

double InduceGpu::dot(const Array<double>& a, const Array<double>& b) {
  launch_dot(n_, a.data(), b.data(), scalar_.data());
  double s = 0;
  scalar_.download(&s, 1);
  return s;
}

struct InduceGpu::DeviceOps {
  InduceGpu& g;
  const ReciprocalFieldHook& hook;
  InduceArgs args;
  void product_of_x(int f) { g.mutual_product(g.x_[f].data(), g.product_.data(), hook); }
  void product_of_p(int f) { g.mutual_product(g.p_[f].data(), g.product_.data(), hook); }
  void start_residual(int f) { launch_start_residual(g.n_, g.alpha_.data(), g.product_.data(), g.rs_[f].data()); }
  void precondition(int f) { launch_precondition(args, g.rs_[f].data(), g.z_[f].data()); }
  void start_direction(int f) { g.p_[f].copy_from(g.z_[f]); }
  void apply_operator(int f) {
    launch_apply_operator(g.n_, g.alpha_.data(), g.p_[f].data(), g.product_.data(), g.applied_.data());
  }
  void step(int f, double s) { launch_step(g.n_, s, g.p_[f].data(), g.applied_.data(), g.x_[f].data(), g.rs_[f].data()); }
  void direction(int f, double beta) { launch_direction(g.n_, beta, g.z_[f].data(), g.p_[f].data()); }
  double dot_rs_z(int f) { return g.dot(g.rs_[f], g.z_[f]); }
  double dot_rs_rs(int f) { return g.dot(g.rs_[f], g.rs_[f]); }
  double dot_p_applied(int f) { return g.dot(g.p_[f], g.applied_); }
};

InducedDipoles InduceGpu::solve(const std::vector<Moments>& M, const ReciprocalFieldHook& hook) {
  const std::size_t n = M.size();
  const bool ewald = g_.ewald_alpha > 0;
  if (ewald && !hook) throw Error("amoeba induce on the GPU: Ewald sums need a reciprocal-field hook");
  InducedDipoles out;
  direct_product(M, hook);
  launch_scale_by_alpha(n_, alpha_.data(), field_d_.data(), x_[0].data());
  launch_scale_by_alpha(n_, alpha_.data(), field_p_.data(), x_[1].data());
  std::size_t polar = 0;
  for (double a : e_.alpha) polar += a > 0;
  auto finish = [&] {
    out.field_d = unflatten(field_d_.to_vector(), n);
    out.field_p = unflatten(field_p_.to_vector(), n);
    out.ud = unflatten(x_[0].to_vector(), n);
    out.up = unflatten(x_[1].to_vector(), n);
    return out;
  };
  if (!e_.mutual || polar == 0) return finish();
  DeviceOps ops{*this, hook, device_args()};
  induce_conjugate_gradient(ops, e_, polar, out.iterations, out.residual);
  return finish();
}

InducedDipoles induce_gpu(const ElectrostaticSystem& e, const PairGeometry& g, const std::vector<Vec3>& r,
                          const ReciprocalFieldHook& hook) {
  InduceGpu gpu(e, g, r);
  ReciprocalFieldHook recip = hook;
  if (g.ewald_alpha > 0 && !recip) recip = g.pme_gpu ? device_reciprocal_hook(*g.pme_gpu, g, r) : host_reciprocal_hook(g, r);
  return gpu.solve(lab_moments(e, g, r), recip);
}

#else

ReciprocalFieldHook host_reciprocal_hook(const PairGeometry&, const std::vector<Vec3>&) {
  throw_no_cuda("amoeba induced dipoles on the GPU");
}
ReciprocalFieldHook device_reciprocal_hook(PmeGpu&, const PairGeometry&, const std::vector<Vec3>&) {
  throw_no_cuda("amoeba induced dipoles on the GPU");
}
InduceGpu::InduceGpu(const ElectrostaticSystem& e, const PairGeometry& g, const std::vector<Vec3>&) : e_(e), g_(g) {
  (void)e_, (void)g_, (void)n_;
  throw_no_cuda("amoeba induced dipoles on the GPU");
}
void InduceGpu::direct_fields(const std::vector<Moments>&, std::vector<Vec3>&, std::vector<Vec3>&,
                              const ReciprocalFieldHook&) {}
void InduceGpu::direct_product(const std::vector<Moments>&, const ReciprocalFieldHook&) {}
std::vector<Vec3> InduceGpu::mutual_field(const std::vector<Vec3>&, const ReciprocalFieldHook&) { return {}; }
InducedDipoles InduceGpu::solve(const std::vector<Moments>&, const ReciprocalFieldHook&) { return {}; }
void InduceGpu::mutual_product(const double*, double*, const ReciprocalFieldHook&) {}
InduceArgs InduceGpu::device_args() const { return host_args_; }
double InduceGpu::dot(const Array<double>&, const Array<double>&) { return 0; }
InducedDipoles induce_gpu(const ElectrostaticSystem&, const PairGeometry&, const std::vector<Vec3>&,
                          const ReciprocalFieldHook&) {
  throw_no_cuda("amoeba induced dipoles on the GPU");
}

#endif

}  // namespace quasar::amoeba
