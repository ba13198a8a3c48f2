// The EPM mean field (gw/epm_input, gw/epm) against BerkeleyGW's Si-EPM test (../shared/reference/gw):
// every eigenvalue that Si.test matches for the inputs it ships (WFN.in, WFNq.in, WFN_co.in), read
// from Si.test itself with its Precision lines, the largest number of wavefunction G-vectors and the
// real-space metric; the input reader on those files and on malformed ones; the built-in potentials.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "quasar/core/error.hpp"
#include "quasar/device/context.hpp"
#include "quasar/gw/epm.hpp"
#include "quasar/gw/epm_input.hpp"
#include "quasar/gw/wavefunctions.hpp"
#include "support.hpp"

namespace quasar {
namespace {

const char* kDir = "reference/gw/Si-EPM";

// One `match` of Si.test on an EPM output: its file, k-point, band, value and precision.
struct Match {
  std::string output;
  int kpoint = 0, band = 0;
  double value = 0, precision = 0;
};

std::vector<Match> eigenvalue_matches(const std::string& test_file) {
  std::ifstream in(test_file);
  std::vector<Match> out;
  std::string line;
  double precision = 0;
  const std::regex prec(R"(^Precision\s*:\s*(\S+))");
  const std::regex match(R"re(^match\s*;\s*Eigenvalue.*GREP\((\S+)\.out,\s*"kpoint\s+(\d+)",\s*2,\s*(\d+)\);\s*(\S+))re");
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, prec)) precision = std::stod(m[1]);
    if (std::regex_search(line, m, match))
      out.push_back({m[1], std::stoi(m[2]), std::stoi(m[3]), std::stod(m[4]), precision});
  }
  return out;
}

// On every backend: the Hamiltonians diagonalised by LAPACK on the CPU, by cuSOLVER on a GPU.
class GwEpmBackends : public testing::TestWithParam<Backend> {};

