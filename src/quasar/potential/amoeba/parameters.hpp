#pragma once
// An AMOEBA force field as Tinker's keyword files give it (tinker_keys.hpp): the header (units and
// polynomial coefficients of each valence form, vdW rules, scale factors), the parameter records by
// atom class or type, and the key's settings and term switches. Records are kept by their class
// tuple in Tinker's canonical order (the reversed tuple finds the same record); a later record of
// the same tuple replaces an earlier one, so that a key file overrides its parameter file.
#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "quasar/core/box.hpp"
#include "quasar/potential/amoeba/tinker_keys.hpp"

namespace quasar::amoeba {

struct AtomTypeRecord {
  int cls = 0, atomic = 0, valence = 0;
  double mass = 0;
  std::string symbol, description;
};
struct BondRecord {
  double k = 0, r0 = 0;
};
struct AngleRecord {
  double k = 0;
  std::array<double, 3> theta{};  // ideal angles (degrees) with 0, 1, 2 hydrogens on the centre besides the angle's
  bool in_plane = false;          // anglep: the angle projected into the trigonal plane
};
struct FourierAngleRecord {  // anglef: 2 k (180/pi / fold)^2 (1 + cos(fold theta - shift)) in angle units
  double k = 0, shift = 0, fold = 0;
};
struct StretchBendRecord {
  double k1 = 0, k2 = 0;  // for the bond of the tuple's first atom, the last
};
struct UreyRecord {
  double k = 0, r0 = 0;
};
struct TorsionRecord {
  std::array<double, 6> v{};      // amplitude of the term of periodicity n (1..6)
  std::array<double, 6> phase{};  // degrees
};
// angtors (6 values: the first angle's 1-, 2-, 3-fold constants, then the second's) and strtors (9:
// the first, middle and last bond's), kept for the class tuple in canonical torsion order (the
// first and last blocks exchanged when the record was written the other way).
struct CrossTorsionRecord {
  std::array<double, 9> k{};
};
struct TorTorGrid {
  int nx = 0, ny = 0;
  std::vector<double> x, y;  // grid angles (degrees), ascending
  std::vector<double> f, fx, fy, fxy;  // values and derivatives at the nodes, x fastest (per degree)
};
struct VdwRecord {
  double radius = 0, epsilon = 0, reduction = 0;
};
struct MultipoleRecord {
  std::array<int, 3> axes{};      // z, x, y axis types as given (signs select the frame)
  std::array<double, 13> values{};  // charge, dipole (3), quadrupole xx, yx, yy, zx, zy, zz as given
  bool from_key = false;            // a key's records come before the parameter file's
  std::string file;                 // where it was read
  long line = 0;
};
struct PolarizeRecord {
  double alpha = 0, thole = 0;
  std::vector<int> group;  // types in the same polarization group
};

// The names of the energy terms, as Tinker's analyze prints them.
enum class Term { Bond, Angle, StretchBend, Urey, OutOfPlane, Torsion, PiTorsion, TorsionTorsion, AngleTorsion,
                  StretchTorsion, Vdw, Multipole, Polarization };
constexpr int kTerms = 13;
const char* term_name(Term t);     // "Bond Stretching"
const char* term_keyword(Term t);  // "bondterm"

struct ForceFieldHeader {
  std::string forcefield;
  double bond_unit = 1, angle_unit, strbnd_unit, urey_unit = 1, opbend_unit, torsion_unit = 1, pitors_unit = 1,
         tortor_unit = 1, angtor_unit = 1, strtor_unit = 1;
  double bond_cubic = 0, bond_quartic = 0, urey_cubic = 0, urey_quartic = 0;
  std::array<double, 4> angle_poly{}, opbend_poly{};  // cubic, quartic, pentic, sextic
  std::string angle_trigonal, opbend_type = "W-D-C";
  std::map<std::string, std::string> settings;  // the other header and key values by keyword (vdwtype, cutoff, ...)
  std::map<std::string, KeyRecord> setting_records;  // where each of them was read (the last record)
  ForceFieldHeader();
};

struct Parameters {
  std::string key_path, parameter_path;
  ForceFieldHeader header;
  std::map<int, AtomTypeRecord> atoms;  // by type
  std::map<std::array<int, 2>, BondRecord> bonds;
  std::map<std::array<int, 3>, AngleRecord> angles;
  std::map<std::array<int, 3>, FourierAngleRecord> fourier_angles;  // used where no angle record matches
  std::map<std::array<int, 3>, StretchBendRecord> strbnds;
  std::map<std::array<int, 3>, UreyRecord> ureys;
  std::map<std::array<int, 4>, double> opbends;  // out-of-plane atom, centre, the two others (0: any)
  std::map<std::array<int, 4>, TorsionRecord> torsions;
  std::map<std::array<int, 2>, double> pitors;
  std::map<std::array<int, 5>, TorTorGrid> tortors;  // as given (matched forwards or backwards)
  std::map<int, VdwRecord> vdw;  // by class
  std::map<std::array<int, 2>, VdwRecord> vdw_pairs;  // vdwpr / vdwpair: the pair's own R0 and epsilon
  std::map<int, MultipoleRecord> multipoles;  // by type (the first record of a type; frames by axes later)
  std::vector<std::pair<int, MultipoleRecord>> multipole_list;  // every record, in order
  std::map<int, PolarizeRecord> polarize;
  std::map<std::array<int, 2>, KeyRecord> polpairs;  // pair-specific Thole damping by type pair (lower first)
  std::map<std::array<int, 4>, CrossTorsionRecord> angtors, strtors;  // exact classes (strtors: also 0 b c 0)
  // Term switches: on unless the key turns them off (`bondterm none`, `vdwterm only`).
  std::array<bool, kTerms> term_on{};
  // The periodic cell the key gives (a-axis, b-axis, c-axis, alpha, beta, gamma; b and c default to
  // a, the angles to 90), which applies where the structure has none.
  std::optional<Box> cell;

  const AtomTypeRecord& atom(int type, const std::string& where) const;
  // Throws InputError at the file and line of the setting `key` (the key file when it has none).
  [[noreturn]] void fail_setting(const std::string& key, const std::string& message) const;
};

// Reads every record of the files (tinker_keys.hpp), each checked: counts and numbers of values,
// numbers finite, classes and types positive (0 where a wildcard is allowed). Throws InputError at
// the file and line of a record it cannot read.
Parameters read_parameters(const KeyFile& files);
Parameters read_parameters(const std::string& key_path, const std::string& parameter_file = "");

}  // namespace quasar::amoeba
