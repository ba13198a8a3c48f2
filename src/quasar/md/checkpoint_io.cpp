#include "quasar/md/checkpoint_io.hpp"

#include <cmath>
#include <filesystem>
#include <limits>
#include <sstream>
#include <type_traits>

#include "quasar/core/error.hpp"

namespace quasar::md::checkpoint {

namespace {
template <class T>
const char* type_tag() {
  if constexpr (std::is_same_v<T, double>) return "f64";
  else if constexpr (std::is_same_v<T, int>) return "i32";
  else return "i64";
}

template <class A>
using ValueOf = typename std::remove_pointer_t<A>::value_type;

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
}  // namespace

void Header::fail(const std::string& key, const std::string& msg) const {
  throw InputError(path, 2, "header key '" + key + "': " + msg);
}

const nlohmann::json& Header::at(const std::string& key) const {
  if (!h.contains(key)) fail(key, "missing");
  return h.at(key);
}

long Header::integer(const std::string& key) const {
  const auto& v = at(key);
  if (!v.is_number_integer()) fail(key, "expected an integer");
  if (v.is_number_unsigned() && v.get<unsigned long>() > static_cast<unsigned long>(std::numeric_limits<long>::max()))
    fail(key, "out of range");
  return v.get<long>();
}

std::vector<double> Header::numbers(const std::string& key, std::size_t count) const {
  const auto& v = at(key);
  if (!v.is_array() || v.size() != count) fail(key, "expected " + std::to_string(count) + " numbers");
  std::vector<double> out;
  for (const auto& x : v) {
    if (!x.is_number() || !std::isfinite(x.get<double>())) fail(key, "expected finite numbers");
    out.push_back(x.get<double>());
  }
  return out;
}

std::string Header::string(const std::string& key) const {
  if (!at(key).is_string()) fail(key, "expected a string");
  return at(key).get<std::string>();
}

nlohmann::json read_header(std::istream& in, const std::string& path, const std::string& magic) {
  std::string first, header;
  std::getline(in, first);
  if (first != magic) {
    if (first == "QUASAR-CHECKPOINT 1")
      throw InputError(path, 1, "checkpoint format 1 (per-atom arrays in sorted order) was written by an earlier "
                                "version of Quasar; this build reads format 2 only: start again from the input structure");
    if (first.rfind("QUASAR-", 0) == 0 && first.find("CHECKPOINT ") != std::string::npos)
      throw InputError(path, 1, "checkpoint format '" + first.substr(0, 40) + "'; this build reads '" + magic + "'");
    throw InputError(path, 1, "not a Quasar checkpoint (first line '" + first.substr(0, 40) + "')");
  }
  std::getline(in, header);
  nlohmann::json h;
  try {
    h = nlohmann::json::parse(header);
  } catch (const std::exception& e) {
    throw InputError(path, 2, std::string("bad checkpoint header: ") + e.what());
  }
  if (!h.is_object()) throw InputError(path, 2, "bad checkpoint header: expected a JSON object");
  return h;
}

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

void check_properties(const Header& header, const std::vector<AtomProperty>& props) {
  const nlohmann::json want = describe_properties(props);
  if (header.at("properties") != want)
    header.fail("properties", "the per-atom properties (" + property_names(header.at("properties")) +
                                  ") differ from this run's (" + property_names(want) + ")");
}

void write_atoms(std::ostream& out, const std::vector<AtomProperty>& props, const std::vector<long>& order) {
  const std::size_t n = order.size();
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
}

std::uintmax_t atoms_bytes(std::size_t n, const std::vector<AtomProperty>& props) {
  std::uintmax_t bytes = n * sizeof(long);
  for (const AtomProperty& p : props)
    bytes += n * static_cast<std::size_t>(p.width) * std::visit([](auto* a) { return sizeof(ValueOf<decltype(a)>); }, p.array);
  return bytes;
}

const std::vector<double>& AtomValues::doubles(const std::string& name, const std::string& path) const {
  for (std::size_t q = 0; q < props.size(); ++q)
    if (props[q].name == name) return std::get<std::vector<double>>(values[q]);
  throw InputError(path, 0, "checkpoint: no " + name);
}

AtomValues read_atoms(std::istream& in, AtomState& atoms, const std::vector<AtomProperty>& props,
                      const std::string& path) {
  const std::size_t sn = static_cast<std::size_t>(atoms.size());
  const long n = atoms.size();
  AtomValues v;
  v.props = props;
  v.order = get<long>(in, sn, path);
  for (const AtomProperty& p : props)
    v.values.push_back(std::visit(
        [&](auto* a) -> Values { return get<ValueOf<decltype(a)>>(in, sn * static_cast<std::size_t>(p.width), path); },
        p.array));
  // The order is a permutation of the input's atoms.
  std::vector<char> seen(sn, 0);
  for (std::size_t i = 0; i < sn; ++i) {
    const long id = v.order[i];
    if (id < 0 || id >= n || seen[static_cast<std::size_t>(id)])
      throw InputError(path, 0, "checkpoint: atom ids are not a permutation of 0.." + std::to_string(n - 1) + " (atom " +
                                    std::to_string(i) + " has id " + std::to_string(id) + ")");
    seen[static_cast<std::size_t>(id)] = 1;
  }
  // Every number finite; atoms (input index k) of the input's types.
  for (std::size_t q = 0; q < props.size(); ++q)
    if (const auto* d = std::get_if<std::vector<double>>(&v.values[q]))
      for (std::size_t k = 0; k < d->size(); ++k)
        if (!std::isfinite((*d)[k]))
          throw InputError(path, 0, "checkpoint: " + props[q].name + " of atom " + std::to_string(k % sn) + " is not finite");
  std::vector<int> input_type(sn);
  const std::vector<int> type_now = atoms.type.to_vector();
  const std::vector<long> id_now = atoms.id.to_vector();
  for (std::size_t i = 0; i < sn; ++i) input_type[static_cast<std::size_t>(id_now[i])] = type_now[i];
  for (std::size_t q = 0; q < props.size(); ++q) {
    if (props[q].name != "type") continue;
    const auto& t = std::get<std::vector<int>>(v.values[q]);
    for (std::size_t k = 0; k < sn; ++k)
      if (t[k] != input_type[k])
        throw InputError(path, 0, "checkpoint: atom " + std::to_string(k) + " has type " + std::to_string(t[k]) +
                                      ", the input's atom has type " + std::to_string(input_type[k]));
  }
  return v;
}

void restore_properties(const AtomValues& v) {
  const std::size_t sn = v.order.size();
  for (std::size_t q = 0; q < v.props.size(); ++q)
    std::visit(
        [&](auto* a) {
          using T = ValueOf<decltype(a)>;
          const auto& file = std::get<std::vector<T>>(v.values[q]);
          std::vector<T> now(file.size());
          for (std::size_t c = 0; c < static_cast<std::size_t>(v.props[q].width); ++c)
            for (std::size_t i = 0; i < sn; ++i) now[c * sn + i] = file[c * sn + static_cast<std::size_t>(v.order[i])];
          a->assign(now);
        },
        v.props[q].array);
}

void check_inside(const Box& box, const AtomValues& v, long first, long last, const std::string& path) {
  const std::vector<double>&px = v.doubles("x", path), &py = v.doubles("y", path), &pz = v.doubles("z", path);
  for (long k = first; k < last; ++k) {
    const std::size_t at = static_cast<std::size_t>(k);
    const Vec3 s = box.to_frac({px[at], py[at], pz[at]});
    for (int d = 0; d < 3; ++d)
      if (box.periodic[d] && !(s[d] >= -1e-6 && s[d] <= 1 + 1e-6)) {
        std::ostringstream fraction;
        fraction << s[d];
        throw InputError(path, 0, "checkpoint: atom " + std::to_string(k) + " lies outside the cell (fractional coordinate " +
                                      fraction.str() + "; positions are written wrapped)");
      }
  }
}

std::vector<std::pair<std::string, std::size_t>> term_state_sizes(const Header& header, std::uintmax_t file_size) {
  std::vector<std::pair<std::string, std::size_t>> sizes;
  if (!header.h.contains("term_state")) return sizes;
  const auto& list = header.h.at("term_state");
  if (!list.is_array()) header.fail("term_state", "expected an array");
  for (const auto& t : list) {
    if (!t.is_object() || !t.contains("term") || !t.at("term").is_string() || !t.contains("bytes") ||
        !t.at("bytes").is_number_unsigned() || t.at("bytes").get<std::uintmax_t>() > file_size)
      header.fail("term_state", "expected {\"term\": name, \"bytes\": size} entries within the file");
    sizes.emplace_back(t.at("term").get<std::string>(), t.at("bytes").get<std::size_t>());
  }
  return sizes;
}

long check_run(const Header& hd, const std::vector<std::string>& type_names, const std::string& integrator) {
  const auto& types = hd.at("types");
  bool same_types = types.is_array() && types.size() == type_names.size();
  for (std::size_t t = 0; same_types && t < types.size(); ++t)
    same_types = types[t].is_string() && types[t].get<std::string>() == type_names[t];
  if (!same_types) throw InputError(hd.path, 2, "checkpoint atom types differ from the input's");
  const std::string written = hd.string("integrator");
  if (written != integrator)
    throw InputError(hd.path, 2, "checkpoint was written by integrator '" + written.substr(0, 60) +
                                     "', the input asks for '" + integrator + "'");
  const long step = hd.integer("step");
  if (step < 0) hd.fail("step", "expected a non-negative step");
  return step;
}

std::ifstream open_file(const std::string& path, std::uintmax_t& file_size) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw InputError(path, 0, "cannot open checkpoint");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "cannot open checkpoint");
  file_size = std::filesystem::file_size(path, ec);
  if (ec) throw InputError(path, 0, "cannot read the checkpoint's size: " + ec.message());
  return in;
}

nlohmann::json describe_term_states(const TermStates& states) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [name, bytes] : states) out.push_back({{"term", name}, {"bytes", bytes.size()}});
  return out;
}

void write_term_states(std::ostream& out, const TermStates& states) {
  for (const auto& state : states) out.write(state.second.data(), static_cast<std::streamsize>(state.second.size()));
}

TermStates read_term_states(std::istream& in, const std::vector<std::pair<std::string, std::size_t>>& sizes,
                            const std::string& path) {
  TermStates out;
  for (const auto& [name, size] : sizes) {
    const std::vector<char> bytes = get<char>(in, size, path);
    out.emplace_back(name, std::string(bytes.begin(), bytes.end()));
  }
  return out;
}

void restore_term_states(ForceField& force_field, const TermStates& states, const std::string& path) {
  for (const auto& [name, saved] : states) {
    try {
      force_field.restore_state(name, saved);
    } catch (const InputError&) {
      throw;
    } catch (const Error& e) {
      throw InputError(path, 2, std::string("checkpoint state of a term: ") + e.what());
    }
  }
}

}  // namespace quasar::md::checkpoint
