// Topology, exclusions and the first bonded terms: a bead-spring polymer melt (bond/harmonic,
// angle/harmonic and Lennard-Jones with special weights) against Debian's LAMMPS, the 1-2/1-3/1-4
// rule on rings against LAMMPS's special_bonds, an NVE trajectory against LAMMPS's, deterministic
// GPU sums, and the errors of bad input.
#include <cmath>
#include <fstream>
#include <functional>
#include <iomanip>
#include <sstream>

#include "lammps_runner.hpp"
#include "quasar/io/lammps_data.hpp"
#include "quasar/core/units.hpp"
#include "quasar/device/fixed_point.hpp"
#include "quasar/md/simulation.hpp"
#include "quasar/md/velocity.hpp"
#include "quasar/potential/evaluate.hpp"
#include "quasar/potential/registry.hpp"
#include "test_systems.hpp"

namespace quasar {
namespace {

using Weights = std::array<double, 3>;

std::string number(double x) {  // exact, for input files
  std::ostringstream o;
  o << std::setprecision(17) << x;
  return o.str();
}
std::string label(const Weights& w) {
  std::ostringstream o;
  o << w[0] << " " << w[1] << " " << w[2];
  return o.str();
}

// The melt's force field as [[potential]] tables: LJ (A: epsilon 1 eV, sigma 1 Å; B: 0.8 eV, 1.1 Å;
// cutoff 2.5 Å) with the special weights, then the bonded terms.
std::string lj_table(const Weights& w) {
  return "[[potential]]\ntype = \"lj\"\ncutoff = 2.5\nspecial = [" + number(w[0]) + ", " + number(w[1]) + ", " +
         number(w[2]) + "]\n[potential.species.A]\nepsilon = 1.0\nsigma = 1.0\n[potential.species.B]\nepsilon = 0.8\n"
         "sigma = 1.1\n";
}
const std::string kBondTable = "[[potential]]\ntype = \"bond/harmonic\"\n";
const std::string kAngleTable = "[[potential]]\ntype = \"angle/harmonic\"\n";

ForceField force_field_from(const std::string& toml_text) {
  const toml::table root = parse_toml_text(toml_text, "melt.toml");
  return make_force_field(ConfigTable{&root, "melt.toml", ""}, ".");
}

// LAMMPS's side: the styles before read_data, special_bonds and the pair style after it.
const std::string kLammpsStyles = "bond_style harmonic\nangle_style harmonic\n";
std::string lammps_pair(const Weights& w) {
  return "special_bonds lj " + number(w[0]) + " " + number(w[1]) + " " + number(w[2]) +
         "\npair_style lj/cut 2.5\npair_coeff 1 1 1.0 1.0\npair_coeff 2 2 0.8 1.1\n";
}

// The six components LAMMPS prints (xx, yy, zz, xy, xz, yz) as (row, column).
const int kRow[6] = {0, 1, 2, 0, 0, 1}, kCol[6] = {0, 1, 2, 1, 2, 2};

double largest(const std::vector<double>& v) {
  double m = 1e-300;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

class Melt : public testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (test::lammps_executable().empty()) return test::missing(test::Dependency::Lammps, "Debian's LAMMPS is not installed");
  }

