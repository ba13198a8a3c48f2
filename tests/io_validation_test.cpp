// Readers on bad input: every kind of mistake is an InputError that names the file, the line (or the
// key) and what was expected. Non-finite numbers, counts larger than the file can hold, values out
// of range, and cells that are no cells.
#include <cmath>
#include <fstream>
#include <functional>
#include <sstream>

#include "quasar/core/config.hpp"
#include "quasar/core/error.hpp"
#include "quasar/io/deepmd_npy.hpp"
#include "quasar/io/espresso.hpp"
#include "quasar/io/extxyz.hpp"
#include "quasar/io/lammps_data.hpp"
#include "quasar/io/lammps_dump.hpp"
#include "quasar/core/units.hpp"
#include "quasar/io/n2p2_data.hpp"
#include "quasar/io/read.hpp"
#include "support.hpp"

namespace quasar {
namespace {

using Reader = std::function<void(const std::string&)>;

class Validation : public testing::Test {
 protected:
  void SetUp() override { dir_ = test::scratch_dir("validation"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string put(const std::string& rel, const std::string& bytes) {
    const auto p = dir_ / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << bytes;
    return p.string();
  }
  // Each case: file contents and the part of the message after the path ("3: expected ...": line 3).
  void expect_errors(const Reader& read, const std::string& ext,
                     const std::vector<std::pair<std::string, std::string>>& cases) {
    for (std::size_t k = 0; k < cases.size(); ++k) {
      const std::string path = put("case" + std::to_string(k) + ext, cases[k].first);
      try {
        read(path);
        ADD_FAILURE() << "no error for case " << k << ":\n" << cases[k].first;
      } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find(path + ":" + cases[k].second), std::string::npos)
            << "case " << k << ": " << e.what();
      } catch (const std::exception& e) {
        ADD_FAILURE() << "case " << k << " threw something else than an InputError: " << e.what();
      }
    }
  }
  std::filesystem::path dir_;
};

TEST_F(Validation, ExtendedXyz) {
  const std::string head = "Properties=species:S:1:pos:R:3:forces:R:3 Lattice=\"5 0 0 0 5 0 0 0 5\"";
  expect_errors([](const std::string& p) { io::read_extxyz(p); }, ".xyz", {
      {"1\n" + head + "\nH nan 0 0 0 0 0\n", "3: expected a finite number for pos, found 'nan'"},
      {"1\n" + head + "\nH 0 0 -inf 0 0 0\n", "3: expected a finite number for pos, found '-inf'"},
      {"1\n" + head + "\nH 0 0 1e999 0 0 0\n", "3: expected a finite number for pos, found '1e999'"},
      {"1\n" + head + "\nH 0 0 0 0 infinity 0\n", "3: expected a finite number for forces, found 'infinity'"},
      {"1\n" + head + " energy=nan\nH 0 0 0 0 0 0\n", "2: expected a finite number for energy, found 'nan'"},
      {"1\nLattice=\"5 0 0 0 inf 0 0 0 5\"\nH 0 0 0\n", "2: expected a finite number for Lattice, found 'inf'"},
      {"1\nLattice=\"5 0 0 0 5 0 5 0 0\"\nH 0 0 0\n", "2: Lattice: cell matrix is singular"},
      {"1\nLattice=\"1e200 0 0 0 1e200 0 0 0 1e200\"\nH 0 0 0\n", "2: Lattice: cell matrix is singular or degenerate"},
      {"1\nLattice=\"5 0 0 0 5 0 0 0 5\" stress=\"1e307 0 0 0 0 0\"\nH 0 0 0\n", "3: the virial is not finite"},
      {"1\nLattice=\"5 0 0 0 5 0 0 0 5\" virial=\"1 2 3 4 5\"\nH 0 0 0\n", "2: virial needs 9 or 6 numbers, found 5"},
      {"99999999999\n\nH 0 0 0\n", "1: 99999999999 atoms cannot fit in this file"},
      {"-2\n\n", "1: expected a non-negative count for atoms, found -2"},
      {"1\nProperties=species:S:1:pos:R:18446744073709551614\nH 0 0 0\n", "2: values of Properties column pos '18446744073709551614' is out of range"},
      {"1\nProperties=species:S:1:pos:R:-3\nH 0 0 0\n", "2: expected a non-negative count for values of Properties column pos"},
      {"1\nProperties=species:S:1:pos:R:3:q:R:100000\nH 0 0 0\n", "2: 100000 values of Properties column q cannot fit"},
      {"1\nProperties=species:S:1:pos:R:2\nH 0 0\n", "2: Properties column pos must be R:3, found R:2"},
      {"1\nProperties=species:S:1:pos:R:3:pos:R:3\nH 0 0 0 0 0 0\n", "2: Properties column pos appears twice"},
      {"1\nProperties=species:S:1:pos:R:3:tag:I:1\nH 0 0 0 x\n", "3: expected an integer for tag, found 'x'"},
      {"1\nProperties=species:S:1:pos:R:3:magmom:R:1\nH 0 0 0 nan\n", "3: expected a finite number for magmom"},
      {"1\nProperties=species:S:1:pos:R:3:masses:R:1\nH 0 0 0 0\n", "3: expected a positive mass, found 0"},
      {"1\nLattice=\"5 0 0 0 5 0 0 0 5\" pbc=\"T T X\"\nH 0 0 0\n", "2: expected T or F for pbc, found 'X'"},
      {"1\npbc=\"T T T\"\nH 0 0 0\n", "2: pbc is periodic in some direction but there is no Lattice"},
      {"2\n\nH 1e308 0 0\nH -1e308 0 0\n", "4: the box around the atoms: cell matrix"},
  });
}

TEST_F(Validation, LammpsData) {
  const std::string head = "t\n\n2 atoms\n1 atom types\n0 5 xlo xhi\n0 5 ylo yhi\n0 5 zlo zhi\n\nMasses\n\n1 1.0\n\n";
  const std::string atoms = "Atoms # atomic\n\n1 1 0 0 0\n2 1 1 1 1\n";  // lines 13-16
  const std::string bonded = "t\n\n2 atoms\n1 atom types\n1 bonds\n1 bond types\n0 5 xlo xhi\n0 5 ylo yhi\n0 5 zlo zhi\n\n";
  expect_errors([](const std::string& p) { io::read_lammps_data(p); }, ".data", {
      {head + "Atoms # atomic\n\n1 1 0 nan 0\n2 1 1 1 1\n", "15: expected a finite number for y, found 'nan'"},
      {head + atoms + "\nVelocities\n\n1 0 0 inf\n2 0 0 0\n", "20: expected a finite number for vz, found 'inf'"},
      {"t\n\n99999999999 atoms\n", "3: 99999999999 atoms cannot fit in this file"},
      {"t\n\n-1 atoms\n", "3: expected a non-negative count for atoms, found -1"},
      {"t\n\n2 atoms\n4000000000 atom types\n", "4: 4000000000 atom types cannot fit in this file"},
      {"t\n\n2 atoms\n1 atom types\n5 0 xlo xhi\n", "5: xhi must be larger than xlo"},
      {"t\n\n2 atoms\n1 atom types\n0 5 xlo xhi\n0 5 ylo yhi\n0 5 zlo zhi\n1 atoms\n", "8: 'atoms' is given twice"},
      {"t\n\n2 atoms\n1 atom types\n2 ellipsoids\n", "5: ellipsoids are not supported"},
      {"t\n\n2 atoms\n1 atom types\n0 5 xlo xhi\nfoo bar\n", "6: unknown header line 'foo bar'"},
      {"t\n\n2 atoms\n1 atom types\n0 5 xlo xhi\n0 5 ylo yhi\n0 5 zlo zhi\n1 bonds\n\nAtoms\n", "10: the header gives bonds but no 'bond types'"},
      {head.substr(0, head.size() - 8) + "1 0\n\n" + atoms, "10: expected a positive mass, found 0"},
      {head + "Atoms # atomic\n\n1 1 0 0 0 0 0 3000000000\n2 1 1 1 1\n", "15: expected an image flag between"},
      {head + "Atoms # atomic\n\n1 1 0 0 0\n1 1 1 1 1\n", "16: atom id 1 appears twice"},
      {head + "Atoms # atomic\n\n0 1 0 0 0\n2 1 1 1 1\n", "15: expected the atom id between 1 and"},
      {head + atoms + "\nAtoms\n\n", "18: a second Atoms section (the first is on line 13)"},
      {head + atoms + "\nVelocities\n\n1 0 0 0\n", "20: file ends inside the Velocities section (1 of 2 lines read)"},
      {head + atoms + "\nVelocities\n\n1 0 0 0\n7 0 0 0\n", "21: velocity for unknown atom id 7"},
      {head + atoms + "\nfoo\n", "18: expected a section name, found 'foo'"},
      {head + atoms + "\nEllipsoids\n\n", "18: section 'Ellipsoids' is not supported"},
      {head + "Pair Coeffs\n\n2 1 1\n\n" + atoms, "15: expected a type between 1 and 1, found 2"},
      {head + "PairIJ Coeffs\n\nx 1 1 1\n\n" + atoms, "15: expected an integer for an atom type, found 'x'"},
      {"t\n\n2 atoms\n2 atom types\n0 5 xlo xhi\n0 5 ylo yhi\n0 5 zlo zhi\n\nMasses\n\n1 1\n1 2\n", "12: atom type 1 appears twice in the Masses section"},
      {bonded + "Bonds\n\n1 1 1 2\n\nAtoms\n\n1 1 0 0 0\n2 1 1 1 1\n", "11: the Bonds section must follow the Atoms section"},
      {bonded + "Atoms\n\n1 1 0 0 0\n2 1 1 1 1\n\nBonds\n\n1 2 1 2\n", "18: expected the type between 1 and 1, found 2"},
      {bonded + "Atoms\n\n1 1 0 0 0\n2 1 1 1 1\n\nBonds\n\n1 1 1 9\n", "18: unknown atom id 9"},
      {bonded + "Atoms\n\n1 1 0 0 0\n2 1 1 1 1\n\nBonds\n\n1 1 2 2\n", "18: atom id 2 appears twice in one line"},
      {bonded + "Atoms\n\n1 1 0 0 0\n2 1 1 1 1\n\nBonds\n\n1 1 1\n", "18: expected 'id type' and 2 atom ids"},
      {bonded + "Atoms\n\n1 1 0 0 0\n2 1 1 1 1\n", "14: the header announces bonds but there is no Bonds section"},
      {bonded + "Bond Coeffs # harmonic\n\n1 30 x\n", "13: expected a number for coefficient 2, found 'x'"},
      {bonded + "Bond Coeffs # harmonic\n\n1 inf 1\n", "13: expected a finite number for coefficient 1, found 'inf'"},
      {bonded + "Bond Coeffs # harmonic\n\n2 30 1\n", "13: expected a type between 1 and 1, found 2"},
      {bonded + "Angle Coeffs # harmonic\n\n1 30 1\n", "13: expected a section name, found '1 30 1'"},  // no angle types
  });
}

TEST_F(Validation, LammpsDump) {
  const std::string head = "ITEM: TIMESTEP\n0\nITEM: NUMBER OF ATOMS\n2\nITEM: BOX BOUNDS pp pp ff\n0 5\n0 5\n0 5\n";
  const std::string cols = "ITEM: ATOMS id type x y z fx fy fz\n";  // line 9
  const std::string row2 = "2 1 1 1 1 0 0 0\n";
  expect_errors([](const std::string& p) { io::read_lammps_dump(p, {"Ar"}); }, ".dump", {
      {head + cols + "1 1 0 nan 0 0 0 0\n" + row2, "10: expected a finite number for y, found 'nan'"},
      {head + cols + "1 1 0 0 0 0 0 -inf\n" + row2, "10: expected a finite number for fz, found '-inf'"},
      {head + cols + "1 1 0 0 0 0 0\n" + row2, "10: expected 8 values (the ATOMS columns), found 7"},
      {head + cols + "1 2 0 0 0 0 0 0\n" + row2, "10: expected the atom type between 1 and 1, found 2"},
      {head + cols + "2 1 0 0 0 0 0 0\n" + row2, "11: atom id 2 appears twice in the frame"},
      {head + cols + "1 1 0 0 0 0 0 0\n", "10: file ends after 1 of 2 atom lines"},
      {head + "ITEM: ATOMS id type x y fx fy fz\n", "9: the ATOMS columns have only part of x y z"},
      {head + "ITEM: ATOMS id type vx vy vz\n", "9: the ATOMS columns have no positions"},
      {head + "ITEM: ATOMS id x y z\n", "9: the ATOMS columns need type or element"},
      {head + "ITEM: ATOMS id id type x y z\n", "9: column id appears twice"},
      {"ITEM: TIMESTEP\n0\nITEM: NUMBER OF ATOMS\n99999999999\n", "4: 99999999999 atoms cannot fit in this file"},
      {"ITEM: TIMESTEP\n0\nITEM: NUMBER OF ATOMS\n-5\n", "4: expected a non-negative count for atoms, found -5"},
      {"ITEM: TIMESTEP\nx\n", "2: expected an integer for the timestep, found 'x'"},
      {"ITEM: NUMBER OF ATOMS\n2\n", "1: expected ITEM: TIMESTEP, found 'ITEM: NUMBER OF ATOMS'"},
      {"garbage\n", "1: expected an 'ITEM:' line, found 'garbage'"},
      {"ITEM: TIMESTEP\n0\nITEM: NUMBER OF ATOMS\n2\nITEM: BOX BOUNDS pp pq pp\n", "5: expected a boundary flag (pp, ff, fs, sm, ...), found 'pq'"},
      {"ITEM: TIMESTEP\n0\nITEM: NUMBER OF ATOMS\n2\nITEM: BOX BOUNDS pp pp\n", "5: expected three boundary flags"},
      {"ITEM: TIMESTEP\n0\nITEM: NUMBER OF ATOMS\n2\nITEM: BOX BOUNDS abc origin\n", "5: general triclinic boxes"},
      {"ITEM: TIMESTEP\n0\nITEM: NUMBER OF ATOMS\n2\nITEM: BOX BOUNDS pp pp pp\n0 5\n0 inf\n", "7: expected a finite number for yhi"},
      {"ITEM: TIMESTEP\n0\nITEM: NUMBER OF ATOMS\n2\nITEM: BOX BOUNDS pp pp pp\n0 5\n0 5 1\n", "7: expected 'lo hi' for y, found 3 values"},
      {"ITEM: TIMESTEP\n0\nITEM: NUMBER OF ATOMS\n2\nITEM: BOX BOUNDS pp pp pp\n0 5\n5 0\n0 5\n", "8: box bounds must have lo < hi"},
      {"ITEM: UNITS\nreal\n" + head + cols + "1 1 0 0 0 0 0 0\n" + row2, "13: units real: velocities and forces are read in metal units only"},
  });
}

TEST_F(Validation, N2p2Data) {
  expect_errors([](const std::string& p) { io::read_n2p2_data(p, units::parse_file_units("bohr,hartree")); }, ".data", {
      {"begin\natom 0 0 nan O 0 0 0 0 0\nenergy 1\nend\n", "2: expected a finite number for z, found 'nan'"},
      {"begin\natom 0 0 0 O 0 0 0 0 0 7\nenergy 1\nend\n", "2: 'atom' needs 9 values, found 10"},
      {"begin\natom 0 0 0 O 0 0 0 0 0\nenergy inf\nend\n", "3: expected a finite number for energy"},
      {"begin\nlattice 1 0 0\nlattice 0 1 0\nlattice 1 1 0\natom 0 0 0 O 0 0 0 0 0\nenergy 1\nend\n", "7: lattice: cell matrix is singular"},
      {"begin\nlattice 1e308 0 0\nlattice 0 1e308 0\nlattice 0 0 1e308\natom 0 0 0 O 0 0 0 0 0\nenergy 1\nend\n",
       "7: lattice: cell matrix is singular or degenerate"},
      {"begin\natom 0 0 0 O 0 0 1e308 0 0\nenergy 1\nend\n", "4: the force on atom 1 is not finite"},
  });
}

TEST_F(Validation, QuantumEspressoOutput) {
  std::ifstream in(test::source_path("tests/data/si8-scf.out"));
  std::stringstream all;
  all << in.rdbuf();
  const std::string text = all.str();
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    const auto p = t.find(from);
    EXPECT_NE(p, std::string::npos) << from;
    return t.replace(p, from.size(), to);
  };
  expect_errors([](const std::string& p) { io::read_pw_output(p); }, ".out", {
      {replaced("=            8", "=   9999999999"), "39: 9999999999 atoms cannot fit in this file"},
      {replaced("=            8", "=            0"), "39: expected the same positive number of atoms throughout, found 0"},
      {replaced("0.0282265  -0.0385564", "NaN  -0.0385564"), "84: expected a finite number for a position, found 'NaN'"},
      {replaced("-0.09363621", "***********"), "321: expected a number for a force, found '***********'"},
      {replaced("10.5540  a.u.", "-1  a.u."), "37: expected a positive lattice parameter"},
      {replaced("!    total energy              =     -63.15786947 Ry", "!    total energy              =     nan Ry"), "306: expected a finite number for the total energy"},
      {replaced("a(2) = (   0.000144   0.982076  -0.013528 )", "a(2) = (   0.999993   0.000144   0.003688 )"),
       " crystal axes: cell matrix is singular"},
  });
}

// A version-1 .npy file with the header text given as it is (padded as NumPy pads it).
std::string npy_with(const std::string& dict, const std::string& payload, char version = 1) {
  std::string h = dict;
  while ((h.size() + (version == 1 ? 11 : 13)) % 64) h += ' ';
  h += '\n';
  std::string len = version == 1 ? std::string{static_cast<char>(h.size() & 0xff), static_cast<char>(h.size() >> 8)}
                                 : std::string{static_cast<char>(h.size() & 0xff), static_cast<char>(h.size() >> 8), 0, 0};
  return std::string("\x93NUMPY", 6) + version + '\0' + len + h + payload;
}
std::string doubles(const std::vector<double>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(double));
}

