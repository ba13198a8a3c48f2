// Checkpoints of an ensemble: a text line, a JSON header, the atoms as one system's checkpoint
// holds them (checkpoint_io.hpp: the order and every saved per-atom property of the registry, the
// atoms' system among them, in input order), then per-system arrays (each named with its type and
// width in the header, like the properties): cell, periodicity, active flag, the integrator's state
// and the first fault, then the terms' solver states. Each system's temperature and random stream
// are settings, taken from the input as md::Simulation takes its [md] table. Reading checks
// everything against the input before any state changes.
#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "quasar/core/error.hpp"
#include "quasar/io/read.hpp"
#include "quasar/md/checkpoint_io.hpp"
#include "quasar/md/ensemble.hpp"

namespace quasar::md {

using namespace checkpoint;

namespace {
constexpr const char* kMagic = "QUASAR-ENSEMBLE-CHECKPOINT 1";

// The per-system arrays in file order, {name, type, values per system}.
nlohmann::json system_arrays() {
  return nlohmann::json::array({{{"name", "cell"}, {"type", "f64"}, {"width", 12}},
                                {{"name", "periodic"}, {"type", "i32"}, {"width", 3}},
                                {{"name", "active"}, {"type", "i32"}, {"width", 1}},
                                {{"name", "integrator"}, {"type", "f64"}, {"width", kStateSize}},
                                {{"name", "fault"}, {"type", "u64"}, {"width", 2}}});
}

std::uintmax_t system_bytes(std::size_t systems) {
  return systems * (sizeof(double) * (12 + kStateSize) + sizeof(int) * (3 + 1) + sizeof(uint64_t) * 2);
}

// A finished system's atoms may hold non-finite velocities and forces (its fault left them so; it
// never moves again): they are written as zeros, so that the checkpoint holds finite numbers only.
// A moving system's non-finite value refuses the checkpoint.
void clean_finished(AtomState& atoms, const std::vector<char>& active, long step, double skin, const std::string& path) {
  const std::vector<int> system = atoms.system.to_vector();
  const std::vector<long> ids = atoms.id.to_vector();
  for (const AtomProperty& p : saved_properties(atoms)) {
    auto* const* array = std::get_if<Array<double>*>(&p.array);
    if (!array) continue;
    std::vector<double> v = (*array)->to_vector();
    const std::size_t n = system.size();
    bool cleaned = false;
    for (std::size_t k = 0; k < v.size(); ++k) {
      if (std::isfinite(v[k])) continue;
      const std::size_t i = k % n;
      if (active[static_cast<std::size_t>(system[i])])
        throw Error(p.name + " of atom " + std::to_string(ids[i]) + " of a moving system is not finite at step " +
                    std::to_string(step) + "; checkpoint " + path + " not written (skin " + std::to_string(skin) + " Å)");
      v[k] = 0;
      cleaned = true;
    }
    if (cleaned) (*array)->assign(v);
  }
}
}  // namespace

void Ensemble::write_checkpoint(const std::string& path) {
  const double skin = lists_.skin();
  // Faults found since the last check: they stop the run, or finish their systems first.
  if (ensemble_.finish_on_fault) retire_faulted();
  else integrator_->throw_if_faulted(atoms_, skin);
  clean_finished(atoms_, active_, step_, skin, path);
  lists_.build(atoms_);  // wraps positions: the restarted run builds the same lists from them
  const int n = num_systems();
  nlohmann::json h;
  h["step"] = step_;
  h["systems"] = n;
  h["atoms"] = atoms_.size();
  h["types"] = atoms_.type_names();
  h["integrator"] = integrator_->name();
  h["state"] = integrator_->state();
  const std::vector<int>& offsets = atoms_.system_offsets();
  std::vector<int> sizes(static_cast<std::size_t>(n));
  for (int s = 0; s < n; ++s) sizes[static_cast<std::size_t>(s)] = offsets[s + 1] - offsets[s];
  h["system_atoms"] = sizes;
  const std::vector<AtomProperty> props = saved_properties(atoms_);
  h["properties"] = describe_properties(props);
  h["system_arrays"] = system_arrays();
  const auto term_states = force_field_.save_states();
  h["term_state"] = describe_term_states(term_states);
  std::vector<double> cells;
  std::vector<int> periodic;
  for (int s = 0; s < n; ++s) {
    const Box& b = atoms_.box(s);
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) cells.push_back(b.h(r, c));
    for (int k = 0; k < 3; ++k) cells.push_back(b.origin[k]);
    for (int k = 0; k < 3; ++k) periodic.push_back(b.periodic[k]);
  }
  const std::vector<long> order = atoms_.id.to_vector();
  io::write_file_atomically(path, [&](std::ostream& out) {
    out << kMagic << "\n" << h.dump() << "\n";
    write_atoms(out, props, order);
    put(out, cells);
    put(out, periodic);
    put(out, std::vector<int>(active_.begin(), active_.end()));
    put(out, integrator_->system_state());
    put(out, integrator_->faults().system_word_array().to_vector());
    write_term_states(out, term_states);
  });
}

