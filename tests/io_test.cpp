// Readers and writers: round trips, files as ASE and LAMMPS write them, and malformed input.
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "quasar/core/error.hpp"
#include "quasar/io/extxyz.hpp"
#include "quasar/io/lammps_data.hpp"
#include "quasar/io/lammps_dump.hpp"
#include "quasar/io/lattice.hpp"
#include "quasar/io/read.hpp"
#include "quasar/potential/pair/eam_file.hpp"
#include "test_systems.hpp"

namespace quasar {
namespace {

class Files : public testing::Test {
 protected:
  void SetUp() override { dir_ = test::scratch_dir("io"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const auto p = (dir_ / name).string();
    std::ofstream(p) << text;
    return p;
  }
  // The error message of f(), which must throw an InputError.
  template <class F>
  std::string error_of(F f) {
    try {
      f();
    } catch (const InputError& e) {
      return e.what();
    }
    ADD_FAILURE() << "no InputError thrown";
    return {};
  }
  std::filesystem::path dir_;
};

TEST_F(Files, ExtxyzAsAseWritesIt) {
  // The header layout ASE's write_extxyz produces (with calculator results).
  const std::string p = write("ase.xyz",
      "2\n"
      "Lattice=\"4.0 0.0 0.0 0.5 4.0 0.0 0.0 0.0 5.0\" Properties=species:S:1:pos:R:3:forces:R:3 "
      "energy=-7.25 stress=\"0.01 0.0 0.0 0.0 0.02 0.0 0.0 0.0 0.03\" free_energy=-7.25 pbc=\"T T F\"\n"
      "Cu       0.00000000       0.00000000       0.00000000       0.10000000       0.00000000      -0.20000000\n"
      "Ni       1.80000000       1.90000000       2.00000000      -0.10000000       0.00000000       0.20000000\n");
  const auto frames = io::read_extxyz(p);
  ASSERT_EQ(frames.size(), 1u);
  const Structure& s = frames[0];
  EXPECT_EQ(s.size(), 2u);
  EXPECT_EQ(s.type_names, (std::vector<std::string>{"Cu", "Ni"}));
  EXPECT_DOUBLE_EQ(s.type_masses[0], 63.546);
  EXPECT_DOUBLE_EQ(s.box.h(1, 0), 0.5);
  EXPECT_EQ(s.box.periodic[2], 0);
  EXPECT_DOUBLE_EQ(*s.energy, -7.25);
  EXPECT_DOUBLE_EQ(s.forces[1].z, 0.2);
  // virial = -stress * volume
  EXPECT_NEAR((*s.virial)(2, 2), -0.03 * 80.0, 1e-14);  // measured 0 (it rounds at 4e-16)
  EXPECT_EQ(s.info.at("free_energy"), "-7.25");
}

TEST_F(Files, ExtxyzRoundTripIsExact) {
  Structure s = test::distorted_fcc({2, 2, 2}, 3.6, 0.1, 0.1, 5, {"Cu", "Ni"});
  s.velocities.assign(s.size(), Vec3{0.1234567890123456789, -2.0 / 3.0, 1e-17});
  const auto p = (dir_ / "rt.xyz").string();
  io::write_extxyz(p, {s, s});
  const auto back = io::read_extxyz(p);
  ASSERT_EQ(back.size(), 2u);
  for (std::size_t i = 0; i < s.size(); ++i) {
    EXPECT_EQ(back[1].positions[i].x, s.positions[i].x);
    EXPECT_EQ(back[1].velocities[i].y, s.velocities[i].y);
    EXPECT_EQ(back[1].type_names[back[1].types[i]], s.type_names[s.types[i]]);
  }
  for (int k = 0; k < 9; ++k) EXPECT_EQ(back[0].box.h(k / 3, k % 3), s.box.h(k / 3, k % 3));
}

TEST_F(Files, ExtxyzErrorsNameTheLine) {
  EXPECT_NE(error_of([&] { io::read_extxyz(write("a.xyz", "3\nProperties=species:S:1:pos:R:3\nH 0 0 0\nH 1 0 0\n")); })
                .find("a.xyz:4: file ends after 2 of 3 atom lines"), std::string::npos);
  EXPECT_NE(error_of([&] { io::read_extxyz(write("b.xyz", "1\nLattice=\"1 0 0 0 1 0 0 0 1\"\nH 0 zero 0\n")); })
                .find("b.xyz:3: expected a number for pos, found 'zero'"), std::string::npos);
  EXPECT_NE(error_of([&] { io::read_extxyz(write("c.xyz", "x\n\n")); }).find("c.xyz:1: expected an integer"),
            std::string::npos);
  EXPECT_NE(error_of([&] { io::read_extxyz(write("d.xyz", "1\nLattice=\"1 0 0 0 1\"\nH 0 0 0\n")); })
                .find("d.xyz:2: Lattice needs 9 numbers"), std::string::npos);
  EXPECT_NE(error_of([&] { io::read_extxyz(write("e.xyz", "1\nProperties=species:S:1:pos:R:3\nH 0 0\n")); })
                .find("e.xyz:3: expected 4 columns"), std::string::npos);
}

TEST_F(Files, LammpsDataChargeStyleWithVelocitiesAndImages) {
  const std::string p = write("q.data",
      "charge data\n\n2 atoms\n2 atom types\n0 10 xlo xhi\n0 11 ylo yhi\n0 12 zlo zhi\n1 0 0 xy xz yz\n\n"
      "Masses\n\n1 22.99\n2 35.45\n\nAtoms # charge\n\n"
      "2 2 -1.0 1 2 3 1 0 0\n1 1 1.0 4 5 6\n\nVelocities\n\n1 0.1 0.2 0.3\n2 -1 -2 -3\n");
  const Structure s = io::read_lammps_data(p);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s.ids[0], 2);
  EXPECT_DOUBLE_EQ(s.charges[0], -1.0);
  EXPECT_DOUBLE_EQ(s.positions[0].x, 11.0) << "image flag 1 along a adds a = (10, 0, 0)";
  EXPECT_DOUBLE_EQ(s.velocities[0].z, -3.0);
  EXPECT_DOUBLE_EQ(s.velocities[1].y, 0.2);
  EXPECT_DOUBLE_EQ(s.type_masses[1], 35.45);
  EXPECT_DOUBLE_EQ(s.box.h(1, 0), 1.0);
}

TEST_F(Files, LammpsDataRoundTripAndErrors) {
  const Structure s = test::distorted_fcc({2, 2, 2}, 3.6, 0.1, 0.1, 6, {"Cu", "Ni"});
  const auto p = (dir_ / "rt.data").string();
  io::write_lammps_data(p, s);
  const Structure back = io::read_lammps_data(p);
  for (std::size_t i = 0; i < s.size(); ++i) EXPECT_EQ(back.positions[i].y, s.positions[i].y);
  const std::string head = "t\n\n2 atoms\n1 atom types\n0 5 xlo xhi\n0 5 ylo yhi\n0 5 zlo zhi\n\nMasses\n\n1 1.0\n\n";
  EXPECT_NE(error_of([&] { io::read_lammps_data(write("e1.data", head + "Atoms # atomic\n\n1 1 0 0 0\n")); })
                .find("e1.data:15: file ends inside the Atoms section (1 of 2 lines read)"), std::string::npos);
  EXPECT_NE(error_of([&] { io::read_lammps_data(write("e2.data", head + "Atoms # atomic\n\n1 3 0 0 0\n2 1 1 1 1\n")); })
                .find("e2.data:15: expected the atom type between 1 and 1, found 3"), std::string::npos);
  EXPECT_NE(error_of([&] { io::read_lammps_data(write("e3.data", head + "Atoms # sphere\n\n1 1 0 0 0\n2 1 1 1 1\n")); })
                .find("e3.data:13: atom style 'sphere' is not supported"), std::string::npos);
  EXPECT_NE(error_of([&] { io::read_lammps_data(write("e4.data", "t\n\n2 atoms\n1 atom types\n0 5 xlo xhi\n")); })
                .find("lacks one of"), std::string::npos);
}

TEST_F(Files, LammpsDumpHeaderForATiltedCell) {
  const Structure s = test::distorted_fcc({1, 1, 1}, 4.0, 0.25, 0.0, 7);
  std::ostringstream out;
  io::append_lammps_dump(out, s, 42);
  const std::string text = out.str();
  EXPECT_NE(text.find("ITEM: TIMESTEP\n42\nITEM: NUMBER OF ATOMS\n4\n"), std::string::npos);
  EXPECT_NE(text.find("ITEM: BOX BOUNDS xy xz yz pp pp pp\n"), std::string::npos);
  // xy = 1, xz = -0.5: the x bounds of the bounding box are 0 + min(0,1,-0.5,0.5) and 4 + max(...).
  EXPECT_NE(text.find("\n-0.5 5 1\n"), std::string::npos);
  EXPECT_NE(text.find("ITEM: ATOMS id type element x y z\n1 1 Cu "), std::string::npos) << text;
}

// Runs Debian's lmp on `input` in `dir`; false (the log reported as a failure) when it fails.
bool run_lmp(const std::filesystem::path& dir, const std::string& input) {
  std::ofstream(dir / "in.lmp") << input;
  const std::string cmd = "cd " + dir.string() + " && OMP_NUM_THREADS=1 " + test::lammps_executable() +
                          " -in in.lmp -log log.lammps -screen none > stdout.txt 2>&1";
  if (std::system(cmd.c_str()) == 0) return true;
  std::ifstream log(dir / "log.lammps");
  std::stringstream ss;
  ss << log.rdbuf();
  ADD_FAILURE() << "LAMMPS failed; log:\n" << ss.str();
  return false;
}

// A small molecular system in a tilted box, given to LAMMPS atom by atom: what its files must give back.
const std::string kMolecule = R"(units metal
atom_style full
boundary p p p
region box prism 0 20 0 18 0 16 2.0 -1.5 1.0 units box
create_box 3 box bond/types 2 angle/types 1 dihedral/types 1 improper/types 1 extra/bond/per/atom 4 &
  extra/angle/per/atom 6 extra/dihedral/per/atom 6 extra/improper/per/atom 3 extra/special/per/atom 10
mass 1 12.011
mass 2 15.999
mass 3 1.008
create_atoms 1 single 5.0 5.0 5.0 units box
create_atoms 1 single 6.5 5.0 5.0 units box
create_atoms 2 single 7.2 6.2 5.0 units box
create_atoms 3 single 4.4 4.1 5.3 units box
create_atoms 3 single 19.5 17.0 15.2 units box
set atom 5 image 1 -1 0
set atom 1 vx 0.5 vy -0.25 vz 1.5
set atom 3 vx -2 vy 0.125 vz 0
set atom 4 vx 0 vy 0 vz -0.75
set atom 1 charge -0.5
set atom 2 charge 0.25
set atom 3 charge 0.5
set atom 4 charge -0.25
pair_style lj/cut/coul/cut 8.0
pair_coeff 1 1 0.01 3.4
pair_coeff 2 2 0.015 3.1
pair_coeff 3 3 0.002 2.5
)";
const std::string kHarmonicTopology = R"(bond_style harmonic
bond_coeff 1 30 1.5
bond_coeff 2 40 1.2
angle_style harmonic
angle_coeff 1 5 110
dihedral_style harmonic
dihedral_coeff 1 0.1 1 2
improper_style harmonic
improper_coeff 1 1 0
)";
const std::string kClass2Topology = R"(bond_style class2
bond_coeff * 1.5 30 -60 70
angle_style class2
angle_coeff 1 110 5 -1 0.5
angle_coeff 1 bb 1 1.5 1.2
angle_coeff 1 ba 2 2 1.5 1.2
dihedral_style class2
dihedral_coeff 1 0.1 0 0.1 0 0.1 0
dihedral_coeff 1 mbt 0.1 0.2 0.3 1.3
dihedral_coeff 1 ebt 0.1 0.2 0.3 0.4 0.5 0.6 1.5 1.2
dihedral_coeff 1 at 0.1 0.2 0.3 0.4 0.5 0.6 110 110
dihedral_coeff 1 aat 0.1 110 110
dihedral_coeff 1 bb13 0.1 1.5 1.2
improper_style class2
improper_coeff 1 1 0
improper_coeff 1 aa 0.1 0.2 0.3 110 110 110
)";
const std::string kBonds = R"(create_bonds single/bond 1 1 2
create_bonds single/bond 2 2 3
create_bonds single/bond 1 4 1
create_bonds single/angle 1 4 1 2
create_bonds single/angle 1 1 2 3
create_bonds single/dihedral 1 4 1 2 3
create_bonds single/improper 1 1 2 3 4
)";

