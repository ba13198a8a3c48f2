// GW's wavefunction file (gw/wavefunctions, docs/formats/gw-wavefunctions.md): EPM solutions of
// both flavours and two spins written and read back bit for bit; the coefficients orthonormal per
// k-point and spin; damaged files refused with the file and the object named; run_epm (what
// `quasar gw epm` and Python's quasar.gw.epm share) writing the file its input or caller names.
#include <gtest/gtest.h>

#include <complex>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <hdf5.h>

#include "quasar/core/error.hpp"
#include "quasar/device/context.hpp"
#include "quasar/gw/epm.hpp"
#include "quasar/gw/run.hpp"
#include "quasar/gw/wavefunctions.hpp"
#include "quasar/io/hdf5/hdf5.hpp"
#include "support.hpp"

namespace quasar {
namespace {

gw::EpmInput silicon(bool real, int spins) {
  gw::EpmInput in;
  in.path = "silicon";
  in.real = real;
  in.spins = spins;
  in.cutoff_ry = 5;
  in.lattice_constant = 10.2612;
  const double h = 10.2612 / 2;
  in.lattice = {gw::Vec{0, h, h}, gw::Vec{h, 0, h}, gw::Vec{h, h, 0}};
  in.species = {{14, "Si"}};
  in.atoms = {{{-0.125, -0.125, -0.125}, 0}, {{0.125, 0.125, 0.125}, 0}};
  in.bands = 6;
  in.occupied = 4;
  in.kgrid = {2, 2, 2};
  in.kshift = {0.5, 0.5, 0.5};
  in.kpoints = {{0.25, 0.25, 0.25}, {0.25, 0.25, 0.75}};
  in.weights = {0.25, 0.75};
  return in;
}

class GwWavefunctions : public testing::TestWithParam<std::tuple<bool, int>> {};

TEST_P(GwWavefunctions, RoundTripAndOrthonormality) {
  const auto [real, spins] = GetParam();
  device::Context ctx(Backend::Cpu);
  const gw::Wavefunctions w = gw::solve_epm(silicon(real, spins), ctx);
  ASSERT_EQ(w.problem(), "");
  const auto path = test::scratch_dir("gw-wfn") / "WFN.h5";
  gw::write_wavefunctions(path.string(), w);
  const gw::Wavefunctions back = gw::read_wavefunctions(path.string());
  EXPECT_EQ(gw::wavefunctions_difference(w, back), "");
  // <n k s | m k s> = delta_nm.
  test::MaxError overlap("|<n|m> - delta_nm|");
  for (int s = 0; s < spins; ++s)
    for (std::size_t k = 0; k < back.kpoint_count(); ++k)
      for (int n = 0; n < back.bands; ++n)
        for (int m = 0; m < back.bands; ++m) {
          std::complex<double> dot = 0;
          const std::size_t a = back.coefficient_offset(s, k, n), b = back.coefficient_offset(s, k, m);
          for (int g = 0; g < back.gvector_counts[k]; ++g)
            dot += real ? back.real_coefficients[a + g] * back.real_coefficients[b + g]
                        : std::conj(back.complex_coefficients[a + g]) * back.complex_coefficients[b + g];
          overlap.add(std::abs(dot - (n == m ? 1.0 : 0.0)), 0);
        }
  EXPECT_TRUE(overlap.within(1e-13));
  // Both spins hold the same energies.
  if (spins == 2) {
    for (int b = 0; b < w.bands; ++b) EXPECT_EQ(back.energy(0, 1, b), back.energy(1, 1, b));
  }
}

INSTANTIATE_TEST_SUITE_P(Flavours, GwWavefunctions,
                         testing::Values(std::tuple{true, 1}, std::tuple{false, 1}, std::tuple{true, 2}));

// A valid file with one dataset replaced (or removed) through HDF5 itself.
std::string damaged(const std::string& name, const std::function<void(hid_t)>& damage) {
  device::Context ctx(Backend::Cpu);
  const auto path = test::scratch_dir("gw-wfn-bad") / name;
  gw::write_wavefunctions(path.string(), gw::solve_epm(silicon(true, 1), ctx));
  {
    const h5::Handle f(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
    damage(f.id());
  }
  try {
    gw::read_wavefunctions(path.string());
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(GwWavefunctionsFile, DamagedFilesNameFileAndObject) {
  auto expect = [](const std::string& e, const std::string& what) {
    EXPECT_NE(e.find(".h5"), std::string::npos) << e;
    EXPECT_NE(e.find(what), std::string::npos) << "expected '" << what << "' in: " << e;
  };
  expect(damaged("no-energies.h5", [](hid_t f) { H5Ldelete(f, "/energies", H5P_DEFAULT); }), "/energies");
  expect(damaged("short-weights.h5",
                 [](hid_t f) {
                   H5Ldelete(f, "/kpoints/weights", H5P_DEFAULT);
                   const double w[1] = {1};
                   h5::write_doubles(f, "/kpoints/weights", {1}, w);
                 }),
         "/kpoints/weights");
  expect(damaged("bad-counts.h5",
                 [](hid_t f) {
                   H5Ldelete(f, "/wavefunctions/gvector_counts", H5P_DEFAULT);
                   const int c[2] = {3, 4};
                   h5::write_integers(f, "/wavefunctions/gvector_counts", {2}, c);
                 }),
         "as many G-vectors as bands");
  expect(damaged("format.h5",
                 [](hid_t f) {
                   H5Adelete(f, "format");
                   h5::set_attribute(f, "/", "format", std::string("shepard-dataset"));
                 }),
         "not a wavefunction file");
  const auto text = test::scratch_dir("gw-wfn-text") / "text.h5";
  std::ofstream(text) << "not hdf5\n";
  expect([&] {
    try {
      gw::read_wavefunctions(text.string());
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  }(), "not an HDF5 file");
}

// A small Si input (5 Ry) in the EPM program's format, writing its file to `wfng_file` when `flag`.
std::string silicon_input(bool flag, const std::string& wfng_file) {
  return std::string("real_or_complex 1\nwfng_flag ") + (flag ? "T" : "F") + "\nwfng_file " + wfng_file +
         "\nEnergyCutoff 5.0\nLatticeConstant 10.2612\nLatticeVectors\n0.0 0.5 0.5\n0.5 0.0 0.5\n0.5 0.5 0.0\n"
         "NumberOfAtoms 2\nNumberOfSpecies 1\nChemicalSpeciesLabel\n1 14 Si\n"
         "AtomicCoordinatesFormat ScaledByLatticeVectors\nAtomicCoordinatesAndAtomicSpecies\n"
         "-0.125 -0.125 -0.125 1\n0.125 0.125 0.125 1\nNumberOfBands 6\nNumberOfOccupiedBands 4\n"
         "KPointsScale ReciprocalLatticeVectors\nKPointsList 2\n0.25 0.25 0.25 2.0\n0.25 0.25 0.75 6.0\n";
}

TEST(GwRunEpm, WritesTheNamedFileAndSaysWhatTheCommandPrints) {
  const auto dir = test::scratch_dir("gw-run-epm");
  const std::string named = (dir / "named.h5").string(), other = (dir / "other.h5").string();
  std::ofstream(dir / "on.in") << silicon_input(true, named);
  std::ofstream(dir / "off.in") << silicon_input(false, named);
  device::Context ctx(Backend::Cpu);
  std::vector<std::string> said;
  const gw::EpmRun run = gw::run_epm((dir / "on.in").string(), "", ctx, [&](const std::string& s) { said.push_back(s); });
  EXPECT_EQ(run.written, named);
  EXPECT_EQ(gw::wavefunctions_difference(run.wfn, gw::read_wavefunctions(named)), "");
  EXPECT_EQ(gw::wavefunctions_difference(run.wfn, gw::solve_epm(run.input, ctx)), "");
  // 2 k-points x (header, "kpoint N", 6 bands, blank line), then the "wrote" line.
  std::vector<std::string> expected = gw::epm_eigenvalue_lines(run.wfn);
  ASSERT_EQ(expected.size(), 18u);
  EXPECT_EQ(expected[1], "kpoint          1");
  EXPECT_EQ(expected[2].substr(0, 5), "    1");
  char first[32];
  std::snprintf(first, sizeof first, "%.16f", run.wfn.energy(0, 0, 0));
  EXPECT_EQ(expected[2].substr(5 + 23 - std::string(first).size()), first);
  expected.push_back("wrote " + named + ": 2 k-points, 6 bands, real coefficients");
  EXPECT_EQ(said, expected);

  std::filesystem::remove(named);
  said.clear();
  const gw::EpmRun off = gw::run_epm((dir / "off.in").string(), "", ctx, [&](const std::string& s) { said.push_back(s); });
  EXPECT_EQ(off.written, "");
  EXPECT_FALSE(std::filesystem::exists(named));
  EXPECT_EQ(said.back(), "no wavefunction file (wfng_flag F)");
  // An output named by the caller is written whatever wfng_flag says.
  EXPECT_EQ(gw::run_epm((dir / "off.in").string(), other, ctx).written, other);
  EXPECT_EQ(gw::wavefunctions_difference(off.wfn, gw::read_wavefunctions(other)), "");
  EXPECT_THROW(gw::run_epm((dir / "missing.in").string(), other, ctx), InputError);
}

}  // namespace
}  // namespace quasar