TEST_F(Validation, NpyHeaderAgainstTheFile) {
  const std::string ok = "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }";
  EXPECT_EQ(io::read_npy(put("ok.npy", npy_with(ok, doubles({1, 2})))).values, (std::vector<double>{1, 2}));
  EXPECT_EQ(io::read_npy(put("v2.npy", npy_with(ok, doubles({1, 2}), 2))).values, (std::vector<double>{1, 2}));
  expect_errors([](const std::string& p) { io::read_npy(p); }, ".npy", {
      {npy_with(ok, doubles({1})), " the .npy shape announces 2 values (16 bytes) but the file has 8 bytes of data"},
      {npy_with(ok, doubles({1, 2, 3})), " the .npy shape announces 2 values (16 bytes) but the file has 24 bytes of data"},
      {npy_with("{'descr': '<f8', 'fortran_order': False, 'shape': (18446744073709551615, 3), }", ""),
       " .npy shape needs more values than the file's"},
      {npy_with("{'descr': '<f8', 'fortran_order': False, 'shape': (-1,), }", ""), " .npy header key 'shape': expected a tuple"},
      {npy_with("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), 'x': 1}", doubles({1, 2})), " .npy header has the unknown key 'x'"},
      {npy_with("{'descr': '<f8', 'shape': (2,), }", doubles({1, 2})), " .npy header lacks the key 'fortran_order'"},
      {npy_with("{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", doubles({1, 2})), " .npy header gives 'descr' twice"},
      {npy_with("{'descr': '>f8', 'fortran_order': False, 'shape': (2,), }", doubles({1, 2})), " .npy dtype '>f8' is not supported"},
      {npy_with("{'descr': '<f8', 'fortran_order': Maybe, 'shape': (2,), }", doubles({1, 2})), " .npy header key 'fortran_order': expected True or False"},
      {npy_with(ok, doubles({1, 2})).replace(6, 1, "\x09"), " .npy format version 9"},
      {std::string("\x93NUMPY\x01\x00\xff\xff{}", 12), " .npy header length 65535 runs past the end of the file"},
      {"\x93NUMPY", " not a .npy file"},
  });
}