// What kMolecule gave LAMMPS: positions (atom 5 unwrapped by its image flags 1 -1 0, that is a - b),
// velocities, charges, masses and the cell.
void expect_molecule(const Structure& s, double position_tolerance, bool velocities = true) {
  const std::vector<Vec3> r = {{5, 5, 5}, {6.5, 5, 5}, {7.2, 6.2, 5}, {4.4, 4.1, 5.3}, {19.5 + 20 - 2, 17 - 18, 15.2}};
  const std::vector<Vec3> v = {{0.5, -0.25, 1.5}, {0, 0, 0}, {-2, 0.125, 0}, {0, 0, -0.75}, {0, 0, 0}};
  ASSERT_EQ(s.size(), 5u);
  for (std::size_t i = 0; i < 5; ++i) {
    if (!s.ids.empty()) {
      EXPECT_EQ(s.ids[i], static_cast<long>(i + 1));
    }
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(s.positions[i][k], r[i][k], position_tolerance) << "atom " << i + 1;
    if (velocities) {
      for (int k = 0; k < 3; ++k) EXPECT_EQ(s.velocities[i][k], v[i][k]) << "atom " << i + 1;
    }
  }
  EXPECT_EQ(s.type_names[s.types[2]], "2");
  EXPECT_EQ(s.type_names[s.types[4]], "3");
  const Mat3 h{{{20, 0, 0}, {2, 18, 0}, {-1.5, 1, 16}}};
  for (int k = 0; k < 9; ++k) EXPECT_EQ(s.box.h(k / 3, k % 3), h(k / 3, k % 3));
  EXPECT_EQ(s.box.origin.x, 0.0);
}

