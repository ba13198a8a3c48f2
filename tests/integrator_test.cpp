// Integrators as classes: multiple time stepping (r-RESPA) against velocity Verlet and LAMMPS's
// `run_style respa`, its energy conservation, thermo energies and restarts; its input checks; FIRE's
// device sums against plain loops.
#include <cmath>
#include <cstring>
#include <fstream>
#include <numeric>
#include <sstream>

#include "lammps_runner.hpp"
#include "quasar/md/integrators/fire.hpp"
#include "quasar/md/integrators/respa.hpp"
#include "quasar/md/simulation.hpp"
#include "quasar/md/velocity.hpp"
#include "quasar/potential/evaluate.hpp"
#include "test_systems.hpp"

namespace quasar {
namespace {

// Cu_u3 (group 0) and a Lennard-Jones tail for the same copper (group `lj_group`), the pair of
// tests/force_field_test.cpp: LAMMPS's hybrid/overlay of eam and lj/cut 6.0 with 0.05 eV, 2.3 Å, here
// shifted to zero at the cutoff (pair_modify shift yes), so that pairs crossing it leave the energy
// continuous.
ForceField eam_and_lj(int lj_group) {
  ForceField ff;
  ff.add(test::copper_eam(), "eam", 0);
  ff.add(std::make_shared<LennardJones>(std::map<std::string, LjSpecies>{{"Cu", {0.05, 2.3}}}, 6.0, true, false), "lj",
         lj_group);
  return ff;
}

// A third, weaker term for three levels.
std::shared_ptr<Potential> weak_lj() {
  return std::make_shared<LennardJones>(std::map<std::string, LjSpecies>{{"Cu", {0.01, 2.0}}}, 7.0, true, false);
}

Structure copper(unsigned seed) {
  Structure s = test::distorted_fcc({4, 4, 4}, 3.615, 0.0, 0.03, seed);
  s.type_masses = {63.55};  // LAMMPS takes the mass from the funcfl file
  md::assign_velocities(s, 600.0, 7);
  return s;
}

md::MdSettings settings(const std::string& kind, double dt_fs, std::vector<int> respa_every, long steps = 0) {
  md::MdSettings st;
  st.init_velocities = false;
  st.integrator.kind = kind;
  st.integrator.dt = dt_fs * 1e-3;
  st.integrator.temperature = 600;
  st.integrator.tau_t = 0.05;
  st.integrator.respa_every = std::move(respa_every);
  st.steps = steps;
  st.output.progress = false;
  st.output.thermo_screen = false;
  st.output.thermo_every = steps > 0 ? steps : 1;
  st.sort_every = 50;  // the atoms are re-sorted during the runs
  return st;
}

bool has_copper() { return !test::lammps_potential("Cu_u3.eam").empty(); }

class Respa : public testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (!has_copper()) return test::missing(test::Dependency::LammpsData, "lammps-data's Cu_u3.eam is not installed");
  }
};

// The largest differences of positions (minimum image), velocities and forces of two states.
struct StateDifference {
  double position = 0, velocity = 0, force = 0;
};
StateDifference difference(const Structure& a, const Structure& b) {
  StateDifference d;
  for (std::size_t i = 0; i < a.size(); ++i) {
    d.position = std::max(d.position, std::sqrt(norm2(a.box.minimum_image(a.positions[i] - b.positions[i]))));
    d.velocity = std::max(d.velocity, std::sqrt(norm2(a.velocities[i] - b.velocities[i])));
    d.force = std::max(d.force, std::sqrt(norm2(a.forces[i] - b.forces[i])));
  }
  return d;
}