TEST_F(Validation, DeepmdSystemConsistency) {
  const std::string f8 = "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 9), }";
  const std::string box = npy_with(f8, doubles({5, 0, 0, 0, 5, 0, 0, 0, 5}));
  const std::string coord = npy_with("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 6), }", doubles({0, 0, 0, 1, 0, 0}));
  auto system = [&](const std::string& name, const std::string& types, const std::string& map, const std::string& b,
                    const std::string& c) {
    put(name + "/type.raw", types);
    put(name + "/type_map.raw", map);
    put(name + "/set.000/box.npy", b);
    put(name + "/set.000/coord.npy", c);
    return (dir_ / name).string();
  };
  EXPECT_EQ(io::read_deepmd_system(system("good", "0\n1\n", "O H\n", box, coord)).size(), 1u);
  const std::vector<std::tuple<std::string, std::string, std::string>> bad = {
      {system("a", "0\nx\n", "O H\n", box, coord), "/type.raw:2:", "expected a type index between 0 and 1 (type_map.raw), found 'x'"},
      {system("b", "0\n2\n", "O H\n", box, coord), "/type.raw:2:", "found '2'"},
      {system("c", "0\n1\n", "O O\n", box, coord), "/type_map.raw:1:", "type O is given twice"},
      {system("d", "", "O H\n", box, coord), "/type.raw:", "no atoms"},
      {system("e", "0\n1\n", "O H\n", box, npy_with("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 3), }", doubles({0, 0, 0}))),
       "/set.000/coord.npy:", "expected 6 values per frame (3 x the atoms of type.raw) for 1 frames, found 3 values"},
      {system("f", "0\n1\n", "O H\n", box, npy_with("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 6), }", doubles({0, 0, 0, 1, 0, NAN}))),
       "/set.000/coord.npy:", "value 5 (frame 0) is not finite"},
      {system("g", "0\n1\n", "O H\n", npy_with(f8, doubles({5, 0, 0, 5, 0, 0, 0, 0, 5})), coord), "/set.000/box.npy:",
       "frame 0: cell matrix is singular"},
  };
  for (const auto& [dir, file, msg] : bad) {
    try {
      io::read_deepmd_system(dir);
      ADD_FAILURE() << "no error for " << dir;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(dir + file), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(msg), std::string::npos) << e.what();
    }
  }
  put("h/set.000/energy.npy", npy_with("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", doubles({1, 2})));
  system("h", "0\n1\n", "O H\n", box, coord);
  try {
    io::read_deepmd_system((dir_ / "h").string());
    ADD_FAILURE() << "no error for two energies of one frame";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("energy.npy: expected 1 values per frame (the energy) for 1 frames, found 2"),
              std::string::npos) << e.what();
  }
}

