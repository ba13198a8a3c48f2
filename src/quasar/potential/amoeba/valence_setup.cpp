#include "quasar/potential/amoeba/valence_setup.hpp"

#include <algorithm>
#include <map>

#include "quasar/core/error.hpp"

namespace quasar::amoeba {

namespace {

template <class Map, class Key>
const typename Map::mapped_type* find(const Map& m, const Key& k) {
  const auto it = m.find(k);
  return it == m.end() ? nullptr : &it->second;
}
std::array<int, 2> ordered(int a, int b) { return a <= b ? std::array<int, 2>{a, b} : std::array<int, 2>{b, a}; }
std::array<int, 3> ordered(int a, int b, int c) { return a <= c ? std::array<int, 3>{a, b, c} : std::array<int, 3>{c, b, a}; }
std::array<int, 4> torsion_key(int a, int b, int c, int d) {
  if (b < c || (b == c && a <= d)) return {a, b, c, d};
  return {d, c, b, a};
}

class Builder {
 public:
  Builder(const Parameters& p, const std::vector<int>& types, const std::vector<std::vector<int>>& nb)
      : p_(p), nb_(nb) {
    for (std::size_t i = 0; i < types.size(); ++i) {
      const AtomTypeRecord& a = p.atom(types[i], "atom " + std::to_string(i + 1));
      cls_.push_back(a.cls);
      atomic_.push_back(a.atomic);
      type_.push_back(types[i]);
    }
  }

  ValenceEntries build() {
    ValenceEntries v;
    bonds(v);
    angles(v);
    torsions(v);
    pitors(v);
    tortors(v);
    return v;
  }

 private:
  const Parameters& p_;
  const std::vector<std::vector<int>>& nb_;
  std::vector<int> cls_, atomic_, type_;
  std::map<std::array<int, 2>, double> bond_length_;  // by atom pair (lower index first)
  std::map<std::array<int, 3>, double> ideal_angle_;  // by angle (ends in ascending order, centre in the middle)

  bool on(Term t) const { return p_.term_on[static_cast<std::size_t>(t)]; }
  std::string atoms_text(std::initializer_list<int> atoms) const {
    std::string s;
    for (int a : atoms) s += (s.empty() ? "" : "-") + std::to_string(a + 1) + " (class " + std::to_string(cls_[a]) + ")";
    return s;
  }
  [[noreturn]] void missing(const std::string& what, std::initializer_list<int> atoms) const {
    throw InputError(p_.parameter_path, 0, "no " + what + " parameters for atoms " + atoms_text(atoms));
  }
  bool dummy(std::initializer_list<int> atoms) const {  // Tinker needs no parameters where an atom has atomic number 0
    return std::any_of(atoms.begin(), atoms.end(), [&](int a) { return atomic_[a] == 0; });
  }

  void bonds(ValenceEntries& v) {
    for (int i = 0; i < static_cast<int>(nb_.size()); ++i)
      for (int j : nb_[i]) {
        if (j < i) continue;
        const BondRecord* b = find(p_.bonds, ordered(cls_[i], cls_[j]));
        if (!b) {
          if (on(Term::Bond) && !dummy({i, j})) missing("bond", {i, j});
          continue;
        }
        bond_length_[{i, j}] = b->r0;
        v.bonds.push_back({{i, j}, b->k, b->r0});
      }
  }

  double bond_length(int a, int b) const {
    const auto it = bond_length_.find(ordered(a, b));
    return it == bond_length_.end() ? 0.0 : it->second;
  }