void Ensemble::read_checkpoint(const std::string& path) {
  std::uintmax_t file_size = 0;
  std::ifstream in = open_file(path, file_size);
  const nlohmann::json h = read_header(in, path, kMagic);
  const Header hd{h, path};
  const int n = num_systems();
  if (hd.integer("systems") != n)
    throw InputError(path, 2, "checkpoint has " + std::to_string(hd.integer("systems")) + " systems, the input " +
                                  std::to_string(n));
  if (hd.integer("atoms") != atoms_.size())
    throw InputError(path, 2, "checkpoint has " + std::to_string(hd.integer("atoms")) + " atoms, the input " +
                                  std::to_string(atoms_.size()));
  const std::vector<int>& offsets = atoms_.system_offsets();
  const auto& sizes = hd.at("system_atoms");
  if (!sizes.is_array() || sizes.size() != static_cast<std::size_t>(n)) hd.fail("system_atoms", "expected one count per system");
  for (int s = 0; s < n; ++s)
    if (!sizes[static_cast<std::size_t>(s)].is_number_integer() ||
        sizes[static_cast<std::size_t>(s)].get<long>() != offsets[s + 1] - offsets[s])
      hd.fail("system_atoms", "system " + std::to_string(s) + " has " + std::to_string(offsets[s + 1] - offsets[s]) +
                                  " atoms in the input");
  const long step = check_run(hd, atoms_.type_names(), integrator_->name());
  const std::vector<double> state = hd.numbers("state", integrator_->state_size());
  const std::vector<AtomProperty> props = saved_properties(atoms_);
  check_properties(hd, props);
  if (hd.at("system_arrays") != system_arrays()) hd.fail("system_arrays", "expected " + system_arrays().dump());
  const auto state_sizes = term_state_sizes(hd, file_size);
  std::uintmax_t state_bytes = 0;
  for (const auto& entry : state_sizes) state_bytes += entry.second;
  const std::size_t sn = static_cast<std::size_t>(atoms_.size()), systems = static_cast<std::size_t>(n);
  const std::uintmax_t bytes = atoms_bytes(sn, props) + system_bytes(systems) + state_bytes;
  const std::streamoff at = in.tellg();
  if (at < 0 || file_size - static_cast<std::uintmax_t>(at) != bytes)
    throw InputError(path, 0, "checkpoint has " + std::to_string(at < 0 ? 0 : file_size - static_cast<std::uintmax_t>(at)) +
                                  " bytes after its header, expected " + std::to_string(bytes) + " for " +
                                  std::to_string(sn) + " atoms in " + std::to_string(n) + " systems and " +
                                  std::to_string(state_bytes) + " bytes of term states");
  const AtomValues values = read_atoms(in, atoms_, props, path);
  const std::vector<double> cells = get<double>(in, 12 * systems, path);
  const std::vector<int> periodic = get<int>(in, 3 * systems, path);
  const std::vector<int> active = get<int>(in, systems, path);
  const std::vector<double> integrator_state = get<double>(in, kStateSize * systems, path);
  const std::vector<unsigned long long> faults = get<unsigned long long>(in, 2 * systems, path);
  const TermStates term_states = read_term_states(in, state_sizes, path);
  // Each atom in its input system; each system's cell as valid as the input's, with its periodicity.
  for (std::size_t q = 0; q < props.size(); ++q) {
    if (props[q].name != "system") continue;
    const auto& of = std::get<std::vector<int>>(values.values[q]);
    for (int s = 0; s < n; ++s)
      for (int k = offsets[s]; k < offsets[s + 1]; ++k)
        if (of[static_cast<std::size_t>(k)] != s)
          throw InputError(path, 0, "checkpoint: atom " + std::to_string(k) + " is in system " +
                                        std::to_string(of[static_cast<std::size_t>(k)]) + ", the input's in system " +
                                        std::to_string(s));
  }
  std::vector<Box> boxes(systems);
  for (int s = 0; s < n; ++s) {
    const double* c = cells.data() + 12 * static_cast<std::size_t>(s);
    const std::string system = "checkpoint: system " + std::to_string(s);
    std::array<bool, 3> pbc{};
    for (int k = 0; k < 3; ++k) {
      pbc[static_cast<std::size_t>(k)] = periodic[3 * static_cast<std::size_t>(s) + k] != 0;
      if (pbc[static_cast<std::size_t>(k)] != (atoms_.box(s).periodic[k] != 0))
        throw InputError(path, 0, system + ": periodicity differs from the input's");
    }
    for (int k = 0; k < 12; ++k)
      if (!std::isfinite(c[k])) throw InputError(path, 0, system + ": its cell is not finite");
    try {
      boxes[static_cast<std::size_t>(s)] =
          Box::from_matrix({{{c[0], c[1], c[2]}, {c[3], c[4], c[5]}, {c[6], c[7], c[8]}}}, {c[9], c[10], c[11]}, pbc);
    } catch (const Error& e) {
      throw InputError(path, 0, system + ": " + e.what());
    }
    for (int k = 0; k < 3; ++k)
      if (pbc[static_cast<std::size_t>(k)] && !(boxes[static_cast<std::size_t>(s)].plane_spacing(k) >= 1.0))
        throw InputError(path, 0, system + ": a periodic direction is thinner than 1 Å");
    check_inside(boxes[static_cast<std::size_t>(s)], values, offsets[s], offsets[s + 1], path);
    const std::size_t k = static_cast<std::size_t>(s);
    if (active[k] != 0 && active[k] != 1) throw InputError(path, 0, system + ": active flag " + std::to_string(active[k]));
  }
  for (std::size_t k = 0; k < integrator_state.size(); ++k)
    if (!std::isfinite(integrator_state[k]))
      throw InputError(path, 0, "checkpoint: the integrator state of system " + std::to_string(k / kStateSize) +
                                    " is not finite");
  // Checked: now the state changes.
  for (int s = 0; s < n; ++s) atoms_.set_box(s, boxes[static_cast<std::size_t>(s)]);
  restore_properties(values);
  atoms_.id.assign(values.order);
  atoms_.update_index_of();
  active_.assign(active.begin(), active.end());
  upload_active();
  integrator_->set_state(state);
  integrator_->set_system_state(integrator_state);
  integrator_->faults().set_system_words(faults);
  faults_.clear();
  const std::vector<Fault> found = integrator_->faults().system_faults();
  for (std::size_t s = 0; s < found.size(); ++s)
    if (found[s].what.kind != kNoFault)
      faults_.push_back({static_cast<int>(s), found[s].step, describe(found[s], atoms_, lists_.skin())});
  step_ = step;
  lists_.build(atoms_);
  compute_forces(true);
  restore_term_states(force_field_, term_states, path);
  restore_properties(values);
  integrator_->start(step_, atoms_, lists_, force_field_, out_);
}

}  // namespace quasar::md
