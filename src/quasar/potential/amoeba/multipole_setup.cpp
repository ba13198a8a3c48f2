#include "quasar/potential/amoeba/multipole_setup.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "quasar/core/error.hpp"
#include "quasar/core/units.hpp"
#include "quasar/io/text.hpp"

namespace quasar::amoeba {

namespace {

double setting(const Parameters& p, const std::string& key, double fallback) {
  const auto it = p.header.settings.find(key);
  if (it == p.header.settings.end()) return fallback;
  double v = 0;
  if (!io::parse_finite(it->second, v))
    p.fail_setting(key, "'" + key + "': expected a number, found '" + it->second + "'");
  return v;
}

Frame frame_of(const std::array<int, 3>& axes) {
  const int kz = axes[0], kx = axes[1], ky = axes[2];
  Frame f = Frame::ZThenX;
  if (kz == 0) f = Frame::None;
  if (kz != 0 && kx == 0) f = Frame::ZOnly;
  if (kz < 0 || kx < 0) f = Frame::Bisector;
  if (kx < 0 && ky < 0) f = Frame::ZBisect;
  if (std::max({kz, kx, ky}) < 0) f = Frame::ThreeFold;
  return f;
}

// Atoms at 1, 2, 3, 4 bonds (each atom at its shortest path), from i.
std::array<std::vector<int>, 4> bonded_levels(int i, const std::vector<std::vector<int>>& nb) {
  std::array<std::vector<int>, 4> levels;
  std::map<int, int> seen{{i, 0}};
  std::vector<int> front{i};
  for (int level = 0; level < 4; ++level) {
    std::vector<int> next;
    for (int a : front)
      for (int b : nb[static_cast<std::size_t>(a)])
        if (seen.emplace(b, level + 1).second) next.push_back(b);
    levels[static_cast<std::size_t>(level)] = next;
    front = std::move(next);
  }
  return levels;
}

// Tinker's multipole assignment for atom i from the records of its type, in order.
bool assign_site(int i, const std::vector<const MultipoleRecord*>& records, const std::vector<int>& types,
                 const std::vector<std::vector<int>>& nb, const std::vector<int>& n13, MultipoleSite& site) {
  auto type = [&](int a) { return types[static_cast<std::size_t>(a)]; };
  auto set = [&](const MultipoleRecord* r, int z, int x, int y) {
    site.frame = frame_of(r->axes);
    site.z = z;
    site.x = x;
    site.y = y;
    for (int c = 0; c < 13; ++c) site.local[static_cast<std::size_t>(c)] = 0;
    const auto& v = r->values;  // charge, dipole, xx, yx, yy, zx, zy, zz
    site.local[0] = v[0];
    for (int c = 0; c < 3; ++c)
      site.local[static_cast<std::size_t>(1 + c)] = v[static_cast<std::size_t>(1 + c)] * units::bohr;
    const double q = units::bohr * units::bohr / 3;
    const double xx = v[4], yx = v[5], yy = v[6], zx = v[7], zy = v[8], zz = v[9];
    const double quad[9] = {xx, yx, zx, yx, yy, zy, zx, zy, zz};
    for (int c = 0; c < 9; ++c) site.local[static_cast<std::size_t>(4 + c)] = quad[c] * q;
    return true;
  };
  const std::vector<int>& n12 = nb[static_cast<std::size_t>(i)];
  auto bonded = [&](int a, int b) {
    const auto& l = nb[static_cast<std::size_t>(a)];
    return std::find(l.begin(), l.end(), b) != l.end();
  };
  // Through bonded atoms only.
  for (const MultipoleRecord* r : records) {
    const int zt = std::abs(r->axes[0]), xt = std::abs(r->axes[1]), yt = std::abs(r->axes[2]);
    for (int j : n12) {
      if (type(j) != zt) continue;
      for (int k : n12) {
        if (k == j || type(k) != xt) continue;
        if (yt == 0) return set(r, j, k, -1);
        for (int l : n12)
          if (l != j && l != k && type(l) == yt) return set(r, j, k, l);
      }
    }
  }
  // Through bonded and 1-3 atoms (the 1-3 atoms bonded to the z atom).
  for (const MultipoleRecord* r : records) {
    const int zt = std::abs(r->axes[0]), xt = std::abs(r->axes[1]), yt = std::abs(r->axes[2]);
    for (int j : n12) {
      if (type(j) != zt) continue;
      for (int k : n13) {
        if (type(k) != xt || !bonded(k, j)) continue;
        if (yt == 0) return set(r, j, k, -1);
        for (int l : n13)
          if (l != k && type(l) == yt && bonded(l, j)) return set(r, j, k, l);
      }
    }
  }
  // A z-axis atom alone.
  for (const MultipoleRecord* r : records) {
    const int zt = std::abs(r->axes[0]), xt = std::abs(r->axes[1]);
    for (int j : n12)
      if (type(j) == zt && xt == 0) return set(r, j, -1, -1);
  }
  // No axis atoms.
  for (const MultipoleRecord* r : records)
    if (r->axes[0] == 0) return set(r, -1, -1, -1);
  return false;
}

}  // namespace

const char* frame_name(Frame f) {
  switch (f) {
    case Frame::None:
      return "None";
    case Frame::ZOnly:
      return "Z-Only";
    case Frame::ZThenX:
      return "Z-then-X";
    case Frame::Bisector:
      return "Bisector";
    case Frame::ZBisect:
      return "Z-Bisect";
    case Frame::ThreeFold:
      return "3-Fold";
  }
  return "";
}

ElectrostaticSystem electrostatic_system(const Parameters& p, const std::vector<int>& types,
                                         const std::vector<std::vector<int>>& nb) {
  ElectrostaticSystem e;
  const std::size_t n = types.size();
  const auto& s = p.header.settings;
  if (setting(p, "dielectric", 1.0) != 1.0)
    p.fail_setting("dielectric", "not yet supported: dielectric other than 1");
  if (const auto it = s.find("polarization"); it != s.end()) {
    std::string v = it->second;
    for (char& c : v) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (v != "MUTUAL" && v != "DIRECT")
      p.fail_setting("polarization", "not yet supported: polarization " + it->second + " (MUTUAL or DIRECT)");
    e.mutual = v == "MUTUAL";
  }
  e.polar_eps = setting(p, "polar-eps", 1e-6);
  if (!(e.polar_eps > 0)) p.fail_setting("polar-eps", "'polar-eps' must be positive");
  const double iter = setting(p, "polar-iter", 100);
  if (!(iter >= 1 && iter <= 1e6) || iter != std::floor(iter))
    p.fail_setting("polar-iter", "'polar-iter' must be a positive whole number");
  e.polar_iter = static_cast<int>(iter);
  e.usolve_cutoff = setting(p, "usolve-cutoff", 4.5);
  if (e.usolve_cutoff < 0) p.fail_setting("usolve-cutoff", "'usolve-cutoff' must not be negative");
  e.cutoff = setting(p, "mpole-cutoff", setting(p, "cutoff", 0));
  if (e.cutoff < 0) p.fail_setting(s.count("mpole-cutoff") ? "mpole-cutoff" : "cutoff", "'mpole-cutoff' must be positive");
  e.ewald = s.count("ewald") > 0;
  e.ewald_cutoff = setting(p, "ewald-cutoff", setting(p, "cutoff", 7.0));  // `cutoff` sets every cutoff
  e.ewald_alpha = setting(p, "ewald-alpha", 0.0);
  if (!(e.ewald_cutoff > 0) || e.ewald_alpha < 0)
    p.fail_setting(e.ewald_alpha < 0 ? "ewald-alpha" : s.count("ewald-cutoff") ? "ewald-cutoff" : "cutoff",
                   "'ewald-cutoff' must be positive and 'ewald-alpha' not negative");
  const double order = setting(p, "pme-order", 5);
  if (!(order >= 4 && order <= 8) || order != std::floor(order))
    p.fail_setting("pme-order",
                   "'pme-order': expected a whole number from 4 to 8 (multipoles need third derivatives)");
  e.pme_order = static_cast<int>(order);
  if (const auto it = s.find("pme-grid"); it != s.end()) {
    const std::vector<std::string> words = io::split_words(it->second);
    if (words.empty() || words.size() > 3) p.fail_setting("pme-grid", "'pme-grid': expected one to three sizes");
    for (std::size_t d = 0; d < 3; ++d) {
      double v = 0;
      const std::string& w = words[std::min(d, words.size() - 1)];
      if (!io::parse_finite(w, v) || v != std::floor(v) || v < e.pme_order || v > 4096)
        p.fail_setting("pme-grid",
                       "'pme-grid': expected whole sizes of at least the PME order, found '" + w + "'");
      e.pme_grid[d] = static_cast<int>(v);
    }
  }

  // Records by type, a key's first (Tinker puts them ahead of the parameter file's).
  std::map<int, std::vector<const MultipoleRecord*>> by_type;
  for (const bool key : {true, false})
    for (const auto& [type, record] : p.multipole_list)
      if (record.from_key == key) by_type[type].push_back(&record);
  e.sites.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<int> n13;
    for (int j : nb[i])
      for (int k : nb[static_cast<std::size_t>(j)])
        if (k != static_cast<int>(i) && std::find(nb[i].begin(), nb[i].end(), k) == nb[i].end() &&
            std::find(n13.begin(), n13.end(), k) == n13.end())
          n13.push_back(k);
    const auto it = by_type.find(types[i]);
    if (it == by_type.end() || !assign_site(static_cast<int>(i), it->second, types, nb, n13, e.sites[i]))
      throw InputError(p.parameter_path, 0,
                       "no multipole record of type " + std::to_string(types[i]) +
                           " whose axis types match the neighbours of atom " + std::to_string(i + 1));
  }