  // Angles at each centre, each pair of its neighbours once; with them the cross terms and the
  // out-of-plane bends that Tinker hangs on angles.
  void angles(ValenceEntries& v) {
    // Classes whose trigonal centres have out-of-plane bends.
    std::vector<bool> opbend_centre;
    for (const auto& [key, k] : p_.opbends) {
      if (static_cast<std::size_t>(key[1]) >= opbend_centre.size()) opbend_centre.resize(static_cast<std::size_t>(key[1]) + 1);
      opbend_centre[static_cast<std::size_t>(key[1])] = true;
    }
    for (int b = 0; b < static_cast<int>(nb_.size()); ++b) {
      const std::vector<int>& n = nb_[b];
      for (std::size_t x = 0; x < n.size(); ++x)
        for (std::size_t y = x + 1; y < n.size(); ++y) {
          const int a = n[x], c = n[y];
          int d = -1;
          if (n.size() == 3)
            for (int m : n)
              if (m != a && m != c) d = m;
          // The ideal angle by the hydrogens on the centre other than the angle's own.
          std::size_t nh = 0;
          for (int m : n)
            if (m != a && m != c && atomic_[m] == 1) ++nh;
          const auto key = ordered(cls_[a], cls_[b], cls_[c]);
          const AngleRecord* rec = find(p_.angles, key);
          double theta0 = 0;
          bool found = rec && nh < 3 && rec->theta[nh] != 0;
          if (found) theta0 = rec->theta[nh];
          bool in_plane = found && rec->in_plane;
          // Out-of-plane bend of the centre's third neighbour: exact, then "d b 0 0", then "0 b 0 0".
          const double* opb = nullptr;
          const bool opbend_site = d >= 0 && static_cast<std::size_t>(cls_[b]) < opbend_centre.size() &&
                                   opbend_centre[static_cast<std::size_t>(cls_[b])];
          if (opbend_site) {
            const int lo = std::min(cls_[a], cls_[c]), hi = std::max(cls_[a], cls_[c]);
            opb = find(p_.opbends, std::array<int, 4>{cls_[d], cls_[b], lo, hi});
            if (!opb) opb = find(p_.opbends, std::array<int, 4>{cls_[d], cls_[b], 0, 0});
            if (!opb) opb = find(p_.opbends, std::array<int, 4>{0, cls_[b], 0, 0});
            if (!opb && on(Term::OutOfPlane) && !dummy({a, b, c, d})) missing("out-of-plane bend", {d, b, a, c});
            if (opb) {
              v.opbends.push_back({{a, b, c, d}, *opb});
              if (p_.header.angle_trigonal == "IN-PLANE" && *opb != 0) in_plane = true;
            }
          }
          if (!found) {
            // A Fourier angle where no polynomial one matches (it has no ideal angle for a stretch-bend).
            if (const FourierAngleRecord* f = find(p_.fourier_angles, key))
            {
              v.angles.push_back({{a, b, c}, -1, f->k, f->shift, f->fold});
              ideal_angle_[ordered(a, b, c)] = f->shift;
            } else if (on(Term::Angle) && !dummy({a, b, c}))
              missing("angle", {a, b, c});
          } else {
            // In-plane angles project the centre into the plane of its three neighbours; Tinker
            // projects only at trigonal centres of a class with out-of-plane bends (elsewhere the
            // projection is the centre itself: the plain angle).
            v.angles.push_back({{a, b, c}, in_plane && opbend_site ? d : -1, rec->k, theta0});
            ideal_angle_[ordered(a, b, c)] = theta0;
          }
          if (const StretchBendRecord* s = find(p_.strbnds, key); s && found) {
            const bool forwards = cls_[a] <= cls_[c];
            v.strbnds.push_back({{a, b, c}, forwards ? s->k1 : s->k2, forwards ? s->k2 : s->k1, bond_length(a, b),
                                 bond_length(c, b), theta0});
          }
          if (const UreyRecord* u = find(p_.ureys, key)) v.ureys.push_back({{a, c}, u->k, u->r0});
        }
    }
  }

  // Torsions a-b-c-d about every bond b-c, as Tinker enumerates them (no three-membered rings).
  void torsions(ValenceEntries& v) {
    for (int b = 0; b < static_cast<int>(nb_.size()); ++b)
      for (int c : nb_[b]) {
        if (c < b) continue;
        for (int a : nb_[b]) {
          if (a == c) continue;
          for (int d : nb_[c]) {
            if (d == b || d == a) continue;
            const int ca = cls_[a], cb = cls_[b], cc = cls_[c], cd = cls_[d];
            const TorsionRecord* t = find(p_.torsions, torsion_key(ca, cb, cc, cd));
            if (!t) t = find(p_.torsions, torsion_key(0, cb, cc, cd));
            if (!t) t = find(p_.torsions, torsion_key(ca, cb, cc, 0));
            if (!t) t = find(p_.torsions, torsion_key(0, cb, cc, 0));
            if (!t) {
              if (on(Term::Torsion) && !dummy({a, b, c, d})) missing("torsion", {a, b, c, d});
              continue;
            }
            v.torsions.push_back({{a, b, c, d}, t->v, t->phase});
            cross_terms(v, {a, b, c, d}, *t);
          }
        }
      }
  }

