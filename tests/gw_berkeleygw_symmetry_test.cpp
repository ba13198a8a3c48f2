// BerkeleyGW's order of the space-group operations (gw/berkeleygw_symmetry.*): Si-EPM's list against
// the one BerkeleyGW wrote (sigma_hp.log's mtrx lines, kBerkeleyGwOperations), other lattices against
// the lists spglib 1.0.9 (BerkeleyGW's bundled copy, built outside this repository and called with the
// lattice, atoms and FFT grid as BerkeleyGW's EPM passes them) returned, and the group properties.
#include "gw_sigma_support.hpp"
#include "quasar/gw/berkeleygw_symmetry.hpp"

namespace quasar {
namespace {

using gw::IntMatrix3;

// M = R^-T row by row (q -> M q, reciprocal coordinates) and the translation t in [0, 1) of
// x -> R x + t, in BerkeleyGW's order.
struct ExpectedOperation {
  int m[9];
  double t[3];
};

// GaAs-EPM of BerkeleyGW's test suite (zincblende, a = 10.6581 bohr, Ga and As at -+(1/8, 1/8, 1/8)).
const ExpectedOperation kGaAs[] = {
    {{1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 0, 0}}, {{1, 0, -1, 0, 1, -1, 0, 0, -1}, {0, 0, 1.0 / 2}},
    {{0, -1, 1, 1, -1, 0, 0, -1, 0}, {0, 0, 1.0 / 2}}, {{0, -1, 0, 1, -1, 0, 0, -1, 1}, {1.0 / 2, 0, 0}},
    {{-1, 0, 1, -1, 0, 0, -1, 1, 0}, {0, 1.0 / 2, 0}}, {{-1, 0, 0, -1, 0, 1, -1, 1, 0}, {1.0 / 2, 0, 0}},
    {{0, 1, 0, 1, 0, 0, 0, 0, 1}, {0, 0, 0}}, {{0, 1, -1, 1, 0, -1, 0, 0, -1}, {0, 0, 1.0 / 2}},
    {{-1, 0, 0, -1, 1, 0, -1, 0, 1}, {1.0 / 2, 0, 0}}, {{-1, 0, 1, -1, 1, 0, -1, 0, 0}, {0, 0, 1.0 / 2}},
    {{0, -1, 1, 0, -1, 0, 1, -1, 0}, {0, 1.0 / 2, 0}}, {{0, -1, 0, 0, -1, 1, 1, -1, 0}, {1.0 / 2, 0, 0}},
    {{0, 0, 1, 1, 0, 0, 0, 1, 0}, {0, 0, 0}}, {{0, 0, -1, 1, 0, -1, 0, 1, -1}, {1.0 / 2, 0, 0}},
    {{1, -1, 0, 0, -1, 1, 0, -1, 0}, {0, 0, 1.0 / 2}}, {{1, -1, 0, 0, -1, 0, 0, -1, 1}, {0, 1.0 / 2, 0}},
    {{0, 0, 1, 0, 1, 0, 1, 0, 0}, {0, 0, 0}}, {{0, 0, -1, 0, 1, -1, 1, 0, -1}, {1.0 / 2, 0, 0}},
    {{-1, 1, 0, -1, 0, 0, -1, 0, 1}, {0, 1.0 / 2, 0}}, {{-1, 1, 0, -1, 0, 1, -1, 0, 0}, {0, 0, 1.0 / 2}},
    {{1, 0, 0, 0, 0, 1, 0, 1, 0}, {0, 0, 0}}, {{1, 0, -1, 0, 0, -1, 0, 1, -1}, {0, 1.0 / 2, 0}},
    {{0, 1, -1, 0, 0, -1, 1, 0, -1}, {0, 1.0 / 2, 0}}, {{0, 1, 0, 0, 0, 1, 1, 0, 0}, {0, 0, 0}},
};
// Si-Wire-EPM of BerkeleyGW's test suite (si_wire() below).
const ExpectedOperation kSiWire[] = {
    {{1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 0, 0}}, {{1, 0, 0, 0, -1, 0, 0, 0, 1}, {0, 0, 0}},
    {{0, 1, 0, 1, 0, 0, 0, 0, 1}, {0, 0, 0}}, {{0, -1, 0, 1, 0, 0, 0, 0, 1}, {0, 0, 0}},
    {{-1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 0, 0}}, {{-1, 0, 0, 0, -1, 0, 0, 0, 1}, {0, 0, 0}},
    {{0, 1, 0, -1, 0, 0, 0, 0, 1}, {0, 0, 0}}, {{0, -1, 0, -1, 0, 0, 0, 0, 1}, {0, 0, 0}},
    {{1, 0, 0, 0, 1, 0, 0, 0, -1}, {0, 0, 9.0 / 20}}, {{1, 0, 0, 0, -1, 0, 0, 0, -1}, {0, 0, 9.0 / 20}},
    {{0, 1, 0, 1, 0, 0, 0, 0, -1}, {0, 0, 9.0 / 20}}, {{0, -1, 0, 1, 0, 0, 0, 0, -1}, {0, 0, 9.0 / 20}},
    {{-1, 0, 0, 0, 1, 0, 0, 0, -1}, {0, 0, 9.0 / 20}}, {{-1, 0, 0, 0, -1, 0, 0, 0, -1}, {0, 0, 9.0 / 20}},
    {{0, 1, 0, -1, 0, 0, 0, 0, -1}, {0, 0, 9.0 / 20}}, {{0, -1, 0, -1, 0, 0, 0, 0, -1}, {0, 0, 9.0 / 20}},
};
// The same on a 20 x 20 x 9 FFT grid.
const ExpectedOperation kSiWireFft[] = {
    {{1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 0, 0}}, {{1, 0, 0, 0, -1, 0, 0, 0, 1}, {0, 0, 0}},
    {{0, 1, 0, 1, 0, 0, 0, 0, 1}, {0, 0, 0}}, {{0, -1, 0, 1, 0, 0, 0, 0, 1}, {0, 0, 0}},
    {{-1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 0, 0}}, {{-1, 0, 0, 0, -1, 0, 0, 0, 1}, {0, 0, 0}},
    {{0, 1, 0, -1, 0, 0, 0, 0, 1}, {0, 0, 0}}, {{0, -1, 0, -1, 0, 0, 0, 0, 1}, {0, 0, 0}},
};
// hcp() below.
const ExpectedOperation kHcp[] = {
    {{1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 0, 0}}, {{1, 0, 0, 0, 1, 0, 0, 0, -1}, {0, 0, 1.0 / 2}},
    {{1, 0, 0, -1, -1, 0, 0, 0, 1}, {0, 0, 1.0 / 2}}, {{1, 0, 0, -1, -1, 0, 0, 0, -1}, {0, 0, 0}},
    {{0, 1, 0, 1, 0, 0, 0, 0, 1}, {0, 0, 1.0 / 2}}, {{0, 1, 0, 1, 0, 0, 0, 0, -1}, {0, 0, 0}},
    {{-1, -1, 0, 1, 0, 0, 0, 0, 1}, {0, 0, 0}}, {{-1, -1, 0, 1, 0, 0, 0, 0, -1}, {0, 0, 1.0 / 2}},
    {{-1, 0, 0, 0, -1, 0, 0, 0, 1}, {0, 0, 1.0 / 2}}, {{-1, 0, 0, 0, -1, 0, 0, 0, -1}, {0, 0, 0}},
    {{-1, 0, 0, 1, 1, 0, 0, 0, 1}, {0, 0, 0}}, {{-1, 0, 0, 1, 1, 0, 0, 0, -1}, {0, 0, 1.0 / 2}},
    {{0, -1, 0, -1, 0, 0, 0, 0, 1}, {0, 0, 0}}, {{0, -1, 0, -1, 0, 0, 0, 0, -1}, {0, 0, 1.0 / 2}},
    {{1, 1, 0, -1, 0, 0, 0, 0, 1}, {0, 0, 1.0 / 2}}, {{1, 1, 0, -1, 0, 0, 0, 0, -1}, {0, 0, 0}},
    {{0, -1, 0, 1, 1, 0, 0, 0, 1}, {0, 0, 1.0 / 2}}, {{0, -1, 0, 1, 1, 0, 0, 0, -1}, {0, 0, 0}},
    {{1, 1, 0, 0, -1, 0, 0, 0, 1}, {0, 0, 0}}, {{1, 1, 0, 0, -1, 0, 0, 0, -1}, {0, 0, 1.0 / 2}},
    {{0, 1, 0, -1, -1, 0, 0, 0, 1}, {0, 0, 0}}, {{0, 1, 0, -1, -1, 0, 0, 0, -1}, {0, 0, 1.0 / 2}},
    {{-1, -1, 0, 0, 1, 0, 0, 0, 1}, {0, 0, 1.0 / 2}}, {{-1, -1, 0, 0, 1, 0, 0, 0, -1}, {0, 0, 0}},
};
// hcp() with its lattice vectors times 0.529177210903 (bohr to Angstrom): the reduced basis's equal
// lengths now differ in their last bits and spglib's order changes with them (the rotations' order,
// not the group).
const ExpectedOperation kHcpScaled[] = {
    {{1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 0, 0}}, {{1, 0, 0, 0, 1, 0, 0, 0, -1}, {0, 0, 1.0 / 2}},
    {{-1, -1, 0, 0, 1, 0, 0, 0, 1}, {0, 0, 1.0 / 2}}, {{-1, -1, 0, 0, 1, 0, 0, 0, -1}, {0, 0, 0}},
    {{-1, 0, 0, 1, 1, 0, 0, 0, 1}, {0, 0, 0}}, {{-1, 0, 0, 1, 1, 0, 0, 0, -1}, {0, 0, 1.0 / 2}},
    {{1, 1, 0, -1, 0, 0, 0, 0, 1}, {0, 0, 1.0 / 2}}, {{1, 1, 0, -1, 0, 0, 0, 0, -1}, {0, 0, 0}},
    {{-1, 0, 0, 0, -1, 0, 0, 0, 1}, {0, 0, 1.0 / 2}}, {{-1, 0, 0, 0, -1, 0, 0, 0, -1}, {0, 0, 0}},
    {{1, 1, 0, 0, -1, 0, 0, 0, 1}, {0, 0, 0}}, {{1, 1, 0, 0, -1, 0, 0, 0, -1}, {0, 0, 1.0 / 2}},
    {{1, 0, 0, -1, -1, 0, 0, 0, 1}, {0, 0, 1.0 / 2}}, {{1, 0, 0, -1, -1, 0, 0, 0, -1}, {0, 0, 0}},
    {{-1, -1, 0, 1, 0, 0, 0, 0, 1}, {0, 0, 0}}, {{-1, -1, 0, 1, 0, 0, 0, 0, -1}, {0, 0, 1.0 / 2}},
    {{0, -1, 0, 1, 1, 0, 0, 0, 1}, {0, 0, 1.0 / 2}}, {{0, -1, 0, 1, 1, 0, 0, 0, -1}, {0, 0, 0}},
    {{0, -1, 0, -1, 0, 0, 0, 0, 1}, {0, 0, 0}}, {{0, -1, 0, -1, 0, 0, 0, 0, -1}, {0, 0, 1.0 / 2}},
    {{0, 1, 0, 1, 0, 0, 0, 0, 1}, {0, 0, 1.0 / 2}}, {{0, 1, 0, 1, 0, 0, 0, 0, -1}, {0, 0, 0}},
    {{0, 1, 0, -1, -1, 0, 0, 0, 1}, {0, 0, 0}}, {{0, 1, 0, -1, -1, 0, 0, 0, -1}, {0, 0, 1.0 / 2}},
};
// The same on a 15 x 16 x 20 FFT grid.
const ExpectedOperation kHcpFft[] = {
    {{1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 0, 0}}, {{1, 0, 0, 0, 1, 0, 0, 0, -1}, {0, 0, 1.0 / 2}},
    {{-1, 0, 0, 0, -1, 0, 0, 0, 1}, {0, 0, 1.0 / 2}}, {{-1, 0, 0, 0, -1, 0, 0, 0, -1}, {0, 0, 0}},
};
// wurtzite() below.
const ExpectedOperation kWurtzite[] = {
    {{1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 0, 0}}, {{1, 0, 0, -1, -1, 0, 0, 0, 1}, {0, 0, 1.0 / 2}},
    {{0, 1, 0, 1, 0, 0, 0, 0, 1}, {0, 0, 1.0 / 2}}, {{-1, -1, 0, 1, 0, 0, 0, 0, 1}, {0, 0, 0}},
    {{-1, 0, 0, 0, -1, 0, 0, 0, 1}, {0, 0, 1.0 / 2}}, {{-1, 0, 0, 1, 1, 0, 0, 0, 1}, {0, 0, 0}},
    {{0, -1, 0, -1, 0, 0, 0, 0, 1}, {0, 0, 0}}, {{1, 1, 0, -1, 0, 0, 0, 0, 1}, {0, 0, 1.0 / 2}},
    {{0, -1, 0, 1, 1, 0, 0, 0, 1}, {0, 0, 1.0 / 2}}, {{1, 1, 0, 0, -1, 0, 0, 0, 1}, {0, 0, 0}},
    {{0, 1, 0, -1, -1, 0, 0, 0, 1}, {0, 0, 0}}, {{-1, -1, 0, 0, 1, 0, 0, 0, 1}, {0, 0, 1.0 / 2}},
};
// Si-EPM's translations, in kBerkeleyGwOperations' order (from spglib as above: sigma_hp.log has none).
const double kSiTranslations[48][3] = {
    {0, 0, 0}, {0, 0, 1.0 / 2}, {0, 0, 0}, {0, 0, 1.0 / 2},
    {1.0 / 2, 0, 0}, {0, 0, 1.0 / 2}, {0, 0, 1.0 / 2}, {1.0 / 2, 0, 0},
    {0, 1.0 / 2, 0}, {1.0 / 2, 0, 0}, {0, 1.0 / 2, 0}, {1.0 / 2, 0, 0},
    {0, 0, 0}, {0, 0, 0}, {0, 0, 1.0 / 2}, {0, 0, 1.0 / 2},
    {1.0 / 2, 0, 0}, {0, 0, 1.0 / 2}, {0, 0, 1.0 / 2}, {1.0 / 2, 0, 0},
    {0, 1.0 / 2, 0}, {0, 1.0 / 2, 0}, {1.0 / 2, 0, 0}, {1.0 / 2, 0, 0},
    {1.0 / 2, 0, 0}, {0, 0, 0}, {0, 0, 0}, {1.0 / 2, 0, 0},
    {0, 0, 1.0 / 2}, {0, 1.0 / 2, 0}, {0, 1.0 / 2, 0}, {0, 0, 1.0 / 2},
    {0, 0, 0}, {0, 0, 0}, {1.0 / 2, 0, 0}, {1.0 / 2, 0, 0},
    {0, 1.0 / 2, 0}, {0, 1.0 / 2, 0}, {0, 0, 1.0 / 2}, {0, 0, 1.0 / 2},
    {0, 1.0 / 2, 0}, {0, 0, 0}, {0, 1.0 / 2, 0}, {0, 0, 0},
    {0, 1.0 / 2, 0}, {0, 0, 0}, {0, 1.0 / 2, 0}, {0, 0, 0},
};

// The lattices above as inputs: vectors (rows, bohr) and atoms (fractional, atomic number).
struct Crystal {
  std::array<gw::Vec, 3> lattice;
  std::vector<gw::Vec> positions;
  std::vector<int> types;
  std::array<int, 3> fft{0, 0, 0};
};
std::array<gw::Vec, 3> fcc(double a) { return {{{0, 0.5 * a, 0.5 * a}, {0.5 * a, 0, 0.5 * a}, {0.5 * a, 0.5 * a, 0}}}; }
std::array<gw::Vec, 3> hexagonal(double a, double c_over_a) {
  return {{{a, 0, 0}, {-0.5 * a, 0.8660254037844386 * a, 0}, {0, 0, c_over_a * a}}};
}
constexpr double kThird = 0.3333333333333333, kTwoThirds = 0.6666666666666667;
Crystal gaas() { return {fcc(10.6581), {{-0.125, -0.125, -0.125}, {0.125, 0.125, 0.125}}, {31, 33}}; }
// Si-Wire-EPM of BerkeleyGW's test suite: a tetragonal 20 x 20 x 8.9 bohr cell, Si at z = 0 and 0.45.
Crystal si_wire() { return {{{{20, 0, 0}, {0, 20, 0}, {0, 0, 8.9}}}, {{0, 0, 0}, {0, 0, 0.45}}, {14, 14}}; }
// An hcp cell (P6_3/mmc, a = 6 bohr, c/a = 1.6) and a wurtzite one (P6_3mc, c/a = 1.63, u = 3/8).
Crystal hcp() { return {hexagonal(6, 1.6), {{kThird, kTwoThirds, 0.25}, {kTwoThirds, kThird, 0.75}}, {14, 14}}; }
Crystal wurtzite() {
  return {hexagonal(6, 1.63),
          {{kThird, kTwoThirds, 0}, {kTwoThirds, kThird, 0.5}, {kThird, kTwoThirds, 0.375}, {kTwoThirds, kThird, 0.875}},
          {31, 31, 7, 7}};
}

gw::BerkeleyGwSymmetries generate(const Crystal& c) { return gw::berkeleygw_symmetries(c.lattice, c.positions, c.types, c.fft); }

IntMatrix3 matrix(const int m[9]) { return {{{m[0], m[1], m[2]}, {m[3], m[4], m[5]}, {m[6], m[7], m[8]}}}; }

template <std::size_t N>
void expect_order(const gw::BerkeleyGwSymmetries& got, const ExpectedOperation (&want)[N], const char* name) {
  EXPECT_TRUE(got.exact) << name;
  ASSERT_EQ(got.operations.size(), N) << name;
  const std::vector<IntMatrix3> m = gw::reciprocal_matrices(got.operations);
  for (std::size_t i = 0; i < N; ++i) {
    EXPECT_EQ(m[i], matrix(want[i].m)) << name << ": operation " << i + 1;
    for (int x = 0; x < 3; ++x) EXPECT_NEAR(got.operations[i].translation[x], want[i].t[x], 1e-9) << name << ": operation " << i + 1;
  }
}

// Closure (with translations modulo lattice vectors), the identity first, inverses present, no repeats.
void expect_group(const std::vector<gw::CrystalOperation>& ops, const char* name) {
  ASSERT_FALSE(ops.empty());
  EXPECT_EQ(ops[0].rotation, (IntMatrix3{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}})) << name;
  EXPECT_NEAR(std::abs(ops[0].translation[0]) + std::abs(ops[0].translation[1]) + std::abs(ops[0].translation[2]), 0, 1e-12);
  auto find = [&](const IntMatrix3& r, const gw::Vec& t) {
    int found = 0;
    for (const auto& o : ops) {
      bool same = o.rotation == r;
      for (int x = 0; x < 3 && same; ++x) {
        const double d = o.translation[x] - t[x];
        same = std::abs(d - std::round(d)) < 1e-6;
      }
      found += same;
    }
    return found;
  };
  for (const auto& a : ops) {
    EXPECT_EQ(find(a.rotation, a.translation), 1) << name << ": repeated operation";
    for (const auto& b : ops) {
      // (a b) x = Ra (Rb x + tb) + ta.
      IntMatrix3 r{};
      gw::Vec t = a.translation;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          for (int k = 0; k < 3; ++k) r[i][j] += a.rotation[i][k] * b.rotation[k][j];
          t[i] += a.rotation[i][j] * b.translation[j];
        }
      EXPECT_EQ(find(r, t), 1) << name << ": the product of two operations is not in the list";
    }
  }
}