  // Polarizabilities and groups: bonded atoms whose types the record lists (either way) share one.
  e.alpha.assign(n, 0);
  e.thole.assign(n, 0);
  e.damp.assign(n, 0);
  std::vector<int> parent(n);
  for (std::size_t i = 0; i < n; ++i) parent[i] = static_cast<int>(i);
  std::function<int(int)> root = [&](int a) {
    while (parent[static_cast<std::size_t>(a)] != a)
      a = parent[static_cast<std::size_t>(a)] = parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(a)])];
    return a;
  };
  auto lists = [&](int a, int b) {
    const auto it = p.polarize.find(types[static_cast<std::size_t>(a)]);
    if (it == p.polarize.end()) return false;
    const auto& g = it->second.group;
    return std::find(g.begin(), g.end(), types[static_cast<std::size_t>(b)]) != g.end();
  };
  for (std::size_t i = 0; i < n; ++i) {
    if (const auto it = p.polarize.find(types[i]); it != p.polarize.end()) {
      e.alpha[i] = it->second.alpha;
      e.thole[i] = it->second.thole;
      if (e.alpha[i] < 0)
        throw InputError(p.parameter_path, 0, "a negative polarizability for atom type " + std::to_string(types[i]));
      e.damp[i] = e.thole[i] != 0 ? std::pow(e.alpha[i], 1.0 / 6) : 0.0;
    }
    for (int j : nb[i])
      if (lists(static_cast<int>(i), j) || lists(j, static_cast<int>(i)))
        parent[static_cast<std::size_t>(root(j))] = root(static_cast<int>(i));
  }
  // polpair records by atom type, as Tinker applies them.
  e.type = types;
  for (const auto& [pair, record] : p.polpairs) e.pair_thole[pair] = std::stod(record.words[2]);
  e.group.resize(n);
  for (std::size_t i = 0; i < n; ++i) e.group[i] = root(static_cast<int>(i));
  // Groups bonded to each group.
  std::map<int, std::vector<int>> members, next_groups;
  for (std::size_t i = 0; i < n; ++i) members[e.group[i]].push_back(static_cast<int>(i));
  for (std::size_t i = 0; i < n; ++i)
    for (int j : nb[i]) {
      const int a = e.group[i], b = e.group[static_cast<std::size_t>(j)];
      auto& l = next_groups[a];
      if (a != b && std::find(l.begin(), l.end(), b) == l.end()) l.push_back(b);
    }

  const double m[4] = {setting(p, "mpole-12-scale", 0), setting(p, "mpole-13-scale", 0),
                       setting(p, "mpole-14-scale", 1), setting(p, "mpole-15-scale", 1)};
  const double ps[4] = {setting(p, "polar-12-scale", 0), setting(p, "polar-13-scale", 0),
                        setting(p, "polar-14-scale", 1), setting(p, "polar-15-scale", 1)};
  const double pi[4] = {setting(p, "polar-12-intra", 0), setting(p, "polar-13-intra", 0),
                        setting(p, "polar-14-intra", 0.5), setting(p, "polar-15-intra", 1)};
  const double d[4] = {setting(p, "direct-11-scale", 0), setting(p, "direct-12-scale", 1),
                       setting(p, "direct-13-scale", 1), setting(p, "direct-14-scale", 1)};
  const double u[4] = {setting(p, "mutual-11-scale", 1), setting(p, "mutual-12-scale", 1),
                       setting(p, "mutual-13-scale", 1), setting(p, "mutual-14-scale", 1)};
  e.scale_offset.push_back(0);
  for (std::size_t i = 0; i < n; ++i) {
    std::map<int, PairScale> near;
    auto at = [&](int j) -> PairScale& { return near.emplace(j, PairScale{j}).first->second; };
    const auto levels = bonded_levels(static_cast<int>(i), nb);
    for (int level = 0; level < 4; ++level)
      for (int j : levels[static_cast<std::size_t>(level)]) {
        PairScale& ps_j = at(j);
        ps_j.m = m[level];
        ps_j.p = e.group[static_cast<std::size_t>(j)] == e.group[i] ? pi[level] : ps[level];
      }
    // Groups at 0..3 group bonds.
    std::map<int, int> group_level{{e.group[i], 0}};
    std::vector<int> front{e.group[i]};
    for (int level = 1; level < 4; ++level) {
      std::vector<int> next;
      for (int g : front)
        for (int h : next_groups[g])
          if (group_level.emplace(h, level).second) next.push_back(h);
      front = std::move(next);
    }
    for (const auto& [g, level] : group_level)
      for (int j : members[g]) {
        if (j == static_cast<int>(i)) continue;
        PairScale& ps_j = at(j);
        ps_j.d = d[level];
        ps_j.u = u[level];
      }
    for (const auto& [j, sc] : near)
      if (sc.m != 1 || sc.p != 1 || sc.d != 1 || sc.u != 1) e.scales.push_back(sc);
    e.scale_offset.push_back(static_cast<int>(e.scales.size()));
  }
  return e;
}

}  // namespace quasar::amoeba
