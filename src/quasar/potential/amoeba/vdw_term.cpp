#include "quasar/potential/amoeba/vdw_term.hpp"

#include <algorithm>
#include <cmath>

#include "quasar/core/error.hpp"
#include "quasar/core/units.hpp"
#include "quasar/io/text.hpp"
#include "quasar/potential/amoeba/pair_list.hpp"
#include "quasar/potential/amoeba/vdw_forms.hpp"

namespace quasar::amoeba {

namespace {

constexpr double kDelta = kVdwDelta, kGamma = kVdwGamma;

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// A header setting that must have one of the values given (the first when absent).
std::string setting(const Parameters& p, const std::string& key, std::initializer_list<const char*> allowed) {
  const auto it = p.header.settings.find(key);
  const std::string v = it == p.header.settings.end() ? std::string(*allowed.begin()) : upper(it->second);
  for (const char* a : allowed)
    if (v == a) return v;
  p.fail_setting(key, "not yet supported: " + key + " " + v + " (Van der Waals)");
}

double number_setting(const Parameters& p, const std::string& key, double fallback) {
  const auto it = p.header.settings.find(key);
  if (it == p.header.settings.end()) return fallback;
  double v = 0;
  if (!io::parse_finite(it->second, v) || !(v > 0)) p.fail_setting(key, "'" + key + "': expected a positive number, found '" + it->second + "'");
  return v;
}

}  // namespace

VdwSystem vdw_system(const Parameters& p, const std::vector<int>& types, const std::vector<std::vector<int>>& nb) {
  setting(p, "vdwtype", {"BUFFERED-14-7"});
  setting(p, "radiusrule", {"CUBIC-MEAN"});
  setting(p, "radiustype", {"R-MIN"});
  const bool diameter = setting(p, "radiussize", {"RADIUS", "DIAMETER"}) == "DIAMETER";
  setting(p, "epsilonrule", {"HHG"});
  for (const char* k : {"vdw-lambda", "ligand"})
    if (p.header.settings.count(k)) p.fail_setting(k, std::string("not yet supported: ") + k + " (Van der Waals)");
  for (const char* k : {"vdw-15-scale"})
    if (number_setting(p, k, 1.0) != 1.0) p.fail_setting(k, std::string("not yet supported: ") + k + " other than 1");
  const auto scale = [&](const char* k, double fallback) {
    const auto it = p.header.settings.find(k);
    double v = fallback;
    if (it != p.header.settings.end() && !io::parse_finite(it->second, v))
      p.fail_setting(k, std::string("'") + k + "': expected a number");
    return v;
  };
  const double s12 = scale("vdw-12-scale", 0), s13 = scale("vdw-13-scale", 0), s14 = scale("vdw-14-scale", 1);

  VdwSystem v;
  const std::size_t n = types.size();
  for (std::size_t i = 0; i < n; ++i) {
    const int c = p.atom(types[i], "atom " + std::to_string(i + 1)).cls;
    const auto it = p.vdw.find(c);
    if (it == p.vdw.end())
      throw InputError(p.parameter_path, 0, "no vdw parameters for atom " + std::to_string(i + 1) + " (class " + std::to_string(c) + ")");
    v.cls.push_back(c);
    const bool reduced = it->second.reduction != 0 && nb[i].size() == 1;
    v.parent.push_back(reduced ? nb[i][0] : static_cast<int>(i));
    v.reduction.push_back(reduced ? it->second.reduction : 0.0);
  }
  // Pair parameters by class, over the classes the system uses (compact indices): the combining
  // rules, or a pair record's own values (its R0 as written: the pair's, not an atom's size).
  std::vector<int> used(v.cls);
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  for (int& c : v.cls) c = static_cast<int>(std::lower_bound(used.begin(), used.end(), c) - used.begin());
  const std::size_t nc = used.size();
  v.classes = static_cast<int>(nc);
  v.r0.assign(nc * nc, 0);
  v.eps.assign(nc * nc, 0);
  for (std::size_t x = 0; x < nc; ++x)
    for (std::size_t y = 0; y < nc; ++y) {
      const VdwRecord& a = p.vdw.at(used[x]);
      const VdwRecord& b = p.vdw.at(used[y]);
      const double ri = diameter ? a.radius / 2 : a.radius, rk = diameter ? b.radius / 2 : b.radius;
      const double ei = a.epsilon, ek = b.epsilon;
      double& r0 = v.r0[x * nc + y];
      double& eps = v.eps[x * nc + y];
      r0 = ri * ri + rk * rk > 0 ? 2 * (ri * ri * ri + rk * rk * rk) / (ri * ri + rk * rk) : 0;
      eps = ei + ek > 0 ? 4 * ei * ek / ((std::sqrt(ei) + std::sqrt(ek)) * (std::sqrt(ei) + std::sqrt(ek))) : 0;
      const std::array<int, 2> pair{std::min(used[x], used[y]), std::max(used[x], used[y])};
      if (const auto pr = p.vdw_pairs.find(pair); pr != p.vdw_pairs.end()) {
        r0 = pr->second.radius;
        eps = pr->second.epsilon;
      }
    }
  // 1-2 and 1-3 partners (1-4 too when its scale is not 1), from the bonds.
  v.special_offset.push_back(0);
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<std::pair<int, double>> partners;
    for (int j : nb[i]) {
      partners.emplace_back(j, s12);
      for (int k : nb[static_cast<std::size_t>(j)]) {
        if (k == static_cast<int>(i)) continue;
        partners.emplace_back(k, s13);
        if (s14 != 1)
          for (int l : nb[static_cast<std::size_t>(k)])
            if (l != static_cast<int>(i) && l != j) partners.emplace_back(l, s14);
      }
    }
    // An atom reached at several levels keeps the closest (the first found at the lowest level).
    std::vector<std::pair<int, double>> kept;
    for (const auto& q : partners)
      if (std::none_of(kept.begin(), kept.end(), [&](const auto& k) { return k.first == q.first; })) kept.push_back(q);
    for (const auto& [j, s] : kept) {
      v.special_partner.push_back(j);
      v.special_scale.push_back(s);
    }
    v.special_offset.push_back(static_cast<int>(v.special_partner.size()));
  }
  v.cutoff = number_setting(p, "vdw-cutoff", number_setting(p, "cutoff", 9.0));
  const double taper = number_setting(p, "vdw-taper", number_setting(p, "taper", 0.9));
  v.taper = taper < 1 ? taper * v.cutoff : std::min(taper, v.cutoff);
  v.long_range = p.header.settings.count("vdw-correction") > 0;
  v.class_atoms.assign(nc, 0);
  for (int c : v.cls) ++v.class_atoms[static_cast<std::size_t>(c)];
  return v;
}