// (1) Every group of one period: r-RESPA is velocity Verlet (and BAOAB) step for step.
TEST_P(Respa, OnePeriodForEveryGroupIsPlainVerlet) {
  const Backend b = GetParam();
  const Structure s = copper(11);
  for (const std::string kind : {"nve", "langevin"}) {
    md::Simulation plain(s, eam_and_lj(1), settings(kind, 2.0, {}, 200), b);
    md::Simulation respa(s, eam_and_lj(1), settings(kind, 2.0, {1, 1}, 200), b);
    ASSERT_EQ(dynamic_cast<md::MultipleTimeStep&>(respa.integrator()).levels().size(), 1u);
    plain.run();
    respa.run();
    const md::Thermo tp = plain.thermo(), tr = respa.thermo();
    const StateDifference d = difference(plain.atoms().to_structure(), respa.atoms().to_structure());
    std::printf("measured %s, r-RESPA [1, 1] against plain on %s after 200 steps: position %.2g Å, velocity %.2g "
                "Å/ps, force %.2g eV/Å, energy %.2g eV, conserved %.2g eV\n",
                kind.c_str(), backend_name(b), d.position, d.velocity, d.force, std::abs(tp.potential - tr.potential),
                std::abs(tp.conserved - tr.conserved));
    if (b == Backend::Cpu) {
      // The same operations in the same order: the same bits.
      EXPECT_EQ(d.position, 0.0) << kind;
      EXPECT_EQ(d.velocity, 0.0) << kind;
      EXPECT_EQ(d.force, 0.0) << kind;
      EXPECT_EQ(tp.potential, tr.potential) << kind;
      EXPECT_EQ(tp.term_potential, tr.term_potential) << kind;
      EXPECT_EQ(tp.conserved, tr.conserved) << kind;
    } else {
      // The kicks read kept forces (the same values), so the trajectories should agree to the bit
      // here too; what may differ is the order of the GPU's atomic sums (energies, Langevin's work),
      // which the dynamics does not read. Measured 0 for all of them on the H100 (nve and langevin);
      // the bounds are about 1e-14 of the magnitudes (positions in a 14.5 Å cell, velocities up to 12
      // Å/ps, forces up to 3.4 eV/Å, energies near -990 eV).
      EXPECT_LT(d.position, 2e-13) << kind;
      EXPECT_LT(d.velocity, 2e-13) << kind;
      EXPECT_LT(d.force, 1e-13) << kind;
      EXPECT_NEAR(tr.potential, tp.potential, 1e-11) << kind;
      EXPECT_NEAR(tr.conserved, tp.conserved, 1e-11) << kind;
    }
  }
}

// (2) Against LAMMPS's r-RESPA of the same force field: `pair_style hybrid/overlay eam lj/cut` with
// `run_style respa 2 N hybrid 1 2` evaluates eam at the inner level and lj/cut every N inner steps,
// as Quasar's respa_every = [1, N] with eam in group 0 and lj in group 1. LAMMPS's timestep is the
// outer one (N inner steps); its thermo energies at outer steps are those of the current positions
// (the inner style was evaluated last at the same positions).
TEST_P(Respa, MatchesLammpsRunStyleRespa) {
  if (test::lammps_executable().empty())
    return test::missing(test::Dependency::Lammps, "Debian's LAMMPS (lmp) is not installed");
  const Backend b = GetParam();
  const std::string file = test::lammps_potential("Cu_u3.eam");
  const Structure s = copper(12);
  const double dt = 0.002;
  for (const int period : {2, 4}) {
    const long outer_steps = 100 / period;
    md::Simulation sim(s, eam_and_lj(1), settings("nve", dt * 1e3, {1, period}, outer_steps * period), b);
    sim.run();
    const md::Thermo t = sim.thermo();
    const Structure q = sim.atoms().to_structure();
    std::ostringstream commands;
    commands << "pair_style hybrid/overlay eam lj/cut 6.0\npair_coeff 1 1 eam " << file
             << "\npair_coeff 1 1 lj/cut 0.05 2.3\npair_modify shift yes\nneighbor 1.0 bin\n"
             << "neigh_modify every 1 delay 0 check yes\n"
             << "timestep " << period * dt << "\nfix 1 all nve\nrun_style respa 2 " << period << " hybrid 1 2\nrun "
             << outer_steps;
    const auto l = test::run_lammps(s, commands.str(), "step pe ke", "x y z vx vy vz", "p p p", "lammps-respa");
    ASSERT_EQ(l.dump.size(), s.size());
    ASSERT_EQ(l.thermo.size(), 3u);
    ASSERT_EQ(static_cast<long>(l.thermo[0]), outer_steps);
    double dx = 0, dv = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
      const Vec3 d = q.box.minimum_image(q.positions[i] - Vec3{l.dump[i][0], l.dump[i][1], l.dump[i][2]});
      dx = std::max(dx, std::sqrt(norm2(d)));
      dv = std::max(dv, std::sqrt(norm2(q.velocities[i] - Vec3{l.dump[i][3], l.dump[i][4], l.dump[i][5]})));
    }
    const double dpe = std::abs(t.potential - l.thermo[1]) / std::abs(l.thermo[1]);
    const double dke = std::abs(t.kinetic - l.thermo[2]) / std::abs(l.thermo[2]);
    std::printf("measured r-RESPA [1, %d] against LAMMPS on %s after %ld inner steps: position %.2g Å, velocity "
                "%.2g Å/ps, pe %.2g and ke %.2g relative\n",
                period, backend_name(b), outer_steps * period, dx, dv, dpe, dke);
    // Measured on the CPU: 1.7e-14 Å, 5e-13 Å/ps, 2.6e-15 and 4.6e-15 relative; on the H100 1.5e-14 Å,
    // 5e-13 Å/ps, 9.2e-15 and 5.8e-15 (the bounds of the NVE comparison, tests/lammps_nve_test.cpp).
    EXPECT_LT(dx, 1e-12) << period;
    EXPECT_LT(dv, 1e-11) << period;
    EXPECT_LT(dpe, 1e-13) << period;
    EXPECT_LT(dke, 1e-13) << period;
  }
}