TEST(GwBerkeleyGwSymmetry, SiEpmIsBerkeleyGwsOwnList) {
  if (!have_reference()) return test::missing(test::Dependency::SharedData, "../shared/reference/gw/Si-EPM is absent");
  const gw::EpmInput in = gw::read_epm_input(ref("WFN_co.in"));
  const gw::BerkeleyGwSymmetries got = gw::berkeleygw_symmetries(in);
  ExpectedOperation want[48];
  for (int i = 0; i < 48; ++i) {
    for (int j = 0; j < 9; ++j) want[i].m[j] = kBerkeleyGwOperations[i][j];
    for (int x = 0; x < 3; ++x) want[i].t[x] = kSiTranslations[i][x];
  }
  expect_order(got, want, "Si-EPM");
  expect_group(got.operations, "Si-EPM");
  // The same from the mean field Sigma reads (its lattice, atoms and FFT grid).
  const SiMeanFields& m = si();
  std::vector<int> types(m.inner.atomic_numbers.begin(), m.inner.atomic_numbers.end());
  const gw::BerkeleyGwSymmetries again = gw::berkeleygw_symmetries(m.inner.lattice, m.inner.atom_positions, types, m.inner.fft_grid);
  EXPECT_EQ(gw::reciprocal_matrices(again.operations), gw::reciprocal_matrices(got.operations));
}

