#pragma once
// The valence entries of a system, found from its bonds and given their parameters as Tinker does
// (angles, torsions, bitorsions enumerated from the connectivity; parameters looked up by atom
// class, in canonical order, with Tinker's wildcards and rules: ideal angles by the number of
// hydrogens on the centre, in-plane angles at trigonal centres, out-of-plane bends by the atom out
// of the plane). Atom indices are input indices.
#include <array>
#include <string>
#include <vector>

#include "quasar/potential/amoeba/parameters.hpp"

namespace quasar::amoeba {

struct BondEntry {
  std::array<int, 2> atoms;
  double k, r0;
};
struct AngleEntry {
  std::array<int, 3> atoms;  // the centre in the middle
  int fourth = -1;           // the centre's third neighbour for an in-plane angle, else -1
  double k, theta0;          // degrees
  double fold = 0;           // a Fourier angle's periodicity (theta0 its shift), 0 for the polynomial
};
struct StretchBendEntry {
  std::array<int, 3> atoms;
  double k1, k2, r1, r2, theta0;  // k1, r1 for the bond of atoms[0]; k2, r2 for atoms[2]'s
};
struct UreyEntry {
  std::array<int, 2> atoms;  // the angle's ends
  double k, r0;
};
struct OutOfPlaneEntry {
  std::array<int, 4> atoms;  // an angle's ends, its centre, then the atom out of the plane
  double k;
};
struct TorsionEntry {
  std::array<int, 4> atoms;
  std::array<double, 6> v, phase;
};
// Cross terms of a torsion a-b-c-d with its angles (a-b-c, b-c-d) or bonds (a-b, b-c, c-d): each
// deviation times sum_n k_n (1 + cos(n phi - phase_n)), n = 1..3, with the torsion's own phases.
struct AngleTorsionEntry {
  std::array<int, 4> atoms;
  std::array<double, 6> k;       // the first angle's 1-, 2-, 3-fold constants, then the second's
  std::array<double, 2> theta0;  // the two angles' ideal values (degrees)
  std::array<double, 3> phase;   // the torsion's (degrees)
};
struct StretchTorsionEntry {
  std::array<int, 4> atoms;
  std::array<double, 9> k;   // per bond a-b, b-c, c-d: 1-, 2-, 3-fold
  std::array<double, 3> r0;  // the three bonds' ideal lengths
  std::array<double, 3> phase;
};
struct PiTorsionEntry {
  std::array<int, 6> atoms;  // the first atom's two other neighbours, the bond, the second's two
  double k;
};
struct TorTorEntry {
  std::array<int, 5> atoms;  // in the grid's order
  int chiral = -1;           // the centre's neighbour that decides its chirality, -1: none
  const TorTorGrid* grid;
};

struct ValenceEntries {
  std::vector<BondEntry> bonds;
  std::vector<AngleEntry> angles;
  std::vector<StretchBendEntry> strbnds;
  std::vector<UreyEntry> ureys;
  std::vector<OutOfPlaneEntry> opbends;
  std::vector<TorsionEntry> torsions;
  std::vector<PiTorsionEntry> pitors;
  std::vector<TorTorEntry> tortors;
  std::vector<AngleTorsionEntry> angtors;
  std::vector<StretchTorsionEntry> strtors;
};

// types: the Tinker atom type of each atom; neighbours: each atom's bonded atoms. Throws InputError
// naming the parameter file when an atom type has no record, or when an entry of an active term
// (parameters.term_on) has no parameters where Tinker requires them (bonds, angles, torsions).
// The entries refer to `parameters` (the grids), which must outlive them.
ValenceEntries valence_entries(const Parameters& parameters, const std::vector<int>& types,
                               const std::vector<std::vector<int>>& neighbours);

}  // namespace quasar::amoeba
