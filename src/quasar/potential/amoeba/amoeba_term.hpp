#pragma once
// AMOEBA from Tinker's files as a force field: one term per energy term of Tinker's analyze (bond,
// angle, ...), all sharing the parameters read from the .key and its .prm. A term binds to a
// system whose type names are Tinker atom types ("231") and whose bonds are its connectivity
// (io/tinker_xyz.hpp), and finds its entries there (valence_setup.hpp). The valence terms, van der
// Waals (vdw_term.hpp), permanent multipoles (multipole_term.hpp) and polarization
// (polarization_term.hpp), in double; the electrostatic terms in the gas phase, in a cell with a
// cutoff or with particle-mesh Ewald (pair_geometry.hpp); a force field whose key leaves other terms
// on is refused by name. With atoms on the CUDA backend the valence terms and van der Waals run as
// kernels (valence_gpu.hpp, vdw_gpu.hpp); multipoles and polarization run on the CPU on a host copy
// of the positions, their forces, energy and virial added back into the device's outputs, except
// for their particle-mesh Ewald (pme_gpu.hpp), the multipoles' real-space pairs (mpole_gpu.hpp) and
// polarization's induced dipoles (induce_gpu.hpp), which run on the GPU.
#include <memory>
#include <string>

#include "quasar/potential/amoeba/mpole_gpu.hpp"
#include "quasar/potential/amoeba/multipole_setup.hpp"
#include "quasar/potential/amoeba/pair_geometry.hpp"
#include "quasar/potential/amoeba/parameters.hpp"
#include "quasar/potential/amoeba/pme_gpu.hpp"
#include "quasar/potential/amoeba/polarization_term.hpp"
#include "quasar/potential/amoeba/valence_gpu.hpp"
#include "quasar/potential/amoeba/valence_setup.hpp"
#include "quasar/potential/amoeba/vdw_gpu.hpp"
#include "quasar/potential/amoeba/vdw_term.hpp"
#include "quasar/potential/force_field.hpp"

namespace quasar::amoeba {

class AmoebaTerm : public Potential {
 public:
  AmoebaTerm(std::shared_ptr<const Parameters> parameters, Term term);
  std::string name() const override;  // the term's keyword without "term": "bond", "tortor"
  std::string family() const override { return "amoeba"; }
  double cutoff() const override { return 0; }
  // Throws InputError for a type name that is no Tinker atom type of the parameters, or for an
  // entry without the parameters Tinker requires.
  void bind(const SystemSetup& setup) override;
  void compute(AtomState& atoms, NeighborRefs lists, const ComputeRequest& req, ForceOutput& out) override;
  // GPU arithmetic: double, or mixed32 (pair and entry arithmetic in float, forces, energies and
  // virials summed in 64-bit fixed point, as Tinker9's and Tinker-HP's mixed modes). The CPU
  // evaluates in double whatever is set.
  void set_precision(Precision p) override;
  Precision precision() const { return precision_; }
  Term term() const { return term_; }
  const Parameters& parameters() const { return *parameters_; }
  // Entries of this term in the system bound (for `quasar eval`'s counts, as analyze prints them);
  // for van der Waals and the electrostatic terms, the pairs that interacted in the last
  // evaluation (-1 before one).
  long entries() const;
  // The electrostatics bound (multipoles and polarization) and, for polarization, the induced
  // dipoles of the last evaluation.
  const ElectrostaticSystem& electrostatics() const { return electrostatics_; }
  const InducedDipoles& induced() const { return induced_; }
  // The GPU particle-mesh Ewald of the electrostatic terms with Ewald sums on the CUDA backend, made
  // at its first GPU evaluation (null before one); tests read its evaluations() to see it ran.
  const PmeGpu* pme_gpu() const { return pme_gpu_.get(); }
  // The multipole term's real-space pairs on the GPU (CUDA backend), made at its first GPU evaluation
  // (null before one); tests read its evaluations() to see it ran.
  const MpoleGpu* mpole_gpu() const { return mpole_gpu_.get(); }

  // Seconds of the last compute() while timing is on (off by default; for bench/amoeba_bench.cpp):
  // the whole term, with the device synchronized before and after on CUDA; multipoles with Ewald sums
  // split into their real-space and reciprocal parts; polarization's solve for the dipoles and its
  // conjugate-gradient steps.
  struct Times {
    double total = 0, real_space = 0, reciprocal = 0, induce = 0;
    int iterations = 0;
  };
  void set_timing(bool on) { timing_ = on; }
  const Times& times() const { return times_; }

 private:
  std::size_t valence_entries_count() const;
  void compute_term(AtomState& atoms, const ComputeRequest& req, ForceOutput& out);

  std::shared_ptr<const Parameters> parameters_;
  Term term_;
  bool bound_ = false;
  Precision precision_ = Precision::Double;
  std::size_t atoms_ = 0;
  ValenceEntries entries_;
  VdwSystem vdw_;
  ElectrostaticSystem electrostatics_;
  InducedDipoles induced_;
  long vdw_pairs_ = -1;
  // The CUDA path: the entries and vdW data on the device (copied at the first GPU evaluation after
  // a bind); the vdW pair count of a GPU evaluation stays on the device until entries() reads it.
  ValenceGpu valence_gpu_;
  VdwGpu vdw_gpu_;
  bool vdw_pairs_on_device_ = false;
  std::unique_ptr<PmeGpu> pme_gpu_;
  std::unique_ptr<MpoleGpu> mpole_gpu_;
  bool timing_ = false;
  Times times_;
};

// The pairs and Ewald settings of the electrostatic terms (pair_geometry.hpp) for atoms in `box`, the
// structure's cell or the key's (periodic: either is periodic): the key's cutoffs, Ewald alpha and PME
// grid, or Tinker's defaults. `what` names the term in errors (InputError naming the key): Ewald sums
// without a cell, a cutoff of more than half the cell. The candidates are left to the caller.
PairGeometry electrostatic_geometry(const Parameters& p, const ElectrostaticSystem& e, const Box& box, bool periodic,
                                   const std::string& what);

// The force field of a Tinker key: a term for every valence term the key leaves on and whose
// records the parameters hold, van der Waals, multipoles and polarization. Throws InputError "not
// yet supported: <term>" naming the key when a term this build cannot compute yet (angle- and
// stretch-torsions) is on and has parameters: leaving it out would give a wrong total silently.
ForceField load_tinker_force_field(const std::string& key_path, const std::string& parameter_file = "");

// Tinker's name of a term of such a force field ("Bond Stretching"), from the term's name; "" for
// a name that is none of them.
std::string tinker_term_name(const std::string& term_name);

}  // namespace quasar::amoeba
