#include "quasar/potential/ghost_evaluator.hpp"

#include "quasar/core/atoms.hpp"
#include "quasar/core/error.hpp"
#include "quasar/device/array.hpp"
#include "quasar/device/backend.hpp"
#include "quasar/neighbor/neighbor_list.hpp"
#include "quasar/potential/registry.hpp"

namespace quasar {

// The atoms live in an open box with room to move until the next re-neighbouring; Quasar's own
// Verlet list over local and ghost atoms stands in for the code's list. Atom i stays the code's
// atom i (no spatial sorting).
struct GhostEvaluator::Impl {
  std::unique_ptr<Potential> potential;
  Backend backend = Backend::Cpu;
  std::vector<std::string> type_names;
  std::unique_ptr<HostBuffer<double>> staging;  // host side of every step's copies (page-locked on the GPU)
  std::unique_ptr<AtomState> atoms;
  std::unique_ptr<NeighborList> list;
  std::unique_ptr<ForceOutput> out;

  void load(double* const* x, const int* type, int nlocal, int nall, bool rebuild) {
    if (rebuild || !atoms || atoms->size() != nall || atoms->n_local() != nlocal) {
      if (list) list->check_overflow();  // the GPU's builds since the last re-neighbouring
      Structure s;
      for (const std::string& name : type_names) s.type_index(name);
      for (double& m : s.type_masses)
        if (m == 0) m = 1.0;  // masses do not enter the potential
      s.positions.resize(nall);
      s.types.resize(nall);
      for (int i = 0; i < nall; ++i) {
        s.positions[i] = {x[i][0], x[i][1], x[i][2]};
        s.types[i] = type[i] - 1;
      }
      s.box = Box::enclosing(s.positions, 2 * potential->cutoff() + 10.0);
      // Re-neighbouring comes every few steps: the arrays and the list keep their memory.
      if (atoms) atoms->load(s, nlocal);
      else atoms = std::make_unique<AtomState>(backend, s, nlocal);
      if (!list) {
        NeighborSettings ns;
        ns.cutoff = potential->cutoff();
        ns.skin = 1.0;
        ns.kind = potential->list_kind(backend);
        ns.sort_every = 0;
        list = std::make_unique<NeighborList>(backend, ns);
      }
      potential->bind_types(atoms->type_names());
      list->build(*atoms);
      return;
    }
    // Same atoms in the same order (nothing sorts them): new positions straight into the arrays.
    double* column = staging->reserve(nall);
    Array<double>* xyz[3] = {&atoms->x, &atoms->y, &atoms->z};
    for (int k = 0; k < 3; ++k) {
      for (int i = 0; i < nall; ++i) column[i] = x[i][k];
      xyz[k]->upload(column, nall);
    }
    list->update(*atoms);
  }
};

GhostEvaluator::GhostEvaluator(const std::string& model, const std::string& device, const std::string& precision,
                               int local_rank)
    : impl_(std::make_unique<Impl>()) {
  impl_->backend = parse_backend(device);
  if (impl_->backend == Backend::Cuda) device::select_gpu(local_rank);
  impl_->potential = load_model(model);
  if (impl_->potential->name() != "deepmd") throw Error(model + " is not a Deep Potential model");
  set_model_precision(*impl_->potential, precision);
  impl_->out = std::make_unique<ForceOutput>(impl_->backend);
  impl_->staging = std::make_unique<HostBuffer<double>>(impl_->backend);
}

GhostEvaluator::~GhostEvaluator() = default;

double GhostEvaluator::cutoff() const { return impl_->potential->cutoff(); }
bool GhostEvaluator::on_gpu() const { return impl_->backend == Backend::Cuda; }

void GhostEvaluator::set_type_names(const std::vector<std::string>& names) {
  impl_->potential->bind_types(names);  // throws naming a type the model does not know
  impl_->type_names = names;
  impl_->atoms.reset();
  impl_->list.reset();
}

void GhostEvaluator::compute(double* const* x, const int* type, int nlocal, int nall, bool rebuild, double* const* f,
                             double* energy, double* virial, double* atom_energy, double* const* atom_virial) {
  Impl& m = *impl_;
  m.load(x, type, nlocal, nall, rebuild);
  const bool per_atom = atom_energy || atom_virial;
  m.potential->compute(*m.atoms, m.list->ref(), {energy != nullptr, virial != nullptr, per_atom}, *m.out);
  double* const c = m.staging->reserve(nall);
  const Array<double>* force[3] = {&m.atoms->fx, &m.atoms->fy, &m.atoms->fz};
  for (int k = 0; k < 3; ++k) {
    force[k]->download(c, nall);
    for (int i = 0; i < nall; ++i) f[i][k] += c[i];
  }
  if (energy || virial) {
    m.list->check_overflow();  // as Quasar's own MD does at output steps
    double t[ForceOutput::kTotals];  // energy, then the virial by rows
    m.out->totals.download(t, ForceOutput::kTotals);
    if (energy) *energy += t[0];
    if (virial) {
      const int voigt[6] = {1, 5, 9, 2, 3, 6};  // xx yy zz xy xz yz
      for (int k = 0; k < 6; ++k) virial[k] += t[voigt[k]];
    }
  }
  if (atom_energy) {
    m.out->atom_energy.download(c, nlocal);
    for (int i = 0; i < nlocal; ++i) atom_energy[i] += c[i];
  }
  if (atom_virial) {
    // Quasar: component-major [(3a + b) n + i]; here xx yy zz xy xz yz per atom.
    const int component[6] = {0, 4, 8, 1, 2, 5};
    for (int k = 0; k < 6; ++k) {
      m.out->atom_virial.download(c, nall, static_cast<std::size_t>(component[k]) * nall);
      for (int i = 0; i < nall; ++i) atom_virial[i][k] += c[i];
    }
  }
}

}  // namespace quasar
