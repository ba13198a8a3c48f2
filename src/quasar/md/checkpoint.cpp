// Checkpoints: a text line, a JSON header, then the per-atom arrays in their current (spatially
// sorted) order, so that a restarted run repeats the uninterrupted one bit for bit on the CPU, then
// the solver state of the force field's terms that have one (named with their sizes in the header),
// then the per-atom arrays the integrator keeps (named in the header, n doubles each, input order).
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

#include "quasar/core/error.hpp"
#include "quasar/io/read.hpp"
#include "quasar/md/simulation.hpp"

namespace quasar::md {

namespace {
constexpr const char* kMagic = "QUASAR-CHECKPOINT 1";
constexpr const char* kMagicPrefix = "QUASAR-CHECKPOINT ";

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

// The JSON header's values, each checked for its type (and finiteness) with the key in errors.
struct Header {
  const nlohmann::json& h;
  std::string path;
  [[noreturn]] void fail(const std::string& key, const std::string& msg) const {
    throw InputError(path, 2, "header key '" + key + "': " + msg);
  }
  const nlohmann::json& at(const std::string& key) const {
    if (!h.contains(key)) fail(key, "missing");
    return h.at(key);
  }
  long integer(const std::string& key) const {
    const auto& v = at(key);
    if (!v.is_number_integer()) fail(key, "expected an integer");
    if (v.is_number_unsigned() && v.get<unsigned long>() > static_cast<unsigned long>(std::numeric_limits<long>::max()))
      fail(key, "out of range");
    return v.get<long>();
  }
  std::vector<double> numbers(const std::string& key, std::size_t count) const {
    const auto& v = at(key);
    if (!v.is_array() || v.size() != count) fail(key, "expected " + std::to_string(count) + " numbers");
    std::vector<double> out;
    for (const auto& x : v) {
      if (!x.is_number() || !std::isfinite(x.get<double>())) fail(key, "expected finite numbers");
      out.push_back(x.get<double>());
    }
    return out;
  }
  std::string string(const std::string& key) const {
    if (!at(key).is_string()) fail(key, "expected a string");
    return at(key).get<std::string>();
  }
  bool boolean(const std::string& key) const {
    const auto& v = at(key);
    if (v.is_boolean()) return v.get<bool>();
    if (v.is_number_integer() && (v.get<long>() == 0 || v.get<long>() == 1)) return v.get<long>() == 1;
    fail(key, "expected true or false");
  }
};

std::string fraction_text(double s) {
  std::ostringstream os;
  os << s;
  return os.str();
}
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
  const std::vector<NamedAtomArray> integrator_arrays = integrator_->save_atom_arrays(atoms_);
  h["integrator_arrays"] = nlohmann::json::array();
  for (const auto& a : integrator_arrays) h["integrator_arrays"].push_back(a.name);
  const Box& b = atoms_.box();
  std::vector<double> cell;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) cell.push_back(b.h(r, c));
  h["cell"] = cell;
  h["origin"] = {b.origin.x, b.origin.y, b.origin.z};
  h["pbc"] = {b.periodic[0], b.periodic[1], b.periodic[2]};
  h["has_charges"] = atoms_.has_charges();
  const auto term_states = force_field_.save_states();
  h["term_state"] = nlohmann::json::array();
  for (const auto& [name, bytes] : term_states) h["term_state"].push_back({{"term", name}, {"bytes", bytes.size()}});
  io::write_file_atomically(path, [&](std::ostream& out) {
    out << kMagic << "\n" << h.dump() << "\n";
    for (auto* a : {&atoms_.x, &atoms_.y, &atoms_.z, &atoms_.vx, &atoms_.vy, &atoms_.vz, &atoms_.fx, &atoms_.fy, &atoms_.fz})
      put(out, *a);
    for (auto* a : {&atoms_.type, &atoms_.ix, &atoms_.iy, &atoms_.iz}) put(out, *a);
    put(out, atoms_.id);
    if (atoms_.has_charges()) put(out, atoms_.charge);
    for (const auto& state : term_states) out.write(state.second.data(), static_cast<std::streamsize>(state.second.size()));
    for (const auto& a : integrator_arrays)
      out.write(reinterpret_cast<const char*>(a.values.data()),
                static_cast<std::streamsize>(a.values.size() * sizeof(double)));
  });
}