// The conserved energy's drift (least-squares slope, eV/atom/ps) and fluctuation (RMS about that
// line, eV/atom) over a run sampled every `every` inner steps.
struct Conservation {
  double drift = 0, fluctuation = 0;
};
Conservation conservation(md::Simulation& sim, long steps, long every) {
  std::vector<double> t, e;
  const double n = sim.atoms().size();
  for (long k = 1; k <= steps; ++k) {
    const bool sample = k % every == 0;
    sim.advance(k, {sample, sample, false});
    if (!sample) continue;
    t.push_back(static_cast<double>(k) * sim.settings().integrator.dt);  // ps (advance leaves sim.step())
    e.push_back(sim.thermo().conserved / n);
  }
  const double m = static_cast<double>(t.size());
  const double tm = std::accumulate(t.begin(), t.end(), 0.0) / m, em = std::accumulate(e.begin(), e.end(), 0.0) / m;
  double stt = 0, ste = 0;
  for (std::size_t k = 0; k < t.size(); ++k) {
    stt += (t[k] - tm) * (t[k] - tm);
    ste += (t[k] - tm) * (e[k] - em);
  }
  Conservation c;
  c.drift = ste / stt;
  double r2 = 0;
  for (std::size_t k = 0; k < t.size(); ++k) {
    const double r = e[k] - em - c.drift * (t[k] - tm);
    r2 += r * r;
  }
  c.fluctuation = std::sqrt(r2 / m);
  return c;
}