VdwTail vdw_long_range(const VdwSystem& v, double volume) {
  const double range = 100.0;  // Å, Tinker's end of the integral
  const int steps = static_cast<int>(2 * (range - v.taper));
  const double h = (range - v.taper) / steps, span = v.cutoff - v.taper;
  VdwTail t;
  const std::size_t nc = static_cast<std::size_t>(v.classes);
  for (std::size_t i = 0; i < nc; ++i)
    for (std::size_t k = i; k < nc; ++k) {
      const double rv = v.r0[i * nc + k], eps = v.eps[i * nc + k], rv7 = std::pow(rv, 7);
      double e_sum = 0, w_sum = 0;
      for (int j = 1; j <= steps; ++j) {
        const double r = v.taper + (j - 0.5) * h, r2 = r * r, r6 = r2 * r2 * r2, r7 = r6 * r;
        const double rho = r7 + kGamma * rv7, tau = (kDelta + 1) / (r + kDelta * rv), tau7 = std::pow(tau, 7);
        double e = eps * rv7 * tau7 * ((kGamma + 1) * rv7 / rho - 2);
        double de = -7 * e * tau / (kDelta + 1) - 7 * eps * tau7 * r6 * (kGamma + 1) * (rv7 / rho) * (rv7 / rho);
        if (r < v.cutoff) {  // the part the switch removed: E (1 - S)
          const double x = (r - v.taper) / span, x2 = x * x;
          const double sw = 1 - x2 * x * (10 - 15 * x + 6 * x2), dsw = -30 * x2 * (1 - 2 * x + x2) / span;
          de = de * (1 - sw) - e * dsw;
          e *= 1 - sw;
        }
        e_sum += e * h * r2;
        w_sum += de * h * r2 * r;
      }
      double f = 4 * M_PI * static_cast<double>(v.class_atoms[i]) * static_cast<double>(v.class_atoms[k]);
      if (k == i) f /= 2;
      t.energy += f * e_sum;
      t.virial += f * w_sum;
    }
  t.energy /= volume;
  t.virial /= 3 * volume;
  return t;
}

