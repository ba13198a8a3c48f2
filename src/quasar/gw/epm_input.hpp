#pragma once
// The input of an empirical-pseudopotential (EPM) mean field, in the keyword format of BerkeleyGW's
// EPM program (epm2bgw's `WFN.in`): one keyword per line followed by its value, or by a block of
// lines (LatticeVectors, ChemicalSpeciesLabel, AtomicCoordinatesAndAtomicSpecies, KPointsList).
// Keywords are case-insensitive; '#' starts a comment. Every keyword that program's inputs use is
// read; any other is an error naming the file and line. Energies are read in Rydberg (eV with
// InputEnergiesInEV), lengths in bohr (Angstrom with LatticeConstantFormat Angstrom).
#include <array>
#include <optional>
#include <string>
#include <vector>

namespace quasar::gw {

using Vec = std::array<double, 3>;

struct EpmSpecies {
  int atomic_number = 0;
  std::string label;  // the element's symbol, which chooses the built-in potential
};

struct EpmAtom {
  Vec position{};  // fractional (lattice) coordinates
  int species = 0;  // index into EpmInput::species
};

struct EpmInput {
  std::string path;
  // real_or_complex 1: real wavefunctions (needs a potential with inversion symmetry about the
  // origin), 2: complex.
  bool real = false;
  int spins = 1;  // nspin: 2 writes every state for both spins
  bool disable_symmetries = false;
  bool write_wavefunctions = false;  // wfng_flag
  std::string wavefunction_file = "WFN";
  // Further outputs of BerkeleyGW's program, read and kept (not produced here: RHO, VXC, vxc.dat).
  bool write_density = false, write_vxc_g = false, write_vxc = false;
  std::string density_file = "RHO", vxc_g_file = "VXC", vxc_file = "vxc.dat";
  int vxc_diag_min = 0, vxc_diag_max = 0, vxc_offdiag_min = 0, vxc_offdiag_max = 0;
  double cutoff_ry = 0;  // plane-wave kinetic-energy cutoff of the wavefunctions (Ry)
  double temperature_ry = 0;  // electronic temperature (Ry); 0: integer occupations
  double absolute_tolerance = -1;  // AbsoluteTolerance (LAPACK's abstol; see docs/user-guide.md)
  std::optional<std::array<int, 3>> fft_grid;
  // Cohen-Bergstresser form factors V3S V8S V11S V3A V4A V11A (Ry); absent: built-in V(q) per element.
  std::optional<std::array<double, 6>> form_factors;
  double lattice_constant = 1;  // bohr
  std::array<Vec, 3> lattice{};  // lattice vectors (rows), bohr: the input's times lattice_constant
  std::vector<EpmSpecies> species;
  std::vector<EpmAtom> atoms;
  int bands = 0;
  int occupied = 0;
  std::array<int, 3> kgrid{};  // KPointNumbers (kept for the output's header)
  Vec kshift{};                // KPointOffsets
  std::vector<Vec> kpoints;    // reciprocal-lattice coordinates
  std::vector<double> weights;  // normalised to sum 1
};

// Reads and checks an EPM input; errors are InputErrors naming the file, line and keyword.
EpmInput read_epm_input(const std::string& path);

}  // namespace quasar::gw
