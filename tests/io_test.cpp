// Readers and writers: round trips, files as ASE and LAMMPS write them, and malformed input.
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
                .find("e2.data:15: atom type 3 out of range 1..1"), std::string::npos);
  EXPECT_NE(error_of([&] { io::read_lammps_data(write("e3.data", head + "Atoms # full\n\n1 1 0 0 0\n2 1 1 1 1\n")); })
                .find("atom style 'full' is not supported"), std::string::npos);
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
  EXPECT_NE(text.find("ITEM: ATOMS id type x y z vx vy vz fx fy fz\n1 1 "), std::string::npos);
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
