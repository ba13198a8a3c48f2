// The `quasar._quasar` extension: the engine's force fields and MD loop on numpy arrays. The
// Python layer (python/quasar/__init__.py) checks and converts arguments; this file assumes
// C-contiguous float64 arrays of the right shapes.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/array.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "quasar/core/config.hpp"
#include "quasar/core/error.hpp"
#include "quasar/core/structure.hpp"
#include "quasar/core/units.hpp"
#include "quasar/device/backend.hpp"
#include "quasar/md/ensemble.hpp"
#include "quasar/md/ensemble_input.hpp"
#include "quasar/md/settings.hpp"
#include "quasar/md/simulation.hpp"
#include "quasar/potential/evaluate.hpp"
#include "quasar/potential/registry.hpp"
#include "to_numpy.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace quasar::python {

using Positions = nb::ndarray<const double, nb::shape<-1, 3>, nb::c_contig, nb::device::cpu>;  // also velocities
using Cell = nb::ndarray<const double, nb::shape<3, 3>, nb::c_contig, nb::device::cpu>;
using Pbc = std::array<bool, 3>;

// Structure from arrays; a structure periodic in no direction gets a box around its atoms.
Structure make_structure(Positions positions, Cell cell, Pbc pbc, const std::vector<std::string>& symbols,
                         const std::vector<double>& masses) {
  const std::size_t n = positions.shape(0);
  if (symbols.size() != n) throw Error("symbols: " + std::to_string(symbols.size()) + " for " + std::to_string(n) + " atoms");
  if (!masses.empty() && masses.size() != n) throw Error("masses: " + std::to_string(masses.size()) + " for " + std::to_string(n) + " atoms");
  Structure s;
  s.positions.resize(n);
  for (std::size_t i = 0; i < n; ++i) s.positions[i] = {positions(i, 0), positions(i, 1), positions(i, 2)};
  s.types.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const int t = s.type_index(symbols[i]);
    s.types[i] = t;
    if (!masses.empty()) s.type_masses[t] = masses[i];
  }
  if (!pbc[0] && !pbc[1] && !pbc[2]) {
    s.box = Box::enclosing(s.positions);
  } else {
    Mat3 h{};
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) h(r, c) = cell(r, c);
    if (det(h) == 0.0) throw Error("cell: a periodic structure needs three independent cell vectors");
    s.box = Box::from_matrix(h, {}, pbc);
  }
  s.validate("structure from Python");
  return s;
}

