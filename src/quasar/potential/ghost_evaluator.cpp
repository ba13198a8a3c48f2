#include "quasar/potential/ghost_evaluator.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "quasar/core/atoms.hpp"
#include "quasar/core/error.hpp"
#include "quasar/device/array.hpp"
#include "quasar/device/backend.hpp"
#include "quasar/device/gather.hpp"
#include "quasar/neighbor/neighbor_lists.hpp"
#include "quasar/potential/registry.hpp"

namespace quasar {

namespace {
// Codes hand over per-atom rows of three; LAMMPS allocates them as one block (x[i] = x[0] + 3 i),
// which is then copied whole. Other layouts go row by row.
bool one_block(double* const* rows, int n) { return n == 0 || rows[n - 1] == rows[0] + 3 * std::ptrdiff_t(n - 1); }

void copy_rows(double* const* rows, int n, double* out) {
  if (one_block(rows, n)) std::memcpy(out, rows[0], sizeof(double) * 3 * std::size_t(n));
  else
    for (int i = 0; i < n; ++i) std::memcpy(out + 3 * std::size_t(i), rows[i], sizeof(double) * 3);
}

void add_rows(const double* in, int n, double* const* rows) {
  if (one_block(rows, n)) {
    double* r = rows[0];
    for (std::size_t j = 0; j < 3 * std::size_t(n); ++j) r[j] += in[j];
  } else {
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < 3; ++k) rows[i][k] += in[3 * std::size_t(i) + k];
  }
}

// The families whose potentials handle ghost atoms, for messages.
std::string ghost_families() {
  std::string s;
  for (const PotentialFamily& f : potential_registry().families())
    if (f.capabilities.ghost_atoms) s += (s.empty() ? "" : ", ") + f.name;
  return s;
}
}  // namespace

// The atoms live in an open box with room to move until the next re-neighbouring; Quasar's own
// Verlet lists over local and ghost atoms stand in for the code's list. Atom i stays the code's
// atom i (no spatial sorting). The model is a force field of one term or several.
struct GhostEvaluator::Impl {
  ForceField force_field;
  Backend backend = Backend::Cpu;
  std::vector<std::string> type_names;
  std::unique_ptr<HostBuffer<double>> staging;  // host side of every step's copies (page-locked on the GPU)
  std::unique_ptr<Array<double>> rows;           // the GPU side: positions or forces as rows of three
  std::unique_ptr<AtomState> atoms;
  std::unique_ptr<NeighborLists> lists;
  std::unique_ptr<ForceOutput> out;

  void load(double* const* x, const int* type, int nlocal, int nall, bool rebuild) {
    if (rebuild || !atoms || atoms->size() != nall || atoms->n_local() != nlocal) {
      if (lists) lists->check_overflow();  // the GPU's builds since the last re-neighbouring
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
      s.box = Box::enclosing(s.positions, 2 * force_field.cutoff() + 10.0);
      // Re-neighbouring comes every few steps: the arrays and the list keep their memory.
      if (atoms) atoms->load(s, nlocal);
      else atoms = std::make_unique<AtomState>(backend, s, nlocal);
      if (!lists) lists = std::make_unique<NeighborLists>(backend, force_field.neighbor_requests(backend), 1.0, 0);
      force_field.bind(SystemSetup::of_types(atoms->type_names()));
      lists->build(*atoms);
      return;
    }
    // Same atoms in the same order (nothing sorts them): new positions straight into the arrays.
    if (backend == Backend::Cuda) {
      double* host = staging->reserve(3 * std::size_t(nall));
      copy_rows(x, nall, host);
      rows->resize(3 * std::size_t(nall));
      rows->upload(host, 3 * std::size_t(nall));
      device::split_rows(rows->data(), atoms->x.data(), atoms->y.data(), atoms->z.data(), nall);
    } else {
      for (int i = 0; i < nall; ++i) {
        atoms->x[i] = x[i][0];
        atoms->y[i] = x[i][1];
        atoms->z[i] = x[i][2];
      }
    }
    lists->update(*atoms);
  }