long add_vdw(const VdwSystem& v, const AtomsRef& a, const ComputeRequest& req, ForceOutput& out) {
  const std::size_t n = v.cls.size();
  const Box& cell = a.box;
  const bool periodic = cell.periodic[0] || cell.periodic[1] || cell.periodic[2];
  // Sites, by input index.
  std::vector<Vec3> site(n);
  auto position = [&](int input) {
    const int i = a.index_of[input];
    return Vec3{a.x[i], a.y[i], a.z[i]};
  };
  auto nearest = [&](Vec3 d) { return vdw_nearest(cell, periodic, d); };
  for (std::size_t i = 0; i < n; ++i)
    site[i] = vdw_site(cell, periodic, position(static_cast<int>(i)), position(v.parent[i]), v.reduction[i]);
  std::vector<Vec3> grad(n);
  std::vector<double> scale(n, 1.0);
  double energy = 0, w[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  long pairs = 0;
  std::vector<double> pair_energy(req.per_atom ? n : 0), pair_virial(req.per_atom ? 9 * n : 0);
  const double cut2 = v.cutoff * v.cutoff;
  // In a cell, the site pairs within the cutoff from the cell lists: O(N).
  PairCandidates candidates;
  if (periodic) candidates = pair_candidates(site, cell, v.cutoff);
  for (std::size_t i = 0; i < n; ++i) {
    for (int k = v.special_offset[i]; k < v.special_offset[i + 1]; ++k)
      scale[static_cast<std::size_t>(v.special_partner[static_cast<std::size_t>(k)])] = v.special_scale[static_cast<std::size_t>(k)];
    for (const std::size_t k : partners(periodic ? &candidates : nullptr, i, n)) {
      if (scale[k] == 0) continue;
      const Vec3 d = nearest(site[k] - site[i]);
      const double r2 = dot(d, d);
      if (periodic && r2 > cut2) continue;
      const std::size_t pk = static_cast<std::size_t>(v.cls[i]) * static_cast<std::size_t>(v.classes) + static_cast<std::size_t>(v.cls[k]);
      const double rv = v.r0[pk], eps = v.eps[pk] * scale[k];
      double e;
      Vec3Of<double> gk;
      vdw_pair(d, r2, rv, eps, periodic, v.taper, v.cutoff, e, gk);
      energy += e;
      ++pairs;
      const Vec3 g{gk.x, gk.y, gk.z};  // dE/d(site k) = -dE/d(site i)
      grad[k] = grad[k] + g;
      grad[i] = grad[i] - g;
      double wp[9];
      for (int al = 0; al < 3; ++al)
        for (int be = 0; be < 3; ++be) wp[3 * al + be] = -d[al] * g[be];
      for (int c = 0; c < 9; ++c) w[c] += wp[c];
      if (req.per_atom) {
        pair_energy[i] += e / 2;
        pair_energy[k] += e / 2;
        for (int c = 0; c < 9; ++c) {
          pair_virial[9 * i + static_cast<std::size_t>(c)] += wp[c] / 2;
          pair_virial[9 * k + static_cast<std::size_t>(c)] += wp[c] / 2;
        }
      }
    }
    for (int k = v.special_offset[i]; k < v.special_offset[i + 1]; ++k)
      scale[static_cast<std::size_t>(v.special_partner[static_cast<std::size_t>(k)])] = 1.0;
  }
  // Site gradients back to the atoms: a reduced site's to its atom and to its parent.
  const double unit = units::kcal_mol;
  auto add_force = [&](int input, Vec3 g) {
    const int i = a.index_of[input];
    a.fx[i] -= unit * g.x;
    a.fy[i] -= unit * g.y;
    a.fz[i] -= unit * g.z;
  };
  for (std::size_t i = 0; i < n; ++i) {
    if (v.reduction[i] == 0) {
      add_force(static_cast<int>(i), grad[i]);
      continue;
    }
    add_force(static_cast<int>(i), grad[i] * v.reduction[i]);
    add_force(v.parent[i], grad[i] * (1 - v.reduction[i]));
  }
  // The tail: a constant energy and isotropic virial (W = -Tinker's), spread evenly over the atoms.
  VdwTail tail;
  if (periodic && v.long_range) tail = vdw_long_range(v, cell.volume());
  double* t = out.term_totals();
  t[0] += unit * (energy + tail.energy);
  for (int c = 0; c < 9; ++c) t[1 + c] += unit * w[c];
  for (int c = 0; c < 3; ++c) t[1 + 4 * c] -= unit * tail.virial;
  if (req.per_atom && (tail.energy != 0 || tail.virial != 0))
    for (std::size_t i = 0; i < n; ++i) {
      out.atom_energy[i] += unit * tail.energy / static_cast<double>(n);
      for (std::size_t c = 0; c < 3; ++c) out.atom_virial[4 * c * n + i] -= unit * tail.virial / static_cast<double>(n);
    }
  if (req.per_atom) {
    // Each pair's energy and virial halved between the atoms of its two sites.
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t at = static_cast<std::size_t>(a.index_of[i]);
      out.atom_energy[at] += unit * pair_energy[i];
      for (std::size_t c = 0; c < 9; ++c) out.atom_virial[c * n + at] += unit * pair_virial[9 * i + c];
    }
  }
  return pairs;
}

}  // namespace quasar::amoeba
