#pragma once
// AMOEBA's permanent multipole energy (Tinker's "Atomic Multipoles") on the CPU in double (Ewald sums
// in multipole_ewald below): the pairs of pair_geometry.hpp, their lab-frame moments (multipole_frame.hpp)
// interacting through the Coulomb kernel (multipole_pair.hpp), scaled by the pair's m factor (0 for
// 1-2 and 1-3 pairs in AMOEBA). Forces are the pairs' gradients plus the chain rule through each
// site's frame; the virial is -sum over pairs of s (x) g plus each frame's rotation part, which
// together equal the energy's strain derivative.
#include <array>
#include <cstddef>
#include <vector>

#include "quasar/core/atoms.hpp"
#include "quasar/core/vec.hpp"
#include "quasar/potential/amoeba/multipole_setup.hpp"
#include "quasar/potential/amoeba/pair_geometry.hpp"
#include "quasar/potential/force_output.hpp"

namespace quasar::amoeba {

// An electrostatic term's result in Tinker's units (kcal/mol, Å), by input index.
struct ElectrostaticResult {
  double energy = 0;
  std::vector<Vec3> grad;           // dE/dx
  double virial[9] = {};            // -sum x (x) dE/dx, row-major
  std::vector<double> atom_energy;  // when asked for
  std::vector<double> atom_virial;  // 9 per atom, row-major
  long pairs = 0;                   // pairs that interacted (Tinker's count)
};

// A zero result for n sites (with the per-atom arrays when asked for).
ElectrostaticResult empty_result(std::size_t n, bool per_atom);
// Adds a pair's share: the gradient f g to atom i and -f g to atom k, the moment derivatives f dm_i and
// f dm_k to dM, and the pair virial -s (x) f g (per atom, half to each).
void add_pair_gradient(ElectrostaticResult& out, std::vector<std::array<double, 13>>& dM, std::size_t i, std::size_t k,
                       const double s[3], double f, const double g[3], const double dmi[13], const double dmk[13],
                       bool per_atom);
// Adds the chain rule through every site's frame of the moment derivatives dM (multipole_frame.hpp) to
// the gradient and the virial.
void add_frame_gradients(const ElectrostaticSystem& e, const PairGeometry& g, const std::vector<Vec3>& r,
                         const std::vector<std::array<double, 13>>& dM, ElectrostaticResult& out, bool per_atom);
// Ewald's self energy of lab moments M (alpha > 0; nothing for alpha 0), one count per site.
void add_multipole_self_energy(const ElectrostaticSystem& e, const std::vector<Moments>& M, double alpha, bool per_atom,
                               ElectrostaticResult& out);
// Positions by input index.
std::vector<Vec3> input_positions(const AtomsRef& a);
// Adds a result (converted to eV and eV/Å) to the forces and the term's totals.
void add_result(const ElectrostaticResult& r, const AtomsRef& a, const ComputeRequest& req, ForceOutput& out);

// ewald_alpha > 0: Ewald's real-space part instead (erfc kernel within the cutoff, each scaled pair
// corrected by (scale - 1) of its Coulomb interaction) and the self energy
//   -(f alpha / sqrt(pi)) sum [q^2 + (2 alpha^2 / 3) |d|^2 + (8 alpha^4 / 5) sum Q_ab^2];
// multipole_ewald adds the reciprocal part. The pairs run on g.mpole_gpu where set (mpole_gpu.hpp,
// the CUDA backend), else on the CPU; the self energy and the frames' chain rule on the host.
ElectrostaticResult multipole_energy(const ElectrostaticSystem& e, const PairGeometry& g,
                                     const std::vector<Vec3>& positions, bool per_atom, double ewald_alpha = 0);

// Ewald's sum in g's periodic cell with g's Ewald settings: the real-space part and self energy above
// within g's cutoff, and the reciprocal part by particle-mesh Ewald (pme_multipole.hpp) with its
// frames' chain rule, and for a net charge Q the neutralizing background's -pi f Q^2 / (2 V alpha^2),
// as Tinker adds it (its virial, +E on the diagonal, Tinker leaves out). Per atom, the reciprocal
// energy goes to each site as its density's share, the virial's cell part and the background in equal
// shares.
// times, when given, gets the seconds of the two parts (for the benchmarks' per-term timings).
struct EwaldTimes {
  double real_space = 0;  // pairs within the cutoff, self energy, their frames' chain rule
  double reciprocal = 0;  // particle-mesh Ewald, its frames' chain rule, the net charge's background
};
ElectrostaticResult multipole_ewald(const ElectrostaticSystem& e, const PairGeometry& g,
                                    const std::vector<Vec3>& positions, bool per_atom, EwaldTimes* times = nullptr);

}  // namespace quasar::amoeba