TEST_F(Files, LammpsDataWrittenByLammps) {
  if (test::lammps_executable().empty()) GTEST_SKIP() << "Debian's LAMMPS (lmp) is not installed";
  ASSERT_TRUE(run_lmp(dir_, kMolecule + kHarmonicTopology + kBonds +
                                "write_data full.data\nwrite_data full-ij.data pair ij\n" + kClass2Topology + "write_data class2.data\n"));
  for (const char* name : {"full.data", "full-ij.data", "class2.data"}) {
    SCOPED_TRACE(name);
    const Structure s = io::read_lammps_data((dir_ / name).string());
    expect_molecule(s, 1e-13);  // LAMMPS keeps positions through fractional coordinates: 1.1e-14 off (measured)
    EXPECT_EQ(s.charges, (std::vector<double>{-0.5, 0.25, 0.5, -0.25, 0}));
    EXPECT_EQ(s.type_masses, (std::vector<double>{12.011, 15.999, 1.008}));
    // The topology of kBonds (input indices are ids - 1), in whatever order LAMMPS writes it.
    const Topology& t = s.topology;
    auto entries = [](const BondedSet& b, bool symmetric) {
      std::vector<std::vector<int>> e;
      for (std::size_t k = 0; k < b.size(); ++k) {
        std::vector<int> row(b.entry(k), b.entry(k) + b.arity);
        if (symmetric && row.front() > row.back()) std::reverse(row.begin(), row.end());  // i-j-k is k-j-i
        row.insert(row.begin(), b.types[k]);
        e.push_back(row);
      }
      std::sort(e.begin(), e.end());
      return e;
    };
    using Rows = std::vector<std::vector<int>>;
    EXPECT_EQ(entries(t.bonds, true), (Rows{{0, 0, 1}, {0, 0, 3}, {1, 1, 2}}));
    EXPECT_EQ(entries(t.angles, true), (Rows{{0, 0, 1, 2}, {0, 1, 0, 3}}));
    EXPECT_EQ(entries(t.dihedrals, true), (Rows{{0, 2, 1, 0, 3}}));
    EXPECT_EQ(entries(t.impropers, false), (Rows{{0, 0, 1, 2, 3}}));
    EXPECT_EQ(t.bonds.num_types, 2);
    EXPECT_EQ(t.molecules, (std::vector<long>(5, 0)));
    using Coeffs = std::vector<std::vector<double>>;
    if (std::string(name) == "class2.data") {
      EXPECT_EQ(t.bonds.style, "class2");
      EXPECT_EQ(t.bonds.coeffs, (Coeffs{{1.5, 30, -60, 70}, {1.5, 30, -60, 70}}));
      EXPECT_EQ(t.angles.coeffs, (Coeffs{{110, 5, -1, 0.5}}));
      EXPECT_EQ(t.impropers.coeffs, (Coeffs{{1, 0}}));
    } else {
      for (int k = 0; k < 4; ++k) EXPECT_EQ(t.set(k).style, "harmonic");
      EXPECT_EQ(t.bonds.coeffs, (Coeffs{{30, 1.5}, {40, 1.2}}));
      EXPECT_EQ(t.angles.coeffs, (Coeffs{{5, 110}}));
      EXPECT_EQ(t.dihedrals.coeffs, (Coeffs{{0.1, 1, 2}}));
      EXPECT_EQ(t.impropers.coeffs, (Coeffs{{1, 0}}));
    }
  }
  // The style argument overrides the comment.
  EXPECT_EQ(io::read_lammps_data((dir_ / "full.data").string(), "full").size(), 5u);
  EXPECT_NE(error_of([&] { io::read_lammps_data((dir_ / "full.data").string(), "molecular"); })
                .find("expected 6 or 9 values for atom style molecular, found 10"), std::string::npos);
}