  // Total, per-term and per-atom energies, forces, virials of the melt against LAMMPS's, for one set
  // of special weights.
  void compare(const Weights& w, double tolerance) {
    const Structure s = test::polymer_melt(40, 25, 0.85, 1234);
    const Backend b = GetParam();
    ForceField ff = force_field_from(lj_table(w) + kBondTable + kAngleTable);
    ASSERT_EQ(ff.describe(), "lj + bond + angle");
    const Evaluation q = evaluate(ff, s, b, true);
    // Each term alone, for its share of the per-atom values.
    const std::string tables[3] = {lj_table(w), kBondTable, kAngleTable};
    std::vector<Evaluation> alone;
    for (const std::string& t : tables) {
      ForceField one = force_field_from(t);
      alone.push_back(evaluate(one, s, b, true));
    }
    std::string thermo = "step pe evdwl ebond eangle vol", dump = "fx fy fz", setup = lammps_pair(w);
    const char* terms[3] = {"pair", "bond", "angle"};
    for (const char* t : terms) {
      setup += std::string("compute pe_") + t + " all pe/atom " + t + "\ncompute st_" + t + " all stress/atom NULL " + t +
               "\ncompute p_" + t + " all pressure NULL " + t + "\n";
      dump += std::string(" c_pe_") + t;
      for (int c = 1; c <= 6; ++c) {
        thermo += " c_p_" + std::string(t) + "[" + std::to_string(c) + "]";
        dump += " c_st_" + std::string(t) + "[" + std::to_string(c) + "]";
      }
    }
    const auto l = test::run_lammps(s, "", thermo, dump, "p p p", "lammps-melt", setup, kLammpsStyles);
    ASSERT_EQ(l.thermo.size(), 24u);
    ASSERT_EQ(l.dump.size(), s.size());
    const double volume = l.thermo[5];
    const std::string on = " (special " + label(w) + ", " + backend_name(b) + ")";

    // Energies: the total and each term (relative to the total's magnitude and to the term's own).
    test::MaxError de("energies against LAMMPS, relative" + on);
    de.add(q.energy / std::abs(l.thermo[1]), l.thermo[1] / std::abs(l.thermo[1]));
    ASSERT_EQ(q.terms.size(), 3u);
    for (int t = 0; t < 3; ++t) {
      const double want = l.thermo[2 + t], scale = std::abs(want);
      de.add(q.terms[t].energy / scale, want / scale);
      de.add(alone[t].energy / scale, want / scale);
    }
    EXPECT_TRUE(de.within(tolerance));
    for (int t = 0; t < 3; ++t) EXPECT_GT(std::abs(l.thermo[2 + t]), 10.0) << "every term should matter: " << terms[t];

    // Forces (the sum of the terms).
    test::MaxError df("forces against LAMMPS, relative to the largest" + on);
    std::vector<double> all;
    for (const auto& row : l.dump) all.insert(all.end(), row.begin(), row.begin() + 3);
    const double fmax = largest(all);
    for (std::size_t i = 0; i < s.size(); ++i)
      for (int k = 0; k < 3; ++k) df.add(q.forces[i][k] / fmax, l.dump[i][static_cast<std::size_t>(k)] / fmax);
    EXPECT_TRUE(df.within(tolerance));

    // Virial: per term from LAMMPS's pressure of that term (W = P V / nktv2p), and the total.
    test::MaxError dw("virial against LAMMPS, relative to the largest component" + on);
    Mat3 total{};
    for (int t = 0; t < 3; ++t) {
      Mat3 want{};
      for (int c = 0; c < 6; ++c) {
        const double v = l.thermo[6 + 6 * t + c] * volume / units::nktv2p;
        want(kRow[c], kCol[c]) = want(kCol[c], kRow[c]) = v;
      }
      total = total + want;
      double wmax = 1e-300;
      for (int c = 0; c < 9; ++c) wmax = std::max(wmax, std::abs(want(c / 3, c % 3)));
      for (int c = 0; c < 9; ++c) dw.add(alone[t].virial(c / 3, c % 3) / wmax, want(c / 3, c % 3) / wmax);
    }
    double wmax = 1e-300;
    for (int c = 0; c < 9; ++c) wmax = std::max(wmax, std::abs(total(c / 3, c % 3)));
    for (int c = 0; c < 9; ++c) dw.add(q.virial(c / 3, c % 3) / wmax, total(c / 3, c % 3) / wmax);
    EXPECT_TRUE(dw.within(tolerance));

    // Per-atom energies and virials: each term's (stress/atom is -W per atom, in bar Å^3), and the sums.
    test::MaxError da("per-atom energies and virials against LAMMPS, relative to the largest" + on);
    const std::size_t n = s.size();
    std::vector<double> sum_e(n, 0.0), sum_w(9 * n, 0.0);
    for (int t = 0; t < 3; ++t) {
      const std::size_t col = 3 + 7 * static_cast<std::size_t>(t);
      std::vector<double> e, v;
      for (const auto& row : l.dump) {
        e.push_back(row[col]);
        for (int c = 0; c < 6; ++c) v.push_back(-row[col + 1 + static_cast<std::size_t>(c)] / units::nktv2p);
      }
      const double emax = largest(e), vmax = largest(v);
      for (std::size_t i = 0; i < n; ++i) {
        da.add(alone[t].atom_energy[i] / emax, e[i] / emax);
        sum_e[i] += e[i];
        for (int c = 0; c < 6; ++c) {
          const double want = v[6 * i + static_cast<std::size_t>(c)];
          da.add(alone[t].atom_virial[i](kRow[c], kCol[c]) / vmax, want / vmax);
          da.add(alone[t].atom_virial[i](kCol[c], kRow[c]) / vmax, want / vmax);
          sum_w[9 * i + static_cast<std::size_t>(3 * kRow[c] + kCol[c])] += want;
          if (kRow[c] != kCol[c]) sum_w[9 * i + static_cast<std::size_t>(3 * kCol[c] + kRow[c])] += want;
        }
      }
    }
    const double emax = largest(sum_e), vmax = largest(sum_w);
    for (std::size_t i = 0; i < n; ++i) {
      da.add(q.atom_energy[i] / emax, sum_e[i] / emax);
      for (int c = 0; c < 9; ++c) da.add(q.atom_virial[i](c / 3, c % 3) / vmax, sum_w[9 * i + static_cast<std::size_t>(c)] / vmax);
    }
    EXPECT_TRUE(da.within(tolerance));
  }
};

// 40 chains of 25 beads at 0.85 beads per Å^3 (sigma = 1 Å), the weights of a bead-spring model
// (0 0.5 1, 0 1 1) and weights for every level (0.2 0.5 0.8). Measured on the CPU, the largest of
// the three: energies 1.1e-14, forces 1.5e-14, virial 9.4e-15, per-atom values 5.5e-14 relative.
TEST_P(Melt, SpecialZeroHalfOneMatchesLammps) { compare({0.0, 0.5, 1.0}, 1e-12); }
TEST_P(Melt, SpecialZeroOneOneMatchesLammps) { compare({0.0, 1.0, 1.0}, 1e-12); }
TEST_P(Melt, SpecialWeightsOfEveryLevelMatchLammps) { compare({0.2, 0.5, 0.8}, 1e-12); }

// A short NVE run of the melt (3 terms, atoms re-sorted every 10 steps, so that every lookup by
// input index is exercised) against LAMMPS's fix nve from the same data file and velocities. The
// melt starts with beads 0.8 Å apart, so that differences of rounding grow e-fold in about 16
// steps (measured: 1.7e-11 Å/ps after 10 steps, 7.8e-11 after 30, 6.3e-9 after 100); 40 steps.
TEST_P(Melt, NveTrajectoryMatchesLammps) {
  Structure s = test::polymer_melt(40, 25, 0.85, 1234);
  md::assign_velocities(s, 3000.0, 11);
  const Weights w{0.0, 0.5, 1.0};
  md::MdSettings st;
  st.init_velocities = false;
  st.integrator.kind = "nve";
  st.integrator.dt = 1e-4;  // ps: 0.01 of the time unit of 1 amu, 1 Å and 1 eV
  st.steps = 40;
  st.skin = 0.3;
  st.output.progress = false;
  st.output.thermo_every = st.steps;
  st.sort_every = 10;
  md::Simulation sim(s, force_field_from(lj_table(w) + kBondTable + kAngleTable), st, GetParam());
  sim.run();
  const md::Thermo t = sim.thermo();
  const Structure q = sim.atoms().to_structure();
  const auto l = test::run_lammps(s, "neighbor 0.3 bin\nneigh_modify every 1 delay 0 check yes\ntimestep 0.0001\n"
                                     "fix 1 all nve\nrun 40",
                                  "step pe ke", "x y z vx vy vz", "p p p", "lammps-melt-nve", lammps_pair(w), kLammpsStyles);
  ASSERT_EQ(l.dump.size(), s.size());
  ASSERT_EQ(l.thermo.size(), 3u);
  test::MaxError dx("positions after 40 steps (Å)"), dv("velocities after 40 steps (Å/ps)"),
      de("potential and kinetic energy after 40 steps, relative");
  for (std::size_t i = 0; i < s.size(); ++i) {
    const Vec3 d = q.box.minimum_image(q.positions[i] - Vec3{l.dump[i][0], l.dump[i][1], l.dump[i][2]});
    for (int k = 0; k < 3; ++k) {
      dx.add(d[k], 0.0);
      dv.add(q.velocities[i][k], l.dump[i][static_cast<std::size_t>(3 + k)]);
    }
  }
  de.add(t.potential / std::abs(l.thermo[1]), l.thermo[1] / std::abs(l.thermo[1]));
  de.add(t.kinetic / std::abs(l.thermo[2]), l.thermo[2] / std::abs(l.thermo[2]));
  // Measured on the CPU: 1e-13 Å, 1.2e-10 Å/ps, and energies 1.1e-14 relative on one thread, 7.6e-14
  // on 2 and 1.2e-13 on 8 (threads sum forces in another order, which the trajectory amplifies); on
  // the H100 9.9e-14 Å, 1.1e-10 Å/ps and 1.1e-13.
  EXPECT_TRUE(dx.within(1e-11));
  EXPECT_TRUE(dv.within(1e-8));
  EXPECT_TRUE(de.within(1e-11));
}

QUASAR_INSTANTIATE_BACKENDS(Melt);

// Rings and branches: LAMMPS keeps each neighbour at its lowest level and never the atom itself,
// which only rings put to the test. Molecules of 3-, 4-, 5- and 6-rings, a star and a branched
// chain, bonds only, LJ with a distinct weight per level.
Structure rings_and_branches() {
  Structure s;
  s.box = Box::orthorhombic(12, 12, 12);
  s.type_names = {"A"};
  s.type_masses = {1.0};
  s.topology.bonds.num_types = 1;
  std::mt19937 rng(5);
  std::normal_distribution<double> normal(0.0, 1.0);
  int slot = 0;
  auto place = [&](const std::vector<Vec3>& shape, const std::vector<std::pair<int, int>>& bonds) {
    // A random rotation (Gram-Schmidt of random vectors) about the slot's centre, 4 Å apart.
    Vec3 a{normal(rng), normal(rng), normal(rng)}, b{normal(rng), normal(rng), normal(rng)};
    a = (1.0 / std::sqrt(norm2(a))) * a;
    b = b - dot(a, b) * a;
    b = (1.0 / std::sqrt(norm2(b))) * b;
    const Vec3 c = cross(a, b);
    const Vec3 centre{2.0 + 4.0 * (slot % 3), 2.0 + 4.0 * (slot / 3 % 3), 2.0 + 4.0 * (slot / 9)};
    ++slot;
    const int first = static_cast<int>(s.size());
    for (const Vec3& r : shape) {
      s.positions.push_back(centre + r.x * a + r.y * b + r.z * c);
      s.types.push_back(0);
    }
    for (auto [i, j] : bonds) s.topology.bonds.add({first + i, first + j}, 0);
  };
  for (int round = 0; round < 3; ++round) {
    for (int n = 3; n <= 6; ++n) {  // rings of side 1 Å
      std::vector<Vec3> shape;
      std::vector<std::pair<int, int>> bonds;
      const double radius = 0.5 / std::sin(M_PI / n);
      for (int k = 0; k < n; ++k) {
        shape.push_back({radius * std::cos(2 * M_PI * k / n), radius * std::sin(2 * M_PI * k / n), 0.0});
        bonds.emplace_back(k, (k + 1) % n);
      }
      place(shape, bonds);
    }
    // A star: a centre with three arms of two atoms; a chain of five with a branch of two at its middle.
    place({{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {-0.5, 0.87, 0}, {-1, 1.73, 0}, {-0.5, -0.87, 0}, {-1, -1.73, 0}},
          {{0, 1}, {1, 2}, {0, 3}, {3, 4}, {0, 5}, {5, 6}});
    if (round < 2)
      place({{-2, 0, 0}, {-1, 0.2, 0}, {0, 0, 0}, {1, 0.2, 0}, {2, 0, 0}, {0, 1, 0.3}, {0, 2, 0}},
            {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {2, 5}, {5, 6}});
  }
  return s;
}

class Exclusion : public testing::TestWithParam<Backend> {};

TEST_P(Exclusion, RingsAndBranchesMatchLammpsSpecialBonds) {
  if (test::lammps_executable().empty()) return test::missing(test::Dependency::Lammps, "Debian's LAMMPS is not installed");
  const Structure s = rings_and_branches();
  ForceField ff = force_field_from(
      "[[potential]]\ntype = \"lj\"\ncutoff = 3.0\nspecial = [0.1, 0.3, 0.7]\n[potential.species.A]\nepsilon = 1.0\n"
      "sigma = 1.0\n");
  const Evaluation q = evaluate(ff, s, GetParam(), true);
  const auto l = test::run_lammps(s, "", "step pe", "fx fy fz c_pea", "p p p", "lammps-rings",
                                  "bond_coeff *\nspecial_bonds lj 0.1 0.3 0.7\npair_style lj/cut 3.0\n"
                                  "pair_coeff 1 1 1.0 1.0\ncompute pea all pe/atom\n",
                                  "bond_style zero\n");
  ASSERT_EQ(l.dump.size(), s.size());
  test::MaxError de("LJ with special weights on rings against LAMMPS: energies and forces, relative");
  de.add(q.energy / std::abs(l.thermo[1]), l.thermo[1] / std::abs(l.thermo[1]));
  std::vector<double> f, e;
  for (const auto& row : l.dump) {
    f.insert(f.end(), row.begin(), row.begin() + 3);
    e.push_back(row[3]);
  }
  const double fmax = largest(f), emax = largest(e);
  for (std::size_t i = 0; i < s.size(); ++i) {
    for (int k = 0; k < 3; ++k) de.add(q.forces[i][k] / fmax, l.dump[i][static_cast<std::size_t>(k)] / fmax);
    de.add(q.atom_energy[i] / emax, e[i] / emax);
  }
  // Measured 3.6e-14 on the CPU.
  EXPECT_TRUE(de.within(1e-12));
  // Without the weights the energy differs: the weights were applied.
  ForceField plain = force_field_from("[[potential]]\ntype = \"lj\"\ncutoff = 3.0\n[potential.species.A]\nepsilon = 1.0\nsigma = 1.0\n");
  EXPECT_GT(std::abs(evaluate(plain, s, GetParam()).energy - q.energy), 1.0);
}

// Deterministic sums: two evaluations of the melt give the same bits, near the CPU's reference.
TEST_P(Exclusion, DeterministicEvaluationsRepeatBitForBit) {
  const Structure s = test::polymer_melt(20, 25, 0.85, 99);
  const std::string toml = lj_table({0.0, 0.5, 1.0}) + kBondTable + kAngleTable;
  ForceField f1 = force_field_from(toml), f2 = force_field_from(toml), f0 = force_field_from(toml);
  const Evaluation a = evaluate(f1, s, GetParam(), true, -1, true), b = evaluate(f2, s, GetParam(), true, -1, true);
  const Evaluation ref = evaluate(f0, s, Backend::Cpu, true);
  EXPECT_EQ(a.energy, b.energy);
  for (int c = 0; c < 9; ++c) EXPECT_EQ(a.virial(c / 3, c % 3), b.virial(c / 3, c % 3));
  for (std::size_t i = 0; i < s.size(); ++i) {
    for (int k = 0; k < 3; ++k) ASSERT_EQ(a.forces[i][k], b.forces[i][k]) << "atom " << i;
    ASSERT_EQ(a.atom_energy[i], b.atom_energy[i]) << "atom " << i;
  }
  ASSERT_EQ(a.terms.size(), 3u);
  test::MaxError de("deterministic evaluation - CPU reference: energies (eV)"),
      df("deterministic evaluation - CPU reference: forces (eV/Å)");
  de.add(a.energy, ref.energy);
  for (std::size_t t = 0; t < 3; ++t) de.add(a.terms[t].energy, ref.terms[t].energy);
  for (std::size_t i = 0; i < s.size(); ++i)
    for (int k = 0; k < 3; ++k) df.add(a.forces[i][k], ref.forces[i][k]);
  // Each term's energy is one fixed-point contribution per block of 128 atoms, each rounded by at
  // most half of 2^-28 eV (device/fixed_point.hpp); the total adds three terms. Beside that, the
  // GPU's own rounding of energies near 4e3 eV. Forces are per-thread sums in double.
  const double blocks = std::ceil(static_cast<double>(s.size()) / 128.0);
  EXPECT_TRUE(de.within(1e-12 * std::abs(ref.energy) + 3 * blocks * 0.5 / device::fixed_scale::kTotal));
  EXPECT_TRUE(df.within(1e-10));
}

// A Langevin run of the melt restarted from its checkpoint at step 20 ends with the bits of the
// uninterrupted run (the atoms re-sorted in both halves: the topology is looked up by input index
// from the restored ids); on the GPU with deterministic sums.
TEST_P(Exclusion, RestartedRunIsBitIdentical) {
  const Structure s = test::polymer_melt(20, 25, 0.85, 7);
  const auto dir = test::scratch_dir(std::string("bonded-restart-") + backend_name(GetParam()));
  auto run = [&](long steps, const std::string& checkpoint, const std::string& restart) {
    md::MdSettings st;
    st.integrator.kind = "langevin";
    st.integrator.dt = 5e-5;
    st.integrator.temperature = 11604;
    st.integrator.tau_t = 0.01;
    st.integrator.seed = 5;
    st.steps = steps;
    st.restart = restart;
    st.skin = 0.3;
    st.sort_every = 15;
    st.deterministic = true;
    st.output.progress = false;
    st.output.thermo_screen = false;
    st.output.thermo_every = 20;
    st.output.checkpoint = (dir / checkpoint).string();
    st.output.checkpoint_every = 20;
    md::Simulation sim(s, force_field_from(lj_table({0.0, 0.5, 1.0}) + kBondTable + kAngleTable), st, GetParam());
    sim.run();
    return std::pair{sim.atoms().to_structure(), sim.thermo()};
  };
  const auto [whole, whole_thermo] = run(40, "whole.chk", "");
  run(20, "half.chk", "");
  const auto [resumed, resumed_thermo] = run(40, "resumed.chk", (dir / "half.chk").string());
  ASSERT_EQ(resumed_thermo.step, 40);
  EXPECT_EQ(whole_thermo.potential, resumed_thermo.potential);
  EXPECT_EQ(whole_thermo.kinetic, resumed_thermo.kinetic);
  ASSERT_EQ(whole_thermo.term_potential.size(), 3u);
  EXPECT_EQ(whole_thermo.term_potential, resumed_thermo.term_potential);
  for (std::size_t i = 0; i < s.size(); ++i)
    for (int k = 0; k < 3; ++k) {
      ASSERT_EQ(whole.positions[i][k], resumed.positions[i][k]) << "atom " << i;
      ASSERT_EQ(whole.velocities[i][k], resumed.velocities[i][k]) << "atom " << i;
      ASSERT_EQ(whole.forces[i][k], resumed.forces[i][k]) << "atom " << i;
    }
  std::filesystem::remove_all(dir);
}

QUASAR_INSTANTIATE_BACKENDS(Exclusion);

// The 1-2, 1-3 and 1-4 neighbours of small graphs, worked out by hand.
TEST(SpecialNeighbors, ChainsAndRingsAsLammpsDefinesThem) {
  Topology t;
  auto bond = [&](int i, int j) { t.bonds.add({i, j}, 0); };
  for (int i = 0; i < 4; ++i) bond(i, i + 1);  // chain 0-1-2-3-4
  bond(5, 6), bond(6, 7), bond(7, 5);           // triangle 5-6-7
  for (int i = 0; i < 6; ++i) bond(8 + i, 8 + (i + 1) % 6);  // hexagon 8..13
  bond(2, 14);                                  // a branch on the chain's middle atom
  t.bonds.num_types = 1;
  const SpecialNeighbors s = special_neighbors(t, 15);
  auto of = [&](int i, int level) {
    std::vector<int> v;
    for (int k = s.offset[static_cast<std::size_t>(i)]; k < s.offset[static_cast<std::size_t>(i) + 1]; ++k)
      if (s.level[static_cast<std::size_t>(k)] == level) v.push_back(s.partner[static_cast<std::size_t>(k)]);
    return v;
  };
  using V = std::vector<int>;
  EXPECT_EQ(of(0, 0), V({1}));
  EXPECT_EQ(of(0, 1), V({2}));
  EXPECT_EQ(of(0, 2), V({3, 14}));
  EXPECT_EQ(of(2, 0), V({1, 3, 14}));
  EXPECT_EQ(of(2, 1), V({0, 4}));
  EXPECT_EQ(of(2, 2), V());
  EXPECT_EQ(of(14, 1), V({1, 3}));
  EXPECT_EQ(of(14, 2), V({0, 4}));
  EXPECT_EQ(of(5, 0), V({6, 7}));  // a triangle: every partner is 1-2, nothing further
  EXPECT_EQ(of(5, 1), V());
  EXPECT_EQ(of(5, 2), V());
  EXPECT_EQ(of(8, 0), V({9, 13}));  // a hexagon: the opposite atom is 1-4
  EXPECT_EQ(of(8, 1), V({10, 12}));
  EXPECT_EQ(of(8, 2), V({11}));
}

// Bad input: each error names the input key or the data file (and its line).
class BondedInput : public testing::Test {
 protected:
  void SetUp() override { dir_ = test::scratch_dir("bonded-input"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string error_of(const std::string& toml, const Structure& s) {
    try {
      ForceField ff = force_field_from(toml);
      evaluate(ff, s, Backend::Cpu);
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  }
  // The melt written as a data file with `edit` applied to its text, and read back.
  Structure melt_file(const std::function<void(std::string&)>& edit) {
    const std::string path = (dir_ / "melt.data").string();
    io::write_lammps_data(path, test::polymer_melt(2, 6, 0.5, 3), "molecular");
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    std::string t = text.str();
    edit(t);
    std::ofstream(path) << t;
    return io::read_lammps_data(path);
  }
  std::filesystem::path dir_;
};

TEST_F(BondedInput, ErrorsNameTheKeyOrTheFile) {
  const Structure lattice = test::distorted_fcc({2, 2, 2}, 1.6, 0.0, 0.02, 3, {"A"});
  EXPECT_NE(error_of(kBondTable, lattice).find("melt.toml:2: 'potential[0].type': bond/harmonic needs bonds, and the "
                                               "structure has none"),
            std::string::npos)
      << error_of(kBondTable, lattice);
  EXPECT_NE(error_of(lj_table({0, 0.5, 1}), lattice).find("melt.toml:4: 'potential[0].special': lj: special weights "
                                                          "need the system's bonds"),
            std::string::npos)
      << error_of(lj_table({0, 0.5, 1}), lattice);
  const std::string species = "[potential.species.A]\nepsilon = 1.0\nsigma = 1.0\n";
  EXPECT_NE(error_of("[[potential]]\ntype = \"lj\"\ncutoff = 2.5\nspecial = [0, 0.5]\n" + species, lattice)
                .find("'potential[0].special': expected three weights"),
            std::string::npos);
  EXPECT_NE(error_of("[[potential]]\ntype = \"lj\"\ncutoff = 2.5\nspecial = [0, 0.5, 2]\n" + species, lattice)
                .find("'potential[0].special': expected weights from 0 to 1"),
            std::string::npos);
  EXPECT_NE(error_of("[[potential]]\ntype = \"angle/harmonic\"\nfile = \"x\"\n", lattice)
                .find("unknown key 'potential[0].file'; valid keys in [potential[0]]: type name group"),
            std::string::npos);
  const std::string file = (dir_ / "melt.data").string();
  // No Bond Coeffs section: the bond types have no coefficients.
  const Structure no_coeffs = melt_file([](std::string& t) {
    const auto a = t.find("Bond Coeffs"), b = t.find("Angle Coeffs");
    t.erase(a, b - a);
  });
  EXPECT_NE(error_of(kBondTable, no_coeffs).find(file + ": the bond types have no coefficients: there is no Bond Coeffs "
                                                 "section; bond/harmonic ('potential[0].type' in melt.toml) takes K"),
            std::string::npos)
      << error_of(kBondTable, no_coeffs);
  // Another style's coefficients.
  const Structure fene = melt_file([](std::string& t) { t.replace(t.find("Bond Coeffs # harmonic"), 22, "Bond Coeffs # fene"); });
  EXPECT_NE(error_of(kBondTable, fene).find(file + ":" + std::to_string(fene.topology.bonds.coeffs_line) +
                                            ": Bond Coeffs are for bond style 'fene'; bond/harmonic"),
            std::string::npos)
      << error_of(kBondTable, fene);
  // Another number of coefficients.
  const Structure three = melt_file([](std::string& t) {  // a third number on the first line of Bond Coeffs
    t.insert(t.find('\n', t.find("\n\n", t.find("Bond Coeffs")) + 2), " 4");
  });
  EXPECT_NE(error_of(kBondTable, three).find(file + ":" + std::to_string(three.topology.bonds.coeffs_line) +
                                             ": Bond Coeffs: bond type 1 has 3 coefficients"),
            std::string::npos)
      << error_of(kBondTable, three);
  // The angle term reads its own section; the file's angles are fine.
  EXPECT_EQ(error_of(kAngleTable, fene), "no error");
}

}  // namespace
}  // namespace quasar