// (3) Energy conservation with two time steps: EAM every 1 fs step, the LJ tail every 2nd and 4th,
// beside velocity Verlet at 1 fs (both every step) and at 4 fs (both every 4 fs). 4 ps of 256 atoms
// at 600 K, sampled at the outer steps. Measured on the CPU (drift in eV/atom/ps, fluctuation in
// eV/atom): Verlet 1 fs 6.7e-7 and 1.4e-6, [1, 2] 7.1e-7 and 2.7e-6, [1, 4] -1.8e-7 and 8.2e-6,
// Verlet 4 fs 2.9e-7 and 2.1e-5 (16 times 1 fs's: the error of a step goes as its square). The
// fluctuation of [1, 4] is 0.39 of Verlet's at its outer step: the fast force's finer step pays.
TEST_P(Respa, ConservesEnergyWithTwoTimeSteps) {
  const Backend b = GetParam();
  const Structure s = copper(13);
  struct Run {
    const char* what;
    const char* kind;
    double dt_fs;
    std::vector<int> periods;
    long steps;
    double fluctuation_bound;  // eV/atom
  };
  const Run runs[] = {
      {"velocity Verlet, 1 fs", "nve", 1.0, {}, 4000, 1e-5},
      {"r-RESPA [1, 2], 1 fs", "nve", 1.0, {1, 2}, 4000, 2e-5},
      {"r-RESPA [1, 4], 1 fs", "nve", 1.0, {1, 4}, 4000, 5e-5},
      {"velocity Verlet, 4 fs", "nve", 4.0, {}, 1000, 1e-4},
  };
  std::vector<double> fluctuation;
  for (const Run& r : runs) {
    md::Simulation sim(s, eam_and_lj(1), settings(r.kind, r.dt_fs, r.periods), b);
    const Conservation c = conservation(sim, r.steps, r.dt_fs == 1.0 ? 4 : 1);
    std::printf("measured %s on %s: drift %.3g eV/atom/ps, fluctuation %.3g eV/atom\n", r.what, backend_name(b),
                c.drift, c.fluctuation);
    EXPECT_LT(std::abs(c.drift), 1e-5) << r.what;
    EXPECT_LT(c.fluctuation, r.fluctuation_bound) << r.what;
    fluctuation.push_back(c.fluctuation);
  }
  EXPECT_LT(fluctuation[0], fluctuation[2]);
  EXPECT_LT(fluctuation[2], 0.7 * fluctuation[3]) << "r-RESPA [1, 4] against Verlet at 4 fs";
}

// (3b) Langevin with the thermostat on the inner step samples the canonical kinetic energy: its mean
// against dof kT/2 (the bound of tests/md_test.cpp: 4 standard errors, twice for correlation) and
// its variance against dof (kT)^2/2 to 20%. (The energy it exchanges is not a good measure here: the
// friction acting between a slow level's two kicks leaves a first-order error in that bookkeeping.)
TEST_P(Respa, LangevinOnTheInnerStepSamplesTheCanonicalKineticEnergy) {
  const Backend b = GetParam();
  Structure s = test::distorted_fcc({3, 3, 3}, 3.615, 0.0, 0.03, 16);
  md::MdSettings st = settings("langevin", 2.0, {1, 4});
  st.init_velocities = true;
  st.integrator.temperature = 500;
  md::Simulation sim(s, eam_and_lj(1), st, b);
  std::vector<double> ke;
  for (long k = 1; k <= 12000; ++k) {
    sim.advance(k, {false, false, false});
    if (k > 1000 && k % 20 == 0) ke.push_back(sim.thermo().kinetic);
  }
  const double n = static_cast<double>(ke.size());
  const double dof = sim.integrator().degrees_of_freedom(), kt = units::boltzmann * 500;
  const double mean = std::accumulate(ke.begin(), ke.end(), 0.0) / n;
  double var = 0;
  for (double k : ke) var += (k - mean) * (k - mean);
  var /= n - 1;
  const double want_mean = 0.5 * dof * kt, want_var = 0.5 * dof * kt * kt;
  const double standard_error = std::sqrt(want_var / n);
  test::print_measured("Langevin r-RESPA [1, 4]: <K> - canonical, in standard errors",
                       (mean - want_mean) / standard_error);
  test::print_measured("Langevin r-RESPA [1, 4]: var K / canonical - 1", var / want_var - 1);
  EXPECT_NEAR(mean, want_mean, 4 * standard_error * 2);  // measured 2.5 standard errors
  EXPECT_NEAR(var, want_var, 0.2 * want_var);            // measured -0.1%
}

