#pragma once
// Lennard-Jones, cut (LAMMPS lj/cut), several types with mixing rules and optional shift.
#include <array>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "quasar/core/error.hpp"
#include "quasar/core/exclusions.hpp"
#include "quasar/device/parallel.hpp"
#include "quasar/potential/packed_atom.hpp"
#include "quasar/potential/potential.hpp"

namespace quasar {

struct ConfigTable;  // core/config.hpp: kept out of headers that kernels include

struct LjCoeff {
  double lj1, lj2, lj3, lj4;  // 48 e s^12, 24 e s^6, 4 e s^12, 4 e s^6
  double cut2;                // squared cutoff of this pair of types
  double offset;              // energy at the cutoff when shifted, else 0
};

// The pair form shared by the CPU loop and the kernel.
struct LjEval {
  const LjCoeff* table;  // ntypes x ntypes, on the atoms' backend
  int ntypes;
  QUASAR_HD bool operator()(int ti, int tj, double r2, double& fpair, double& e) const {
    const LjCoeff& c = table[ti * ntypes + tj];
    if (r2 >= c.cut2) return false;
    const double r2i = 1.0 / r2, r6i = r2i * r2i * r2i;
    fpair = r6i * (c.lj1 * r6i - c.lj2) * r2i;
    e = r6i * (c.lj3 * r6i - c.lj4) - c.offset;
    return true;
  }
};

struct LjSpecies {
  double epsilon = 0, sigma = 0;
  double cutoff = 0;  // 0: the global cutoff
};
struct LjPairOverride {
  std::string a, b;
  double epsilon, sigma, cutoff;
};

class LennardJones : public Potential {
 public:
  // Reads [potential] with type = "lj": cutoff, shift, mixing, [potential.species.NAME] {epsilon, sigma,
  // cutoff}, [[potential.pair]] {types = [A, B], epsilon, sigma, cutoff}, special = [w12, w13, w14].
  // Unlike pairs mix as LAMMPS's pair_modify mix does (epsilon geometric; sigma and cutoff geometric or
  // arithmetic); explicit pairs win.
  explicit LennardJones(const ConfigTable& t);
  LennardJones(std::map<std::string, LjSpecies> species, double cutoff, bool shift, bool arithmetic_mixing,
               std::vector<LjPairOverride> pairs = {});

  // Weights of 1-2, 1-3 and 1-4 neighbours of the system's bonds, as LAMMPS's special_bonds lj w12
  // w13 w14: a pair's energy and force are multiplied by its weight, a weight of 0 removes it. The
  // topology comes with bind; `where` is the input key, named when the system has no bonds.
  void set_special(std::array<double, 3> weights, KeyLocation where = {});

  std::string name() const override { return "lj"; }
  double cutoff() const override { return max_cutoff_; }
  void bind(const SystemSetup& setup) override;
  void compute(AtomState& atoms, NeighborRefs lists, const ComputeRequest& req, ForceOutput& out) override;
  bool overwrites_outputs(Backend b) const override { return b == Backend::Cuda; }  // one thread per atom

 private:
  void bind_types(const std::vector<std::string>& type_names);
  std::map<std::string, LjSpecies> species_;
  double cutoff_;
  bool shift_, arithmetic_;
  std::vector<LjPairOverride> pairs_;
  double max_cutoff_;
  std::optional<std::array<double, 3>> special_;
  KeyLocation special_key_;
  std::optional<Exclusions> exclusions_;  // of the bound system, when special_ is set
  std::vector<LjCoeff> host_table_;
  int ntypes_ = 0;
  Array<LjCoeff> table_;
  Array<PackedAtom> packed_;  // GPU: positions and types gathered per evaluation
  device::ThreadBuffers thread_buffers_;  // CPU: the threads' arrays of forces and per-atom parts
};

// special: null for the plain pair loop.
void lj_compute_cuda(const LjEval& eval, AtomState& atoms, const NeighborRef& list, const ComputeRequest& req,
                     ForceOutput& out, Array<PackedAtom>& packed, const SpecialWeights* special);

}  // namespace quasar
