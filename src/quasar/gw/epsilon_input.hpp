#pragma once
// The input of Epsilon in the keyword format of BerkeleyGW's `epsilon.inp`: one keyword per line with
// its value, and the `begin qpoints ... end` block (q in reciprocal-lattice coordinates, a divisor,
// and the q -> 0 flag). '#' and '!' start comments; keywords are case-insensitive. The static
// (frequency_dependence 0) dielectric matrix of an insulator is what is computed; any other keyword
// is an error naming the file, line and keyword.
#include <array>
#include <string>
#include <vector>

namespace quasar::gw {

struct EpsilonQPoint {
  std::array<double, 3> q{};  // reciprocal-lattice coordinates, the divisor applied
  bool q0 = false;            // flag 1: the q -> 0 point, its valence states from the shifted WFNq grid
  long line = 0;              // where it was read (for messages)
};

struct EpsilonInput {
  std::string path;
  double cutoff_ry = 0;  // epsilon_cutoff: |q+G|^2 < cutoff (Ry) chooses the G-vectors of each q
  int bands = 0;         // number_bands: valence plus conduction bands summed over
  std::vector<EpsilonQPoint> qpoints;
};

// Reads and checks an epsilon.inp; errors are InputErrors naming the file, line and keyword.
EpsilonInput read_epsilon_input(const std::string& path);

}  // namespace quasar::gw
