// Checkpoints: a text line, a JSON header, then the per-atom arrays in their current (spatially
// sorted) order, so that a restarted run repeats the uninterrupted one bit for bit on the CPU, then
// the solver state of the force field's terms that have one (named with their sizes in the header).
#include <fstream>

#include <nlohmann/json.hpp>

#include "quasar/core/error.hpp"
#include "quasar/io/read.hpp"
#include "quasar/md/simulation.hpp"

namespace quasar::md {

namespace {
constexpr const char* kMagic = "QUASAR-CHECKPOINT 1";

template <class T>
void put(std::ostream& out, const Array<T>& a) {
  const auto v = a.to_vector();
  out.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(T)));
}

template <class T>
std::vector<T> get(std::istream& in, std::size_t n, const std::string& path) {
  std::vector<T> v(n);
  in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(n * sizeof(T)));
  if (!in) throw InputError(path, 0, "checkpoint is truncated");
  return v;
}
}  // namespace

void Simulation::write_checkpoint(const std::string& path) {
  // A faulty state must never replace the last good checkpoint.
  const double skin = lists_.skin();
  integrator_.throw_if_faulted(atoms_, skin);
  if (const auto f = find_nonfinite_state(atoms_, step_))
    throw Error(describe(*f, atoms_, skin) + "; checkpoint " + path + " not written");
  lists_.build(atoms_);  // wraps positions: the restarted run builds the same lists from them
  nlohmann::json h;
  h["step"] = step_;
  h["atoms"] = atoms_.size();
  h["types"] = atoms_.type_names();
  h["integrator"] = settings_.integrator.kind;
  h["state"] = integrator_.state();
  const Box& b = atoms_.box();
  std::vector<double> cell;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) cell.push_back(b.h(r, c));
  h["cell"] = cell;
  h["origin"] = {b.origin.x, b.origin.y, b.origin.z};
  h["pbc"] = {b.periodic[0], b.periodic[1], b.periodic[2]};
  h["has_charges"] = atoms_.has_charges();
  const auto term_states = force_field_.save_states();
  for (const auto& [name, bytes] : term_states) h["term_state"].push_back({{"term", name}, {"bytes", bytes.size()}});
  io::write_file_atomically(path, [&](std::ostream& out) {
    out << kMagic << "\n" << h.dump() << "\n";
    for (auto* a : {&atoms_.x, &atoms_.y, &atoms_.z, &atoms_.vx, &atoms_.vy, &atoms_.vz, &atoms_.fx, &atoms_.fy, &atoms_.fz})
      put(out, *a);
    for (auto* a : {&atoms_.type, &atoms_.ix, &atoms_.iy, &atoms_.iz}) put(out, *a);
    put(out, atoms_.id);
    if (atoms_.has_charges()) put(out, atoms_.charge);
    for (const auto& state : term_states) out.write(state.second.data(), static_cast<std::streamsize>(state.second.size()));
  });
}

void Simulation::read_checkpoint(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "cannot open checkpoint");
  std::string magic, header;
  std::getline(in, magic);
  if (magic != kMagic) throw InputError(path, 1, "not a Quasar checkpoint (first line '" + magic.substr(0, 40) + "')");
  std::getline(in, header);
  nlohmann::json h;
  try {
    h = nlohmann::json::parse(header);
  } catch (const std::exception& e) {
    throw InputError(path, 2, std::string("bad checkpoint header: ") + e.what());
  }
  const int n = h.at("atoms").get<int>();
  if (n != atoms_.size())
    throw InputError(path, 2, "checkpoint has " + std::to_string(n) + " atoms, the input " + std::to_string(atoms_.size()));
  if (h.at("types").get<std::vector<std::string>>() != atoms_.type_names())
    throw InputError(path, 2, "checkpoint atom types differ from the input's");
  if (h.at("integrator").get<std::string>() != settings_.integrator.kind)
    throw InputError(path, 2, "checkpoint was written by integrator '" + h.at("integrator").get<std::string>() +
                                  "', the input asks for '" + settings_.integrator.kind + "'");
  const auto cell = h.at("cell").get<std::vector<double>>();
  const auto origin = h.at("origin").get<std::vector<double>>();
  const auto pbc = h.at("pbc").get<std::vector<int>>();
  atoms_.set_box(Box::from_matrix({{{cell[0], cell[1], cell[2]}, {cell[3], cell[4], cell[5]}, {cell[6], cell[7], cell[8]}}},
                                  {origin[0], origin[1], origin[2]}, {pbc[0] != 0, pbc[1] != 0, pbc[2] != 0}));
  const std::size_t sn = static_cast<std::size_t>(n);
  for (auto* a : {&atoms_.x, &atoms_.y, &atoms_.z, &atoms_.vx, &atoms_.vy, &atoms_.vz})
    a->assign(get<double>(in, sn, path));
  std::vector<std::vector<double>> forces;
  for (int k = 0; k < 3; ++k) forces.push_back(get<double>(in, sn, path));
  for (auto* a : {&atoms_.type, &atoms_.ix, &atoms_.iy, &atoms_.iz}) a->assign(get<int>(in, sn, path));
  atoms_.id.assign(get<long>(in, sn, path));
  if (h.at("has_charges").get<bool>()) atoms_.charge.assign(get<double>(in, sn, path));
  std::vector<std::pair<std::string, std::vector<char>>> term_states;
  if (h.contains("term_state"))
    for (const auto& t : h.at("term_state"))
      term_states.emplace_back(t.at("term").get<std::string>(), get<char>(in, t.at("bytes").get<std::size_t>(), path));
  integrator_.set_state(h.at("state").get<std::vector<double>>());
  step_ = h.at("step").get<long>();
  lists_.build(atoms_);
  compute_forces(true);  // energy and virial for the first thermo line
  // Solver state after that evaluation, which a continuing run did not make.
  for (const auto& [name, bytes] : term_states) {
    try {
      force_field_.restore_state(name, std::string(bytes.begin(), bytes.end()));
    } catch (const InputError&) {
      throw;
    } catch (const Error& e) {
      throw InputError(path, 2, std::string("checkpoint state of a term: ") + e.what());
    }
  }
  // The saved forces, not the recomputed ones: those could differ in the last bit.
  atoms_.fx.assign(forces[0]);
  atoms_.fy.assign(forces[1]);
  atoms_.fz.assign(forces[2]);
}

}  // namespace quasar::md
