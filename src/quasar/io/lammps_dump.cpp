#include "quasar/io/lammps_dump.hpp"

#include <algorithm>
#include <climits>
#include <iomanip>
#include <map>
#include <numeric>
#include <ostream>
#include <sstream>

#include "quasar/io/text.hpp"

namespace quasar::io {

void append_lammps_dump(std::ostream& out, const Structure& s, long step) {
  const LammpsBounds b = lammps_bounds(s.box);
  std::ostringstream o;
  o << std::setprecision(17);
  o << "ITEM: TIMESTEP\n" << step << "\nITEM: NUMBER OF ATOMS\n" << s.size() << "\n";
  const char* pbc[3] = {s.box.periodic[0] ? "pp" : "ff", s.box.periodic[1] ? "pp" : "ff", s.box.periodic[2] ? "pp" : "ff"};
  if (b.xy == 0 && b.xz == 0 && b.yz == 0) {
    o << "ITEM: BOX BOUNDS " << pbc[0] << " " << pbc[1] << " " << pbc[2] << "\n"
      << b.xlo << " " << b.xhi << "\n" << b.ylo << " " << b.yhi << "\n" << b.zlo << " " << b.zhi << "\n";
  } else {
    // LAMMPS writes the bounding box of the tilted cell.
    const double xlo = b.xlo + std::min({0.0, b.xy, b.xz, b.xy + b.xz});
    const double xhi = b.xhi + std::max({0.0, b.xy, b.xz, b.xy + b.xz});
    const double ylo = b.ylo + std::min(0.0, b.yz), yhi = b.yhi + std::max(0.0, b.yz);
    o << "ITEM: BOX BOUNDS xy xz yz " << pbc[0] << " " << pbc[1] << " " << pbc[2] << "\n"
      << xlo << " " << xhi << " " << b.xy << "\n" << ylo << " " << yhi << " " << b.xz << "\n"
      << b.zlo << " " << b.zhi << " " << b.yz << "\n";
  }
  const bool v = !s.velocities.empty(), f = !s.forces.empty();
  o << "ITEM: ATOMS id type element x y z" << (v ? " vx vy vz" : "") << (f ? " fx fy fz" : "");
  for (const auto& [name, c] : s.columns) {  // further per-atom values: name, or name[1] name[2] ...
    if (c.width == 1) o << " " << name;
    else
      for (int k = 1; k <= c.width; ++k) o << " " << name << "[" << k << "]";
  }
  o << "\n";
  for (std::size_t i = 0; i < s.size(); ++i) {
    o << (s.ids.empty() ? static_cast<long>(i + 1) : s.ids[i]) << " " << s.types[i] + 1 << " "
      << s.type_names[s.types[i]] << " " << s.positions[i].x << " " << s.positions[i].y << " " << s.positions[i].z;
    if (v) o << " " << s.velocities[i].x << " " << s.velocities[i].y << " " << s.velocities[i].z;
    if (f) o << " " << s.forces[i].x << " " << s.forces[i].y << " " << s.forces[i].z;
    for (const auto& [name, c] : s.columns)
      for (int k = 0; k < c.width; ++k) o << " " << c.values[i * static_cast<std::size_t>(c.width) + k];
    o << "\n";
  }
  out << o.str();
}

namespace {

// "ITEM: BOX BOUNDS ..." and its three lines.
Box read_box(LineReader& in, const std::vector<std::string>& item) {
  std::vector<std::string> flags(item.begin() + 3, item.end());
  const bool tilted = flags.size() >= 3 && flags[0] == "xy" && flags[1] == "xz" && flags[2] == "yz";
  if (tilted) flags.erase(flags.begin(), flags.begin() + 3);
  if (!flags.empty() && flags[0] == "abc") in.fail("general triclinic boxes (BOX BOUNDS abc origin) are not supported");
  if (!flags.empty() && flags.size() != 3) in.fail("expected three boundary flags (pp, ff, ...) after BOX BOUNDS");
  std::array<bool, 3> pbc{true, true, true};
  for (std::size_t k = 0; k < flags.size(); ++k) {
    const std::string& f = flags[k];
    if (f.size() != 2 || std::string("pfsm").find(f[0]) == std::string::npos || std::string("pfsm").find(f[1]) == std::string::npos ||
        ((f[0] == 'p') != (f[1] == 'p')))
      in.fail("expected a boundary flag (pp, ff, fs, sm, ...), found '" + f + "'");
    pbc[k] = f[0] == 'p';
  }
  double lo[3], hi[3], tilt[3] = {0, 0, 0};
  const char* axis = "xyz";
  for (int k = 0; k < 3; ++k) {
    const auto w = split_words(in.next_line());
    if (w.size() != (tilted ? 3u : 2u))
      in.fail(std::string("expected ") + (tilted ? "'lo hi tilt'" : "'lo hi'") + " for " + axis[k] + ", found " +
              std::to_string(w.size()) + " values");
    lo[k] = in.to_double(w[0], std::string(1, axis[k]) + "lo");
    hi[k] = in.to_double(w[1], std::string(1, axis[k]) + "hi");
    if (tilted) tilt[k] = in.to_double(w[2], k == 0 ? "xy" : k == 1 ? "xz" : "yz");
  }
  // A tilted box's lines give the bounding box of the cell: take the tilts back out.
  const double xy = tilt[0], xz = tilt[1], yz = tilt[2];
  LammpsBounds b{lo[0] - std::min({0.0, xy, xz, xy + xz}), hi[0] - std::max({0.0, xy, xz, xy + xz}),
                 lo[1] - std::min(0.0, yz), hi[1] - std::max(0.0, yz), lo[2], hi[2], xy, xz, yz};
  try {
    return box_from_lammps(b, pbc);
  } catch (const Error& e) {
    in.fail(e.what());
  }
}

// A column of a triple by its axis: x, xs, xu, xsu start with the axis (ys, ...), ix, vx, fx end with it.
std::string axis_name(const std::string& base, char axis) {
  return base[0] == 'x' ? axis + base.substr(1) : base.substr(0, base.size() - 1) + axis;
}

// Column indices of the ATOMS line (-1: absent).
struct Columns {
  std::map<std::string, int> at;
  int operator[](const std::string& name) const {
    const auto it = at.find(name);
    return it == at.end() ? -1 : it->second;
  }
  // The first of these triples whose three columns are all present ("" when none is); a triple
  // present in part is an error.
  std::string triple(const LineReader& in, std::initializer_list<const char*> bases) const {
    for (const char* base : bases) {
      int n = 0;
      for (char a : {'x', 'y', 'z'}) n += at.count(axis_name(base, a)) ? 1 : 0;
      if (n == 3) return base;
      if (n > 0)
        in.fail("the ATOMS columns have only part of " + axis_name(base, 'x') + " " + axis_name(base, 'y') + " " +
                axis_name(base, 'z'));
    }
    return {};
  }
};

// Orders the per-atom arrays by id.
void sort_by_id(const LineReader& in, Structure& s) {
  std::vector<std::size_t> order(s.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return s.ids[a] < s.ids[b]; });
  for (std::size_t k = 1; k < order.size(); ++k)
    if (s.ids[order[k]] == s.ids[order[k - 1]]) in.fail("atom id " + std::to_string(s.ids[order[k]]) + " appears twice in the frame");
  auto apply = [&](auto& v) {
    if (v.empty()) return;
    auto copy = v;
    for (std::size_t k = 0; k < order.size(); ++k) v[k] = copy[order[k]];
  };
  apply(s.ids);
  apply(s.types);
  apply(s.positions);
  apply(s.velocities);
  apply(s.forces);
  apply(s.charges);
}

// "ITEM: ATOMS ..." and its n lines.
void read_atoms(LineReader& in, const std::vector<std::string>& item, long n, const std::vector<std::string>& type_names,
                Structure& s) {
  Columns c;
  for (std::size_t k = 2; k < item.size(); ++k)
    if (!c.at.emplace(item[k], static_cast<int>(k - 2)).second) in.fail("column " + item[k] + " appears twice");
  if (c["type"] < 0 && c["element"] < 0) in.fail("the ATOMS columns need type or element");
  const std::string pos = c.triple(in, {"xu", "xsu", "x", "xs"});
  if (pos.empty()) in.fail("the ATOMS columns have no positions (x y z, xs ys zs, xu yu zu or xsu ysu zsu)");
  const bool scaled = pos == "xs" || pos == "xsu", wrapped = pos == "x" || pos == "xs";
  const bool images = wrapped && !c.triple(in, {"ix"}).empty();
  const bool vel = !c.triple(in, {"vx"}).empty(), force = !c.triple(in, {"fx"}).empty();
  auto name = [&](char axis) { return axis_name(pos, axis); };
  const int px = c[name('x')], py = c[name('y')], pz = c[name('z')];
  std::map<int, double> mass_of;  // type index -> mass from the mass column
  std::string line;
  for (long i = 0; i < n; ++i) {
    if (!in.next(line)) in.fail("file ends after " + std::to_string(i) + " of " + std::to_string(n) + " atom lines");
    const auto w = split_words(line);
    if (w.size() != c.at.size())
      in.fail("expected " + std::to_string(c.at.size()) + " values (the ATOMS columns), found " + std::to_string(w.size()));
    auto num = [&](const char* col) { return in.to_double(w[c[col]], col); };
    std::string type_name;
    if (c["element"] >= 0) type_name = w[c["element"]];
    if (c["type"] >= 0) {
      const long hi = type_names.empty() ? INT_MAX : static_cast<long>(type_names.size());
      const long t = in.to_int(w[c["type"]], "the atom type", 1, hi);
      if (type_name.empty()) type_name = type_names.empty() ? std::to_string(t) : type_names[t - 1];
    }
    s.types.push_back(s.type_index(type_name));
    if (c["id"] >= 0) s.ids.push_back(in.to_int(w[c["id"]], "the atom id", 1, LONG_MAX));
    Vec3 r{in.to_double(w[px], name('x')), in.to_double(w[py], name('y')), in.to_double(w[pz], name('z'))};
    if (scaled) r = s.box.from_frac(r);
    if (images) {
      int m[3];
      for (int k = 0; k < 3; ++k) m[k] = static_cast<int>(in.to_int(w[c[std::string("i") + "xyz"[k]]], "an image flag", INT_MIN, INT_MAX));
      r += s.box.shift(m[0], m[1], m[2]);
    }
    if (!std::isfinite(r.x) || !std::isfinite(r.y) || !std::isfinite(r.z)) in.fail("the position is not finite");
    s.positions.push_back(r);
    if (vel) s.velocities.push_back({num("vx"), num("vy"), num("vz")});
    if (force) s.forces.push_back({num("fx"), num("fy"), num("fz")});
    if (c["q"] >= 0) s.charges.push_back(num("q"));
    if (c["mass"] >= 0) {
      const double m = num("mass");
      if (!(m > 0)) in.fail("expected a positive mass, found " + w[c["mass"]]);
      const auto [it, added] = mass_of.emplace(s.types.back(), m);
      if (!added && it->second != m) in.fail("atoms of type " + type_name + " have different masses");
      s.type_masses[s.types.back()] = m;
    }
  }
}

}  // namespace