// The topology and everything else written and read back unchanged, in every style that holds it;
// styles that cannot hold it refuse.
TEST_F(Files, LammpsDataTopologyRoundTripIsExact) {
  Structure s = test::polymer_melt(4, 7, 0.3, 17);
  s.charges.assign(s.size(), 0.0);
  for (std::size_t i = 0; i < s.size(); ++i) s.charges[i] = 0.1 * static_cast<double>(i % 5) - 0.2;
  s.velocities.assign(s.size(), Vec3{0.1234567890123456789, -2.0 / 3.0, 1e-17});
  s.ids.clear();
  for (std::size_t i = 0; i < s.size(); ++i) s.ids.push_back(static_cast<long>(3 * i + 7));
  Topology& t = s.topology;
  t.dihedrals.num_types = 1;
  t.dihedrals.add({0, 1, 2, 3}, 0);
  t.dihedrals.add({8, 9, 10, 11}, 0);
  t.dihedrals.style = "charmm";
  t.dihedrals.coeffs = {{0.2, 3, 180, 0.5}};
  t.impropers.num_types = 2;  // no coefficients
  t.impropers.add({9, 8, 10, 11}, 1);
  for (const char* style : {"full", "molecular"}) {
    SCOPED_TRACE(style);
    const auto p = (dir_ / (std::string(style) + ".data")).string();
    io::write_lammps_data(p, s, style);
    Structure back = io::read_lammps_data(p);
    EXPECT_EQ(back.topology.file, p);
    EXPECT_GT(back.topology.bonds.coeffs_line, 0);
    back.topology.file.clear();
    for (int k = 0; k < 4; ++k) back.topology.set(k).coeffs_line = 0;
    EXPECT_TRUE(back.topology == s.topology);
    EXPECT_EQ(back.ids, s.ids);
    EXPECT_EQ(back.types, s.types);
    EXPECT_EQ(back.type_names, s.type_names);
    EXPECT_EQ(back.type_masses, s.type_masses);
    for (std::size_t i = 0; i < s.size(); ++i)
      for (int k = 0; k < 3; ++k) {
        ASSERT_EQ(back.positions[i][k], s.positions[i][k]);
        ASSERT_EQ(back.velocities[i][k], s.velocities[i][k]);
      }
    if (std::string(style) == "full") EXPECT_EQ(back.charges, s.charges);
    else EXPECT_TRUE(back.charges.empty());
  }
  // Bonds and angles alone: atom style angle; bonds alone: style bond.
  Structure angles = s;
  angles.topology.dihedrals = BondedSet(4);
  angles.topology.impropers = BondedSet(4);
  const auto pa = (dir_ / "angle.data").string();
  io::write_lammps_data(pa, angles, "angle");
  Structure back = io::read_lammps_data(pa);
  back.topology.file.clear();
  for (int k = 0; k < 4; ++k) back.topology.set(k).coeffs_line = 0;
  EXPECT_TRUE(back.topology == angles.topology);
  auto error_of_writing = [&](const Structure& x, const std::string& style) {
    try {
      io::write_lammps_data((dir_ / "refused.data").string(), x, style);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of_writing(angles, "bond").find("atom style bond holds no angles, and the structure has 20"),
            std::string::npos) << error_of_writing(angles, "bond");
  EXPECT_NE(error_of_writing(s, "angle").find("atom style angle holds no dihedrals"), std::string::npos);
  EXPECT_NE(error_of_writing(s, "atomic").find("atom style atomic holds no bonds"), std::string::npos);
  Structure broken = s;
  broken.topology.bonds.atoms[3] = static_cast<int>(s.size());
  EXPECT_NE(error_of_writing(broken, "full").find("atom index 28 of bond 2 is out of range (28 atoms)"), std::string::npos)
      << error_of_writing(broken, "full");
}

TEST_F(Files, LammpsDataNamesAndSections) {
  // Types named by Masses comments (else their number), atom style bond, topology checked.
  const std::string p = write("named.data",
      "title\n\n3 atoms\n3 atom types\n1 bonds\n1 bond types\n2 extra bond per atom\n"
      "0 10 xlo xhi\n0 10 ylo yhi\n0 10 zlo zhi\n\n"
      "Masses\n\n1 15.999 # O\n2 1.008 # H\n3 2.5\n\n"
      "Pair Coeffs # lj/cut\n\n1 0.1 3\n2 0.1 2\n3 0.1 1\n\n"
      "Atoms # bond\n\n1 7 1 0 0 0\n2 7 2 1 0 0\n3 8 3 5 5 5\n\n"
      "Bonds\n\n1 1 1 2\n");
  const Structure s = io::read_lammps_data(p);
  EXPECT_EQ(s.type_names, (std::vector<std::string>{"O", "H", "3"}));
  EXPECT_EQ(s.type_masses, (std::vector<double>{15.999, 1.008, 2.5}));
  EXPECT_TRUE(s.charges.empty());
  EXPECT_EQ(s.positions[2].z, 5.0);
  // The writer names types the same way, so names survive a round trip.
  io::write_lammps_data((dir_ / "back.data").string(), s, "bond");  // a style that holds its bond
  EXPECT_EQ(io::read_lammps_data((dir_ / "back.data").string()).type_names, s.type_names);
}

TEST_F(Files, LammpsDumpRoundTrip) {
  Structure s = test::distorted_fcc({2, 2, 2}, 3.6, 0.3, 0.1, 8, {"Cu", "Ni"});
  s.velocities.assign(s.size(), Vec3{0.1234567890123456789, -2.0 / 3.0, 1e-17});
  s.forces.assign(s.size(), Vec3{1.0 / 3.0, 0, -7});
  s.box.periodic[2] = 0;
  std::ostringstream out;
  io::append_lammps_dump(out, s, 0);
  std::reverse(s.positions.begin(), s.positions.end());  // a second frame, with other positions
  io::append_lammps_dump(out, s, 100);
  const std::string path = write("rt.lammpstrj", out.str());
  const auto frames = io::read_frames(path);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[1].info.at("step"), "100");
  for (const Structure& f : frames) {
    EXPECT_EQ(f.box.periodic[2], 0);
    EXPECT_EQ(f.box.periodic[0], 1);
    // The tilts come back through the bounding box: 8.9e-16 off (measured).
    for (int k = 0; k < 9; ++k) EXPECT_NEAR(f.box.h(k / 3, k % 3), s.box.h(k / 3, k % 3), 1e-14);
    for (std::size_t i = 0; i < s.size(); ++i) {
      EXPECT_EQ(f.type_names[f.types[i]], s.type_names[s.types[i]]);
      EXPECT_EQ(f.velocities[i].x, s.velocities[i].x);
      EXPECT_EQ(f.forces[i].z, s.forces[i].z);
    }
  }
  for (std::size_t i = 0; i < s.size(); ++i) EXPECT_EQ(frames[1].positions[i].y, s.positions[i].y);
  EXPECT_DOUBLE_EQ(frames[0].type_masses[0], 63.546);
}

