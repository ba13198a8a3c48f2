#pragma once
// A Z-matrix: each atom placed by a bond length to an earlier atom, the angle it makes with a second
// and the dihedral angle with a third (the usual general internal coordinates of quantum-dynamics
// grids), and its Cartesian coordinates. Rows are numbered from 1, as Z-matrices are written.
#include <string>
#include <vector>

namespace quasar::shepard {

struct ZMatrixRow {
  std::string element;
  // Earlier rows (1-based; 0 when absent): row 1 has none, row 2 a bond, row 3 a bond and an angle,
  // every later row all three, distinct.
  int bond = 0, angle = 0, dihedral = 0;
};

// The coordinates of a Z-matrix, row by row: r (row >= 2), theta (row >= 3), phi (row >= 4); 3N - 6
// of them. Lengths Å, angles degrees.
enum class ZKind { Bond, Angle, Dihedral };
struct ZCoordinate {
  int row;  // 1-based
  ZKind kind;
  std::string name() const;  // "r2", "theta3", "phi4"
  const char* units() const;  // "Å" or "degree"
};
std::vector<ZCoordinate> zmatrix_coordinates(int rows);

// The problem with the rows' references ("" when none): counts and earlier, distinct rows.
std::string zmatrix_problem(const std::vector<ZMatrixRow>& rows);

// Cartesian coordinates x (3N, Å, atom by atom in row order) at the coordinates q (3N - 6, in
// zmatrix_coordinates order). Row 1 at the origin, row 2 on +z from its bond atom, row 3 in the xz
// plane (x > 0 side for a dihedral of 0 against +x), every later row by its bond length, angle
// (atom-bond-angle) and dihedral (atom-bond-angle-dihedral, IUPAC sign: positive clockwise seen
// from the bond atom towards the angle atom). Returns "" or what went wrong: the row whose
// reference atoms are collinear (its dihedral has no plane) or two atoms closer than 1e-6 Å.
std::string zmatrix_cartesians(const std::vector<ZMatrixRow>& rows, const double* q, double* x);
// The other way: the Z-matrix coordinates q (3N - 6) of the Cartesians x, dihedrals in (-180, 180]
// (a grid around a known geometry starts from them).
void zmatrix_values(const std::vector<ZMatrixRow>& rows, const double* x, double* q);

}  // namespace quasar::shepard
