// Short NVE trajectories against LAMMPS's (fix nve, same data file, velocities and timestep).
#include <cmath>

#include "lammps_runner.hpp"
#include "quasar/md/simulation.hpp"
#include "quasar/md/velocity.hpp"
#include "test_systems.hpp"

namespace quasar {
namespace {

class LammpsTrajectory : public testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (test::lammps_executable().empty())
      return test::missing(test::Dependency::Lammps, "Debian's LAMMPS (lmp) is not installed");
  }
  void compare(std::unique_ptr<Potential> pot, Structure s, const std::string& pair_commands, long steps) {
    md::assign_velocities(s, 600.0, 7);
    md::MdSettings st;
    st.init_velocities = false;
    st.integrator.kind = "nve";
    st.integrator.dt = 0.002;
    st.steps = steps;
    st.output.progress = false;
    st.output.thermo_every = steps;
    st.sort_every = 20;
    md::Simulation sim(s, std::move(pot), st, GetParam());
    sim.run();
    const md::Thermo t = sim.thermo();
    const Structure q = sim.atoms().to_structure();
    const auto l = test::run_lammps(s, pair_commands + "\nneighbor 1.0 bin\nneigh_modify every 1 delay 0 check yes\n"
                                        "timestep 0.002\nfix 1 all nve\nrun " + std::to_string(steps),
                                    "step pe ke", "x y z vx vy vz", "p p p", "lammps-nve");
    ASSERT_EQ(l.dump.size(), s.size());
    ASSERT_EQ(l.thermo.size(), 3u);
    double dx = 0, dv = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
      const Vec3 d = q.box.minimum_image(q.positions[i] - Vec3{l.dump[i][0], l.dump[i][1], l.dump[i][2]});
      dx = std::max(dx, std::sqrt(norm2(d)));
      dv = std::max(dv, std::sqrt(norm2(q.velocities[i] - Vec3{l.dump[i][3], l.dump[i][4], l.dump[i][5]})));
    }
    const double dpe = std::abs(t.potential - l.thermo[1]) / std::abs(l.thermo[1]);
    const double dke = std::abs(t.kinetic - l.thermo[2]) / std::abs(l.thermo[2]);
    std::printf("measured on %s after %ld steps: position %.2g Å, velocity %.2g Å/ps, pe %.2g and ke %.2g relative\n",
                backend_name(GetParam()), steps, dx, dv, dpe, dke);
    // Measured on the CPU: 1.4e-14 Å, 3.3e-13 Å/ps, 3.4e-15 and 1.7e-15 relative; on the H100: 1.4e-14
    // Å, 3.4e-13 Å/ps, 9.8e-15 and 2.2e-15 relative.
    EXPECT_LT(dx, 1e-12);
    EXPECT_LT(dv, 1e-11);
    EXPECT_LT(dpe, 1e-13);
    EXPECT_LT(dke, 1e-13);
  }
};

TEST_P(LammpsTrajectory, EamCopper) {
  const std::string f = test::lammps_potential("Cu_u3.eam");
  if (f.empty()) return test::missing(test::Dependency::LammpsData, "lammps-data's Cu_u3.eam is not installed");
  Structure s = test::distorted_fcc({4, 4, 4}, 3.615, 0.05, 0.05, 51);
  s.type_masses = {63.55};  // LAMMPS takes the mass from the funcfl file
  compare(test::copper_eam(), s, "pair_style eam\npair_coeff 1 1 " + f, 50);
}

TEST_P(LammpsTrajectory, LennardJonesArgon) {
  Structure s = test::distorted_fcc({4, 4, 4}, 5.3, 0.05, 0.05, 52, {"Ar"});
  s.type_masses = {39.948};
  compare(test::argon_lj(), s, "pair_style lj/cut 8.5\npair_coeff 1 1 0.0104 3.405\npair_modify shift yes", 50);
}

QUASAR_INSTANTIATE_BACKENDS(LammpsTrajectory);

}  // namespace
}  // namespace quasar