std::vector<double> flat(const std::vector<Vec3>& v) {
  std::vector<double> out(3 * v.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    for (int k = 0; k < 3; ++k) out[3 * i + k] = v[i][k];
  return out;
}
std::vector<double> flat(const Mat3& m) {
  std::vector<double> out(9);
  for (int c = 0; c < 9; ++c) out[c] = m(c / 3, c % 3);
  return out;
}

// A model: a force field of one term (a model file, one [potential] table) or several ([[potential]]).
class PyPotential {
 public:
  PyPotential(ForceField ff, const std::string& device, const std::string& precision, bool deterministic_sums)
      : force_field(std::move(ff)), backend(parse_backend(device)), deterministic(deterministic_sums) {
    set_model_precision(force_field, precision);
  }
  nb::dict compute(Positions positions, Cell cell, Pbc pbc, const std::vector<std::string>& symbols, bool per_atom) {
    const Structure s = make_structure(positions, cell, pbc, symbols, {});
    Evaluation e;
    {
      nb::gil_scoped_release release;
      e = evaluate(force_field, s, backend, per_atom, -1, deterministic);
    }
    return to_dict(std::move(e), per_atom);
  }
  // Many structures as batches of systems (potential/evaluate.hpp): one set of launches per batch.
  std::vector<nb::dict> compute_many(const std::vector<std::tuple<Positions, Cell, Pbc, std::vector<std::string>>>& items,
                                     bool per_atom) {
    std::vector<Structure> frames;
    for (const auto& [positions, cell, pbc, symbols] : items) {
      try {
        frames.push_back(make_structure(positions, cell, pbc, symbols, {}));
      } catch (const Error& e) {
        throw Error("structure " + std::to_string(frames.size()) + ": " + e.what());
      }
    }
    std::vector<Evaluation> results;
    {
      nb::gil_scoped_release release;
      for (const std::span<const Structure> batch : split_batches(frames))
        for (Evaluation& e : evaluate_batch(force_field, batch, backend, per_atom, deterministic))
          results.push_back(std::move(e));
    }
    std::vector<nb::dict> out;
    for (Evaluation& e : results) out.push_back(to_dict(std::move(e), per_atom));
    return out;
  }
  static nb::dict to_dict(Evaluation&& e, bool per_atom) {
    const std::size_t n = e.forces.size();
    nb::dict d;
    d["energy"] = e.energy;
    nb::dict terms;
    for (const TermEnergy& t : e.terms) terms[t.name.c_str()] = t.energy;
    d["terms"] = terms;
    d["forces"] = to_numpy(flat(e.forces), {n, 3});
    d["virial"] = to_numpy(flat(e.virial), {3, 3});
    if (per_atom) {
      std::vector<double> w(9 * n);
      for (std::size_t i = 0; i < n; ++i)
        for (int c = 0; c < 9; ++c) w[9 * i + c] = e.atom_virial[i](c / 3, c % 3);
      d["atom_energy"] = to_numpy(std::move(e.atom_energy), {n});
      d["atom_virial"] = to_numpy(std::move(w), {n, 3, 3});
    }
    return d;
  }
  std::string name() const {
    return force_field.size() == 1 ? force_field.terms()[0].potential->name() : force_field.describe();
  }
  ForceField force_field;  // its potentials are shared with the simulations it drives
  Backend backend;
  bool deterministic;  // fixed-point GPU sums, also for the simulations it drives
};

// options: the model file's options (ModelOptions: "units" -> "bohr,Ha" for n2p2's files), which
// its family must take.
PyPotential load(const std::string& path, const std::string& device, const std::string& precision,
                 bool deterministic, const std::map<std::string, std::string>& options) {
  return PyPotential(load_force_field(path, options), device, precision, deterministic);
}

PyPotential from_toml(const std::string& text, const std::string& base_dir, const std::string& device,
                      const std::string& precision, bool deterministic) {
  const toml::table root = parse_toml_text(text, "<potential settings>");
  return PyPotential(make_force_field(ConfigTable{&root, "<potential settings>", ""}, base_dir), device, precision,
                     deterministic);
}

// The terms of several models as one force field; a name taken by an earlier model gets a suffix.
ForceField combine(const std::vector<PyPotential*>& models) {
  ForceField ff;
  for (const PyPotential* m : models) {
    if (m->backend != models.front()->backend || m->deterministic != models.front()->deterministic)
      throw Error("the potentials of one simulation need the same device and deterministic setting");
    for (const ForceField::Term& t : m->force_field.terms()) {
      std::string name = t.name;
      for (int k = 2; std::any_of(ff.terms().begin(), ff.terms().end(), [&](const auto& u) { return u.name == name; }); ++k)
        name = t.name + "_" + std::to_string(k);
      ff.add(t.potential, name, t.group);
    }
  }
  return ff;
}

class PySimulation {
 public:
  PySimulation(const std::vector<PyPotential*>& models, Positions positions, Cell cell, Pbc pbc,
               const std::vector<std::string>& symbols, const std::vector<double>& masses, Positions velocities,
               const std::string& settings_toml, const std::string& base_dir) {
    if (models.empty()) throw Error("a simulation needs at least one potential");
    const PyPotential& p = *models.front();
    Structure s = make_structure(positions, cell, pbc, symbols, masses);
    if (velocities.shape(0) != 0) {
      if (velocities.shape(0) != s.size()) throw Error("velocities: " + std::to_string(velocities.shape(0)) + " rows for " + std::to_string(s.size()) + " atoms");
      s.velocities.resize(s.size());
      for (std::size_t i = 0; i < s.size(); ++i) s.velocities[i] = {velocities(i, 0), velocities(i, 1), velocities(i, 2)};
    }
    const toml::table root = parse_toml_text(settings_toml, "<md settings>");
    md::MdSettings settings = md::md_settings_from_config(ConfigTable{&root, "<md settings>", ""}, base_dir);
    settings.deterministic = p.deterministic;
    sim_ = std::make_unique<md::Simulation>(s, combine(models), settings, p.backend);
  }
  void run_to(long last) {
    nb::gil_scoped_release release;
    sim_->run_to(last);
  }
  void run_settings() {
    nb::gil_scoped_release release;
    sim_->run();
  }
  long step() const { return sim_->step(); }
  nb::dict thermo() {
    const md::Thermo t = sim_->thermo();
    nb::dict d;
    d["step"] = t.step;
    d["time"] = t.time;
    d["temperature"] = t.temperature;
    d["kinetic_energy"] = t.kinetic;
    d["potential_energy"] = t.potential;
    nb::dict terms;
    const auto& names = sim_->force_field().terms();
    for (std::size_t k = 0; k < names.size() && k < t.term_potential.size(); ++k) terms[names[k].name.c_str()] = t.term_potential[k];
    d["terms"] = terms;
    d["total_energy"] = t.total;
    d["conserved_energy"] = t.conserved;
    d["pressure"] = t.pressure;
    d["pressure_tensor"] = to_numpy(flat(t.pressure_tensor), {3, 3});
    d["volume"] = t.volume;
    return d;
  }
  nb::dict state() {
    Structure s = sim_->atoms().to_structure();
    const std::size_t n = s.size();
    nb::dict d;
    d["positions"] = to_numpy(flat(s.positions), {n, 3});
    d["velocities"] = to_numpy(flat(s.velocities), {n, 3});
    d["cell"] = to_numpy(flat(s.box.h), {3, 3});
    return d;
  }

 private:
  std::unique_ptr<md::Simulation> sim_;
};

// Many systems integrated together (md::Ensemble). Settings arrive as TOML text ([md], [output],
// [neighbor], [ensemble]) and are checked by the input code, so errors name the key.
class PyEnsemble {
 public:
  using System = std::tuple<Positions, Cell, Pbc, std::vector<std::string>>;
  PyEnsemble(const std::vector<PyPotential*>& models, const std::vector<System>& items,
             const std::vector<std::vector<double>>& masses, const std::vector<Positions>& velocities,
             const std::string& settings_toml, const std::string& base_dir) {
    if (models.empty()) throw Error("an ensemble needs at least one potential");
    const PyPotential& p = *models.front();
    std::vector<Structure> systems;
    for (std::size_t k = 0; k < items.size(); ++k) {
      const auto& [positions, cell, pbc, symbols] = items[k];
      try {
        systems.push_back(make_structure(positions, cell, pbc, symbols, masses.empty() ? std::vector<double>{} : masses[k]));
        if (!velocities.empty()) {
          const Positions& v = velocities[k];
          Structure& s = systems.back();
          if (v.shape(0) != s.size())
            throw Error("velocities: " + std::to_string(v.shape(0)) + " rows for " + std::to_string(s.size()) + " atoms");
          s.velocities.resize(s.size());
          for (std::size_t i = 0; i < s.size(); ++i) s.velocities[i] = {v(i, 0), v(i, 1), v(i, 2)};
        }
      } catch (const Error& e) {
        throw Error("system " + std::to_string(k) + ": " + e.what());
      }
    }
    const toml::table root = parse_toml_text(settings_toml, "<ensemble settings>");
    const ConfigTable top{&root, "<ensemble settings>", ""};
    md::MdSettings settings = md::md_settings_from_config(top, base_dir);
    settings.deterministic = p.deterministic;
    const md::EnsembleSettings es = md::ensemble_settings_from_config(top.require_sub("ensemble"), systems, base_dir);
    ensemble_ = std::make_unique<md::Ensemble>(std::move(systems), combine(models), settings, es, p.backend);
  }
  void run_to(long last) {
    nb::gil_scoped_release release;
    ensemble_->run_to(last);
  }
  long step() const { return ensemble_->step(); }
  int num_systems() const { return ensemble_->num_systems(); }
  std::vector<bool> active() const {
    const auto& a = ensemble_->active();
    return {a.begin(), a.end()};
  }
  void finish(const std::vector<int>& systems) { ensemble_->finish(systems); }
  nb::dict thermo() {
    const md::EnsembleThermo t = ensemble_->thermo();
    const std::size_t n = t.systems.size();
    std::vector<double> temperature, dof, kinetic, potential, total, conserved, pressure, volume;
    std::vector<std::vector<double>> terms(ensemble_->force_field().terms().size());
    std::vector<bool> active;
    for (const md::SystemThermo& s : t.systems) {
      temperature.push_back(s.temperature);
      dof.push_back(s.degrees_of_freedom);
      kinetic.push_back(s.kinetic);
      potential.push_back(s.potential);
      total.push_back(s.total);
      conserved.push_back(s.conserved);
      pressure.push_back(s.pressure);
      volume.push_back(s.volume);
      active.push_back(s.active);
      for (std::size_t k = 0; k < terms.size() && k < s.term_potential.size(); ++k) terms[k].push_back(s.term_potential[k]);
    }
    nb::dict d;
    d["step"] = t.step;
    d["time"] = t.time;
    d["temperature"] = to_numpy(std::move(temperature), {n});
    d["degrees_of_freedom"] = to_numpy(std::move(dof), {n});
    d["kinetic_energy"] = to_numpy(std::move(kinetic), {n});
    d["potential_energy"] = to_numpy(std::move(potential), {n});
    d["total_energy"] = to_numpy(std::move(total), {n});
    d["conserved_energy"] = to_numpy(std::move(conserved), {n});
    d["pressure"] = to_numpy(std::move(pressure), {n});
    d["volume"] = to_numpy(std::move(volume), {n});
    d["active"] = active;
    nb::dict by_term;
    const auto& names = ensemble_->force_field().terms();
    for (std::size_t k = 0; k < names.size(); ++k) by_term[names[k].name.c_str()] = to_numpy(std::move(terms[k]), {n});
    d["terms"] = by_term;
    return d;
  }
  // Each system's positions, velocities and forces (input order), and its cell.
  std::vector<nb::dict> states() {
    std::vector<nb::dict> out;
    for (Structure& s : ensemble_->structures()) {
      const std::size_t n = s.size();
      nb::dict d;
      d["positions"] = to_numpy(flat(s.positions), {n, 3});
      d["velocities"] = to_numpy(flat(s.velocities), {n, 3});
      d["forces"] = to_numpy(flat(s.forces), {n, 3});
      d["cell"] = to_numpy(flat(s.box.h), {3, 3});
      out.push_back(std::move(d));
    }
    return out;
  }
  std::vector<nb::dict> faults() const {
    std::vector<nb::dict> out;
    for (const md::SystemFault& f : ensemble_->faults()) {
      nb::dict d;
      d["system"] = f.system;
      d["step"] = f.step;
      d["message"] = f.message;
      out.push_back(std::move(d));
    }
    return out;
  }
  void write_structures(const std::string& path) { ensemble_->write_structures(path); }
  void write_checkpoint(const std::string& path) { ensemble_->write_checkpoint(path); }

 private:
  std::unique_ptr<md::Ensemble> ensemble_;
};

// The registered potential families and what each can do (potential/registry.hpp).
std::vector<nb::dict> families() {
  std::vector<nb::dict> out;
  for (const PotentialFamily& f : potential_registry().families()) {
    nb::dict d;
    d["name"] = f.name;
    d["aliases"] = f.aliases;
    d["description"] = f.description;
    std::vector<std::string> precisions, files = f.model_extensions;
    for (Precision p : f.capabilities.precisions) precisions.push_back(precision_name(p));
    files.insert(files.end(), f.model_folder_files.begin(), f.model_folder_files.end());
    d["gpu"] = f.capabilities.gpu;
    d["precisions"] = precisions;
    d["ghost_atoms"] = f.capabilities.ghost_atoms;
    d["per_atom"] = f.capabilities.per_atom;
    d["training"] = f.capabilities.training;
    d["model_files"] = files;
    d["model_options"] = f.model_options;
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace quasar::python

NB_MODULE(_quasar, m) {
  using namespace quasar::python;
  m.doc() = "Quasar engine bindings (use the quasar package, not this module)";
  nb::exception<quasar::Error>(m, "QuasarError", PyExc_RuntimeError);
  m.def("cuda_available", &quasar::cuda_available);
  m.def("built_with_cuda", &quasar::built_with_cuda);
  m.def("families", &families);
  nb::dict units;  // the engine's conversion factors (core/units.hpp), which readers of other units use
  units["bohr"] = quasar::units::bohr;
  units["hartree"] = quasar::units::hartree;
  units["kcal_mol"] = quasar::units::kcal_mol;
  m.attr("units") = units;
  bind_shepard(m);
  bind_gw(m);
  nb::class_<PyPotential>(m, "Potential")
      .def_static("load", &load, "path"_a, "device"_a, "precision"_a, "deterministic"_a, "options"_a)
      .def_static("from_toml", &from_toml, "text"_a, "base_dir"_a, "device"_a, "precision"_a, "deterministic"_a)
      .def("compute", &PyPotential::compute, "positions"_a, "cell"_a, "pbc"_a, "symbols"_a, "per_atom"_a)
      .def("compute_many", &PyPotential::compute_many, "structures"_a, "per_atom"_a)
      .def_prop_ro("name", &PyPotential::name)
      .def_prop_ro("terms", [](const PyPotential& p) {
        std::vector<std::string> names;
        for (const auto& t : p.force_field.terms()) names.push_back(t.name);
        return names;
      })
      .def_prop_ro("cutoff", [](const PyPotential& p) { return p.force_field.cutoff(); })
      .def_prop_ro("device", [](const PyPotential& p) { return std::string(quasar::backend_name(p.backend)); })
      .def_prop_ro("deterministic", [](const PyPotential& p) { return p.deterministic; });
  nb::class_<PySimulation>(m, "Simulation")
      .def(nb::init<const std::vector<PyPotential*>&, Positions, Cell, Pbc, const std::vector<std::string>&,
                    const std::vector<double>&, Positions, const std::string&, const std::string&>(),
           "potentials"_a, "positions"_a, "cell"_a, "pbc"_a, "symbols"_a, "masses"_a, "velocities"_a, "settings"_a,
           "base_dir"_a)
      .def("run_to", &PySimulation::run_to, "last"_a)
      .def("run_settings", &PySimulation::run_settings)
      .def_prop_ro("step", &PySimulation::step)
      .def("thermo", &PySimulation::thermo)
      .def("state", &PySimulation::state);
  nb::class_<PyEnsemble>(m, "Ensemble")
      .def(nb::init<const std::vector<PyPotential*>&, const std::vector<PyEnsemble::System>&,
                    const std::vector<std::vector<double>>&, const std::vector<Positions>&, const std::string&,
                    const std::string&>(),
           "potentials"_a, "systems"_a, "masses"_a, "velocities"_a, "settings"_a, "base_dir"_a)
      .def("run_to", &PyEnsemble::run_to, "last"_a)
      .def_prop_ro("step", &PyEnsemble::step)
      .def_prop_ro("num_systems", &PyEnsemble::num_systems)
      .def("active", &PyEnsemble::active)
      .def("finish", &PyEnsemble::finish, "systems"_a)
      .def("thermo", &PyEnsemble::thermo)
      .def("states", &PyEnsemble::states)
      .def("faults", &PyEnsemble::faults)
      .def("write_structures", &PyEnsemble::write_structures, "path"_a)
      .def("write_checkpoint", &PyEnsemble::write_checkpoint, "path"_a);
}
