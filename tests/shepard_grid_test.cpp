// Evaluation on direct-product grids of Z-matrix coordinates (shepard/grid.*, zmatrix.*,
// grid_io.hpp): the Z-matrix's Cartesians against distances, angles and dihedrals recomputed here;
// the groups against their definition; the grid path against the same Cartesian points evaluated
// one by one with the approximate method (the same bits on the CPU; the GPU within rounding); the
// approximate method against the exact one; the output files; bad input naming its key.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <set>
#include <sstream>

#include "quasar/core/config.hpp"
#include "quasar/io/hdf5/hdf5.hpp"
#include "quasar/potential/shepard/coordinates.hpp"
#include "quasar/potential/shepard/dataset.hpp"
#include "quasar/potential/shepard/grid.hpp"
#include "quasar/potential/shepard/grid_io.hpp"
#include "quasar/potential/shepard/interpolant.hpp"
#include "shepard_surface.hpp"
#include "support.hpp"

namespace quasar {
namespace {

using shepard::Grid;
using shepard::Interpolant;

constexpr double kPi = 3.14159265358979323846;

// Geometry from Cartesians alone.
double distance(const double* x, int a, int b) {
  double s = 0;
  for (int k = 0; k < 3; ++k) s += (x[3 * a + k] - x[3 * b + k]) * (x[3 * a + k] - x[3 * b + k]);
  return std::sqrt(s);
}
double angle_deg(const double* x, int a, int b, int c) {  // at b
  double u[3], v[3], uv = 0, uu = 0, vv = 0;
  for (int k = 0; k < 3; ++k) {
    u[k] = x[3 * a + k] - x[3 * b + k];
    v[k] = x[3 * c + k] - x[3 * b + k];
    uv += u[k] * v[k];
    uu += u[k] * u[k];
    vv += v[k] * v[k];
  }
  return std::acos(uv / std::sqrt(uu * vv)) * 180 / kPi;
}
// IUPAC torsion a-b-c-d: atan2(|b2| b1.(b2 x b3), (b1 x b2).(b2 x b3)).
double dihedral_deg(const double* x, int a, int b, int c, int d) {
  double b1[3], b2[3], b3[3];
  for (int k = 0; k < 3; ++k) {
    b1[k] = x[3 * b + k] - x[3 * a + k];
    b2[k] = x[3 * c + k] - x[3 * b + k];
    b3[k] = x[3 * d + k] - x[3 * c + k];
  }
  auto cross = [](const double* p, const double* q, double* o) {
    o[0] = p[1] * q[2] - p[2] * q[1];
    o[1] = p[2] * q[0] - p[0] * q[2];
    o[2] = p[0] * q[1] - p[1] * q[0];
  };
  double n1[3], n2[3];
  cross(b1, b2, n1);
  cross(b2, b3, n2);
  const double len2 = std::sqrt(b2[0] * b2[0] + b2[1] * b2[1] + b2[2] * b2[2]);
  const double y = len2 * (b1[0] * n2[0] + b1[1] * n2[1] + b1[2] * n2[2]);
  const double xx = n1[0] * n2[0] + n1[1] * n2[1] + n1[2] * n2[2];
  return std::atan2(y, xx) * 180 / kPi;
}
double wrapped(double degrees) { return std::remainder(degrees, 360.0); }

TEST(ShepardZMatrix, CartesiansHaveTheZMatrixGeometry) {
  // Six atoms, references not a simple chain.
  const std::vector<shepard::ZMatrixRow> rows = {
      {"C", 0, 0, 0}, {"H", 1, 0, 0}, {"H", 1, 2, 0}, {"H", 1, 2, 3}, {"H", 3, 1, 2}, {"H", 4, 1, 5}};
  ASSERT_EQ(shepard::zmatrix_problem(rows), "");
  const auto coords = shepard::zmatrix_coordinates(6);
  ASSERT_EQ(coords.size(), 12u);
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> r(0.8, 1.6), theta(20, 170), phi(-180, 180);
  test::MaxError er("Z-matrix bond length - distance from the Cartesians (Å)"),
      ea("Z-matrix angle - angle from the Cartesians (degree)"),
      ed("Z-matrix dihedral - IUPAC torsion from the Cartesians (degree)"), ef("frame convention (Å)"),
      eb("zmatrix_values of the Cartesians - the Z-matrix (Å, degree)");
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> q;
    for (const auto& c : coords)
      q.push_back(c.kind == shepard::ZKind::Bond ? r(rng) : c.kind == shepard::ZKind::Angle ? theta(rng) : phi(rng));
    std::vector<double> x(18);
    ASSERT_EQ(shepard::zmatrix_cartesians(rows, q.data(), x.data()), "");
    for (std::size_t k = 0; k < coords.size(); ++k) {
      const auto& z = rows[static_cast<std::size_t>(coords[k].row - 1)];
      const int me = coords[k].row - 1, b = z.bond - 1, a = z.angle - 1, d = z.dihedral - 1;
      if (coords[k].kind == shepard::ZKind::Bond) er.add(distance(x.data(), me, b), q[k]);
      if (coords[k].kind == shepard::ZKind::Angle) ea.add(angle_deg(x.data(), me, b, a), q[k]);
      if (coords[k].kind == shepard::ZKind::Dihedral) ed.add(wrapped(dihedral_deg(x.data(), me, b, a, d) - q[k]), 0);
    }
    // And back (zmatrix_values: the coordinates of the Cartesians).
    std::vector<double> back(12);
    shepard::zmatrix_values(rows, x.data(), back.data());
    for (std::size_t k = 0; k < coords.size(); ++k) eb.add(coords[k].kind == shepard::ZKind::Dihedral ? wrapped(back[k] - q[k]) : back[k] - q[k], 0);
    // Row 1 at the origin, row 2 on +z, row 3 in the xz plane.
    for (int k = 0; k < 3; ++k) ef.add(x[static_cast<std::size_t>(k)], 0);
    ef.add(x[3], 0);
    ef.add(x[4], 0);
    ef.add(x[7], 0);
    EXPECT_GT(x[5], 0);
  }
  EXPECT_TRUE(er.within(1e-13));  // measured about 4e-16
  EXPECT_TRUE(ea.within(1e-10));  // acos loses digits near 0 and 180 degrees
  EXPECT_TRUE(ed.within(1e-10));
  EXPECT_TRUE(ef.within(0));
  EXPECT_TRUE(eb.within(1e-10));
  // Row 3 at a dihedral of 0 against +x: x > 0.
  std::vector<double> x(18);
  const std::vector<double> q{1, 1, 90, 1, 100, 60, 1, 100, 60, 1, 100, 60};
  ASSERT_EQ(shepard::zmatrix_cartesians(rows, q.data(), x.data()), "");
  EXPECT_GT(x[6], 0);
}

TEST(ShepardZMatrix, ProblemsAreNamed) {
  EXPECT_NE(shepard::zmatrix_problem({{"O"}, {"H", 1}}), "");                         // too few rows
  EXPECT_NE(shepard::zmatrix_problem({{"O"}, {"H", 2}, {"H", 1, 2}}), "");            // not an earlier row
  EXPECT_NE(shepard::zmatrix_problem({{"O"}, {"H", 1}, {"H", 1, 1}}), "");            // not distinct
  EXPECT_NE(shepard::zmatrix_problem({{"O", 1}, {"H", 1}, {"H", 1, 2}}), "");         // row 1 with a reference
  EXPECT_NE(shepard::zmatrix_problem({{"O"}, {"H", 1}, {"H", 1, 2}, {"H", 1, 2}}), "");  // row 4 without dihedral
  // A straight angle is a geometry, but no frame for a dihedral that builds on it.
  const std::vector<shepard::ZMatrixRow> four{{"O"}, {"H", 1}, {"H", 1, 2}, {"H", 1, 2, 3}};
  const double straight[6] = {1, 1, 180, 1, 100, 30};
  double y[12];
  EXPECT_NE(shepard::zmatrix_cartesians(four, straight, y).find("row 4: its bond, angle and dihedral atoms are collinear"),
            std::string::npos);
  const double last_straight[6] = {1, 1, 100, 1, 180, 30};
  EXPECT_EQ(shepard::zmatrix_cartesians(four, last_straight, y), "");
  EXPECT_NEAR(angle_deg(y, 3, 0, 1), 180, 1e-6);
  // Coinciding atoms: row 3 folded back onto row 1.
  const std::vector<shepard::ZMatrixRow> rows{{"O"}, {"H", 1}, {"H", 2, 1}};
  const double q[3] = {1, 1, 1e-8};
  double x[9];
  EXPECT_NE(shepard::zmatrix_cartesians(rows, q, x).find("rows 1 and 3: the atoms coincide"), std::string::npos);
}

TEST(ShepardGrid, GroupsAreTheGridsNeighbourhoods) {
  Grid g;
  g.rows = {{"O"}, {"H", 1}, {"H", 1, 2}, {"H", 1, 2, 3}};
  const std::vector<long> n{4, 1, 5, 2, 3, 7};
  for (long c : n) g.values.push_back(std::vector<double>(static_cast<std::size_t>(c), 1.0));
  std::set<long> centres;
  for (long i = 0; i < g.points(); ++i) {
    const long c = shepard::group_centre(g, i);
    centres.insert(c);
    // Per coordinate: the same triple 3t..3t+2, the centre its middle (or the last value there).
    long a = i, b = c;
    for (std::size_t d = n.size(); d-- > 0;) {
      const long ia = a % n[d], ib = b % n[d];
      EXPECT_EQ(ia / 3, ib / 3);
      EXPECT_EQ(ib, std::min(ia / 3 * 3 + 1, n[d] - 1));
      a /= n[d];
      b /= n[d];
    }
  }
  EXPECT_EQ(centres.size(), 2u * 1 * 2 * 1 * 1 * 3);
}

// An O H3 surface around a pyramid, its data points spread over the grid's region, and the grid.
struct GridCase {
  test::TestSurface surface{{"O", "H", "H", "H"}};
  std::vector<shepard::ZMatrixRow> rows{{"O"}, {"H", 1}, {"H", 1, 2}, {"H", 1, 2, 3}};
  shepard::DataSet set;
  Grid grid;
  explicit GridCase(double wtol, int points = 40) {
    set.elements = surface.elements;
    set.masses = {15.999, 1.008, 1.008, 1.008};
    set.permutations = shepard::full_permutation_group(set.elements);
    set.parameters.wtol = wtol;
    std::mt19937_64 rng(17);
    std::uniform_real_distribution<double> r(0.88, 1.08), theta(100, 120), phi(100, 130);
    for (int i = 0; i < points; ++i) {
      const double q[6] = {r(rng), r(rng), theta(rng), r(rng), theta(rng), phi(rng)};
      shepard::CartesianPoint p;
      p.positions.resize(12);
      EXPECT_EQ(shepard::zmatrix_cartesians(rows, q, p.positions.data()), "");
      p.energy = surface(p.positions, &p.gradient, &p.hessian);
      set.points.push_back(shepard::make_data_point(p, std::vector<double>(6, 0.15)));
    }
    grid.rows = rows;
    grid.values = {{0.9, 0.94, 0.98, 1.02, 1.06}, {0.98}, {104, 110, 116, 118}, {0.98}, {102, 108, 113, 118},
                   {100, 107, 114, 121, 128}};
  }
};

// The grid's energies and gradients in grid order.
struct GridResult {
  std::vector<double> energies, gradients;
};

GridResult run_grid(const Interpolant& f, const Grid& grid, shepard::GridEvaluation how) {
  GridResult r;
  how.gradients = true;
  long expected_first = 0;
  shepard::evaluate_grid(f, grid, how, [&](const shepard::GridSlab& slab) {
    EXPECT_EQ(slab.first, expected_first);  // slabs in grid order, one after another
    expected_first += slab.count;
    r.energies.insert(r.energies.end(), slab.energies, slab.energies + slab.count);
    r.gradients.insert(r.gradients.end(), slab.gradients, slab.gradients + slab.count * 3 * grid.atoms());
  });
  EXPECT_EQ(expected_first, grid.points());
  return r;
}

// Each grid point alone: its Cartesians, the neighbour set found at its group's centre, and the
// interpolation over that set (the approximate method); or the exact method.
GridResult one_by_one(const Interpolant& f, const Grid& grid, bool exact) {
  GridResult r;
  shepard::Workspace ws;
  std::vector<double> x(12), centre(12), z(6), g(12);
  std::vector<int> set;
  for (long i = 0; i < grid.points(); ++i) {
    grid.cartesians(i, x.data());
    if (exact) {
      r.energies.push_back(shepard::evaluate(f, x.data(), g.data(), ws));
    } else {
      grid.cartesians(shepard::group_centre(grid, i), centre.data());
      shepard::inverse_distances(centre.data(), 4, z.data());
      shepard::select_neighbours(f, z.data(), set, ws);
      r.energies.push_back(shepard::interpolate(f, x.data(), set, g.data(), ws));
    }
    r.gradients.insert(r.gradients.end(), g.begin(), g.end());
  }
  return r;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

TEST(ShepardGrid, CpuGridEqualsEachPointByTheApproximateMethod) {
  const GridCase c(1e-8);
  const Interpolant f = Interpolant::from(c.set);
  const GridResult want = one_by_one(f, c.grid, false);
  for (long piece : {65536L, 100L, 7L, 1L}) {  // pieces that cut groups: each part keeps its centre's set
    shepard::GridEvaluation how;
    how.piece = piece;
    const GridResult got = run_grid(f, c.grid, how);
    EXPECT_TRUE(same_bits(got.energies, want.energies)) << "piece " << piece;
    EXPECT_TRUE(same_bits(got.gradients, want.gradients)) << "piece " << piece;
  }
  shepard::GridEvaluation exact;
  exact.exact = true;
  const GridResult got = run_grid(f, c.grid, exact), each = one_by_one(f, c.grid, true);
  EXPECT_TRUE(same_bits(got.energies, each.energies));
  EXPECT_TRUE(same_bits(got.gradients, each.gradients));
}

// The approximate method's difference from the exact one at x, bounded by what the two neighbour
// sets do not share: with C = A n E, V_S - V_C = sum_{S\C} v_i (T_i - V_C) / sum_S v, so
// |V_A - V_E| <= w(A\C in A) max|T_i - V_C| + w(E\C in E) max|T_i - V_C| (w: relative weight).
double set_difference_bound(const Interpolant& f, const double* x, const std::vector<int>& a, const std::vector<int>& e,
                            shepard::Workspace& ws) {
  std::vector<int> common;
  std::set_intersection(a.begin(), a.end(), e.begin(), e.end(), std::back_inserter(common));
  EXPECT_FALSE(common.empty());
  const double v_common = shepard::interpolate(f, x, common, nullptr, ws);
  std::vector<double> z(6), dz(6);
  shepard::inverse_distances(x, 4, z.data());
  double bound = 0;
  for (const std::vector<int>* s : {&a, &e}) {
    double all = 0, apart = 0, spread = 0;
    for (int r : *s) {
      const double v = 1 / shepard::weight_denominator(f, r, z.data(), dz.data());
      all += v;
      if (std::binary_search(common.begin(), common.end(), r)) continue;
      apart += v;
      const int one[1] = {r};
      spread = std::max(spread, std::abs(shepard::interpolate(f, x, one, nullptr, ws) - v_common));
    }
    bound += apart / all * spread;
  }
  return bound;
}

TEST(ShepardGrid, ApproximateMethodStaysCloseToTheExactOne) {
  // wtol 0 keeps every point: the two methods sum the same terms in the same order.
  const GridCase all(0);
  const Interpolant f0 = Interpolant::from(all.set);
  shepard::GridEvaluation how, exact;
  exact.exact = true;
  EXPECT_TRUE(same_bits(run_grid(f0, all.grid, how).energies, run_grid(f0, all.grid, exact).energies));
  // With pruning the set found at the group's centre stands in for each point's own.
  const double tolerance[3] = {1e-6, 1e-2, 0.1};  // measured 2.4e-8, 3.7e-4 and 2.5e-3 eV
  int k = 0;
  for (double wtol : {1e-8, 1e-4, 1e-2}) {
    const GridCase c(wtol);
    const Interpolant f = Interpolant::from(c.set);
    const GridResult a = run_grid(f, c.grid, how), e = run_grid(f, c.grid, exact);
    std::ostringstream what;
    what << "approximate - exact energy on the 400-point O H3 grid (energies over 1.85 eV), wtol " << wtol << " (eV)";
    test::MaxError de(what.str());
    shepard::Workspace ws;
    std::vector<double> x(12), centre(12), z(6);
    std::vector<int> at_centre, own;
    int outside = 0;
    for (long i = 0; i < c.grid.points(); ++i) {
      const std::size_t is = static_cast<std::size_t>(i);
      de.add(a.energies[is], e.energies[is]);
      c.grid.cartesians(i, x.data());
      c.grid.cartesians(shepard::group_centre(c.grid, i), centre.data());
      shepard::inverse_distances(centre.data(), 4, z.data());
      shepard::select_neighbours(f, z.data(), at_centre, ws);
      shepard::inverse_distances(x.data(), 4, z.data());
      shepard::select_neighbours(f, z.data(), own, ws);
      const double bound = set_difference_bound(f, x.data(), at_centre, own, ws);
      if (!(std::abs(a.energies[is] - e.energies[is]) <= bound * (1 + 1e-9) + 1e-12)) ++outside;
    }
    EXPECT_EQ(outside, 0) << "points where the difference exceeds what the two sets' difference allows";
    EXPECT_TRUE(de.within(tolerance[k++]));
  }
}

std::vector<unsigned char> file_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The HDF5 grid file's energies and gradients (checked shapes) and one coordinate's values.
GridResult read_hdf5_grid(const std::filesystem::path& p, const Grid& grid) {
  const std::vector<unsigned char> bytes = file_bytes(p);
  const h5::Handle file = h5::open_image(bytes.data(), bytes.size());
  EXPECT_TRUE(file.valid());
  const h5::Reader in(file.id(), p.string(), bytes.size());
  EXPECT_EQ(in.string_attribute("/", "format"), "shepard-grid");
  std::vector<hsize_t> shape;
  for (long c : grid.shape()) shape.push_back(static_cast<hsize_t>(c));
  GridResult r;
  r.energies = in.doubles("/energy", shape);
  shape.insert(shape.end(), {4, 3});
  if (in.exists("/gradient")) r.gradients = in.doubles("/gradient", shape);
  EXPECT_EQ(in.doubles("/coordinates/phi4", {grid.values[5].size()}), grid.values[5]);
  EXPECT_EQ(in.strings("/axes", 6), (std::vector<std::string>{"r2", "r3", "theta3", "r4", "theta4", "phi4"}));
  return r;
}

// The text grid file's columns: coordinates, energy, gradient, line by line.
GridResult read_text_grid(const std::filesystem::path& p, const Grid& grid) {
  std::ifstream in(p);
  std::string line;
  GridResult r;
  long index = 0;
  std::vector<double> q(6);
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    grid.coordinates(index++, q.data());
    for (double want : q) {
      double got = 0;
      words >> got;
      EXPECT_EQ(got, want);
    }
    double v = 0;
    words >> v;
    r.energies.push_back(v);
    while (words >> v) r.gradients.push_back(v);
  }
  return r;
}

TEST(ShepardGrid, OutputFilesHoldTheGridInOrder) {
  const GridCase c(1e-8);
  const Interpolant f = Interpolant::from(c.set);
  const std::filesystem::path dir = test::scratch_dir("shepard_grid_output");
  shepard::GridEvaluation how;
  how.gradients = true;
  how.piece = 50;
  const GridResult want = run_grid(f, c.grid, how);
  for (const char* name : {"grid.txt", "grid.h5"}) {
    const std::string path = (dir / name).string();
    const auto out = shepard::open_grid_output(path, c.grid, {"set.shepard", c.set.elements, c.set.parameters, false, true});
    shepard::evaluate_grid(f, c.grid, how, [&out](const shepard::GridSlab& s) { out->write(s); });
    out->finish();
    const GridResult got = std::string(name) == "grid.h5" ? read_hdf5_grid(path, c.grid) : read_text_grid(path, c.grid);
    EXPECT_TRUE(same_bits(got.energies, want.energies)) << name;  // the shortest text that reads back exactly
    EXPECT_TRUE(same_bits(got.gradients, want.gradients)) << name;
  }
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()), 2);
  std::filesystem::remove_all(dir);
}