TEST_F(Validation, StructureTableAndLattice) {
  auto from_toml = [&](const std::string& text) {
    const toml::table t = parse_toml_text(text, "in.toml");
    return io::structure_from_config(ConfigTable{&t, "in.toml", ""}, dir_);
  };
  EXPECT_EQ(from_toml("lattice = \"fcc\"\nelement = \"Cu\"\na = 3.6\nrepeat = [2, 1, 1]\n").size(), 8u);
  const std::string data = put("two.data", "t\n\n1 atoms\n2 atom types\n0 5 xlo xhi\n0 5 ylo yhi\n0 5 zlo zhi\n\nAtoms\n\n1 1 0 0 0\n");
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"lattice = \"fcc\"\nelement = \"Cu\"\na = 3.6\nrepeat = [1e300, 1, 1]\n", "'repeat': expected whole numbers of at least 1"},
      {"lattice = \"fcc\"\nelement = \"Cu\"\na = 3.6\nrepeat = [2.5, 1, 1]\n", "'repeat': expected whole numbers of at least 1"},
      {"lattice = \"fcc\"\nelement = \"Cu\"\na = 3.6\nrepeat = [-1, 1, 1]\n", "'repeat': expected whole numbers of at least 1"},
      {"lattice = \"fcc\"\nelement = \"Cu\"\na = nan\nrepeat = [1, 1, 1]\n", "3: 'a': expected a finite number"},
      {"lattice = \"fcc\"\nelement = \"Cu\"\na = inf\nrepeat = [1, 1, 1]\n", "3: 'a': expected a finite number"},
      {"lattice = \"fcc\"\nelement = \"Cu\"\na = -3.6\nrepeat = [1, 1, 1]\n", "'a': expected a positive finite lattice constant"},
      {"lattice = \"fcc\"\nelement = \"Cu\"\na = 3.6\nrepeat = [1, 1, 1]\nmass = -1.0\n", "'mass': expected a finite non-negative mass"},
      {"lattice = \"fcc\"\nelement = \"\"\na = 3.6\nrepeat = [1, 1, 1]\n", "'element': expected an element"},
      {"lattice = \"fcc\"\nelement = \"Cu\"\na = 3.6\nrepeat = [2000, 2000, 2000]\n", "'lattice': the lattice would have 32000000000 atoms"},
      {"file = \"two.data\"\nformat = \"pdb\"\n", "2: 'format': expected auto, extxyz, lammps-data, lammps-dump or tinker, found 'pdb'"},
  };
  for (const auto& [text, msg] : bad) {
    try {
      from_toml(text);
      ADD_FAILURE() << "no error for\n" << text;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("in.toml:"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(msg), std::string::npos) << e.what();
    }
  }
  // Names for LAMMPS's numbered types must match the file's count; formats must be known.
  EXPECT_EQ(io::read_structure(data, "auto", {"O", "H"}).type_names, (std::vector<std::string>{"O", "H"}));
  EXPECT_THROW(io::read_structure(data, "auto", {"O"}), InputError);
  EXPECT_THROW(io::read_structure(data, "pdb"), InputError);
  EXPECT_THROW(io::read_structure(put("x.cif", "")), InputError);
}

