// Models written by Quasar (model_to_dict): read back identically, and loaded by DeePMD-kit where
// it is installed (python3 with the deepmd package, or $QUASAR_PYTHON).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "quasar/io/deepmd_npy.hpp"
#include "quasar/io/extxyz.hpp"
#include "quasar/potential/dp/deep_potential.hpp"
#include "quasar/potential/dp/model_io.hpp"
#include "quasar/potential/evaluate.hpp"
#include "support.hpp"

namespace quasar {
namespace {

std::string python_with_deepmd() {
  const char* env = std::getenv("QUASAR_PYTHON");
  const std::string py = env ? env : "python3";
  return std::system((py + " -c 'import deepmd.infer' > /dev/null 2>&1").c_str()) == 0 ? py : "";
}

TEST(ModelWrite, RoundTripsThroughBothFormats) {
  const std::string src = test::shared_path("reference/deepmd/deeppot_sea.yaml");
  const std::string data = test::shared_path("reference/deepmd/water-data/data_0");
  if (src.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/deepmd is not here");
  dp::DpModel m = dp::read_dp_model(src);
  m.descriptor.excluded[1] = m.descriptor.excluded[2] = 1;  // exercise every key the writer knows
  m.out_bias = {0.25, -0.5};
  const Structure s = io::read_deepmd_frame(data, 0, 0);
  dp::DeepPotential ref(m);
  const Evaluation want = evaluate(ref, s, Backend::Cpu);
  const auto dir = test::scratch_dir("dp-write");
  for (const char* name : {"m.yaml", "m.dp"}) {
    const std::string path = (dir / name).string();
    dp::write_model_dict(path, dp::model_to_dict(m));
    dp::DeepPotential back = dp::DeepPotential::from_file(path);
    const Evaluation got = evaluate(back, s, Backend::Cpu);
    EXPECT_EQ(got.energy, want.energy) << name;
    for (std::size_t i = 0; i < s.size(); ++i) EXPECT_EQ(got.forces[i].x, want.forces[i].x) << name;
  }
}

// DeePMD-kit evaluates the model as Quasar writes it (energy and atomic energies of s), and its own
// rewrite of the file as .yaml reads back into the same model.
void expect_deepmd_kit_agrees_on(const std::string& py, const dp::DpModel& m, const Structure& s,
                                 const std::string& name, const std::string& file) {
  const auto dir = test::scratch_dir("dp-write-" + name);
  const std::string model = (dir / file).string(), xyz = (dir / "s.xyz").string(), out = (dir / "e.txt").string();
  dp::write_model_dict(model, dp::model_to_dict(m));
  io::write_extxyz(xyz, {s});
  // DeePMD-kit's own evaluation of the file (its numpy backend reads .dp and .yaml; it has no
  // derivatives, so the energy and the atomic energies are compared).
  std::ofstream(dir / "eval.py") << R"(import sys, types
try:
    import mendeleev  # noqa: F401  (imported by DeePMD-kit for other models; may lack its own dependencies)
except ImportError:
    sys.modules["mendeleev"] = types.SimpleNamespace(element=None)
import numpy as np
from deepmd.infer import DeepPot
lines = open(sys.argv[2]).read().splitlines()
n = int(lines[0])
box = [float(x) for x in lines[1].split('Lattice="')[1].split('"')[0].split()]
names = [l.split()[0] for l in lines[2:2 + n]]
coord = np.array([[float(x) for x in l.split()[1:4]] for l in lines[2:2 + n]])
dp = DeepPot(sys.argv[1])
tmap = dp.get_type_map()
e, f, v, ae, av = dp.eval(coord.reshape(1, -1), np.array(box).reshape(1, 9), [tmap.index(x) for x in names], atomic=True)
with open(sys.argv[3], "w") as out:
    out.write("%.17g\n" % float(np.ravel(e)[0]))
    for x in np.ravel(ae):
        out.write("%.17g\n" % x)
# DeePMD-kit's own writer, for Quasar's reader: the same model as .yaml.
from deepmd.backend.backend import Backend
data = Backend.detect_backend_by_model(sys.argv[1])().serialize_hook(sys.argv[1])
Backend.detect_backend_by_model(sys.argv[4])().deserialize_hook(sys.argv[4], data)
)";
  const std::string back = (dir / "dpkit.yaml").string();
  const std::string cmd = py + " " + (dir / "eval.py").string() + " " + model + " " + xyz + " " + out + " " + back + " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream in(out);
  double e;
  in >> e;
  dp::DeepPotential q(m);
  const Evaluation want = evaluate(q, s, Backend::Cpu, true);
  // Measured 7.3e-12 eV (water: 192 atoms, -3e4 eV) and 9e-13 eV (silicon), atomic energies 2.8e-14 eV.
  const std::string what = name + " " + file + ", DeePMD-kit - Quasar: ";
  test::MaxError de(what + "energy (eV)"), dae(what + "atomic energies (eV)");
  de.add(e, want.energy);
  for (std::size_t i = 0; i < s.size(); ++i) {
    double ei;
    in >> ei;
    dae.add(ei, want.atom_energy[i]);
  }
  EXPECT_TRUE(de.within(1e-10));
  EXPECT_TRUE(dae.within(1e-12));
  dp::DeepPotential reread = dp::DeepPotential::from_file(back);
  EXPECT_NEAR(evaluate(reread, s, Backend::Cpu).energy, want.energy, 1e-10);  // measured 0
  std::filesystem::remove_all(dir);
}

void expect_deepmd_kit_agrees(const std::string& py, const dp::DpModel& m, const Structure& s, const std::string& name) {
  for (const char* file : {"q.dp", "q.yaml"}) {
    SCOPED_TRACE(file);
    expect_deepmd_kit_agrees_on(py, m, s, name, file);
  }
}

TEST(ModelWrite, DeePMDKitEvaluatesQuasarsFile) {
  const std::string src = test::shared_path("reference/deepmd/deeppot_sea.yaml");
  const std::string data = test::shared_path("reference/deepmd/water-data/data_0");
  if (src.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/deepmd is not here");
  const std::string py = python_with_deepmd();
  if (py.empty())
    return test::missing(test::Dependency::DeepmdKit,
                       "DeePMD-kit is not installed (pip install deepmd-kit, or set QUASAR_PYTHON)");
  dp::DpModel m = dp::read_dp_model(src);
  m.out_bias = {0.25, -0.5};
  expect_deepmd_kit_agrees(py, m, io::read_deepmd_frame(data, 0, 0), "water");
}

// A model Quasar trained: the silicon example's, on a distorted 64-atom crystal.
TEST(ModelWrite, DeePMDKitEvaluatesAModelQuasarTrained) {
  const std::string py = python_with_deepmd();
  if (py.empty())
    return test::missing(test::Dependency::DeepmdKit,
                       "DeePMD-kit is not installed (pip install deepmd-kit, or set QUASAR_PYTHON)");
  const dp::DpModel m = dp::read_dp_model(test::source_path("examples/silicon/model.dp"));
  Structure s;
  const double a = 5.38;
  s.box = Box::orthorhombic(2 * a, 2 * a, 2 * a);
  const int si = s.type_index("Si");
  const double basis[8][3] = {{0, 0, 0},         {0, .5, .5},       {.5, 0, .5},       {.5, .5, 0},
                              {.25, .25, .25},   {.25, .75, .75},   {.75, .25, .75},   {.75, .75, .25}};
  int k = 0;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      for (int l = 0; l < 2; ++l)
        for (const auto& b : basis) {
          const double wobble = 0.1 * std::sin(1.7 * ++k);
          s.positions.push_back(Vec3{(i + b[0]) * a + wobble, (j + b[1]) * a - 0.5 * wobble, (l + b[2]) * a + 0.3 * wobble});
          s.types.push_back(si);
        }
  expect_deepmd_kit_agrees(py, m, s, "silicon");
}

}  // namespace
}  // namespace quasar
