#include "quasar/potential/bonded/bonded_term.hpp"

#include <cctype>

#include "quasar/core/config.hpp"
#include "quasar/potential/bonded/bonded_loop.hpp"

namespace quasar {

namespace {
std::string capitalised(std::string s) {
  s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
  return s;
}
}  // namespace

template <class Form>
void BondedTerm<Form>::bind(const SystemSetup& setup) {
  const Topology& t = setup.topology;
  const BondedSet& set = t.set(kind_);
  const std::string noun = Topology::kKinds[static_cast<std::size_t>(kind_)].noun;
  const std::string section = Topology::kKinds[static_cast<std::size_t>(kind_)].section;
  const std::string coeffs = capitalised(noun) + " Coeffs";
  if (set.empty())
    where_.fail(type_ + " needs " + noun + "s, and the structure has none (they come from the " + section +
                " section of a LAMMPS data file)");
  // Errors in the coefficients belong to the file they came from.
  auto file_error = [&](long line, const std::string& msg) {
    if (t.file.empty()) throw Error(type_ + ": " + msg);
    throw InputError(t.file, line, msg);
  };
  const std::string takes = type_ + (where_.file.empty() ? "" : " ('" + where_.key + "' in " + where_.file + ")") +
                            " takes " + Form::kCoeffNames + " from the " + coeffs + " of style " + Form::kStyle;
  if (!set.style.empty() && set.style != Form::kStyle)
    file_error(set.coeffs_line, coeffs + " are for " + noun + " style '" + set.style + "'; " + takes);
  if (set.coeffs.empty())
    file_error(0, "the " + noun + " types have no coefficients: there is no " + coeffs + " section; " + takes);
  host_coeffs_.clear();
  for (std::size_t k = 0; k < set.coeffs.size(); ++k) {
    const std::vector<double>& c = set.coeffs[k];
    if (c.size() != static_cast<std::size_t>(Form::kCoeffs))
      file_error(set.coeffs_line, coeffs + ": " + noun + " type " + std::to_string(k + 1) + " has " +
                                      std::to_string(c.size()) + " coefficients; " + takes);
    host_coeffs_.push_back(Form::coeff_of(c.data()));
  }
  if (const std::string p = t.problem(setup.atom_count); !p.empty()) throw Error(type_ + ": " + p);
  list_ = BondedList(set, setup.atom_count);
  coeffs_ = Array<typename Form::Coeff>();  // uploaded by the next compute
  bound_ = true;
}

template <class Form>
void BondedTerm<Form>::compute(AtomState& atoms, NeighborRefs, const ComputeRequest& req, ForceOutput& out) {
  if (!bound_) throw Error(type_ + ": computed before it was bound to a system's topology");
  if (static_cast<std::size_t>(atoms.size()) != list_.atoms())
    throw Error(type_ + ": bound to a system of " + std::to_string(list_.atoms()) + " atoms, given " +
                std::to_string(atoms.size()));
  if (coeffs_.backend() != atoms.backend() || coeffs_.size() != host_coeffs_.size()) {
    coeffs_ = Array<typename Form::Coeff>(atoms.backend());
    coeffs_.assign(host_coeffs_);
  }
  const Form form{coeffs_.data()};
  const BondedRef list = list_.ref(atoms.backend());
  if (atoms.backend() == Backend::Cpu) {
    bonded_loop_cpu(form, list, atoms, req, out);
    return;
  }
#ifdef QUASAR_HAVE_CUDA
  bonded_compute_cuda(form, list, atoms, req, out);
#else
  throw_no_cuda("bonded terms on the GPU");
#endif
}

template class BondedTerm<HarmonicBondForm>;
template class BondedTerm<HarmonicAngleForm>;

std::unique_ptr<Potential> make_bonded_potential(const std::string& type, KeyLocation where) {
  if (type == "bond/harmonic") return std::make_unique<HarmonicBond>("bond", type, 0, std::move(where));
  if (type == "angle/harmonic") return std::make_unique<HarmonicAngle>("angle", type, 1, std::move(where));
  throw Error("unknown bonded potential type '" + type + "' (bond/harmonic, angle/harmonic)");
}

std::unique_ptr<Potential> make_bonded_potential(const ConfigTable& t) {
  t.allow_only({"type", "name", "group"});
  return make_bonded_potential(t.get_string("type"), t.location("type"));
}

}  // namespace quasar