// (4) Thermo at a step inside the slow period: every term's energy is that of the current positions.
TEST_P(Respa, ThermoEnergiesAreThoseOfTheCurrentPositions) {
  const Backend b = GetParam();
  const Structure s = copper(14);
  ForceField ff = eam_and_lj(1);
  ff.add(weak_lj(), "weak", 2);
  md::Simulation sim(s, ff, settings("nve", 2.0, {1, 2, 4}), b);
  ASSERT_EQ(dynamic_cast<md::MultipleTimeStep&>(sim.integrator()).levels().size(), 3u);
  for (long k = 1; k <= 7; ++k) sim.advance(k, {k >= 5, k >= 5, false});
  const md::Thermo t = sim.thermo();  // step 7: neither slow level's period ends here
  const Structure now = sim.atoms().to_structure();
  ForceField fresh = eam_and_lj(1);
  fresh.add(weak_lj(), "weak", 2);
  const Evaluation e = evaluate(fresh, now, b);
  test::MaxError de("thermo's energies at step 7 against an evaluation of the state, relative, " +
                    std::string(backend_name(b)));
  const double scale = std::abs(e.energy);
  de.add(t.potential / scale, e.energy / scale);
  for (std::size_t k = 0; k < 3; ++k) de.add(t.term_potential[k] / scale, e.terms[k].energy / scale);
  // The forces at an output step are the total force of these positions too.
  double fmax = 0;
  for (std::size_t i = 0; i < now.size(); ++i) {
    fmax = std::max(fmax, std::sqrt(norm2(e.forces[i])));
    for (int c = 0; c < 3; ++c) de.add(now.forces[i][c], e.forces[i][c]);
  }
  EXPECT_GT(fmax, 0.1);
  EXPECT_TRUE(de.within(1e-13));  // measured 5.6e-15 on the CPU
}

QUASAR_INSTANTIATE_BACKENDS(Respa);

// (5) A checkpoint inside an outer step continues the run bit for bit (CPU): the kept forces of each
// level go through the checkpoint.
TEST(RespaRestart, ContinuesBitForBit) {
  if (!has_copper()) return test::missing(test::Dependency::LammpsData, "lammps-data's Cu_u3.eam is not installed");
  const auto dir = test::scratch_dir("respa-restart");
  const Structure s = copper(15);
  auto three_groups = [] {
    ForceField ff = eam_and_lj(1);
    ff.add(weak_lj(), "weak", 2);
    return ff;
  };
  struct Case {
    std::string kind;
    std::vector<int> periods;
    bool three;
  };
  for (const Case& c : {Case{"nve", {1, 4}, false}, Case{"langevin", {1, 4}, false}, Case{"nve", {1, 2, 4}, true}}) {
    const std::string name = c.kind + "-" + std::to_string(c.periods.size());
    auto ff = [&] { return c.three ? three_groups() : eam_and_lj(1); };
    // Checkpoints (which rebuild the lists) at the same steps as the interrupted run's: at step 58,
    // inside a period of 4, and at the end.
    md::MdSettings st = settings(c.kind, 2.0, c.periods, 116);
    st.output.thermo_every = 10;
    st.output.checkpoint = (dir / (name + "-full.chk")).string();
    st.output.checkpoint_every = 58;
    md::Simulation full(s, ff(), st, Backend::Cpu);
    full.run();
    const Structure want = full.atoms().to_structure();
    const md::Thermo want_thermo = full.thermo();

    md::MdSettings first = st;
    first.steps = 58;
    first.output.checkpoint = (dir / (name + "-half.chk")).string();
    md::Simulation a(s, ff(), first, Backend::Cpu);
    a.run();
    md::MdSettings second = st;
    second.restart = first.output.checkpoint;
    second.output.checkpoint.clear();
    md::Simulation b(s, ff(), second, Backend::Cpu);
    b.run();
    const Structure got = b.atoms().to_structure();
    for (std::size_t i = 0; i < got.size(); ++i)
      for (int k = 0; k < 3; ++k) {
        ASSERT_EQ(got.positions[i][k], want.positions[i][k]) << name << " atom " << i;
        ASSERT_EQ(got.velocities[i][k], want.velocities[i][k]) << name << " atom " << i;
        ASSERT_EQ(got.forces[i][k], want.forces[i][k]) << name << " atom " << i;
      }
    EXPECT_EQ(b.thermo().conserved, want_thermo.conserved) << name;

    // A run of other periods cannot take the checkpoint.
    md::MdSettings other = second;
    other.integrator.respa_every.back() *= 2;
    EXPECT_THROW(md::Simulation(s, ff(), other, Backend::Cpu), InputError) << name;
  }
  std::filesystem::remove_all(dir);
}