  // The angle- and stretch-torsions of a torsion, as Tinker assigns them: angtors by exact classes,
  // strtors by exact classes, then "0 b c 0"; a record written for the reversed tuple exchanges its
  // end blocks.
  void cross_terms(ValenceEntries& v, const std::array<int, 4>& t, const TorsionRecord& torsion) {
    const int ca = cls_[t[0]], cb = cls_[t[1]], cc = cls_[t[2]], cd = cls_[t[3]];
    const bool swap = !(cb < cc || (cb == cc && ca <= cd));
    const std::array<double, 3> phase{torsion.phase[0], torsion.phase[1], torsion.phase[2]};
    auto oriented = [&](const CrossTorsionRecord& r, std::size_t values) {
      std::array<double, 9> k = r.k;
      if (swap)
        for (std::size_t m = 0; m < 3; ++m) std::swap(k[m], k[values - 3 + m]);
      return k;
    };
    if (const CrossTorsionRecord* r = find(p_.angtors, torsion_key(ca, cb, cc, cd))) {
      const std::array<double, 9> k = oriented(*r, 6);
      AngleTorsionEntry e{t, {}, {ideal_angle(t[0], t[1], t[2]), ideal_angle(t[1], t[2], t[3])}, phase};
      std::copy(k.begin(), k.begin() + 6, e.k.begin());
      v.angtors.push_back(e);
    }
    const CrossTorsionRecord* r = find(p_.strtors, torsion_key(ca, cb, cc, cd));
    if (!r) r = find(p_.strtors, torsion_key(0, cb, cc, 0));
    if (r)
      v.strtors.push_back(
          {t, oriented(*r, 9), {bond_length(t[0], t[1]), bond_length(t[1], t[2]), bond_length(t[2], t[3])}, phase});
  }

  double ideal_angle(int a, int b, int c) const {
    const auto it = ideal_angle_.find(ordered(a, b, c));
    return it == ideal_angle_.end() ? 0.0 : it->second;
  }

  // Pi-orbital torsions about bonds between two trivalent atoms.
  void pitors(ValenceEntries& v) {
    for (int a = 0; a < static_cast<int>(nb_.size()); ++a)
      for (int b : nb_[a]) {
        if (b < a || nb_[a].size() != 3 || nb_[b].size() != 3) continue;
        const double* k = find(p_.pitors, ordered(cls_[a], cls_[b]));
        if (!k) continue;
        PiTorsionEntry e{{}, *k};
        int at = 0;
        for (int m : nb_[a])
          if (m != b) e.atoms[static_cast<std::size_t>(at++)] = m;
        e.atoms[2] = a;
        e.atoms[3] = b;
        at = 4;
        for (int m : nb_[b])
          if (m != a) e.atoms[static_cast<std::size_t>(at++)] = m;
        v.pitors.push_back(e);
      }
  }

  // Torsion-torsion pairs: chains a-b-c-d-e around each angle b-c-d, matched forwards or backwards.
  void tortors(ValenceEntries& v) {
    if (p_.tortors.empty()) return;
    for (int c = 0; c < static_cast<int>(nb_.size()); ++c) {
      const std::vector<int>& n = nb_[c];
      for (std::size_t x = 0; x < n.size(); ++x)
        for (std::size_t y = x + 1; y < n.size(); ++y) {
          const int b = n[x], d = n[y];
          for (int a : nb_[b]) {
            if (a == c || a == d) continue;
            for (int e : nb_[d]) {
              if (e == c || e == b || e == a) continue;
              std::array<int, 5> atoms{a, b, c, d, e};
              const TorTorGrid* g = find(p_.tortors, std::array<int, 5>{cls_[a], cls_[b], cls_[c], cls_[d], cls_[e]});
              if (!g) {
                g = find(p_.tortors, std::array<int, 5>{cls_[e], cls_[d], cls_[c], cls_[b], cls_[a]});
                atoms = {e, d, c, b, a};
              }
              if (g) v.tortors.push_back({atoms, chiral_neighbour(atoms[1], c, atoms[3]), g});
            }
          }
        }
    }
  }

  // At a tetravalent centre, the one of its two other neighbours that ranks higher (by atomic
  // number, then by type); -1 where they tie or the centre has another valence.
  int chiral_neighbour(int b, int c, int d) const {
    if (nb_[c].size() != 4) return -1;
    int j = -1, k = -1;
    for (int m : nb_[c])
      if (m != b && m != d) (j < 0 ? j : k) = m;
    int pick = -1;
    if (type_[j] > type_[k]) pick = j;
    if (type_[k] > type_[j]) pick = k;
    if (atomic_[j] > atomic_[k]) pick = j;
    if (atomic_[k] > atomic_[j]) pick = k;
    return pick;
  }
};

}  // namespace

ValenceEntries valence_entries(const Parameters& parameters, const std::vector<int>& types,
                               const std::vector<std::vector<int>>& neighbours) {
  return Builder(parameters, types, neighbours).build();
}

}  // namespace quasar::amoeba
