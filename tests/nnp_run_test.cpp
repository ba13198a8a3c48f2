// Behler-Parrinello potentials in `quasar run` (potential.type = "nnp"): NVE of n2p2's Cu2S example
// from 300 K conserves the energy as velocity Verlet does, its error shrinking with the square of the
// timestep, and starts from n2p2's own energy (expected.txt).
#include <cmath>
#include <fstream>
#include <sstream>

#include "quasar/io/extxyz.hpp"
#include "quasar/io/n2p2_data.hpp"
#include "support.hpp"

namespace quasar {
namespace {

struct Thermo {
  std::vector<double> pe, conserved;  // eV, one row per step
};

// `quasar run` of the Cu2S structure in `dir` at timestep dt_fs for `femtoseconds`, thermo every step.
Thermo run_nve(const std::filesystem::path& dir, const std::string& model, double dt_fs, int femtoseconds) {
  const std::string tag = std::to_string(static_cast<int>(dt_fs * 10));
  std::ofstream(dir / ("nve" + tag + ".toml"))
      << "device = \"cpu\"\n[structure]\nfile = \"cu2s.xyz\"\n[potential]\ntype = \"nnp\"\nmodel = \"" << model
      << "\"\n[md]\nintegrator = \"nve\"\ntimestep_fs = " << dt_fs
      << "\nsteps = " << static_cast<long>(femtoseconds / dt_fs + 0.5)
      << "\ntemperature_K = 300\nseed = 7\n[output]\nthermo_every = 1\nthermo_csv = \"thermo" << tag
      << ".csv\"\nprogress = false\nthermo_screen = false\n[neighbor]\nskin = 1.0\n";
  const std::string cmd =
      "cd " + dir.string() + " && " + test::binary_path("quasar") + " run nve" + tag + ".toml > /dev/null";
  if (std::system(cmd.c_str()) != 0) throw Error("failed: " + cmd);
  std::ifstream csv(dir / ("thermo" + tag + ".csv"));
  std::string line;
  std::getline(csv, line);  // step,time_ps,temp_K,ke_eV,pe_eV,etot_eV,press_bar,vol_A3,conserved_eV
  Thermo t;
  while (std::getline(csv, line)) {
    std::vector<double> v;
    std::stringstream row(line);
    for (std::string cell; std::getline(row, cell, ',');) v.push_back(std::stod(cell));
    t.pe.push_back(v.at(4));
    t.conserved.push_back(v.at(8));
  }
  return t;
}

double largest_change(const std::vector<double>& e) {
  double worst = 0;
  for (double x : e) worst = std::max(worst, std::abs(x - e.front()));
  return worst;
}

TEST(NnpRun, NveConservesTheEnergyAsVelocityVerletDoes) {
  QUASAR_REQUIRE_FAMILY("nnp");
  const std::string model = test::shared_path("reference/n2p2/predict/Cu2S_PBE");
  if (model.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/n2p2 is not here");
  const auto dir = test::scratch_dir("nnp_run");
  io::write_extxyz((dir / "cu2s.xyz").string(), {io::read_n2p2_data(model + "/input.data").at(0)});
  // 24 fs of the 144 atoms from 300 K (5.5 eV kinetic) at 2 fs and at 1 fs: 36 steps, 3 s on one core.
  const Thermo coarse = run_nve(dir, model, 2.0, 24), fine = run_nve(dir, model, 1.0, 24);
  ASSERT_EQ(coarse.conserved.size(), 13u);
  ASSERT_EQ(fine.conserved.size(), 25u);

  // Step 0 is n2p2's structure: its energy is n2p2's (the CSV has 12 digits). Measured 4.4e-13.
  const double n2p2_energy = -5.7365603183874578E+02;  // expected.txt
  test::MaxError e0("potential energy at step 0 / n2p2's - 1");
  e0.add(coarse.pe.front() / n2p2_energy, 1.0);
  EXPECT_TRUE(e0.within(1e-11));

  // The potential energy moves by 2.4 eV while the total stays within a few meV: measured largest
  // |E(t) - E(0)| 5.9e-3 eV at 2 fs and 1.5e-3 eV at 1 fs, reached at the end (the drift of so short a
  // run is the offset of Verlet's shadow energy from the start).
  const double coarse_error = largest_change(coarse.conserved), fine_error = largest_change(fine.conserved);
  test::print_measured("potential energy range at 2 fs (eV)", largest_change(coarse.pe));
  test::print_measured("largest |E - E0| at 2 fs (eV)", coarse_error);
  test::print_measured("largest |E - E0| at 1 fs (eV)", fine_error);
  test::print_measured("E(end) - E0 at 2 fs (eV)", coarse.conserved.back() - coarse.conserved.front());
  test::print_measured("E(end) - E0 at 1 fs (eV)", fine.conserved.back() - fine.conserved.front());
  EXPECT_GT(largest_change(coarse.pe), 1.0);
  EXPECT_LT(coarse_error, 1e-2);
  EXPECT_LT(fine_error, 2.5e-3);
  EXPECT_LT(std::abs(fine.conserved.back() - fine.conserved.front()), 2.5e-3);
  // Forces that are the energy's gradient leave velocity Verlet an error of order dt^2: halving the
  // step divides it by 4 (measured 4.01). Forces off the gradient by a fraction of their size would
  // leave an error that does not shrink so.
  const double ratio = coarse_error / fine_error;
  test::print_measured("error at 2 fs / error at 1 fs", ratio);
  EXPECT_GT(ratio, 3.5);
  EXPECT_LT(ratio, 4.5);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace quasar