// (6) Input: [md] respa_every is checked where it is read, and against the force field's groups.
TEST(RespaInput, BadPeriodsNameTheKey) {
  auto error_of = [](const std::string& md_table, int groups) -> std::string {
    try {
      const toml::table root = parse_toml_text("[md]\n" + md_table, "in.toml");
      const md::MdSettings st = md::md_settings_from_config(ConfigTable{&root, "in.toml", ""}, ".");
      ForceField ff;
      for (int g = 0; g < groups; ++g) ff.add(test::argon_lj(5.0), "", g);
      md::Simulation sim(io::make_lattice("fcc", "Ar", 5.3, {2, 2, 2}), ff, st, Backend::Cpu);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(error_of("respa_every = 2\n", 1),
            "in.toml:2: 'md.respa_every': expected an array of periods (inner steps), one per force group");
  EXPECT_EQ(error_of("respa_every = [1, 0]\n", 2),
            "in.toml:2: 'md.respa_every': expected whole numbers of inner steps from 1 to 1000000");
  EXPECT_EQ(error_of("respa_every = [1, 2.5]\n", 2),
            "in.toml:2: 'md.respa_every': expected whole numbers of inner steps from 1 to 1000000");
  EXPECT_EQ(error_of("respa_every = [2, 3]\n", 2),
            "in.toml:2: 'md.respa_every': the period of group 1 (3) must be a multiple of the one before (2)");
  EXPECT_EQ(error_of("respa_every = []\n", 1), "in.toml:2: 'md.respa_every': expected at least one period");
  EXPECT_EQ(error_of("integrator = \"bussi\"\nrespa_every = [1, 2]\n", 2),
            "in.toml:3: 'md.respa_every': multiple time stepping works with the integrators nve and langevin, not "
            "\"bussi\"");
  EXPECT_EQ(error_of("integrator = \"minimize\"\nrespa_every = [1]\n", 1),
            "in.toml:3: 'md.respa_every': multiple time stepping works with the integrators nve and langevin, not "
            "\"minimize\"");
  EXPECT_EQ(error_of("respa_every = [1]\n", 2),
            "in.toml:2: 'md.respa_every': gives 1 period, the force field's groups are 0..1: give one period per "
            "group");
  EXPECT_EQ(error_of("respa_every = [1, 2, 4]\n", 2),
            "in.toml:2: 'md.respa_every': gives 3 periods, the force field's groups are 0..1: give one period per "
            "group");
  EXPECT_EQ(error_of("integrator = \"verlet\"\n", 1),
            "in.toml:2: 'md.integrator': unknown integrator \"verlet\"; valid: nve, langevin, bussi, npt, minimize");
  EXPECT_EQ(error_of("respa_every = [1, 4]\nlangevin = 1\n", 2).substr(0, 36), "in.toml:3: unknown key 'md.langevin'");
  EXPECT_EQ(error_of("integrator = \"langevin\"\nrespa_every = [1, 4]\n", 2), "");
}

// (7) A checkpoint keeps the levels' forces as per-atom properties; a run of other periods cannot take
// it, and a header that names other properties is refused before anything changes.
TEST(RespaInput, CheckpointKeepsTheLevelsForces) {
  const auto dir = test::scratch_dir("respa-checkpoint");
  const Structure s = io::make_lattice("fcc", "Ar", 5.3, {2, 2, 2});
  auto ff = [] {
    ForceField f;
    f.add(test::argon_lj(5.0), "near", 0);
    f.add(test::argon_lj(5.0), "far", 1);
    return f;
  };
  md::MdSettings st = settings("nve", 2.0, {1, 3});
  st.init_velocities = true;
  st.integrator.temperature = 50;
  md::Simulation sim(s, ff(), st, Backend::Cpu);
  sim.run_to(5);
  const std::string path = (dir / "respa.chk").string();
  sim.write_checkpoint(path);
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string bytes = ss.str();
  EXPECT_NE(bytes.find("\"integrator\":\"nve/respa 1 3\""), std::string::npos);
  EXPECT_NE(bytes.find("{\"name\":\"respa_force_level0\",\"type\":\"f64\",\"width\":3},"
                       "{\"name\":\"respa_force_level1\",\"type\":\"f64\",\"width\":3}"),
            std::string::npos)
      << bytes.substr(0, bytes.find('\n', 30));
  auto error_of = [&](const std::string& text, const md::MdSettings& with) -> std::string {
    std::ofstream(dir / "bad.chk", std::ios::binary) << text;
    md::MdSettings w = with;
    w.restart = (dir / "bad.chk").string();
    try {
      md::Simulation restarted(s, ff(), w, Backend::Cpu);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  md::MdSettings other = st;
  other.integrator.respa_every = {1, 2};
  EXPECT_NE(error_of(bytes, other).find("checkpoint was written by integrator 'nve/respa 1 3', the input asks for "
                                        "'nve/respa 1 2'"),
            std::string::npos);
  std::string renamed = bytes;
  renamed.replace(renamed.find("respa_force_level1"), 18, "respa_force_level2");
  EXPECT_NE(error_of(renamed, st).find("header key 'properties': the per-atom properties (x y z vx vy vz fx fy fz type "
                                       "ix iy iz respa_force_level0 respa_force_level2) differ from this run's"),
            std::string::npos)
      << error_of(renamed, st);
  EXPECT_NE(error_of(bytes.substr(0, bytes.size() - 8), st).find("bytes after its header, expected"), std::string::npos);
  EXPECT_EQ(error_of(bytes, st), "");
  std::filesystem::remove_all(dir);
}

class FireSums : public testing::TestWithParam<Backend> {};

// (8) FIRE's sums over atoms (on the atoms' backend) against plain loops over host copies, after
// some steps of a relaxation; and on the GPU, with deterministic forces, two runs take the same steps
// to the same bits (the sums are ordered, not atomic).
TEST_P(FireSums, DeviceSumsEqualPlainLoops) {
  const Backend b = GetParam();
  const Structure s = test::distorted_fcc({4, 4, 4}, 5.3, 0.05, 0.1, 77, {"Ar"});
  auto run = [&](long steps, std::vector<double>* positions) {
    ForceField ff(test::argon_lj());
    ff.bind(SystemSetup::of(s));
    AtomState atoms(b, s);
    NeighborLists lists(b, ff.neighbor_requests(b), 1.0, 0);
    lists.build(atoms);
    ForceOutput out(b, true);
    md::MinimizeSettings ms;
    ms.fmax = 1e-9;
    md::Fire fire(ms, md::IntegratorSettings{}, b, atoms.size());
    fire.start(0, atoms, lists, ff, out);
    for (long k = 1; k <= steps; ++k) fire.advance(k, atoms, lists, ff, out, {true, true, false});
    if (positions) *positions = atoms.x.to_vector();
    const md::Fire::Sums got = fire.sums();
    const std::vector<double> v = fire.velocities();
    const auto fx = atoms.fx.to_vector(), fy = atoms.fy.to_vector(), fz = atoms.fz.to_vector();
    const std::size_t n = fx.size();
    double max_force = 0, power = 0, norm2 = 0;
    for (std::size_t i = 0; i < n; ++i) {
      max_force = std::max({max_force, std::abs(fx[i]), std::abs(fy[i]), std::abs(fz[i])});
      power += v[i] * fx[i] + v[n + i] * fy[i] + v[2 * n + i] * fz[i];
      norm2 += fx[i] * fx[i] + fy[i] * fy[i] + fz[i] * fz[i];
    }
    test::MaxError d("FIRE's sums after " + std::to_string(steps) + " steps on " + backend_name(b) +
                     ", relative to each sum");
    d.add(got.max_force / max_force, 1.0);
    d.add(got.power / std::abs(power), power / std::abs(power));
    d.add(got.force_norm2 / norm2, 1.0);
    EXPECT_GT(std::abs(power), 0.0);
    EXPECT_TRUE(d.within(5e-14));  // measured 7.8e-16 on the CPU
    return fire.result();
  };
  std::vector<double> x1, x2;
  const md::MinimizeResult r1 = run(40, &x1);
  EXPECT_FALSE(r1.converged);
  if (b != Backend::Cuda) return;
  const md::MinimizeResult r2 = run(40, &x2);
  EXPECT_EQ(x1, x2) << "two deterministic GPU relaxations";
  EXPECT_EQ(r1.energy, r2.energy);
}

QUASAR_INSTANTIATE_BACKENDS(FireSums);

}  // namespace
}  // namespace quasar