// The grid input with one line replaced: an InputError naming grid.toml, the line and the key.
const char* kGridInput = R"(dataset = "oh3.shepard"
output = "grid.h5"
[[zmatrix]]
element = "O"
[[zmatrix]]
element = "H"
bond = 1
r = { start = 0.9, stop = 1.1, count = 5 }
[[zmatrix]]
element = "H"
bond = 1
r = 0.98
angle = 2
theta = [104, 110]
[[zmatrix]]
element = "H"
bond = 1
r = 0.98
angle = 2
theta = 108
dihedral = 3
phi = 120
)";

void expect_grid_error(const std::string& from, const std::string& to, const std::string& words) {
  std::string text = kGridInput;
  const auto at = text.find(from);
  ASSERT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
  try {
    const toml::table root = parse_toml_text(text, "grid.toml");
    shepard::grid_settings_from_config(ConfigTable{&root, "grid.toml", ""});
    ADD_FAILURE() << "no error for " << to;
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind("grid.toml:", 0), 0u) << msg;
    EXPECT_NE(msg.find(words), std::string::npos) << msg;
  }
}

TEST(ShepardGridInput, BadInputNamesTheKey) {
  const toml::table root = parse_toml_text(kGridInput, "grid.toml");
  const shepard::GridSettings s = shepard::grid_settings_from_config(ConfigTable{&root, "grid.toml", ""});
  const std::vector<double> r2{0.9, 0.95, 1.0, 1.05, 1.1};
  for (std::size_t k = 0; k < 5; ++k) EXPECT_NEAR(s.grid.values[0][k], r2[k], 1e-15);
  EXPECT_EQ(s.grid.values[0][4], 1.1);  // the end point exactly
  EXPECT_EQ(s.grid.points(), 10);
  expect_grid_error("dataset", "datset", "unknown key 'datset'");
  expect_grid_error("output = \"grid.h5\"", "output = \"grid.h5\"\nmethod = \"fast\"", "'method': unknown method 'fast'");
  expect_grid_error("output = \"grid.h5\"", "output = \"grid.h5\"\npiece = 0", "'piece': expected an integer >= 1");
  expect_grid_error("element = \"O\"", "element = \"O\"\nbond = 2", "unknown key 'zmatrix[1].bond'");
  expect_grid_error("element = \"O\"", "element = \"O O\"", "'zmatrix[1].element': expected an element name");
  expect_grid_error("bond = 1\nr = {", "bond = 2\nr = {", "'zmatrix[2].bond': expected an integer >= 1 and <= 1, found 2");
  expect_grid_error("count = 5", "count = 0", "'zmatrix[2].r.count': expected an integer >= 1");
  expect_grid_error(", count = 5", "", "missing key 'zmatrix[2].r.count'");
  expect_grid_error("start = 0.9", "start = -0.9", "'zmatrix[2].r': bond lengths must be > 0 Å, found -0.9");
  expect_grid_error("count = 5", "count = 5, step = 1", "unknown key 'zmatrix[2].r.step'");
  expect_grid_error("angle = 2\ntheta = [104", "angle = 1\ntheta = [104", "'zmatrix[3].angle': must be another row than 'bond'");
  expect_grid_error("theta = [104, 110]", "theta = [104, 180.5]", "'zmatrix[3].theta': angles must lie in [0, 180] degrees, found 180.5");
  expect_grid_error("theta = [104, 110]", "theta = []", "'zmatrix[3].theta': expected at least one value");
  expect_grid_error("dihedral = 3\n", "", "missing key 'zmatrix[4].dihedral'");
  expect_grid_error("phi = 120", "phi = \"120\"", "'zmatrix[4].phi': expected an array of numbers");
  expect_grid_error("phi = 120", "phi = { start = 0, stop = 1, count = 1000001 }", "'zmatrix[4].phi.count'");
  expect_grid_error("phi = 120", "phi = { start = 0, stop = 1, count = 999999 }",
                    "'zmatrix[4].phi.count': the grid's coordinates take more than 1000000 values in all");
  const std::string two_rows = std::string(kGridInput).substr(0, std::string(kGridInput).find("[[zmatrix]]\nelement = \"H\"\nbond = 1\nr = 0.98"));
  expect_grid_error(kGridInput, two_rows, "'zmatrix': expected [[zmatrix]] tables, one per atom (at least 3)");
  // Against the data set, and a grid point with no geometry (row 3 folded onto row 1).
  GridCase c(1e-8);
  c.set.elements = {"N", "H", "H", "H"};
  try {
    shepard::check_grid_atoms(s, c.set);
    ADD_FAILURE() << "no error for a Z-matrix of other elements";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("grid.toml:4: 'zmatrix[1].element': 'O', but atom 1 of the data set is N"),
              std::string::npos)
        << e.what();
  }
  shepard::Grid folded = s.grid;
  folded.rows[2].bond = 2;
  folded.rows[2].angle = 1;
  folded.values[2] = {1e-9};
  folded.values[1] = {0.9};
  folded.values[0] = {0.9};
  std::vector<double> x(12);
  try {
    folded.cartesians(0, x.data());
    ADD_FAILURE() << "no error for coinciding atoms";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("grid.toml:3: 'zmatrix': grid point 0 (r2 = 0.9, r3 = 0.9, theta3 = 1e-09, "
                                         "r4 = 0.98, theta4 = 108, phi4 = 120): rows 1 and 3: the atoms coincide"),
              std::string::npos)
        << e.what();
  }
}

