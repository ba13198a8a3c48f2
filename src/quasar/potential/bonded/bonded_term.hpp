#pragma once
// Bonded terms of a force field: bond/harmonic and angle/harmonic so far. They take their entries
// and coefficients from the system's topology (a LAMMPS data file's Bonds and Bond Coeffs, ...) at
// bind, need no neighbour list, and assemble forces on the GPU without atomics (bonded_list.hpp).
// Energies and virials are shared among an entry's atoms as LAMMPS shares them (half to each atom
// of a bond, a third to each of an angle).
#include <memory>
#include <string>
#include <vector>

#include "quasar/core/error.hpp"
#include "quasar/potential/bonded/bonded_forms.hpp"
#include "quasar/potential/bonded/bonded_list.hpp"
#include "quasar/potential/potential.hpp"

namespace quasar {

struct ConfigTable;  // core/config.hpp: kept out of headers that kernels include

template <class Form>
class BondedTerm : public Potential {
 public:
  // type: the input's name ("bond/harmonic"); kind: which of the topology's sets (Topology::set);
  // where: the [potential] table, named by errors found at bind.
  BondedTerm(std::string name, std::string type, int kind, KeyLocation where = {})
      : name_(std::move(name)), type_(std::move(type)), kind_(kind), where_(std::move(where)) {}

  std::string name() const override { return name_; }
  std::string family() const override { return type_; }
  double cutoff() const override { return 0; }
  // Takes the entries and coefficients of the topology's set; throws InputError naming the input
  // key when the system has no such entries, and the data file when the coefficients are missing,
  // of another style or of another count.
  void bind(const SystemSetup& setup) override;
  void compute(AtomState& atoms, NeighborRefs lists, const ComputeRequest& req, ForceOutput& out) override;
  bool overwrites_outputs(Backend b) const override { return b == Backend::Cuda; }  // one thread per atom

 private:
  std::string name_, type_;
  int kind_;
  KeyLocation where_;
  bool bound_ = false;
  BondedList list_;
  std::vector<typename Form::Coeff> host_coeffs_;
  Array<typename Form::Coeff> coeffs_;
};

using HarmonicBond = BondedTerm<HarmonicBondForm>;
using HarmonicAngle = BondedTerm<HarmonicAngleForm>;

// A term of one of the types this folder provides ("bond/harmonic", "angle/harmonic"): from a
// [potential] table (keys type, name, group), or made in code. Registered by family.cpp.
std::unique_ptr<Potential> make_bonded_potential(const ConfigTable& t);
std::unique_ptr<Potential> make_bonded_potential(const std::string& type, KeyLocation where = {});

template <class Form>
void bonded_compute_cuda(const Form& form, const BondedRef& list, AtomState& atoms, const ComputeRequest& req,
                         ForceOutput& out);

}  // namespace quasar
