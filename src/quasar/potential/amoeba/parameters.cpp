#include "quasar/potential/amoeba/parameters.hpp"

#include <algorithm>
#include <cmath>

#include "quasar/core/error.hpp"
#include "quasar/io/text.hpp"
#include "quasar/io/tinker_xyz.hpp"

namespace quasar::amoeba {

namespace {

constexpr double kDegree = M_PI / 180;

double number(const KeyRecord& r, const std::string& w, const std::string& what) {
  double v = 0;
  if (!io::parse_finite(w, v)) r.fail("expected a number for " + what + ", found '" + w + "'");
  return v;
}
int whole(const KeyRecord& r, const std::string& w, const std::string& what, int lo = 1) {
  double v = 0;
  if (!io::parse_finite(w, v) || v != std::floor(v) || v < lo || v > 1e6)
    r.fail("expected " + what + " (a whole number of at least " + std::to_string(lo) + "), found '" + w + "'");
  return static_cast<int>(v);
}
void need(const KeyRecord& r, std::size_t lo, std::size_t hi, const std::string& form) {
  if (r.words.size() < lo || r.words.size() > hi) r.fail("expected " + form);
}
template <std::size_t N>
std::array<int, N> classes(const KeyRecord& r, int lo = 0) {
  std::array<int, N> c{};
  for (std::size_t k = 0; k < N; ++k) c[k] = whole(r, r.words[k], "an atom class", lo);
  return c;
}
// Tinker's canonical tuples: the smaller end first (a torsion by its middle pair, then its ends).
std::array<int, 2> canonical(std::array<int, 2> c) { return c[0] <= c[1] ? c : std::array<int, 2>{c[1], c[0]}; }
std::array<int, 3> canonical(std::array<int, 3> c) { return c[0] <= c[2] ? c : std::array<int, 3>{c[2], c[1], c[0]}; }

// First derivatives at the nodes of the periodic cubic spline through (x_k, y_k), whose last node
// repeats the first one period on (Tinker's derivatives for the torsion-torsion grids).
std::vector<double> periodic_spline_slopes(const std::vector<double>& x, const std::vector<double>& y) {
  const std::size_t n = x.size() - 1;  // distinct nodes
  std::vector<double> h(n), m(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) h[i] = x[i + 1] - x[i];
  // h_{i-1} M_{i-1} + 2 (h_{i-1} + h_i) M_i + h_i M_{i+1} = 6 (slope_i - slope_{i-1}), cyclic; dense
  // elimination, the grids being small (25 nodes).
  std::vector<double> a(n * n, 0.0), b(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t prev = (i + n - 1) % n, next = (i + 1) % n;
    const double hp = h[prev], hi = h[i];
    a[i * n + prev] += hp;
    a[i * n + i] += 2 * (hp + hi);
    a[i * n + next] += hi;
    b[i] = 6 * ((y[i + 1] - y[i]) / hi - (y[i] - (i == 0 ? y[n - 1] : y[i - 1])) / hp);
  }
  for (std::size_t c = 0; c < n; ++c) {
    std::size_t p = c;
    for (std::size_t r = c + 1; r < n; ++r)
      if (std::abs(a[r * n + c]) > std::abs(a[p * n + c])) p = r;
    for (std::size_t k = 0; k < n; ++k) std::swap(a[c * n + k], a[p * n + k]);
    std::swap(b[c], b[p]);
    for (std::size_t r = c + 1; r < n; ++r) {
      const double f = a[r * n + c] / a[c * n + c];
      for (std::size_t k = c; k < n; ++k) a[r * n + k] -= f * a[c * n + k];
      b[r] -= f * b[c];
    }
  }
  for (std::size_t c = n; c-- > 0;) {
    double s = b[c];
    for (std::size_t k = c + 1; k < n; ++k) s -= a[c * n + k] * m[k];
    m[c] = s / a[c * n + c];
  }
  std::vector<double> slope(n + 1);
  for (std::size_t i = 0; i < n; ++i) slope[i] = (y[i + 1] - y[i]) / h[i] - h[i] * (2 * m[i] + m[(i + 1) % n]) / 6;
  slope[n] = slope[0];
  return slope;
}

TorTorGrid read_grid(const KeyRecord& r) {
  TorTorGrid g;
  g.nx = whole(r, r.words[5], "the grid's first count", 2);
  g.ny = whole(r, r.words[6], "the grid's second count", 2);
  const std::size_t n = static_cast<std::size_t>(g.nx) * static_cast<std::size_t>(g.ny);
  std::vector<std::array<double, 3>> points;
  std::vector<double> values;
  for (std::size_t k = 0; k < r.more.size(); ++k) {
    KeyRecord at = r;
    at.line = r.more_lines[k];
    for (const std::string& w : r.more[k]) values.push_back(number(at, w, "a grid point's angle or value"));
  }
  if (values.size() != 3 * n) r.fail("expected " + std::to_string(n) + " grid points of two angles and a value");
  for (std::size_t k = 0; k < n; ++k) points.push_back({values[3 * k], values[3 * k + 1], values[3 * k + 2]});
  for (const auto& p : points) {
    g.x.push_back(p[0]);
    g.y.push_back(p[1]);
  }
  for (std::vector<double>* axis : {&g.x, &g.y}) {
    std::sort(axis->begin(), axis->end());
    axis->erase(std::unique(axis->begin(), axis->end()), axis->end());
  }
  if (g.x.size() != static_cast<std::size_t>(g.nx) || g.y.size() != static_cast<std::size_t>(g.ny))
    r.fail("the grid points do not form a " + r.words[5] + " x " + r.words[6] + " grid");
  if (std::abs(g.x.back() - g.x.front() - 360) > 1e-9 || std::abs(g.y.back() - g.y.front() - 360) > 1e-9)
    r.fail("the grid must span one full turn (360 degrees) in both angles");
  g.f.assign(n, NAN);
  for (const auto& p : points) {
    const auto ix = std::lower_bound(g.x.begin(), g.x.end(), p[0]) - g.x.begin();
    const auto iy = std::lower_bound(g.y.begin(), g.y.end(), p[1]) - g.y.begin();
    double& slot = g.f[static_cast<std::size_t>(iy * g.nx + ix)];
    if (!std::isnan(slot)) r.fail("the grid lists a point twice");
    slot = p[2];
  }
  // Slopes along x on every row, along y on every column, and d2f/dxdy as the y-slopes of fx.
  g.fx.assign(n, 0);
  g.fy.assign(n, 0);
  g.fxy.assign(n, 0);
  const std::size_t nx = static_cast<std::size_t>(g.nx), ny = static_cast<std::size_t>(g.ny);
  std::vector<double> line;
  for (std::size_t j = 0; j < ny; ++j) {
    line.assign(g.f.begin() + static_cast<long>(j * nx), g.f.begin() + static_cast<long>((j + 1) * nx));
    const std::vector<double> s = periodic_spline_slopes(g.x, line);
    std::copy(s.begin(), s.end(), g.fx.begin() + static_cast<long>(j * nx));
  }
  for (std::size_t i = 0; i < nx; ++i) {
    line.resize(ny);
    for (std::size_t j = 0; j < ny; ++j) line[j] = g.f[j * nx + i];
    std::vector<double> s = periodic_spline_slopes(g.y, line);
    for (std::size_t j = 0; j < ny; ++j) g.fy[j * nx + i] = s[j];
    for (std::size_t j = 0; j < ny; ++j) line[j] = g.fx[j * nx + i];
    s = periodic_spline_slopes(g.y, line);
    for (std::size_t j = 0; j < ny; ++j) g.fxy[j * nx + i] = s[j];
  }
  return g;
}

MultipoleRecord read_multipole(const KeyRecord& r, int& type) {
  need(r, 2, 5, "multipole TYPE [Z-AXIS [X-AXIS [Y-AXIS]]] CHARGE, then the dipole and the quadrupole's rows");
  MultipoleRecord m;
  m.from_key = r.from_key;
  m.file = r.file;
  m.line = r.line;
  type = whole(r, r.words[0], "an atom type");
  for (std::size_t k = 1; k + 1 < r.words.size(); ++k) m.axes[k - 1] = whole(r, r.words[k], "an axis atom type", -1000000);
  m.values[0] = number(r, r.words.back(), "the charge");
  const std::size_t widths[4] = {3, 1, 2, 3};
  std::size_t at = 1;
  for (std::size_t k = 0; k < 4; ++k) {
    KeyRecord line = r;
    line.line = r.more_lines[k];
    if (r.more[k].size() != widths[k]) line.fail("expected " + std::to_string(widths[k]) + " numbers on this line");
    for (const std::string& w : r.more[k]) m.values[at++] = number(line, w, "a multipole component");
  }
  return m;
}

// Term switches: "NAMEterm" (on), "NAMEterm none" (off), "NAMEterm only" (every other off).
void switch_term(Parameters& p, const KeyRecord& r, Term t) {
  need(r, 0, 1, "no value, NONE or ONLY");
  const std::string v = r.words.empty() ? "" : r.words[0];
  std::string u = v;
  for (char& c : u) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (u == "only") p.term_on.fill(false);
  else if (!u.empty() && u != "none") r.fail("expected no value, NONE or ONLY, found '" + v + "'");
  p.term_on[static_cast<std::size_t>(t)] = u != "none";
}

}  // namespace

const char* term_name(Term t) {
  static const char* n[kTerms] = {"Bond Stretching", "Angle Bending", "Stretch-Bend", "Urey-Bradley",
                                  "Out-of-Plane Bend", "Torsional Angle", "Pi-Orbital Torsion", "Torsion-Torsion",
                                  "Angle-Torsion", "Stretch-Torsion", "Van der Waals", "Atomic Multipoles",
                                  "Polarization"};
  return n[static_cast<int>(t)];
}
const char* term_keyword(Term t) {
  static const char* n[kTerms] = {"bondterm", "angleterm", "strbndterm", "ureyterm", "opbendterm", "torsionterm",
                                  "pitorsterm", "tortorterm", "angtorterm", "strtorterm", "vdwterm", "mpoleterm",
                                  "polarizeterm"};
  return n[static_cast<int>(t)];
}

ForceFieldHeader::ForceFieldHeader()
    : angle_unit(kDegree * kDegree), strbnd_unit(kDegree), opbend_unit(kDegree * kDegree) {}

const AtomTypeRecord& Parameters::atom(int type, const std::string& where) const {
  const auto it = atoms.find(type);
  if (it == atoms.end())
    throw InputError(parameter_path, 0, where + ": atom type " + std::to_string(type) + " has no 'atom' record");
  return it->second;
}

void Parameters::fail_setting(const std::string& key, const std::string& message) const {
  const auto it = header.setting_records.find(key);
  if (it != header.setting_records.end()) it->second.fail(message);
  throw InputError(key_path, 0, message);
}

Parameters read_parameters(const std::string& key_path, const std::string& parameter_file) {
  return read_parameters(read_tinker_key(key_path, parameter_file));
}

Parameters read_parameters(const KeyFile& files) {
  Parameters p;
  p.key_path = files.key_path;
  p.parameter_path = files.parameter_path;
  p.term_on.fill(true);
  ForceFieldHeader& h = p.header;
  const std::map<std::string, double*> scalars = {
      {"bond-cubic", &h.bond_cubic},        {"bond-quartic", &h.bond_quartic},    {"urey-cubic", &h.urey_cubic},
      {"urey-quartic", &h.urey_quartic},    {"angle-cubic", &h.angle_poly[0]},    {"angle-quartic", &h.angle_poly[1]},
      {"angle-pentic", &h.angle_poly[2]},   {"angle-sextic", &h.angle_poly[3]},   {"opbend-cubic", &h.opbend_poly[0]},
      {"opbend-quartic", &h.opbend_poly[1]}, {"opbend-pentic", &h.opbend_poly[2]}, {"opbend-sextic", &h.opbend_poly[3]},
      {"bondunit", &h.bond_unit},           {"angleunit", &h.angle_unit},         {"strbndunit", &h.strbnd_unit},
      {"ureyunit", &h.urey_unit},           {"opbendunit", &h.opbend_unit},       {"torsionunit", &h.torsion_unit},
      {"pitorsunit", &h.pitors_unit},       {"tortorunit", &h.tortor_unit},
      {"angtorunit", &h.angtor_unit},       {"strtorunit", &h.strtor_unit}};
  const std::map<std::string, Term> switches = {
      {"bondterm", Term::Bond},          {"angleterm", Term::Angle},         {"strbndterm", Term::StretchBend},
      {"ureyterm", Term::Urey},          {"ureybradterm", Term::Urey},       {"opbendterm", Term::OutOfPlane},
      {"torsionterm", Term::Torsion},    {"pitorsterm", Term::PiTorsion},    {"tortorterm", Term::TorsionTorsion},
      {"angtorterm", Term::AngleTorsion}, {"strtorterm", Term::StretchTorsion}, {"vdwterm", Term::Vdw},
      {"mpoleterm", Term::Multipole},    {"multipoleterm", Term::Multipole}, {"polarizeterm", Term::Polarization}};
  for (const KeyRecord& r : files.records) {
    const std::string& k = r.keyword;
    if (const auto s = scalars.find(k); s != scalars.end()) {
      need(r, 1, 1, "one number");
      *s->second = number(r, r.words[0], "the value");
    } else if (const auto t = switches.find(k); t != switches.end()) {
      switch_term(p, r, t->second);
    } else if (k == "forcefield") {
      need(r, 1, 1, "the force field's name");
      h.forcefield = r.words[0];
    } else if (k == "angle-trigonal" || k == "opbendtype") {
      need(r, 1, 1, "one word");
      std::string v = r.words[0];
      for (char& c : v) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      if (k == "angle-trigonal") {
        if (v != "IN-PLANE" && v != "HARMONIC") r.fail("expected IN-PLANE or HARMONIC, found '" + r.words[0] + "'");
        h.angle_trigonal = v;
      } else {
        if (v != "ALLINGER") r.fail("only the ALLINGER out-of-plane angle is supported, found '" + r.words[0] + "'");
        h.opbend_type = v;
      }
    } else if (k == "atom") {
      need(r, 6, 7, "atom TYPE CLASS SYMBOL \"DESCRIPTION\" ATOMIC-NUMBER MASS VALENCE");
      AtomTypeRecord a;
      const int type = whole(r, r.words[0], "an atom type");
      a.cls = whole(r, r.words[1], "an atom class");
      a.symbol = r.words[2];
      a.description = r.words.size() == 7 ? r.words[3] : "";
      const std::size_t at = r.words.size() == 7 ? 4 : 3;
      a.atomic = whole(r, r.words[at], "an atomic number", 0);
      a.mass = number(r, r.words[at + 1], "the mass");
      a.valence = whole(r, r.words[at + 2], "the valence", 0);
      p.atoms[type] = a;
    } else if (k == "bond") {
      need(r, 4, 4, "bond CLASS CLASS K R0");
      p.bonds[canonical(classes<2>(r))] = {number(r, r.words[2], "K"), number(r, r.words[3], "R0")};
    } else if (k == "angle" || k == "anglep") {
      need(r, 5, 7, k + " CLASS CLASS CLASS K THETA [THETA-1H THETA-2H]");
      AngleRecord a;
      a.k = number(r, r.words[3], "K");
      for (std::size_t n = 0; n + 4 < r.words.size(); ++n) a.theta[n] = number(r, r.words[4 + n], "an ideal angle");
      if (a.theta[1] == 0 && a.theta[2] == 0) a.theta[1] = a.theta[2] = a.theta[0];  // any number of hydrogens
      a.in_plane = k == "anglep";
      p.angles[canonical(classes<3>(r))] = a;
    } else if (k == "anglef") {
      need(r, 6, 6, "anglef CLASS CLASS CLASS K SHIFT PERIODICITY");
      FourierAngleRecord f{number(r, r.words[3], "K"), number(r, r.words[4], "the shift"), number(r, r.words[5], "the periodicity")};
      if (!(f.fold > 0)) r.fail("the periodicity must be positive");
      p.fourier_angles[canonical(classes<3>(r))] = f;
    } else if (k == "strbnd") {
      need(r, 5, 5, "strbnd CLASS CLASS CLASS K1 K2");
      std::array<int, 3> c = classes<3>(r);
      StretchBendRecord sb{number(r, r.words[3], "K1"), number(r, r.words[4], "K2")};
      if (c[0] > c[2]) std::swap(sb.k1, sb.k2);
      p.strbnds[canonical(c)] = sb;
    } else if (k == "ureybrad") {
      need(r, 5, 5, "ureybrad CLASS CLASS CLASS K R0");
      p.ureys[canonical(classes<3>(r))] = {number(r, r.words[3], "K"), number(r, r.words[4], "R0")};
    } else if (k == "opbend") {
      need(r, 5, 5, "opbend CLASS CLASS CLASS CLASS K (the out-of-plane atom, the centre, the other two or 0)");
      std::array<int, 4> c = classes<4>(r, 0);
      if (c[2] > c[3]) std::swap(c[2], c[3]);
      p.opbends[c] = number(r, r.words[4], "K");
    } else if (k == "torsion") {
      if (r.words.size() < 4 || (r.words.size() - 4) % 3 != 0 || r.words.size() > 4 + 18)
        r.fail("expected torsion CLASS CLASS CLASS CLASS and up to six AMPLITUDE PHASE PERIODICITY triples");
      std::array<int, 4> c = classes<4>(r, 0);
      TorsionRecord tr;
      for (std::size_t at = 4; at < r.words.size(); at += 3) {
        const int n = whole(r, r.words[at + 2], "a periodicity (1 to 6)");
        if (n > 6) r.fail("periodicities run from 1 to 6, found " + r.words[at + 2]);
        tr.v[static_cast<std::size_t>(n - 1)] = number(r, r.words[at], "an amplitude");
        tr.phase[static_cast<std::size_t>(n - 1)] = number(r, r.words[at + 1], "a phase");
      }
      if (c[1] > c[2] || (c[1] == c[2] && c[0] > c[3])) c = {c[3], c[2], c[1], c[0]};
      p.torsions[c] = tr;
    } else if (k == "pitors") {
      need(r, 3, 3, "pitors CLASS CLASS K");
      p.pitors[canonical(classes<2>(r))] = number(r, r.words[2], "K");
    } else if (k == "tortors") {
      need(r, 7, 7, "tortors CLASS CLASS CLASS CLASS CLASS NX NY, then NX * NY lines of two angles and a value");
      p.tortors[classes<5>(r)] = read_grid(r);
    } else if (k == "vdw") {
      need(r, 3, 4, "vdw CLASS RADIUS EPSILON [REDUCTION]");
      VdwRecord v{number(r, r.words[1], "the radius"), number(r, r.words[2], "epsilon"), 0};
      if (r.words.size() == 4) v.reduction = number(r, r.words[3], "the reduction factor");
      p.vdw[whole(r, r.words[0], "an atom class")] = v;
    } else if (k == "vdwpr" || k == "vdwpair") {
      need(r, 4, 4, k + " CLASS CLASS RADIUS EPSILON");
      p.vdw_pairs[canonical(classes<2>(r))] = {number(r, r.words[2], "the radius"), number(r, r.words[3], "epsilon"), 0};
    } else if (k == "multipole") {
      int type = 0;
      const MultipoleRecord m = read_multipole(r, type);
      p.multipoles.emplace(type, m);
      p.multipole_list.emplace_back(type, m);
    } else if (k == "polarize") {
      need(r, 3, 40, "polarize TYPE ALPHA THOLE [GROUP TYPES...]");
      PolarizeRecord q{number(r, r.words[1], "the polarizability"), number(r, r.words[2], "the Thole damping"), {}};
      for (std::size_t at = 3; at < r.words.size(); ++at) q.group.push_back(whole(r, r.words[at], "a group's atom type"));
      p.polarize[whole(r, r.words[0], "an atom type")] = q;
    } else if (k == "polpair") {
      need(r, 3, 3, "polpair TYPE TYPE THOLE");
      number(r, r.words[2], "the Thole damping");
      p.polpairs[canonical(classes<2>(r, 1))] = r;
    } else if (k == "angtors" || k == "strtors") {
      const std::size_t values = k == "angtors" ? 6 : 9;
      need(r, 4 + values, 4 + values,
           k == "angtors" ? "angtors CLASS CLASS CLASS CLASS and 6 constants (1-, 2-, 3-fold for each angle)"
                          : "strtors CLASS CLASS CLASS CLASS and 9 constants (1-, 2-, 3-fold for each bond)");
      std::array<int, 4> c = classes<4>(r, 0);
      CrossTorsionRecord x;
      for (std::size_t m = 0; m < values; ++m) x.k[m] = number(r, r.words[4 + m], "a constant");
      if (c[1] > c[2] || (c[1] == c[2] && c[0] > c[3])) {  // Tinker swaps the end blocks with the tuple
        c = {c[3], c[2], c[1], c[0]};
        for (std::size_t m = 0; m < 3; ++m) std::swap(x.k[m], x.k[values - 3 + m]);
      }
      (k == "angtors" ? p.angtors : p.strtors)[c] = x;
    } else if (k == "biotype" || k == "solute" || k == "parameters") {
      // biotypes name residues' atoms for building structures, solute radii belong to implicit
      // solvents: neither enters these energies. `parameters` was followed when the files were read.
    } else {
      // Key settings kept by keyword (cutoffs, Ewald, the cell, vdW and polarization rules): each
      // term that uses one reads it; settings of runs and output are kept and ignored.
      h.settings[k] = io::join(r.words);
      h.setting_records[k] = r;
    }
  }
  if (const auto a = h.settings.find("a-axis"); a != h.settings.end()) {
    const KeyRecord* where = nullptr;
    for (const KeyRecord& r : files.records)
      if (r.keyword == "a-axis") where = &r;
    auto value = [&](const char* key, double fallback) {
      const auto it = h.settings.find(key);
      if (it == h.settings.end()) return fallback;
      double v = 0;
      if (!io::parse_finite(it->second, v) || !(v > 0)) where->fail(std::string("'") + key + "' must be a positive number");
      return v;
    };
    const double len = value("a-axis", 0);
    const double c[6] = {len, value("b-axis", len), value("c-axis", len), value("alpha", 90), value("beta", 90),
                         value("gamma", 90)};
    if (!(c[3] < 180 && c[4] < 180 && c[5] < 180)) where->fail("the cell's angles must lie between 0 and 180 degrees");
    try {
      p.cell = io::tinker_cell(c);
    } catch (const Error& e) {
      where->fail(e.what());
    }
  }
  return p;
}

}  // namespace quasar::amoeba
