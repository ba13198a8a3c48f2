// Checkpoints: a text line, a JSON header, the order the atoms are in (the input index of the atom at
// each position: spatial sorting moves them), every saved per-atom property of the registry
// (AtomState::properties, named with its type and width in the header) in input order, then the
// solver state of the force field's terms that have one (named with their sizes in the header).
// Restoring puts every atom back where it was, so that a restarted run repeats the uninterrupted one
// bit for bit on the CPU (and on the GPU in deterministic mode).
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <type_traits>
#include <variant>

#include <nlohmann/json.hpp>

#include "quasar/core/error.hpp"
#include "quasar/io/read.hpp"
#include "quasar/md/simulation.hpp"

namespace quasar::md {

namespace {
constexpr const char* kMagic = "QUASAR-CHECKPOINT 2";
constexpr const char* kMagicPrefix = "QUASAR-CHECKPOINT ";

template <class T>
void put(std::ostream& out, const std::vector<T>& v) {
  out.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(T)));
}

template <class T>
const char* type_tag() {
  if constexpr (std::is_same_v<T, double>) return "f64";
  else if constexpr (std::is_same_v<T, int>) return "i32";
  else return "i64";
}

template <class A>
using ValueOf = typename std::remove_pointer_t<A>::value_type;

// The saved properties of the registry that hold values (charges only where there are some).
std::vector<AtomProperty> saved_properties(AtomState& atoms) {
  std::vector<AtomProperty> out;
  for (const AtomProperty& p : atoms.properties())
    if (p.saved && std::visit([](auto* a) { return !a->empty(); }, p.array)) out.push_back(p);
  return out;
}

nlohmann::json describe_properties(const std::vector<AtomProperty>& props) {
  nlohmann::json list = nlohmann::json::array();
  for (const AtomProperty& p : props)
    list.push_back({{"name", p.name},
                    {"type", std::visit([](auto* a) { return type_tag<ValueOf<decltype(a)>>(); }, p.array)},
                    {"width", p.width}});
  return list;
}

// "x y z ..." for messages (at most 40 names, each cut at 40 characters; "?" where an entry has none).
std::string property_names(const nlohmann::json& list) {
  std::string names;
  if (!list.is_array()) return names;
  std::size_t shown = 0;
  for (const auto& p : list) {
    if (++shown > 40) return names + " ...";
    const bool named = p.is_object() && p.contains("name") && p["name"].is_string();
    names += (names.empty() ? "" : " ") + (named ? p["name"].get<std::string>().substr(0, 40) : std::string("?"));
  }
  return names;
}

