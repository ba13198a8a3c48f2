// AMOEBA's pair loops in a periodic cell visit the pairs of the engine's cell lists: the candidate
// pairs hold every pair within reach at its nearest image (against a brute-force search, in a cubic
// and a triclinic cell), and the electrostatic terms give the all-pairs loop's result, to the bit
// (the loops sum the same pairs in the same order), for the 648-water box with PME; on the GPU the
// device-built candidates equal the host's made full.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>

#include <gtest/gtest.h>

#include "quasar/device/backend.hpp"
#include "quasar/io/read.hpp"
#include "quasar/potential/amoeba/amoeba_term.hpp"
#include "quasar/potential/amoeba/induced_dipoles.hpp"
#include "quasar/potential/amoeba/multipole_term.hpp"
#include "quasar/potential/amoeba/pair_list.hpp"
#include "quasar/potential/amoeba/pair_list_gpu.hpp"
#include "quasar/potential/amoeba/pme_multipole.hpp"
#include "quasar/potential/amoeba/polarization_term.hpp"
#include "quasar/potential/evaluate.hpp"
#include "amoeba_support.hpp"
#include "support.hpp"

namespace quasar {
namespace {

using namespace amoeba_test;

TEST(AmoebaPairList, CandidatesHoldEveryPairWithinReach) {
  const std::string xyz = reference("liquid-water/liquid.amoeba");
  if (xyz.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  const std::vector<Vec3> r = io::read_frames(xyz).front().positions;  // unwrapped: some outside the cell
  Mat3 h{};
  h(0, 0) = 18.643;
  h(1, 0) = 2.1;
  h(1, 1) = 18.0;
  h(2, 0) = -1.5;
  h(2, 1) = 3.0;
  h(2, 2) = 19.2;
  Box triclinic = Box::orthorhombic(1, 1, 1);
  triclinic.set_matrix(h);
  for (const Box& box : {Box::orthorhombic(18.643, 18.643, 18.643), triclinic})
    for (const double reach : {4.5, 7.0, 9.0}) {
      const amoeba::PairCandidates c = amoeba::pair_candidates(r, box, reach);
      const std::size_t n = r.size();
      ASSERT_EQ(c.offset.size(), n + 1);
      long within = 0, missing = 0;
      for (std::size_t i = 0; i < n; ++i) {
        for (int x = c.offset[i] + 1; x < c.offset[i + 1]; ++x)
          EXPECT_LT(c.partner[static_cast<std::size_t>(x - 1)], c.partner[static_cast<std::size_t>(x)]);
        for (std::size_t k = i + 1; k < n; ++k) {
          const Vec3 d = box.minimum_image(r[k] - r[i]);
          if (dot(d, d) > reach * reach) continue;
          ++within;
          const auto* first = c.partner.data() + c.offset[i];
          const auto* last = c.partner.data() + c.offset[i + 1];
          if (!std::binary_search(first, last, static_cast<int>(k))) ++missing;
        }
      }
      EXPECT_EQ(missing, 0) << "reach " << reach;
      EXPECT_GT(within, 1000);
      std::cout << "reach " << reach << ": " << within << " pairs within, " << c.partner.size() << " candidates\n";
    }
}

// The device's candidates (pair_list_gpu.hpp) are the host's made full: for each atom the partners
// of both directions, ascending, the same entries in the same order (cubic and triclinic cells,
// three reaches, positions partly outside the cell).
TEST(AmoebaPairList, GpuCandidatesAreTheHostsMadeFull) {
  QUASAR_REQUIRE_GPU();
  const std::string xyz = reference("liquid-water/liquid.amoeba");
  if (xyz.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  const std::vector<Vec3> r = io::read_frames(xyz).front().positions;
  const std::size_t n = r.size();
  Mat3 h{};
  h(0, 0) = 18.643, h(1, 0) = 2.1, h(1, 1) = 18.0, h(2, 0) = -1.5, h(2, 1) = 3.0, h(2, 2) = 19.2;
  Box triclinic = Box::orthorhombic(1, 1, 1);
  triclinic.set_matrix(h);
  std::vector<double> flat(3 * n);
  for (std::size_t i = 0; i < n; ++i)
    for (int c = 0; c < 3; ++c) flat[3 * i + static_cast<std::size_t>(c)] = r[i][c];
  Array<double> positions(Backend::Cuda);
  positions.assign(flat);
  amoeba::DevicePairCandidates device;
  for (const Box& box : {Box::orthorhombic(18.643, 18.643, 18.643), triclinic})
    for (const double reach : {4.5, 7.0, 9.0}) {
      const amoeba::PairCandidates half = amoeba::pair_candidates(r, box, reach);
      std::vector<std::vector<int>> full(n);
      for (std::size_t i = 0; i < n; ++i)
        for (int x = half.offset[i]; x < half.offset[i + 1]; ++x) {
          const int k = half.partner[static_cast<std::size_t>(x)];
          full[i].push_back(k);
          full[static_cast<std::size_t>(k)].push_back(static_cast<int>(i));
        }
      device.build(positions.data(), static_cast<long>(n), box, reach);
      std::vector<int> offset(n + 1), partner(static_cast<std::size_t>(device.pairs()));
      device::copy_to_host(offset.data(), device.offset(), offset.size() * sizeof(int));
      device::copy_to_host(partner.data(), device.partner(), partner.size() * sizeof(int));
      ASSERT_EQ(static_cast<std::size_t>(device.pairs()), 2 * half.partner.size()) << "reach " << reach;
      for (std::size_t i = 0; i < n; ++i) {
        std::sort(full[i].begin(), full[i].end());
        const std::vector<int> got(partner.begin() + offset[i], partner.begin() + offset[i + 1]);
        ASSERT_EQ(got, full[i]) << "atom " << i << ", reach " << reach;
      }
    }
}

void expect_same(const amoeba::ElectrostaticResult& a, const amoeba::ElectrostaticResult& b, const char* what) {
  EXPECT_EQ(a.energy, b.energy) << what;
  EXPECT_EQ(a.pairs, b.pairs) << what;
  ASSERT_EQ(a.grad.size(), b.grad.size());
  double worst = 0;
  for (std::size_t i = 0; i < a.grad.size(); ++i)
    for (int c = 0; c < 3; ++c) worst = std::max(worst, std::abs(a.grad[i][c] - b.grad[i][c]));
  EXPECT_LE(worst, 1e-12) << what;
  for (int c = 0; c < 9; ++c) EXPECT_NEAR(a.virial[c], b.virial[c], 1e-10 * std::max(1.0, std::abs(b.virial[c]))) << what;
  std::cout << what << ": energy difference " << a.energy - b.energy << ", worst gradient difference " << worst << "\n";
}

TEST(AmoebaPairList, ElectrostaticsEqualTheAllPairsLoops) {
  const std::string xyz = reference("liquid-water/liquid.amoeba");
  const std::string prm = reference("params/water03.prm");
  if (xyz.empty() || prm.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  const auto scratch = test::scratch_dir("amoeba-pair-list");
  const std::string key = (scratch / "pme.key").string();
  std::ofstream(key) << "parameters " << prm
                     << "\na-axis 18.643\newald\newald-cutoff 7.0\npolar-eps 1e-8\nvdwterm none\nbondterm none\n"
                        "angleterm none\nureyterm none\n";
  ForceField ff = amoeba::load_tinker_force_field(key);
  const Structure s = io::read_frames(xyz).front();
  evaluate(ff, s, Backend::Cpu);  // binds the terms
  const auto* term = dynamic_cast<const amoeba::AmoebaTerm*>(ff.terms().front().potential.get());
  ASSERT_NE(term, nullptr);
  const amoeba::ElectrostaticSystem& e = term->electrostatics();
  amoeba::PairGeometry g;
  g.periodic = true;
  g.box = Box::orthorhombic(18.643, 18.643, 18.643);
  g.cutoff = 7.0;
  g.ewald_alpha = amoeba::ewald_alpha(7.0);
  g.pme_size.fill(amoeba::pme_grid_size(18.643));
  const std::vector<Vec3>& r = s.positions;
  const amoeba::PairCandidates c = amoeba::pair_candidates(r, g.box, std::max(g.cutoff, e.usolve_cutoff));
  amoeba::PairGeometry listed = g;
  listed.candidates = &c;
  expect_same(amoeba::multipole_ewald(e, listed, r, false), amoeba::multipole_ewald(e, g, r, false), "multipoles");
  const amoeba::InducedDipoles u_all = amoeba::induce(e, g, r), u_listed = amoeba::induce(e, listed, r);
  double worst = 0;
  for (std::size_t i = 0; i < r.size(); ++i)
    for (int k = 0; k < 3; ++k)
      worst = std::max({worst, std::abs(u_all.ud[i][k] - u_listed.ud[i][k]), std::abs(u_all.up[i][k] - u_listed.up[i][k])});
  EXPECT_LE(worst, 1e-14) << "induced dipoles";
  expect_same(amoeba::polarization_energy(e, listed, r, u_listed, false), amoeba::polarization_energy(e, g, r, u_all, false),
              "polarization");
}

}  // namespace
}  // namespace quasar