TEST(CellsAndStructures, NonFiniteOrDegenerate) {
  EXPECT_THROW(Box::from_matrix({{{1, 0, 0}, {0, NAN, 0}, {0, 0, 1}}}), Error);
  EXPECT_THROW(Box::from_matrix({{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}, {INFINITY, 0, 0}), Error);
  EXPECT_THROW(Box::from_matrix({{{1, 0, 0}, {0, 1, 0}, {1, 1, 1e-11}}}), Error) << "flat: volume 1e-11, edges about 1";
  EXPECT_THROW(Box::from_matrix({{{1e200, 0, 0}, {0, 1e200, 0}, {0, 0, 1e200}}}), Error) << "volume overflows";
  EXPECT_NO_THROW(Box::from_matrix({{{1e-3, 0, 0}, {0, 1e-3, 0}, {0, 0, 1e-3}}}));
  EXPECT_THROW(box_from_lammps({0, 5, 3, 2, 0, 5, 0, 0, 0}), Error);
  Structure s;
  s.type_index("Ar");
  s.types = {0};
  s.positions = {{0, 0, 0}};
  EXPECT_EQ(s.problem(), "");
  s.velocities = {{0, NAN, 0}};
  EXPECT_NE(s.problem().find("the velocity of atom 1 is not finite"), std::string::npos) << s.problem();
  s.velocities.clear();
  s.type_masses[0] = -1;
  EXPECT_NE(s.problem().find("mass"), std::string::npos);
  s.type_masses[0] = 1;
  s.positions[0].z = INFINITY;
  EXPECT_THROW(s.validate("here"), Error);
}

}  // namespace
}  // namespace quasar