  void add_forces(int nall, double* const* f) {
    if (backend == Backend::Cuda) {
      rows->resize(3 * std::size_t(nall));
      device::join_rows(atoms->fx.data(), atoms->fy.data(), atoms->fz.data(), rows->data(), nall);
      double* host = staging->reserve(3 * std::size_t(nall));
      rows->download(host, 3 * std::size_t(nall));
      add_rows(host, nall, f);
    } else {
      for (int i = 0; i < nall; ++i) {
        f[i][0] += atoms->fx[i];
        f[i][1] += atoms->fy[i];
        f[i][2] += atoms->fz[i];
      }
    }
  }
};

GhostEvaluator::GhostEvaluator(const std::string& model, const std::string& device, const std::string& precision,
                               int local_rank, const std::vector<std::pair<std::string, std::string>>& options)
    : impl_(std::make_unique<Impl>()) {
  impl_->backend = parse_backend(device);
  if (impl_->backend == Backend::Cuda) device::select_gpu(local_rank);
  ModelOptions model_options;
  for (const auto& [name, value] : options)
    if (!model_options.emplace(name, value).second) throw Error("the model option '" + name + "' is given twice");
  impl_->force_field = load_force_field(model, model_options);
  for (const ForceField::Term& t : impl_->force_field.terms()) {
    const PotentialFamily* f = potential_registry().family_of(*t.potential);
    if (!f || !f->capabilities.ghost_atoms)
      throw Error(model + ": the term '" + t.name + "' (" + t.potential->family() +
                  ") does not support ghost atoms, which a domain-decomposed code needs (families that do: " +
                  ghost_families() + ")");
  }
  set_model_precision(impl_->force_field, precision);
  impl_->out = std::make_unique<ForceOutput>(impl_->backend);
  impl_->staging = std::make_unique<HostBuffer<double>>(impl_->backend);
  impl_->rows = std::make_unique<Array<double>>(impl_->backend);
}

GhostEvaluator::~GhostEvaluator() = default;

std::vector<std::string> GhostEvaluator::model_option_names() {
  std::vector<std::string> names;
  for (const PotentialFamily& f : potential_registry().families())
    for (const std::string& n : f.model_options)
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  return names;
}

double GhostEvaluator::cutoff() const { return impl_->force_field.cutoff(); }
bool GhostEvaluator::on_gpu() const { return impl_->backend == Backend::Cuda; }

void GhostEvaluator::set_type_names(const std::vector<std::string>& names) {
  impl_->force_field.bind(SystemSetup::of_types(names));  // throws naming a type the model does not know
  impl_->type_names = names;
  impl_->atoms.reset();
  impl_->lists.reset();
}

void GhostEvaluator::compute(double* const* x, const int* type, int nlocal, int nall, bool rebuild, double* const* f,
                             double* energy, double* virial, double* atom_energy, double* const* atom_virial) {
  Impl& m = *impl_;
  m.load(x, type, nlocal, nall, rebuild);
  const bool per_atom = atom_energy || atom_virial;
  m.force_field.compute(*m.atoms, m.lists->refs(), {energy != nullptr, virial != nullptr, per_atom}, *m.out);
  m.add_forces(nall, f);
  if (energy || virial) {
    m.lists->check_overflow();  // as Quasar's own MD does at output steps
    const std::vector<double> t = m.out->summed_totals();  // energy, then the virial by rows
    if (energy) *energy += t[0];
    if (virial) {
      const int voigt[6] = {1, 5, 9, 2, 3, 6};  // xx yy zz xy xz yz
      for (int k = 0; k < 6; ++k) virial[k] += t[voigt[k]];
    }
  }
  double* const c = m.staging->reserve(nall);
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