// One property's values as read, in input order, component-major.
using Values = std::variant<std::vector<double>, std::vector<int>, std::vector<long>>;

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
  h["term_state"] = nlohmann::json::array();
  for (const auto& [name, bytes] : term_states) h["term_state"].push_back({{"term", name}, {"bytes", bytes.size()}});
  const std::vector<long> order = atoms_.id.to_vector();  // input index of the atom at each position
  const std::size_t n = order.size();
  io::write_file_atomically(path, [&](std::ostream& out) {
    out << kMagic << "\n" << h.dump() << "\n";
    put(out, order);
    for (const AtomProperty& p : props)
      std::visit(
          [&](auto* a) {
            const auto now = a->to_vector();
            std::vector<ValueOf<decltype(a)>> input(now.size());
            for (std::size_t c = 0; c < static_cast<std::size_t>(p.width); ++c)
              for (std::size_t i = 0; i < n; ++i) input[c * n + static_cast<std::size_t>(order[i])] = now[c * n + i];
            put(out, input);
          },
          p.array);
    for (const auto& state : term_states) out.write(state.second.data(), static_cast<std::streamsize>(state.second.size()));
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
    if (magic == "QUASAR-CHECKPOINT 1")
      throw InputError(path, 1, "checkpoint format 1 (per-atom arrays in sorted order) was written by an earlier "
                                "version of Quasar; this build reads format 2 only: start again from the input structure");
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
  const nlohmann::json want = describe_properties(props);
  if (hd.at("properties") != want)
    hd.fail("properties", "the per-atom properties (" + property_names(hd.at("properties")) + ") differ from this run's (" +
                              property_names(want) + ")");
  // The terms' solver states: names and sizes.
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
  // The order, the properties and the states must fill the rest of the file exactly: counts are
  // checked before any allocation.
  const std::size_t sn = static_cast<std::size_t>(n);
  std::uintmax_t bytes = sn * sizeof(long) + state_bytes;
  for (const AtomProperty& p : props)
    bytes += sn * static_cast<std::size_t>(p.width) * std::visit([](auto* a) { return sizeof(ValueOf<decltype(a)>); }, p.array);
  const std::streamoff at = in.tellg();
  if (ec || at < 0 || file_size - static_cast<std::uintmax_t>(at) != bytes)
    throw InputError(path, 0, "checkpoint has " + std::to_string(at < 0 ? 0 : file_size - static_cast<std::uintmax_t>(at)) +
                                  " bytes after its header, expected " + std::to_string(bytes) + " for " +
                                  std::to_string(n) + " atoms and " + std::to_string(state_bytes) + " bytes of term states");
  const std::vector<long> order = get<long>(in, sn, path);
  std::vector<Values> values;  // per property, in input order
  for (const AtomProperty& p : props)
    values.push_back(std::visit(
        [&](auto* a) -> Values { return get<ValueOf<decltype(a)>>(in, sn * static_cast<std::size_t>(p.width), path); },
        p.array));
  std::vector<std::pair<std::string, std::vector<char>>> term_states;
  for (const auto& [name, size] : state_sizes) term_states.emplace_back(name, get<char>(in, size, path));
  // The order is a permutation of the input's atoms.
  std::vector<char> seen(sn, 0);
  for (std::size_t i = 0; i < sn; ++i) {
    const long id = order[i];
    if (id < 0 || id >= n || seen[static_cast<std::size_t>(id)])
      throw InputError(path, 0, "checkpoint: atom ids are not a permutation of 0.." + std::to_string(n - 1) + " (atom " +
                                    std::to_string(i) + " has id " + std::to_string(id) + ")");
    seen[static_cast<std::size_t>(id)] = 1;
  }
  // Every number finite; atoms (input index k) of the input's types; positions inside the cell.
  auto doubles = [&](const std::string& name) -> const std::vector<double>& {
    for (std::size_t q = 0; q < props.size(); ++q)
      if (props[q].name == name) return std::get<std::vector<double>>(values[q]);
    throw InputError(path, 0, "checkpoint: no " + name);
  };
  for (std::size_t q = 0; q < props.size(); ++q)
    if (const auto* v = std::get_if<std::vector<double>>(&values[q]))
      for (std::size_t k = 0; k < v->size(); ++k)
        if (!std::isfinite((*v)[k]))
          throw InputError(path, 0, "checkpoint: " + props[q].name + " of atom " + std::to_string(k % sn) + " is not finite");
  const std::vector<double>&px = doubles("x"), &py = doubles("y"), &pz = doubles("z");
  for (std::size_t k = 0; k < sn; ++k) {
    const Vec3 s = box.to_frac({px[k], py[k], pz[k]});
    for (int d = 0; d < 3; ++d)
      if (periodic[d] && !(s[d] >= -1e-6 && s[d] <= 1 + 1e-6))
        throw InputError(path, 0, "checkpoint: atom " + std::to_string(k) + " lies outside the cell (fractional coordinate " +
                                      fraction_text(s[d]) + "; positions are written wrapped)");
  }
  {
    std::vector<int> input_type(sn);
    const std::vector<int> type_now = atoms_.type.to_vector();
    const std::vector<long> id_now = atoms_.id.to_vector();
    for (std::size_t i = 0; i < sn; ++i) input_type[static_cast<std::size_t>(id_now[i])] = type_now[i];
    for (std::size_t q = 0; q < props.size(); ++q) {
      if (props[q].name != "type") continue;
      const auto& t = std::get<std::vector<int>>(values[q]);
      for (std::size_t k = 0; k < sn; ++k)
        if (t[k] != input_type[k])
          throw InputError(path, 0, "checkpoint: atom " + std::to_string(k) + " has type " + std::to_string(t[k]) +
                                        ", the input's atom has type " + std::to_string(input_type[k]));
    }
  }
  // Checked: now the state changes. Every property goes back to the order the atoms were in.
  auto restore_properties = [&] {
    for (std::size_t q = 0; q < props.size(); ++q)
      std::visit(
          [&](auto* a) {
            using T = ValueOf<decltype(a)>;
            const auto& file = std::get<std::vector<T>>(values[q]);
            std::vector<T> now(file.size());
            for (std::size_t c = 0; c < static_cast<std::size_t>(props[q].width); ++c)
              for (std::size_t i = 0; i < sn; ++i) now[c * sn + i] = file[c * sn + static_cast<std::size_t>(order[i])];
            a->assign(now);
          },
          props[q].array);
  };
  atoms_.set_box(box);
  restore_properties();
  atoms_.id.assign(order);
  atoms_.update_index_of();
  integrator_->set_state(state);  // and its per-atom arrays are among the properties
  step_ = step;
  lists_.build(atoms_);
  compute_forces(true);  // energy and virial for the first thermo line
  // Solver state after that evaluation, which a continuing run did not make.
  for (const auto& [name, saved] : term_states) {
    try {
      force_field_.restore_state(name, std::string(saved.begin(), saved.end()));
    } catch (const InputError&) {
      throw;
    } catch (const Error& e) {
      throw InputError(path, 2, std::string("checkpoint state of a term: ") + e.what());
    }
  }
  // The saved values, not those the evaluation recomputed (forces could differ in the last bit, and
  // a property that a term updates as it computes would have moved on).
  restore_properties();
  start_integrator();  // with its arrays restored, an integrator computes nothing here
}

}  // namespace quasar::md