std::vector<Structure> read_lammps_dump(const std::string& path, const std::vector<std::string>& type_names) {
  LineReader in(path);
  std::vector<Structure> frames;
  std::string line;
  auto item_of = [&](const std::string& l) {
    if (l.rfind("ITEM:", 0) != 0) in.fail("expected an 'ITEM:' line, found '" + l + "'");
    return join(split_words(l.substr(5)));
  };
  while (in.next_nonblank(line)) {
    Structure s;
    std::string units, item = item_of(line);
    // A frame: [UNITS] [TIME] TIMESTEP, NUMBER OF ATOMS, BOX BOUNDS, ATOMS.
    if (item == "UNITS") {
      units = join(split_words(in.next_line()));
      item = item_of(in.next_line());
    }
    if (item == "TIME") {
      in.to_double(join(split_words(in.next_line())), "the time");
      item = item_of(in.next_line());
    }
    if (item != "TIMESTEP") in.fail("expected ITEM: TIMESTEP, found 'ITEM: " + item + "'");
    const std::string step = join(split_words(in.next_line()));
    in.to_int(step, "the timestep", 0, LONG_MAX);
    s.info["step"] = step;
    if (item_of(in.next_line()) != "NUMBER OF ATOMS") in.fail("expected ITEM: NUMBER OF ATOMS");
    const long n = in.to_count(join(split_words(in.next_line())), "atoms", 8);
    const auto box_item = split_words(in.next_line());
    if (box_item.size() < 3 || box_item[0] != "ITEM:" || box_item[1] != "BOX" || box_item[2] != "BOUNDS")
      in.fail("expected ITEM: BOX BOUNDS");
    s.box = read_box(in, box_item);
    const auto atoms_item = split_words(in.next_line());
    if (atoms_item.size() < 2 || atoms_item[0] != "ITEM:" || atoms_item[1] != "ATOMS") in.fail("expected ITEM: ATOMS and its columns");
    read_atoms(in, atoms_item, n, type_names, s);
    if (!units.empty() && units != "metal" && (!s.velocities.empty() || !s.forces.empty()))
      in.fail("units " + units + ": velocities and forces are read in metal units only");
    if (!s.ids.empty()) sort_by_id(in, s);
    if (const std::string p = s.problem(); !p.empty()) in.fail(p);
    frames.push_back(std::move(s));
  }
  if (frames.empty()) throw InputError(path, 0, "no frames in the dump");
  return frames;
}

}  // namespace quasar::io
