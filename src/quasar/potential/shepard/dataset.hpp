#pragma once
// The data set of a modified Shepard interpolated surface (Collins): the molecule, the permutation
// group of its identical atoms, the interpolation parameters and the data points, each a
// second-order Taylor expansion in local internal coordinates zeta = U^T Z, Z = {1/R_l} over all
// atom pairs. Lengths Å, energies eV. docs/formats/shepard.md describes its files (text, HDF5).
#include <cstddef>
#include <string>
#include <vector>

namespace quasar::shepard {

// v = 1/(s^p + s^q) with s = sum_l ((Z_l - Z_l(i)) / d_l(i))^2 (two-part), or
// v = 1 / sum_l ((Z_l - Z_l(i)) / d_l(i))^(2p) (one-part, Bettens and Collins).
enum class WeightKind { OnePart, TwoPart };

const char* weight_kind_name(WeightKind k);  // "one-part", "two-part"

struct Parameters {
  WeightKind weight = WeightKind::TwoPart;
  double p = 2;      // >= 1: the weights' derivatives vanish at a data point, which it then reproduces
  double q = 12;     // > p (two-part only)
  double wtol = 1e-8;  // points with a relative weight below it are dropped, the rest renormalised
};

// One data point as computed (not replicated): its geometry, energy and Taylor coefficients.
struct DataPoint {
  std::vector<double> positions;   // 3N Cartesian coordinates (Å), atom by atom
  double energy = 0;               // eV
  std::vector<double> confidence;  // d_l per atom pair (1/Å, > 0), pairs in pair_index order
  std::vector<double> u;           // U: pairs x nint, row-major; its columns span the range of dZ/dx
  std::vector<double> gradient;    // dV/dzeta: nint
  std::vector<double> hessian;     // d2V/dzeta2: nint x nint, symmetric, row-major
};

struct DataSet {
  std::vector<std::string> elements;             // per atom
  std::vector<double> masses;                    // per atom (amu)
  std::vector<std::vector<int>> permutations;    // the group: atom a goes to permutations[g][a]
  Parameters parameters;
  std::vector<DataPoint> points;

  int atoms() const { return static_cast<int>(elements.size()); }
  int pairs() const { return atoms() * (atoms() - 1) / 2; }
  int internal() const { return 3 * atoms() - 6; }
  // "" when consistent, else what is wrong (sizes, a permutation that is not one or mixes
  // elements, a set that is no group, non-finite numbers, confidence lengths <= 0, bad parameters).
  std::string problem() const;
};

// The index of the pair of atoms a != b among N atoms: (0,1), (0,2), ..., (0,N-1), (1,2), ...
inline int pair_index(int a, int b, int n) {
  if (a > b) {
    const int t = a;
    a = b;
    b = t;
  }
  return a * (2 * n - a - 1) / 2 + (b - a - 1);
}

// The problem with the element names ("" when each is one word that the text format keeps: no
// spaces, no '#').
std::string elements_problem(const std::vector<std::string>& elements);

// The problem with one point of this set ("" when none): sizes, finite numbers, confidence lengths.
std::string point_problem(const DataSet& set, const DataPoint& point);

// Every permutation of identical atoms (same element): the direct product of the symmetric groups
// of each element's atoms (6 for O H3, 24 for N H4, 120 for C H5), the identity first.
std::vector<std::vector<int>> full_permutation_group(const std::vector<std::string>& elements);
// Just the identity.
std::vector<std::vector<int>> identity_group(int atoms);
// The problem with one permutation of these atoms ("" when it is one and exchanges only atoms of
// one element).
std::string permutation_problem(const std::vector<int>& permutation, const std::vector<std::string>& elements);
// The problem with a set of permutations of these atoms ("" when it is a group that exchanges only
// atoms of one element).
std::string permutation_group_problem(const std::vector<std::vector<int>>& group,
                                      const std::vector<std::string>& elements);

// The data-set file, text or HDF5 (docs/formats/shepard.md): HDF5 for names ending in .h5 or .hdf5
// and, in reading, for a file that begins with HDF5's signature; text otherwise. Errors name the
// file and the line and key (text) or the object (HDF5). Text is written with 17 significant digits
// and HDF5 as float64, so that reading what was written gives the same numbers; the file appears
// whole or not at all.
DataSet read_dataset(const std::string& path);
void write_dataset(const std::string& path, const DataSet& set);
bool is_hdf5_name(const std::string& path);
// The HDF5 format in memory: the file's bytes, and the data set of such bytes (`origin` names them
// in errors).
std::vector<unsigned char> dataset_hdf5_image(const DataSet& set);
DataSet read_dataset_hdf5(const void* bytes, std::size_t size, const std::string& origin);
// The first difference between two data sets ("" when equal to the last bit).
std::string dataset_difference(const DataSet& a, const DataSet& b);

}  // namespace quasar::shepard