// The grid on each backend (the CPU's threads, the GPU's kernels) against the CPU's evaluation of
// each point alone.
class ShepardGridBackend : public testing::TestWithParam<Backend> {};

TEST_P(ShepardGridBackend, GridEqualsEachPointEvaluatedAlone) {
  const GridCase c(1e-8);
  const Interpolant f = Interpolant::from(c.set);
  for (bool exact : {false, true}) {
    const GridResult want = one_by_one(f, c.grid, exact);
    for (long piece : {65536L, 100L}) {
      shepard::GridEvaluation how;
      how.backend = GetParam();
      how.exact = exact;
      how.piece = piece;
      const GridResult got = run_grid(f, c.grid, how);
      const std::string what = std::string(exact ? "exact" : "approximate") + " grid on the backend - each point alone";
      test::MaxError de(what + ", energy (eV)"), dg(what + ", gradient (eV/Å)");
      for (std::size_t i = 0; i < want.energies.size(); ++i) de.add(got.energies[i], want.energies[i]);
      for (std::size_t i = 0; i < want.gradients.size(); ++i) dg.add(got.gradients[i], want.gradients[i]);
      if (GetParam() == Backend::Cpu) {
        EXPECT_TRUE(same_bits(got.energies, want.energies));
        EXPECT_TRUE(same_bits(got.gradients, want.gradients));
      }
      EXPECT_TRUE(de.within(3e-12));  // CPU: 0 (the same bits)
      EXPECT_TRUE(dg.within(1e-10));
    }
  }
}

