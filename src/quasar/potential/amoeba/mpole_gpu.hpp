#pragma once
// The permanent multipoles' real-space part on the GPU, in double or mixed32 (PairGeometry::mixed,
// mixed_arith.hpp), as multipole_energy computes it on
// the CPU (the pairs within the cutoff, Coulomb's kernel or Ewald's erfc kernel with scaled pairs
// corrected): one thread per site gathers over its partners in ascending order with the explicit pair
// formulas of mpole_forms.hpp (mpole_site.hpp), on the pair data of the induced-dipole code
// (induce_tables: every atom in the gas phase, in a cell the candidate list made full, each atom's
// exclusion partners) plus each pair's m factor. No atomics: the same bits every run. Each site's
// energy, gradient, moment coefficients dE/dM, virial and pair count come back to the host, which sums
// them in site order; the self energy and the frames' chain rule stay on the host (O(N)).
#include <array>
#include <vector>

#include "quasar/device/array.hpp"
#include "quasar/potential/amoeba/induce_gpu.hpp"
#include "quasar/potential/amoeba/mpole_site.hpp"
#include "quasar/potential/amoeba/multipole_term.hpp"

namespace quasar::amoeba {

// The pair data of induce_tables and the m factor of each of its scale entries (the lower atom's
// record, the last where it has two, as the CPU's loop takes it).
struct MpoleTables {
  InduceTables pairs;
  std::vector<double> scale_m;
};
MpoleTables mpole_tables(const ElectrostaticSystem& e, const PairGeometry& g, const std::vector<Vec3>& r);
// The arguments over the tables' host vectors and moments (13 per site).
MpoleArgs mpole_args(const MpoleTables& t, const ElectrostaticSystem& e, const PairGeometry& g, double alpha,
                     const double* moments);

// The sites' shares, by site: energy (n), gradient (3 n), dE/dM (13 n), virial (9 n), pairs (n).
struct MpoleShares {
  std::vector<double> energy, grad, dM, virial;
  std::vector<int> pairs;
};
// mpole_site for every site on the host (what the kernel computes; for the CPU tests).
MpoleShares mpole_shares_host(const MpoleArgs& a);
// Adds the shares to a result (energy, gradient, virial, per-atom values when asked, pair count)
// and to the moment derivatives dM, summing over sites in order.
void add_mpole_shares(const MpoleShares& s, bool per_atom, ElectrostaticResult& out,
                      std::vector<std::array<double, 13>>& dM);

// The device arrays, kept between evaluations. Throws without CUDA.
class MpoleGpu {
 public:
  MpoleGpu();
  // The real-space pairs of lab moments M at positions r with Ewald's alpha (0: Coulomb), added to
  // out and dM as multipole_energy's pair loop adds them.
  void add_real_space(const ElectrostaticSystem& e, const PairGeometry& g, const std::vector<Vec3>& r,
                      const std::vector<Moments>& M, double alpha, bool per_atom, ElectrostaticResult& out,
                      std::vector<std::array<double, 13>>& dM);
  // How many times add_real_space ran (tests check that the GPU path did).
  long evaluations() const { return evaluations_; }

 private:
  long evaluations_ = 0;
  Array<double> position_{Backend::Cuda}, scale_m_{Backend::Cuda}, moments_{Backend::Cuda};
  Array<int> scale_offset_{Backend::Cuda}, scale_partner_{Backend::Cuda}, pair_offset_{Backend::Cuda},
      pair_partner_{Backend::Cuda};
  Array<double> energy_{Backend::Cuda}, grad_{Backend::Cuda}, dM_{Backend::Cuda}, virial_{Backend::Cuda};
  Array<int> pairs_{Backend::Cuda};
};

}  // namespace quasar::amoeba
