// Checkpoints of one system: a text line, a JSON header, the atoms (checkpoint_io.hpp: the order
// they are in and every saved per-atom property of the registry in input order), then the solver
// state of the force field's terms that have one (named with their sizes in the header).
// Restoring puts every atom back where it was, so that a restarted run repeats the uninterrupted one
// bit for bit on the CPU (and on the GPU in deterministic mode).
#include <array>
#include <filesystem>
#include <fstream>

#include "quasar/core/error.hpp"
#include "quasar/io/read.hpp"
#include "quasar/md/checkpoint_io.hpp"
#include "quasar/md/simulation.hpp"

namespace quasar::md {

using namespace checkpoint;

namespace {
constexpr const char* kMagic = "QUASAR-CHECKPOINT 2";
}  // namespace

void Simulation::write_checkpoint(const std::string& path) {
  // A faulty state must never replace the last good checkpoint.
  const double skin = lists_.skin();
  integrator_->throw_if_faulted(atoms_, skin);
  if (const auto f = find_nonfinite_state(atoms_, step_))
    throw Error(describe(*f, atoms_, skin) + "; checkpoint " + path + " not written");
  lists_.build(atoms_);  // wraps positions: the restarted run builds the same lists from them
  nlohmann::json h;
  h["step"] = step_;
  h["atoms"] = atoms_.size();
  h["types"] = atoms_.type_names();
  h["integrator"] = integrator_->name();
  h["state"] = integrator_->state();
  const Box& b = atoms_.box();
  std::vector<double> cell;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) cell.push_back(b.h(r, c));
  h["cell"] = cell;
  h["origin"] = {b.origin.x, b.origin.y, b.origin.z};
  h["pbc"] = {b.periodic[0], b.periodic[1], b.periodic[2]};
  const std::vector<AtomProperty> props = saved_properties(atoms_);
  h["properties"] = describe_properties(props);
  const auto term_states = force_field_.save_states();
  h["term_state"] = describe_term_states(term_states);
  const std::vector<long> order = atoms_.id.to_vector();  // input index of the atom at each position
  io::write_file_atomically(path, [&](std::ostream& out) {
    out << kMagic << "\n" << h.dump() << "\n";
    write_atoms(out, props, order);
    write_term_states(out, term_states);
  });
}

// Everything is read and checked before any state changes, so a bad checkpoint leaves the
// simulation as it was: the header against the input (atoms, types, integrator, periodicity), the
// arrays' total size against the file, every number finite, positions inside the cell in periodic
// directions (they are written wrapped), types and ids consistent with the input's atoms, the terms'
// solver states named and sized in the header.
void Simulation::read_checkpoint(const std::string& path) {
  std::uintmax_t file_size = 0;
  std::ifstream in = open_file(path, file_size);
  const nlohmann::json h = read_header(in, path, kMagic);
  const Header hd{h, path};
  const long n = hd.integer("atoms");
  if (n != atoms_.size())
    throw InputError(path, 2, "checkpoint has " + std::to_string(n) + " atoms, the input " + std::to_string(atoms_.size()));
  const long step = check_run(hd, atoms_.type_names(), integrator_->name());
  const std::vector<double> state = hd.numbers("state", integrator_->state_size());
  const std::vector<double> cell = hd.numbers("cell", 9), origin = hd.numbers("origin", 3);
  const auto& pbc = hd.at("pbc");
  std::array<bool, 3> periodic{};
  for (int k = 0; k < 3; ++k) {
    if (!pbc.is_array() || pbc.size() != 3 || !(pbc[k].is_boolean() || pbc[k].is_number_integer()))
      hd.fail("pbc", "expected three flags");
    periodic[k] = pbc[k].is_boolean() ? pbc[k].get<bool>() : pbc[k].get<long>() != 0;
    if (periodic[k] != (atoms_.box().periodic[k] != 0)) hd.fail("pbc", "periodicity differs from the input's");
  }
  Box box;
  try {
    box = Box::from_matrix({{{cell[0], cell[1], cell[2]}, {cell[3], cell[4], cell[5]}, {cell[6], cell[7], cell[8]}}},
                           {origin[0], origin[1], origin[2]}, periodic);
  } catch (const Error& e) {
    hd.fail("cell", e.what());
  }
  // A periodic direction thinner than 1 Å puts an atom's image closer than any bond (and would
  // make the neighbour search scan thousands of images).
  for (int k = 0; k < 3; ++k)
    if (periodic[k] && !(box.plane_spacing(k) >= 1.0)) hd.fail("cell", "a periodic direction is thinner than 1 Å");
  // The per-atom properties: this run's saved ones, with their types and widths.
  const std::vector<AtomProperty> props = saved_properties(atoms_);
  check_properties(hd, props);
  // The terms' solver states: names and sizes.
  const auto state_sizes = term_state_sizes(hd, file_size);
  std::uintmax_t state_bytes = 0;
  for (const auto& entry : state_sizes) state_bytes += entry.second;
  // The order, the properties and the states must fill the rest of the file exactly: counts are
  // checked before any allocation.
  const std::size_t sn = static_cast<std::size_t>(n);
  const std::uintmax_t bytes = atoms_bytes(sn, props) + state_bytes;
  const std::streamoff at = in.tellg();
  if (at < 0 || file_size - static_cast<std::uintmax_t>(at) != bytes)
    throw InputError(path, 0, "checkpoint has " + std::to_string(at < 0 ? 0 : file_size - static_cast<std::uintmax_t>(at)) +
                                  " bytes after its header, expected " + std::to_string(bytes) + " for " +
                                  std::to_string(n) + " atoms and " + std::to_string(state_bytes) + " bytes of term states");
  const AtomValues values = read_atoms(in, atoms_, props, path);
  const TermStates term_states = read_term_states(in, state_sizes, path);
  check_inside(box, values, 0, n, path);
  // Checked: now the state changes. Every property goes back to the order the atoms were in.
  atoms_.set_box(box);
  restore_properties(values);
  atoms_.id.assign(values.order);
  atoms_.update_index_of();
  integrator_->set_state(state);  // and its per-atom arrays are among the properties
  step_ = step;
  lists_.build(atoms_);
  compute_forces(true);  // energy and virial for the first thermo line
  // Solver state after that evaluation, which a continuing run did not make.
  restore_term_states(force_field_, term_states, path);
  // The saved values, not those the evaluation recomputed (forces could differ in the last bit, and
  // a property that a term updates as it computes would have moved on).
  restore_properties(values);
  start_integrator();  // with its arrays restored, an integrator computes nothing here
}

}  // namespace quasar::md