TEST_P(ShepardGridBackend, CommandLineWritesTheGrid) {
  const GridCase c(1e-8);
  const std::filesystem::path dir = test::scratch_dir("shepard_grid_cli");
  shepard::write_dataset((dir / "oh3.shepard.h5").string(), c.set);
  std::string input = kGridInput;
  input.replace(input.find("oh3.shepard"), 11, "oh3.shepard.h5");
  std::ofstream(dir / "grid.toml") << input << "gradients = true\n";  // in the last [[zmatrix]] table: an error
  const std::string cmd = "cd " + dir.string() + " && " + test::binary_path("quasar") +
                          " shepard eval --grid grid.toml --device " + backend_name(GetParam()) + " > out.txt 2> err.txt";
  EXPECT_NE(WEXITSTATUS(std::system(cmd.c_str())), 0);
  std::ofstream(dir / "grid.toml") << "gradients = true\n" << input;
  ASSERT_EQ(WEXITSTATUS(std::system(cmd.c_str())), 0) << std::ifstream(dir / "err.txt").rdbuf();
  std::stringstream progress;
  progress << std::ifstream(dir / "out.txt").rdbuf();
  EXPECT_NE(progress.str().find("grid: 10 points, 2 groups, approximate method on " +
                                std::string(backend_name(GetParam()))),
            std::string::npos)
      << progress.str();
  EXPECT_NE(progress.str().find("grid: done, 10 points in"), std::string::npos) << progress.str();
  const toml::table root = parse_toml_text(kGridInput, "grid.toml");
  const Grid grid = shepard::grid_settings_from_config(ConfigTable{&root, "grid.toml", ""}).grid;
  const Interpolant f = Interpolant::from(c.set);
  const GridResult want = one_by_one(f, grid, false), got = read_hdf5_grid(dir / "grid.h5", grid);
  test::MaxError de("quasar shepard eval --grid on the backend - each point alone, energy (eV)"),
      dg("quasar shepard eval --grid on the backend - each point alone, gradient (eV/Å)");
  ASSERT_EQ(got.energies.size(), want.energies.size());
  ASSERT_EQ(got.gradients.size(), want.gradients.size());
  for (std::size_t i = 0; i < want.energies.size(); ++i) de.add(got.energies[i], want.energies[i]);
  for (std::size_t i = 0; i < want.gradients.size(); ++i) dg.add(got.gradients[i], want.gradients[i]);
  EXPECT_TRUE(de.within(3e-12));  // CPU: 0
  EXPECT_TRUE(dg.within(1e-10));
  std::filesystem::remove_all(dir);
}

QUASAR_INSTANTIATE_BACKENDS(ShepardGridBackend);

}  // namespace
}  // namespace quasar