TEST(GwBerkeleyGwSymmetry, OtherLatticesAsSpglibOrdersThem) {
  expect_order(generate(gaas()), kGaAs, "GaAs");
  expect_order(generate(si_wire()), kSiWire, "Si wire");
  expect_order(generate(hcp()), kHcp, "hcp");
  expect_order(generate(wurtzite()), kWurtzite, "wurtzite");
  Crystal scaled = hcp();
  for (auto& v : scaled.lattice)
    for (double& x : v) x *= 0.529177210903;
  expect_order(generate(scaled), kHcpScaled, "hcp in Angstrom");
  // BerkeleyGW drops what does not fit the FFT grid: the z translation 0.45 on 9 points, the
  // rotations that mix a1 and a2 on 15 x 16 points.
  Crystal wire = si_wire();
  wire.fft = {20, 20, 9};
  expect_order(generate(wire), kSiWireFft, "Si wire, FFT grid 20 20 9");
  Crystal h = hcp();
  h.fft = {15, 16, 20};
  expect_order(generate(h), kHcpFft, "hcp, FFT grid 15 16 20");
  for (const auto& [c, name] : {std::pair{gaas(), "GaAs"}, {si_wire(), "Si wire"}, {hcp(), "hcp"}, {wurtzite(), "wurtzite"}})
    expect_group(generate(c).operations, name);
}