TEST_P(GwEpmBackends, EigenvaluesMatchBerkeleyGW) {
  const std::string test_file = test::shared_path(std::string(kDir) + "/Si.test");
  if (test_file.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/gw/Si-EPM is absent");
  const std::vector<Match> matches = eigenvalue_matches(test_file);
  ASSERT_EQ(matches.size(), 15u) << "Si.test's eigenvalue matches";
  device::Context ctx(GetParam());
  std::map<std::string, gw::Wavefunctions> solved;
  test::MaxError error("EPM eigenvalue - Si.test (Ry)");
  int checked = 0;
  double precision = 0;
  for (const Match& m : matches) {
    const std::string input = test::shared_path(std::string(kDir) + "/" + m.output + ".in");
    if (input.empty()) {
      std::printf("skipped: %s.in is not among the shared inputs (k-point %d, band %d)\n", m.output.c_str(), m.kpoint, m.band);
      continue;
    }
    if (!solved.count(m.output)) solved.emplace(m.output, gw::solve_epm(gw::read_epm_input(input), ctx));
    const gw::Wavefunctions& w = solved.at(m.output);
    ASSERT_LE(m.kpoint, static_cast<int>(w.kpoint_count()));
    ASSERT_LE(m.band, w.bands);
    const double got = w.energy(0, static_cast<std::size_t>(m.kpoint - 1), m.band - 1);
    std::printf("%s k %d band %d: %.16f (Si.test %.16f)\n", m.output.c_str(), m.kpoint, m.band, got, m.value);
    error.add(got, m.value);
    precision = std::max(precision, m.precision);
    ++checked;
  }
  EXPECT_EQ(checked, 9);  // WFN, WFNq, WFN_co; WFN_fi and WFNq_fi have no input in the test's folder
  EXPECT_TRUE(error.within(precision));
}

QUASAR_INSTANTIATE_BACKENDS(GwEpmBackends);

// Si.test's wfn_rho_vxc_info.x checks on WFN: 171 G-vectors at most, metric (0, 0) 52.646113 bohr^2.
TEST(GwEpm, GVectorCountsAndMetric) {
  const std::string input = test::shared_path(std::string(kDir) + "/WFN.in");
  if (input.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/gw/Si-EPM is absent");
  device::Context ctx(Backend::Cpu);
  const gw::Wavefunctions w = gw::solve_epm(gw::read_epm_input(input), ctx);
  EXPECT_EQ(*std::max_element(w.gvector_counts.begin(), w.gvector_counts.end()), 171);
  const auto& a = w.lattice[0];
  EXPECT_NEAR(a[0] * a[0] + a[1] * a[1] + a[2] * a[2], 52.646113, 5e-7);
  // Reciprocal vectors: a_i . b_j = 2 pi delta_ij.
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double d = 0;
      for (int c = 0; c < 3; ++c) d += w.lattice[i][c] * w.reciprocal[j][c];
      EXPECT_NEAR(d, i == j ? 2 * M_PI : 0, 1e-13);
    }
  // Occupations: 4 filled bands; the FFT grid BerkeleyGW's program chooses for 44 Ry, 16^3.
  EXPECT_EQ(w.occupations[3], 1.0);
  EXPECT_EQ(w.occupations[4], 0.0);
  EXPECT_EQ(w.fft_grid, (std::array<int, 3>{16, 16, 16}));
}

TEST(GwEpm, ReadsTheSiInputs) {
  const std::string input = test::shared_path(std::string(kDir) + "/WFN_co.in");
  if (input.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/gw/Si-EPM is absent");
  const gw::EpmInput in = gw::read_epm_input(input);
  EXPECT_TRUE(in.real);
  EXPECT_EQ(in.spins, 1);
  EXPECT_TRUE(in.write_wavefunctions);
  EXPECT_EQ(in.wavefunction_file, "WFN_inner");
  EXPECT_TRUE(in.write_density && in.write_vxc_g && in.write_vxc);
  EXPECT_EQ(in.vxc_diag_max, 8);
  EXPECT_EQ(in.cutoff_ry, 11.0);
  EXPECT_EQ(in.lattice[0][1], 10.2612 * 0.5);
  ASSERT_EQ(in.species.size(), 1u);
  EXPECT_EQ(in.species[0].label, "Si");
  EXPECT_EQ(in.species[0].atomic_number, 14);
  ASSERT_EQ(in.atoms.size(), 2u);
  EXPECT_EQ(in.atoms[0].position[0], -0.125);
  EXPECT_EQ(in.bands, 19);
  EXPECT_EQ(in.occupied, 4);
  EXPECT_EQ(in.kgrid, (std::array<int, 3>{2, 2, 2}));
  ASSERT_EQ(in.kpoints.size(), 3u);
  EXPECT_EQ(in.kpoints[2][1], 0.5);
  EXPECT_DOUBLE_EQ(in.weights[1], 0.5);
  EXPECT_FALSE(in.form_factors);
}

// A small valid input; `edit` changes it line by line.
const char* kSmall = R"(real_or_complex 2
EnergyCutoff 6.0
LatticeConstant 10.2612
LatticeVectors
0.0 0.5 0.5
0.5 0.0 0.5
0.5 0.5 0.0
NumberOfAtoms 2
NumberOfSpecies 1
ChemicalSpeciesLabel
1 14 Si
AtomicCoordinatesAndAtomicSpecies
-0.125 -0.125 -0.125 1
 0.125  0.125  0.125 1
NumberOfBands 8
NumberOfOccupiedBands 4
KPointsList 1
  0.1 0.2 0.3 1.0
)";

std::string write_input(const std::string& name, const std::string& text) {
  const auto path = test::scratch_dir("gw-epm") / name;
  std::ofstream(path) << text;
  return path.string();
}

std::string error_of(const std::string& text) {
  const std::string path = write_input("bad.in", text);
  try {
    gw::read_epm_input(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST(GwEpm, MalformedInputsNameFileLineAndKeyword) {
  auto expect = [](const std::string& text, const std::string& what) {
    const std::string e = error_of(text);
    EXPECT_NE(e.find("bad.in"), std::string::npos) << e;
    EXPECT_NE(e.find(what), std::string::npos) << "expected '" << what << "' in: " << e;
  };
  expect(replaced(kSmall, "NumberOfBands 8", "NumberOfBandz 8"), "bad.in:15: unknown keyword 'NumberOfBandz'");
  expect(std::string(kSmall) + "CGTolerance 1e-6\n", "unknown keyword 'CGTolerance'");
  expect(std::string(kSmall) + "EnergyCutoff 7\n", "given twice");
  expect(replaced(kSmall, "EnergyCutoff 6.0\n", ""), "'EnergyCutoff' is missing");
  expect(replaced(kSmall, "0.5 0.5 0.0\n", ""), "'LatticeVectors': expected 3 lines");
  expect(replaced(kSmall, "0.125  0.125  0.125 1", "0.125 0.125 0.125 2"), "bad.in:14: 'AtomicCoordinatesAndAtomicSpecies'");
  expect(replaced(kSmall, "EnergyCutoff 6.0", "EnergyCutoff nan"), "bad.in:2: 'EnergyCutoff': 'nan' is not a finite number");
  expect(replaced(kSmall, "NumberOfBands 8", "NumberOfBands 8.5"), "'NumberOfBands': '8.5' is not an integer");
  expect(replaced(kSmall, "real_or_complex 2", "real_or_complex 3"), "'real_or_complex': 3 is outside [1, 2]");
  expect(replaced(kSmall, "real_or_complex 2", "wfng_flag maybe"), "is not a logical");
  expect(replaced(kSmall, "  0.1 0.2 0.3 1.0", "  0.1 0.2 0.3 0.0"), "the weights sum to zero");
  expect(replaced(kSmall, "KPointsList 1", "KPointsList 2"), "'KPointsList': expected 2 lines");
  expect(std::string("1 2 3\n") + kSmall, "bad.in:1: a line of numbers that belongs to no block keyword");
  expect(std::string(kSmall) + "KPointsScale TwoPi/a\n", "ReciprocalLatticeVectors only");
  expect(std::string(kSmall) + "DiagonalizationSwitch 1\n", "only 0");
  expect(replaced(kSmall, "0.0 0.5 0.5", "0.5 0.5 0.0"), "span no volume");
  expect(replaced(kSmall, "1 14 Si", "2 14 Si"), "'ChemicalSpeciesLabel'");
  // Found at the solve: a cutoff beyond any memory, more bands than plane waves, a species without a
  // built-in potential.
  device::Context ctx(Backend::Cpu);
  auto solve_error = [&](const std::string& text) {
    try {
      gw::solve_epm(gw::read_epm_input(write_input("bad.in", text)), ctx);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(solve_error(replaced(kSmall, "EnergyCutoff 6.0", "EnergyCutoff 1e30")).find("bad.in: EnergyCutoff: "), std::string::npos);
  EXPECT_NE(solve_error(replaced(kSmall, "NumberOfBands 8", "NumberOfBands 900")).find("fewer than NumberOfBands 900"),
            std::string::npos);
  EXPECT_NE(solve_error(replaced(kSmall, "1 14 Si", "1 6 C")).find("species 1 'C' has no built-in potential"), std::string::npos);
}

// The complex flavour of the same silicon gives the real flavour's eigenvalues; a potential without
// inversion about the origin is refused for the real flavour; Angstrom, eV and Cartesian positions
// convert as documented.
TEST(GwEpm, FlavoursAndUnits) {
  device::Context ctx(Backend::Cpu);
  const gw::Wavefunctions c = gw::solve_epm(gw::read_epm_input(write_input("c.in", kSmall)), ctx);
  const gw::Wavefunctions r =
      gw::solve_epm(gw::read_epm_input(write_input("r.in", replaced(kSmall, "real_or_complex 2", "real_or_complex 1"))), ctx);
  ASSERT_EQ(c.energies.size(), r.energies.size());
  test::MaxError flavours("complex - real eigenvalues (Ry)");
  for (std::size_t i = 0; i < c.energies.size(); ++i) flavours.add(c.energies[i], r.energies[i]);
  EXPECT_TRUE(flavours.within(1e-14));
  EXPECT_FALSE(c.real);
  EXPECT_EQ(c.complex_coefficients.size(), 8u * c.kgvectors.size());
  EXPECT_EQ(r.real_coefficients.size(), 8u * r.kgvectors.size());

  // Shifted by (0.1, 0, 0): no inversion centre at the origin.
  std::string shifted = replaced(kSmall, "-0.125 -0.125 -0.125 1", "-0.025 -0.125 -0.125 1");
  shifted = replaced(shifted, " 0.125  0.125  0.125 1", " 0.225  0.125  0.125 1");
  EXPECT_NO_THROW(gw::solve_epm(gw::read_epm_input(write_input("s.in", shifted)), ctx));
  EXPECT_THROW(gw::solve_epm(gw::read_epm_input(write_input("s.in", replaced(shifted, "real_or_complex 2", "real_or_complex 1"))), ctx),
               InputError);

  // The same crystal in Angstrom, with a cutoff in eV and Cartesian positions (units of a): the same
  // eigenvalues.
  auto exact = [](double x) {
    char b[32];
    std::snprintf(b, sizeof b, "%.17g", x);
    return std::string(b);
  };
  std::string other = replaced(kSmall, "LatticeConstant 10.2612", "LatticeConstantFormat Angstrom\nLatticeConstant " +
                                                                        exact(10.2612 * 0.52917721092));
  other = replaced(other, "EnergyCutoff 6.0", "InputEnergiesInEV\nEnergyCutoff " + exact(6.0 * 13.60569253));
  other = replaced(other, "AtomicCoordinatesAndAtomicSpecies", "AtomicCoordinatesFormat ScaledCartesian\nAtomicCoordinatesAndAtomicSpecies");
  other = replaced(other, "-0.125 -0.125 -0.125 1", "-0.125 -0.125 -0.125 1");
  const gw::EpmInput o = gw::read_epm_input(write_input("o.in", other));
  EXPECT_NEAR(o.lattice_constant, 10.2612, 1e-14);
  EXPECT_NEAR(o.cutoff_ry, 6.0, 1e-14);
  // Cartesian (1/8, 1/8, 1/8) a in the fcc cell is (1/8, 1/8, 1/8) in lattice coordinates.
  EXPECT_NEAR(o.atoms[1].position[0], 0.125, 1e-15);
  const gw::Wavefunctions ow = gw::solve_epm(o, ctx);
  test::MaxError units("Angstrom/eV/Cartesian - bohr/Ry/lattice eigenvalues (Ry)");
  for (std::size_t i = 0; i < c.energies.size(); ++i) units.add(ow.energies[i], c.energies[i]);
  EXPECT_TRUE(units.within(1e-13));
  // (1/4, 0, 0) a is (-1/4, 1/4, 1/4).
  const gw::EpmInput p = gw::read_epm_input(write_input("p.in", replaced(other, " 0.125  0.125  0.125 1", " 0.25 0 0 1")));
  EXPECT_NEAR(p.atoms[1].position[0], -0.25, 1e-15);
  EXPECT_NEAR(p.atoms[1].position[1], 0.25, 1e-15);
  EXPECT_NEAR(p.atoms[1].position[2], 0.25, 1e-15);
}

// Free electrons (species El): the eigenvalues are the lowest |k+G|^2 (Ry), G over the reciprocal lattice
// enumerated here independently; all-zero form factors give the same.
TEST(GwEpm, FreeElectronsAndZeroFormFactors) {
  device::Context ctx(Backend::Cpu);
  const gw::EpmInput in = gw::read_epm_input(write_input("el.in", replaced(kSmall, "1 14 Si", "1 14 El")));
  const gw::Wavefunctions w = gw::solve_epm(in, ctx);
  // b_i = 2 pi (a_j x a_k) / V.
  const auto& a = in.lattice;
  const double volume = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
                        a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
  std::array<gw::Vec, 3> b{};
  for (int i = 0; i < 3; ++i) {
    const auto& u = a[(i + 1) % 3];
    const auto& v = a[(i + 2) % 3];
    b[i] = {2 * M_PI * (u[1] * v[2] - u[2] * v[1]) / volume, 2 * M_PI * (u[2] * v[0] - u[0] * v[2]) / volume,
            2 * M_PI * (u[0] * v[1] - u[1] * v[0]) / volume};
  }
  std::vector<double> free;
  for (int i = -6; i <= 6; ++i)
    for (int j = -6; j <= 6; ++j)
      for (int l = -6; l <= 6; ++l) {
        double q2 = 0;
        for (int c = 0; c < 3; ++c) {
          const double q = (in.kpoints[0][0] + i) * b[0][c] + (in.kpoints[0][1] + j) * b[1][c] + (in.kpoints[0][2] + l) * b[2][c];
          q2 += q * q;
        }
        if (q2 <= in.cutoff_ry) free.push_back(q2);
      }
  std::sort(free.begin(), free.end());
  EXPECT_EQ(static_cast<std::size_t>(w.gvector_counts[0]), free.size());
  test::MaxError error("free-electron eigenvalues - |k+G|^2 (Ry)");
  for (int n = 0; n < w.bands; ++n) error.add(w.energy(0, 0, n), free[static_cast<std::size_t>(n)]);
  EXPECT_TRUE(error.within(1e-13));

  const gw::Wavefunctions zero =
      gw::solve_epm(gw::read_epm_input(write_input("ff0.in", std::string(kSmall) + "FormFactors 0 0 0 0 0 0\n")), ctx);
  test::MaxError same("zero form factors - free electrons (Ry)");
  for (std::size_t i = 0; i < w.energies.size(); ++i) same.add(zero.energies[i], w.energies[i]);
  EXPECT_TRUE(same.within(1e-13));
}

// Cohen-Bergstresser form factors from ../shared/reference/gw/form_factors.dat (Si and GaAs, a in
// Angstrom, Ry), a structural check (these tables have no eigenvalues to compare with): at Gamma the
// top valence state is threefold (Gamma25' / Gamma15) and the gap above it open; Si's potential is real (the real flavour works), GaAs's is not (the real flavour is refused).
TEST(GwEpm, CohenBergstresserFormFactors) {
  const std::string table = test::shared_path("reference/gw/form_factors.dat");
  if (table.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/gw/form_factors.dat is absent");
  std::map<std::string, std::vector<std::string>> rows;
  std::ifstream in(table);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string x; words >> x;) w.push_back(x);
    if (w.size() == 8) rows[w[0]] = w;
  }
  ASSERT_TRUE(rows.count("Si") && rows.count("GaAs"));
  device::Context ctx(Backend::Cpu);
  for (const std::string name : {"Si", "GaAs"}) {
    const auto& r = rows[name];
    std::string text = replaced(kSmall, "LatticeConstant 10.2612", "LatticeConstantFormat Angstrom\nLatticeConstant " + r[1]);
    text = replaced(text, "EnergyCutoff 6.0", "EnergyCutoff 8.0");
    text = replaced(text, "  0.1 0.2 0.3 1.0", "  0.0 0.0 0.0 1.0");
    text += "FormFactors " + r[2] + " " + r[3] + " " + r[4] + " " + r[5] + " " + r[6] + " " + r[7] + "\n";
    const gw::Wavefunctions w = gw::solve_epm(gw::read_epm_input(write_input(name + ".in", text)), ctx);
    const double top = w.energy(0, 0, 3);
    EXPECT_NEAR(w.energy(0, 0, 1), top, 1e-12) << name;
    EXPECT_NEAR(w.energy(0, 0, 2), top, 1e-12) << name;
    // The direct gap at Gamma: measured 3.36 eV for Si (Gamma15 - Gamma25'), 1.18 eV for GaAs.
    EXPECT_GT(w.energy(0, 0, 4) - top, 0.05) << name;
    EXPECT_LT(w.energy(0, 0, 0), top - 0.5) << name;  // the valence band is about 1 Ry wide
    const std::string real = replaced(text, "real_or_complex 2", "real_or_complex 1");
    if (name == "Si") {
      const gw::Wavefunctions wr = gw::solve_epm(gw::read_epm_input(write_input("r.in", real)), ctx);
      for (int n = 0; n < w.bands; ++n) EXPECT_NEAR(wr.energy(0, 0, n), w.energy(0, 0, n), 1e-13);
    } else {
      EXPECT_THROW(gw::solve_epm(gw::read_epm_input(write_input("r.in", real)), ctx), InputError);
    }
  }
}

// The built-in potentials at q = 0 and their zeros: v(q^2 = a2) = 0 for the three Zunger forms,
// the H form's Coulomb-like tail; unknown elements refused.
TEST(GwEpm, BuiltInPotentials) {
  EXPECT_EQ(gw::atomic_potential("Si", static_cast<double>(2.19104f)), 0.0);
  EXPECT_EQ(gw::atomic_potential("Ga", static_cast<double>(2.45f)), 0.0);
  EXPECT_EQ(gw::atomic_potential("As", static_cast<double>(2.62f)), 0.0);
  // Si at q = 0: 0.53706 (-2.19104) / (2.05716 - 1) / 2 Hartree.
  EXPECT_NEAR(gw::atomic_potential("Si", 0), 0.53706 * -2.19104 / (2.05716 - 1) / 2, 1e-7);
  EXPECT_NEAR(gw::atomic_potential("H", 1.0), -3.0 / (1.0 + 2.43), 1e-7);
  EXPECT_EQ(gw::atomic_potential("El", 3.0), 0.0);
  EXPECT_THROW(gw::atomic_potential("Xx", 1.0), Error);
}

}  // namespace
}  // namespace quasar

namespace quasar {
namespace {

// `quasar gw epm WFN.in` in a scratch folder: BerkeleyGW's printed layout (Si.test greps column 2 of
// the lines after "kpoint          1"), the file wfng_file names, and an error for a bad input.
TEST(GwEpmCommand, PrintsEigenvaluesAndWritesTheFile) {
  const std::string input = test::shared_path(std::string(kDir) + "/WFN.in");
  if (input.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/gw/Si-EPM is absent");
  const auto dir = test::scratch_dir("gw-epm-command");
  const std::string cmd = "cd " + dir.string() + " && " + test::binary_path("quasar") + " gw epm " + input + " > out.txt 2> err.txt";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream out(dir / "out.txt");
  std::string line;
  std::vector<std::string> lines;
  while (std::getline(out, line)) lines.push_back(line);
  const auto at = std::find(lines.begin(), lines.end(), "kpoint          1");
  ASSERT_NE(at, lines.end());
  std::istringstream first(*(at + 1));
  int k = 0;
  double e = 0;
  first >> k >> e;
  EXPECT_EQ(k, 1);
  EXPECT_NEAR(e, -0.1283435360829054, 6e-15);  // Si.test's eigenvalue 1 at k-point 1, to its precision
  const gw::Wavefunctions w = gw::read_wavefunctions((dir / "WFN").string());
  EXPECT_EQ(w.kpoint_count(), 2u);
  EXPECT_EQ(w.bands, 19);

  std::ofstream(dir / "bad.in") << "EnergyCutof 11.0\n";
  const std::string bad = "cd " + dir.string() + " && " + test::binary_path("quasar") + " gw epm bad.in > out.txt 2> err.txt";
  EXPECT_NE(std::system(bad.c_str()), 0);
  std::ifstream err(dir / "err.txt");
  std::stringstream text;
  text << err.rdbuf();
  EXPECT_NE(text.str().find("bad.in:1: unknown keyword 'EnergyCutof'"), std::string::npos) << text.str();
}

}  // namespace
}  // namespace quasar
