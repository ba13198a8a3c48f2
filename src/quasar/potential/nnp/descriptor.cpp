#include "quasar/potential/nnp/descriptor.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "quasar/core/error.hpp"

namespace quasar::nnp {

namespace {

[[noreturn]] void refuse(const SymmetryFunction& f, const std::string& why) {
  throw Error("symmetry function of type " + std::to_string(f.type) + " (input.nn line " + std::to_string(f.line) +
              "): " + why);
}

}  // namespace

SfParams<double> make_sf_params(const SymmetryFunction& f, const Model& model, double length_scale) {
  if (!sf_type_known(f.type)) refuse(f, "unknown type");
  if (!(length_scale > 0)) refuse(f, "the length scale must be positive");
  const int n_elements = int(model.elements.size());
  auto element_ok = [&](int e) { return e >= 0 && e < n_elements; };
  SfParams<double> p;
  p.type = f.type;
  if (!sf_weighted(f.type)) {
    p.e1 = f.e1;
    p.e2 = sf_angular(f.type) ? f.e2 : -1;
    if (!element_ok(p.e1) || (sf_angular(f.type) && !element_ok(p.e2))) refuse(f, "neighbour element out of range");
    if (p.e2 >= 0 && p.e1 > p.e2) std::swap(p.e1, p.e2);  // n2p2 orders the pair
  }
  const double s = length_scale;
  if (!(f.rc > 0)) refuse(f, "rc must be positive");
  p.rc = f.rc * s;
  if (!sf_compact(f.type)) {
    const double alpha = model.cutoff_alpha;
    if (!(alpha >= 0 && alpha < 1)) refuse(f, "the inner cutoff alpha must lie in [0, 1)");
    const int kind = int(model.cutoff);
    if (kind < kCutHard || kind > kCutPoly4) refuse(f, "unknown cutoff_type " + std::to_string(kind));
    p.shape = kind;
    p.inner = alpha * p.rc;
    p.inv_width = 1.0 / (p.rc - p.inner);
    p.inv_rc = 1.0 / p.rc;
    p.eta = f.eta / (s * s);
    p.rs = f.rs * s;
    if (f.type == 3 || f.type == 9) p.rs = std::max(p.rs, 0.0);  // n2p2's groups: rs <= 0 is no shift
    if (sf_angular(f.type)) {
      p.lambda = f.lambda;
      p.zeta = f.zeta;
      p.prefactor = std::pow(2.0, 1.0 - f.zeta);
      if (f.zeta >= 1 && f.zeta == std::round(f.zeta) && f.zeta < 1e9) p.zeta_int = int(f.zeta);
    }
    return p;
  }
  const int core = int(f.core);
  if (core < kCoreP1 || core > kCoreExp) refuse(f, "unknown compact subtype");
  p.shape = core;
  p.alt = f.core_alt && core != kCoreExp;  // n2p2 reads "e" with any suffix as e
  if (!(f.rlow < f.rc)) refuse(f, "rlow must lie below rc");
  p.rlow = f.rlow * s;
  p.centre = 0.5 * (p.rlow + p.rc);
  p.inv_width = 1.0 / (0.5 * (p.rc - p.rlow));
  if (sf_angular(f.type)) {
    const double left = f.left, right = f.right, centre = 0.5 * (left + right);
    if (!(left < right)) refuse(f, "the left angle must lie below the right one");
    if ((left < 0 && centre != 0) || (right > 180 && centre != 180))
      refuse(f, "an angle window reaching beyond [0, 180] degrees must be centred on 0 or 180");
    if (right - left > 360) refuse(f, "the angle window spans more than 360 degrees");
    p.theta_left = left * kSfPi / 180.0;
    p.theta_right = right * kSfPi / 180.0;
    p.theta_centre = 0.5 * (p.theta_left + p.theta_right);
    p.theta_inv_width = 1.0 / (0.5 * (p.theta_right - p.theta_left));
  }
  return p;
}

Descriptor::Descriptor(const Model& model, double length_scale) {
  const int ne = int(model.elements.size());
  for (const ElementModel& e : model.elements) atomic_number_.push_back(double(e.atomic_number));
  plans_.resize(ne);
  for (int c = 0; c < ne; ++c) {
    DescriptorPlan& plan = plans_[c];
    plan.radial.resize(ne);
    plan.angular.resize(ne * ne);
    for (const SymmetryFunction& f : model.elements[c].functions) {
      const SfParams<double> p = make_sf_params(f, model, length_scale);
      const int s = int(plan.functions.size());
      plan.functions.push_back(p);
      cutoff_ = std::max(cutoff_, p.rc);
      int u = 0;
      while (u < int(plan.envelopes.size()) && !same_envelope(plan.envelopes[u], p)) ++u;
      if (u == int(plan.envelopes.size())) plan.envelopes.push_back(p);
      plan.envelope_of.push_back(u);
      int factor = -1;
      if (sf_angular(p.type)) {
        factor = 0;
        while (factor < int(plan.factors.size()) && !same_radial_factor(plan.factors[factor], p)) ++factor;
        if (factor == int(plan.factors.size())) {
          plan.factors.push_back(p);
          plan.factor_envelope.push_back(u);
        }
      }
      plan.factor_of.push_back(factor);
      for (int a = 0; a < ne; ++a) {
        if (!sf_angular(p.type)) {
          if (sf_accepts(p, a)) plan.radial[a].push_back(s);
          continue;
        }
        for (int b = a; b < ne; ++b)
          if (sf_accepts(p, a, b)) plan.angular[a * ne + b].push_back(s);
      }
    }
    plan.angular_needs_angle.assign(ne * ne, 0);
    plan.angular_narrow.assign(ne * ne, 0);
    plan.angular_reach.assign(ne * ne, 0.0);
    for (int pair = 0; pair < ne * ne; ++pair) {
      std::vector<int>& list = plan.angular[pair];
      // Functions of one radial factor together: the factor at r_jk is evaluated once per run.
      std::stable_sort(list.begin(), list.end(), [&](int x, int y) { return plan.factor_of[x] < plan.factor_of[y]; });
      plan.angular_narrow[pair] = !list.empty();
      for (int s : list) {
        plan.angular_narrow[pair] &= sf_uses_rjk(plan.functions[s].type);
        plan.angular_needs_angle[pair] |= sf_compact(plan.functions[s].type);
        plan.angular_reach[pair] = std::max(plan.angular_reach[pair], plan.functions[s].rc);
      }
    }
  }
}

template <class Visitor>
void Descriptor::visit(int element, std::span<const NeighborEntry> nb, Visitor& visitor) const {
  const DescriptorPlan& plan = plans_.at(element);
  const int ne = int(plans_.size()), n = int(nb.size());
  const int n_env = int(plan.envelopes.size()), n_fac = int(plan.factors.size());
  // Per neighbour: every envelope and every radial factor of the angular functions.
  thread_local std::vector<Fdf<double>> env, factor;
  env.resize(std::size_t(n) * n_env);
  factor.resize(std::size_t(n) * n_fac);
  for (int j = 0; j < n; ++j) {
    const NeighborEntry& a = nb[j];
    if (a.element < 0 || a.element >= ne)
      throw Error("nnp: neighbour element " + std::to_string(a.element) + " out of range");
    Fdf<double>* env_j = env.data() + std::size_t(j) * n_env;
    for (int u = 0; u < n_env; ++u) env_j[u] = envelope(plan.envelopes[u], a.r);
    for (int u = 0; u < n_fac; ++u)
      factor[std::size_t(j) * n_fac + u] = radial_term(plan.factors[u], a.r, env_j[plan.factor_envelope[u]]);
  }
  for (int j = 0; j < n; ++j) {
    const NeighborEntry& a = nb[j];
    if (!visitor.neighbor_begin(j)) continue;
    const double z = atomic_number_[a.element];
    for (int s : plan.radial[a.element]) {
      const SfParams<double>& p = plan.functions[s];
      const Fdf<double> t = radial_term(p, a.r, env[std::size_t(j) * n_env + plan.envelope_of[s]]);
      visitor.radial(s, sf_weighted(p.type) ? z : 1.0, t);
    }
    visitor.neighbor_end(j);
  }
  for (int j = 0; j + 1 < n; ++j) {
    const NeighborEntry& a = nb[j];
    const double dj[3] = {a.dx, a.dy, a.dz};
    const Fdf<double>* factor_j = factor.data() + std::size_t(j) * n_fac;
    for (int k = j + 1; k < n; ++k) {
      const NeighborEntry& b = nb[k];
      const int pair = std::min(a.element, b.element) * ne + std::max(a.element, b.element);
      const std::vector<int>& list = plan.angular[pair];
      if (list.empty() || a.r >= plan.angular_reach[pair] || b.r >= plan.angular_reach[pair]) continue;
      if (!visitor.pair_begin(j, k)) continue;
      const double dk[3] = {b.dx, b.dy, b.dz};
      const PairGeometry<double> g = pair_geometry(dj, a.r, dk, b.r);
      if (plan.angular_narrow[pair] && g.rjk >= plan.angular_reach[pair]) continue;  // every term is zero
      const PairAngle<double> angle = plan.angular_needs_angle[pair] ? pair_angle(g) : PairAngle<double>{};
      const double zz = atomic_number_[a.element] * atomic_number_[b.element];
      const Fdf<double>* factor_k = factor.data() + std::size_t(k) * n_fac;
      // The radial factor at r_jk, kept while consecutive functions share it (the list is sorted by factor).
      int jk_envelope = -1, jk_factor = -1;
      Fdf<double> env_jk, factor_jk;
      for (int s : list) {
        const SfParams<double>& p = plan.functions[s];
        const int u = plan.factor_of[s];
        if (sf_uses_rjk(p.type) && u != jk_factor) {
          const int v = plan.envelope_of[s];
          if (v != jk_envelope) env_jk = envelope(plan.envelopes[v], g.rjk);
          jk_envelope = v;
          factor_jk = radial_term(p, g.rjk, env_jk);
          jk_factor = u;
        }
        const AngularTerm<double> t = angular_term(p, g, angle, factor_j[u], factor_k[u], factor_jk);
        visitor.angular(s, sf_weighted(p.type) ? zz : 1.0, t);
      }
      visitor.pair_end(j, k);
    }
  }
}

namespace {

struct ValueVisitor {
  double* G;
  bool neighbor_begin(int) { return true; }
  bool pair_begin(int, int) { return true; }
  void radial(int s, double w, const Fdf<double>& t) { G[s] += w * t.f; }
  void neighbor_end(int) {}
  void angular(int s, double w, const AngularTerm<double>& t) { G[s] += w * t.value; }
  void pair_end(int, int) {}
};

// Contracts the terms' derivatives with g: per neighbour and per pair the coefficients of all
// functions add before the displacement vectors are used.
struct GradientVisitor {
  std::span<const NeighborEntry> nb;
  const double* g;
  double* grad;
  double radial_sum = 0, jj = 0, jk = 0, kk = 0;
  bool neighbor_begin(int) { return true; }
  bool pair_begin(int, int) { return true; }
  void radial(int s, double w, const Fdf<double>& t) { radial_sum += g[s] * w * t.df; }
  void neighbor_end(int j) {
    if (radial_sum != 0) {
      const NeighborEntry& a = nb[j];
      const double c = radial_sum / a.r;
      grad[3 * j] += c * a.dx;
      grad[3 * j + 1] += c * a.dy;
      grad[3 * j + 2] += c * a.dz;
    }
    radial_sum = 0;
  }
  void angular(int s, double w, const AngularTerm<double>& t) {
    const double gw = g[s] * w;
    jj += gw * t.jj;
    jk += gw * t.jk;
    kk += gw * t.kk;
  }
  void pair_end(int j, int k) {
    const NeighborEntry& a = nb[j];
    const NeighborEntry& b = nb[k];
    grad[3 * j] += jj * a.dx + jk * b.dx;
    grad[3 * j + 1] += jj * a.dy + jk * b.dy;
    grad[3 * j + 2] += jj * a.dz + jk * b.dz;
    grad[3 * k] += jk * a.dx + kk * b.dx;
    grad[3 * k + 1] += jk * a.dy + kk * b.dy;
    grad[3 * k + 2] += jk * a.dz + kk * b.dz;
    jj = jk = kk = 0;
  }
};

// Forward mode along the neighbours' displacements t_j: a radial term changes by df/r (d_j . t_j),
// an angular term by jj (d_j . t_j) + jk (d_k . t_j + d_j . t_k) + kk (d_k . t_k).
struct TangentVisitor {
  std::span<const NeighborEntry> nb;
  const double* t;
  const char* moving;
  double* dG;
  double along = 0, pj = 0, pjk = 0, pk = 0;
  double project(int j, const NeighborEntry& d) const {
    return d.dx * t[3 * j] + d.dy * t[3 * j + 1] + d.dz * t[3 * j + 2];
  }
  bool neighbor_begin(int j) {
    if (!moving[j]) return false;
    along = project(j, nb[j]) / nb[j].r;
    return true;
  }
  bool pair_begin(int j, int k) {
    if (!moving[j] && !moving[k]) return false;
    pj = project(j, nb[j]);
    pk = project(k, nb[k]);
    pjk = project(j, nb[k]) + project(k, nb[j]);
    return true;
  }
  void radial(int s, double w, const Fdf<double>& term) { dG[s] += w * term.df * along; }
  void neighbor_end(int) {}
  void angular(int s, double w, const AngularTerm<double>& term) {
    dG[s] += w * (term.jj * pj + term.jk * pjk + term.kk * pk);
  }
  void pair_end(int, int) {}
};

// The derivative of each term by each displacement, stored per neighbour, component and function.
struct JacobianVisitor {
  std::span<const NeighborEntry> nb;
  int count;
  double* jac;
  int current = 0, j = 0, k = 0;  // the neighbour of the radial terms, the pair of the angular ones
  double* at(int neighbor, int c) { return jac + (3 * static_cast<std::size_t>(neighbor) + c) * count; }
  bool neighbor_begin(int neighbor) {
    current = neighbor;
    return true;
  }
  bool pair_begin(int pj, int pk) {
    j = pj, k = pk;
    return true;
  }
  void radial(int s, double w, const Fdf<double>& term) {
    const NeighborEntry& d = nb[current];
    const double c = w * term.df / d.r;
    at(current, 0)[s] += c * d.dx;
    at(current, 1)[s] += c * d.dy;
    at(current, 2)[s] += c * d.dz;
  }
  void neighbor_end(int) {}
  void angular(int s, double w, const AngularTerm<double>& term) {
    const NeighborEntry &a = nb[j], &b = nb[k];
    const double jj = w * term.jj, jk = w * term.jk, kk = w * term.kk;
    at(j, 0)[s] += jj * a.dx + jk * b.dx;
    at(j, 1)[s] += jj * a.dy + jk * b.dy;
    at(j, 2)[s] += jj * a.dz + jk * b.dz;
    at(k, 0)[s] += jk * a.dx + kk * b.dx;
    at(k, 1)[s] += jk * a.dy + kk * b.dy;
    at(k, 2)[s] += jk * a.dz + kk * b.dz;
  }
  void pair_end(int, int) {}
};

}  // namespace

void Descriptor::values(int element, std::span<const NeighborEntry> nb, double* G) const {
  std::fill(G, G + count(element), 0.0);
  ValueVisitor visitor{G};
  visit(element, nb, visitor);
}

void Descriptor::gradient(int element, std::span<const NeighborEntry> nb, const double* g, double* grad) const {
  GradientVisitor visitor{nb, g, grad};
  visit(element, nb, visitor);
}

void Descriptor::tangent(int element, std::span<const NeighborEntry> nb, const double* t, const char* moving,
                         double* dG) const {
  std::fill(dG, dG + count(element), 0.0);
  TangentVisitor visitor{nb, t, moving, dG};
  visit(element, nb, visitor);
}

void Descriptor::jacobian(int element, std::span<const NeighborEntry> nb, double* jac) const {
  const int n = count(element);
  std::fill(jac, jac + 3 * nb.size() * static_cast<std::size_t>(n), 0.0);
  JacobianVisitor visitor{nb, n, jac};
  visit(element, nb, visitor);
}

}  // namespace quasar::nnp