// The order does not depend on the atoms' order of a primitive cell, and the same input gives the same
// list; the crystal's group is the same set as crystal_operations'. (It can depend on the lattice
// vectors' last bits: kHcpScaled.)
TEST(GwBerkeleyGwSymmetry, OrderIsStable) {
  for (Crystal c : {gaas(), si_wire(), hcp(), wurtzite()}) {
    const auto first = generate(c).operations;
    const auto m = gw::reciprocal_matrices(first);
    EXPECT_EQ(gw::reciprocal_matrices(generate(c).operations), m);
    std::reverse(c.positions.begin(), c.positions.end());
    std::reverse(c.types.begin(), c.types.end());
    EXPECT_EQ(gw::reciprocal_matrices(generate(c).operations), m);
    gw::EpmInput in;
    in.lattice = c.lattice;
    for (std::size_t i = 0; i < c.positions.size(); ++i) in.atoms.push_back({c.positions[i], c.types[i]});
    std::vector<IntMatrix3> ours;
    for (const auto& o : gw::crystal_operations(in)) ours.push_back(o.rotation);
    std::vector<IntMatrix3> theirs;
    for (const auto& o : first) theirs.push_back(o.rotation);
    std::sort(ours.begin(), ours.end());
    std::sort(theirs.begin(), theirs.end());
    EXPECT_EQ(ours, theirs);
  }
}

// A supercell (Si's fcc cell doubled along a1) has pure translations: its order is not derived, and
// the result says so (the operations then come in crystal_operations' order).
TEST(GwBerkeleyGwSymmetry, SupercellIsReportedAsNotDerived) {
  Crystal c{fcc(10.2612), {{-0.0625, -0.125, -0.125}, {0.0625, 0.125, 0.125}, {0.4375, -0.125, -0.125}, {0.5625, 0.125, 0.125}}, {14, 14, 14, 14}};
  c.lattice[0] = {0, 10.2612, 10.2612};
  const gw::BerkeleyGwSymmetries got = generate(c);
  EXPECT_FALSE(got.exact);
  EXPECT_NE(got.reason.find("supercell"), std::string::npos);
  EXPECT_FALSE(got.operations.empty());
}

}  // namespace
}  // namespace quasar
