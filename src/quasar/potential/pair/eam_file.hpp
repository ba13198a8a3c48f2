#pragma once
// DYNAMO EAM tables as written in funcfl (.eam, one element, Z(r) in sqrt(Hartree*Bohr)) and setfl
// (.eam.alloy, several elements, r*phi(r) in eV*Å) files.
#include <string>
#include <vector>

namespace quasar {

struct EamFuncfl {
  std::string file;
  int atomic_number = 0;
  double mass = 0;
  int nrho = 0, nr = 0;
  double drho = 0, dr = 0, cut = 0;
  std::vector<double> frho, zr, rhor;  // nrho, nr, nr values
};

struct EamSetfl {
  std::string file;
  std::vector<std::string> elements;
  std::vector<double> masses;
  int nrho = 0, nr = 0;
  double drho = 0, dr = 0, cut = 0;
  std::vector<std::vector<double>> frho, rhor;  // per element
  std::vector<std::vector<double>> z2r;         // per pair i >= j, in the order (0,0), (1,0), (1,1), ...
};

// Both throw InputError naming the file and line of the first problem.
EamFuncfl read_eam_funcfl(const std::string& path);
EamSetfl read_eam_setfl(const std::string& path);

}  // namespace quasar