// Everything is read and checked before any state changes, so a bad checkpoint leaves the
// simulation as it was: the header against the input (atoms, types, integrator, periodicity), the
// arrays' total size against the file, every number finite, positions inside the cell in periodic
// directions (they are written wrapped), types and ids consistent with the input's atoms, the terms'
// solver states named and sized in the header.
void Simulation::read_checkpoint(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw InputError(path, 0, "cannot open checkpoint");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "cannot open checkpoint");
  const auto file_size = std::filesystem::file_size(path, ec);
  std::string magic, header;
  std::getline(in, magic);
  if (magic != kMagic) {
    if (magic.rfind(kMagicPrefix, 0) == 0)
      throw InputError(path, 1, "checkpoint format '" + magic.substr(0, 40) + "'; this build reads '" + kMagic + "'");
    throw InputError(path, 1, "not a Quasar checkpoint (first line '" + magic.substr(0, 40) + "')");
  }
  std::getline(in, header);
  nlohmann::json h;
  try {
    h = nlohmann::json::parse(header);
  } catch (const std::exception& e) {
    throw InputError(path, 2, std::string("bad checkpoint header: ") + e.what());
  }
  if (!h.is_object()) throw InputError(path, 2, "bad checkpoint header: expected a JSON object");
  const Header hd{h, path};
  const long n = hd.integer("atoms");
  if (n != atoms_.size())
    throw InputError(path, 2, "checkpoint has " + std::to_string(n) + " atoms, the input " + std::to_string(atoms_.size()));
  const auto& types = hd.at("types");
  bool same_types = types.is_array() && types.size() == atoms_.type_names().size();
  for (std::size_t t = 0; same_types && t < types.size(); ++t)
    same_types = types[t].is_string() && types[t].get<std::string>() == atoms_.type_names()[t];
  if (!same_types) throw InputError(path, 2, "checkpoint atom types differ from the input's");
  const std::string integrator = hd.string("integrator");
  if (integrator != integrator_->name())
    throw InputError(path, 2, "checkpoint was written by integrator '" + integrator.substr(0, 60) +
                                  "', the input asks for '" + integrator_->name() + "'");
  const long step = hd.integer("step");
  if (step < 0) hd.fail("step", "expected a non-negative step");
  const std::vector<double> state = hd.numbers("state", integrator_->state_size());
  // The integrator's per-atom arrays: names (an older checkpoint has none).
  std::vector<std::string> array_names;
  if (h.contains("integrator_arrays")) {
    const auto& list = h.at("integrator_arrays");
    if (!list.is_array() || list.size() > 1000) hd.fail("integrator_arrays", "expected an array of names");
    for (const auto& name : list) {
      if (!name.is_string()) hd.fail("integrator_arrays", "expected an array of names");
      array_names.push_back(name.get<std::string>());
    }
  }
  try {
    integrator_->check_atom_arrays(array_names);
  } catch (const Error& e) {
    hd.fail("integrator_arrays", e.what());
  }
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
  const bool charges = hd.boolean("has_charges");
  if (charges != atoms_.has_charges()) hd.fail("has_charges", "differs from the input's");
  // The terms' solver states: names and sizes (an older checkpoint has none).
  std::vector<std::pair<std::string, std::size_t>> state_sizes;
  std::uintmax_t state_bytes = 0;
  if (h.contains("term_state")) {
    const auto& list = h.at("term_state");
    if (!list.is_array()) hd.fail("term_state", "expected an array");
    for (const auto& t : list) {
      if (!t.is_object() || !t.contains("term") || !t.at("term").is_string() || !t.contains("bytes") ||
          !t.at("bytes").is_number_unsigned() || t.at("bytes").get<std::uintmax_t>() > file_size)
        hd.fail("term_state", "expected {\"term\": name, \"bytes\": size} entries within the file");
      state_sizes.emplace_back(t.at("term").get<std::string>(), t.at("bytes").get<std::size_t>());
      state_bytes += state_sizes.back().second;
    }
  }
  // The arrays and states must fill the rest of the file exactly: counts are checked before any allocation.
  const std::size_t sn = static_cast<std::size_t>(n);
  const std::uintmax_t array_bytes = array_names.size() * sn * sizeof(double);
  const std::uintmax_t bytes =
      sn * (9 * sizeof(double) + 4 * sizeof(int) + sizeof(long) + (charges ? sizeof(double) : 0)) + state_bytes +
      array_bytes;
  const std::streamoff at = in.tellg();
  if (ec || at < 0 || file_size - static_cast<std::uintmax_t>(at) != bytes)
    throw InputError(path, 0, "checkpoint has " + std::to_string(at < 0 ? 0 : file_size - static_cast<std::uintmax_t>(at)) +
                                  " bytes after its header, expected " + std::to_string(bytes) + " for " +
                                  std::to_string(n) + " atoms and " + std::to_string(state_bytes) + " bytes of term states" +
                                  (array_bytes ? " and " + std::to_string(array_bytes) + " bytes of integrator arrays" : ""));
  std::vector<std::vector<double>> real;  // x y z vx vy vz fx fy fz
  for (int k = 0; k < 9; ++k) real.push_back(get<double>(in, sn, path));
  std::vector<std::vector<int>> ints;  // type ix iy iz
  for (int k = 0; k < 4; ++k) ints.push_back(get<int>(in, sn, path));
  const std::vector<long> ids = get<long>(in, sn, path);
  const std::vector<double> charge = charges ? get<double>(in, sn, path) : std::vector<double>();
  std::vector<std::pair<std::string, std::vector<char>>> term_states;
  for (const auto& [name, size] : state_sizes) term_states.emplace_back(name, get<char>(in, size, path));
  std::vector<NamedAtomArray> integrator_arrays;
  for (const auto& name : array_names) {
    integrator_arrays.push_back({name, get<double>(in, sn, path)});
    for (std::size_t i = 0; i < sn; ++i)
      if (!std::isfinite(integrator_arrays.back().values[i]))
        throw InputError(path, 0,
                         "checkpoint: integrator array " + name + " of atom " + std::to_string(i) + " is not finite");
  }
  static const char* names[] = {"x", "y", "z", "vx", "vy", "vz", "fx", "fy", "fz"};
  for (int k = 0; k < 9; ++k)
    for (std::size_t i = 0; i < sn; ++i)
      if (!std::isfinite(real[k][i])) throw InputError(path, 0, std::string("checkpoint: ") + names[k] + " of atom " + std::to_string(i) + " is not finite");
  for (std::size_t i = 0; i < charge.size(); ++i)
    if (!std::isfinite(charge[i])) throw InputError(path, 0, "checkpoint: charge of atom " + std::to_string(i) + " is not finite");
  for (std::size_t i = 0; i < sn; ++i) {
    const Vec3 s = box.to_frac({real[0][i], real[1][i], real[2][i]});
    for (int k = 0; k < 3; ++k)
      if (periodic[k] && !(s[k] >= -1e-6 && s[k] <= 1 + 1e-6))
        throw InputError(path, 0, "checkpoint: atom " + std::to_string(i) + " lies outside the cell (fractional coordinate " +
                                      fraction_text(s[k]) + "; positions are written wrapped)");
  }
  // Ids are a permutation of the input's atoms, each with the type that atom has now.
  std::vector<int> input_type(sn);
  {
    const std::vector<int> type_now = atoms_.type.to_vector();
    const std::vector<long> id_now = atoms_.id.to_vector();
    for (std::size_t i = 0; i < sn; ++i) input_type[static_cast<std::size_t>(id_now[i])] = type_now[i];
  }
  std::vector<char> seen(sn, 0);
  for (std::size_t i = 0; i < sn; ++i) {
    const long id = ids[i];
    if (id < 0 || id >= n || seen[static_cast<std::size_t>(id)])
      throw InputError(path, 0, "checkpoint: atom ids are not a permutation of 0.." + std::to_string(n - 1) + " (atom " +
                                    std::to_string(i) + " has id " + std::to_string(id) + ")");
    seen[static_cast<std::size_t>(id)] = 1;
    if (ints[0][i] != input_type[static_cast<std::size_t>(id)])
      throw InputError(path, 0, "checkpoint: atom " + std::to_string(id) + " has type " + std::to_string(ints[0][i]) +
                                    ", the input's atom has type " + std::to_string(input_type[static_cast<std::size_t>(id)]));
  }
  // Checked: now the state changes.
  atoms_.set_box(box);
  Array<double>* reals[] = {&atoms_.x, &atoms_.y, &atoms_.z, &atoms_.vx, &atoms_.vy, &atoms_.vz};
  for (int k = 0; k < 6; ++k) reals[k]->assign(real[k]);
  Array<int>* int_arrays[] = {&atoms_.type, &atoms_.ix, &atoms_.iy, &atoms_.iz};
  for (int k = 0; k < 4; ++k) int_arrays[k]->assign(ints[k]);
  atoms_.id.assign(ids);
  atoms_.update_index_of();
  if (charges) atoms_.charge.assign(charge);
  integrator_->set_state(state);
  integrator_->restore_atom_arrays(integrator_arrays);
  step_ = step;
  lists_.build(atoms_);
  compute_forces(true);  // energy and virial for the first thermo line
  // Solver state after that evaluation, which a continuing run did not make.
  for (const auto& [name, state] : term_states) {
    try {
      force_field_.restore_state(name, std::string(state.begin(), state.end()));
    } catch (const InputError&) {
      throw;
    } catch (const Error& e) {
      throw InputError(path, 2, std::string("checkpoint state of a term: ") + e.what());
    }
  }
  // The saved forces, not the recomputed ones: those could differ in the last bit.
  atoms_.fx.assign(real[6]);
  atoms_.fy.assign(real[7]);
  atoms_.fz.assign(real[8]);
  start_integrator();  // with its arrays restored, an integrator computes nothing here
}

}  // namespace quasar::md