TEST_F(Files, LammpsDumpsWrittenByLammps) {
  if (test::lammps_executable().empty()) GTEST_SKIP() << "Debian's LAMMPS (lmp) is not installed";
  ASSERT_TRUE(run_lmp(dir_, kMolecule + R"(dump d1 all custom 5 unwrapped.dump id type xu yu zu vx vy vz fx fy fz q
dump_modify d1 format float %.17g
dump d2 all custom 5 scaled.lammpstrj id type xs ys zs ix iy iz
dump d3 all atom 5 atom.dump
dump d4 all custom 5 elements.dump element x y z mass
dump_modify d4 element C O H units yes time yes format float %.17g
run 0
reset_timestep 5
run 0
)"));
  const auto unwrapped = io::read_frames((dir_ / "unwrapped.dump").string());
  ASSERT_EQ(unwrapped.size(), 2u);
  EXPECT_EQ(unwrapped[0].info.at("step"), "0");
  EXPECT_EQ(unwrapped[1].info.at("step"), "5");
  for (const auto& f : unwrapped) {
    expect_molecule(f, 1e-13);  // 7.1e-15 off (measured)
    EXPECT_EQ(f.charges, (std::vector<double>{-0.5, 0.25, 0.5, -0.25, 0}));
    EXPECT_EQ(f.forces.size(), 5u);
  }
  // Scaled coordinates with six digits (LAMMPS's default format): 6.0e-6 Å off (measured), 1e-4 allowed.
  for (const char* name : {"scaled.lammpstrj", "atom.dump"}) {
    SCOPED_TRACE(name);
    const auto frames = io::read_frames((dir_ / name).string());
    ASSERT_EQ(frames.size(), 2u);
    if (std::string(name) == "scaled.lammpstrj") expect_molecule(frames[1], 1e-4, false);
    else EXPECT_NEAR(frames[0].positions[4].x, 19.5, 1e-4) << "dump atom has no image flags: wrapped";
  }
  // Element names, no ids (file order), the mass column, UNITS and TIME items.
  const auto named = io::read_frames((dir_ / "elements.dump").string());
  ASSERT_EQ(named.size(), 2u);
  EXPECT_EQ(named[0].type_names, (std::vector<std::string>{"C", "O", "H"}));
  EXPECT_EQ(named[0].type_masses, (std::vector<double>{12.011, 15.999, 1.008}));
  EXPECT_NEAR(named[0].positions[3].y, 4.1, 1e-13);
  // Numbered types named by a type map.
  const auto mapped = io::read_frames((dir_ / "unwrapped.dump").string(), "auto", {"C", "O", "H"});
  EXPECT_EQ(mapped[0].type_names[mapped[0].types[2]], "O");
}

TEST_F(Files, MalformedEamFiles) {
  const std::string f = test::lammps_potential("Cu_u3.eam");
  if (f.empty()) return test::missing(test::Dependency::LammpsData, "lammps-data's Cu_u3.eam is not installed");
  std::ifstream in(f);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  auto variant = [&](const std::string& name, std::size_t keep, const std::string& replace_line3) {
    std::string text;
    for (std::size_t i = 0; i < std::min(keep, lines.size()); ++i) text += (i == 2 && !replace_line3.empty() ? replace_line3 : lines[i]) + "\n";
    return write(name, text);
  };
  EXPECT_NE(error_of([&] { read_eam_funcfl(variant("t.eam", 50, "")); }).find("t.eam:50: file ends before F(rho)"),
            std::string::npos);
  EXPECT_NE(error_of([&] { read_eam_funcfl(variant("n.eam", lines.size(), "500 x 500 0.01 4.95")); })
                .find("n.eam:3: expected a number for drho, found 'x'"), std::string::npos);
  EXPECT_NE(error_of([&] { read_eam_funcfl(variant("c.eam", lines.size(), "500 5e-4 500 0.01 4.95 7")); })
                .find("c.eam:3: unexpected extra value '7'"), std::string::npos);
  EXPECT_NE(error_of([&] { read_eam_setfl(write("s.eam.alloy", "a\nb\nc\n1 Cu\n3 0.1 3 0.1 2.0\n")); })
                .find("s.eam.alloy:5: the tables need at least 5 points"), std::string::npos);
}

TEST_F(Files, AtomicWriteLeavesNoPartialFile) {
  const auto p = (dir_ / "out.txt").string();
  io::write_file_atomically(p, [](std::ostream& o) { o << "first"; });
  EXPECT_THROW(io::write_file_atomically(p, [](std::ostream&) { throw Error("interrupted"); }), Error);
  std::ifstream in(p);
  std::string text;
  in >> text;
  EXPECT_EQ(text, "first") << "the old file survives a failed write";
}

}  // namespace
}  // namespace quasar
