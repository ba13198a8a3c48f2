#pragma once
// The parts of a checkpoint that every driver shares (md::Simulation's, md::Ensemble's): the JSON
// header's checked values, and the atoms: the order they are in (the input index of the atom at
// each position: spatial sorting moves them) and every saved per-atom property of the registry
// (AtomState::properties, named with its type and width in the header) in input order. Reading
// checks everything before the state changes: the properties against the run's, the counts against
// the file, every number finite, the order a permutation, each atom's type the input's.
#include <cstdint>
#include <fstream>
#include <istream>
#include <ostream>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "quasar/core/atoms.hpp"
#include "quasar/core/error.hpp"
#include "quasar/potential/force_field.hpp"

namespace quasar::md::checkpoint {

template <class T>
void put(std::ostream& out, const std::vector<T>& v) {
  out.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(T)));
}

// n values of T, or an InputError of `path` when the file ends first.
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
  [[noreturn]] void fail(const std::string& key, const std::string& msg) const;
  const nlohmann::json& at(const std::string& key) const;
  long integer(const std::string& key) const;
  std::vector<double> numbers(const std::string& key, std::size_t count) const;
  std::string string(const std::string& key) const;
};

// The JSON header after the first line (checked to be `magic`, with the messages for other versions
// and other files), as an object.
nlohmann::json read_header(std::istream& in, const std::string& path, const std::string& magic);

// The saved properties of the registry that hold values (charges only where there are some), and
// their description for the header ({name, type, width} each).
std::vector<AtomProperty> saved_properties(AtomState& atoms);
nlohmann::json describe_properties(const std::vector<AtomProperty>& props);
// Throws (at header key "properties") unless the header's properties are `props`.
void check_properties(const Header& header, const std::vector<AtomProperty>& props);

// The order and the properties in input order.
void write_atoms(std::ostream& out, const std::vector<AtomProperty>& props, const std::vector<long>& order);
// Bytes that write_atoms writes for n atoms.
std::uintmax_t atoms_bytes(std::size_t n, const std::vector<AtomProperty>& props);

// One property's values as read, in input order, component-major.
using Values = std::variant<std::vector<double>, std::vector<int>, std::vector<long>>;

struct AtomValues {
  std::vector<long> order;
  std::vector<AtomProperty> props;
  std::vector<Values> values;  // per property
  // The double property `name` (an InputError of `path` when there is none).
  const std::vector<double>& doubles(const std::string& name, const std::string& path) const;
};

// Reads what write_atoms wrote and checks it against `atoms` (the order a permutation, every number
// finite, each atom's type the input's); positions against the cells are the caller's to check.
AtomValues read_atoms(std::istream& in, AtomState& atoms, const std::vector<AtomProperty>& props,
                      const std::string& path);
// Puts every property back into the stored order (the caller sets the ids: AtomState::id and update_index_of).
void restore_properties(const AtomValues& v);

// Throws unless the positions of the input atoms [first, last) lie inside `box` in its periodic
// directions (checkpoints write them wrapped).
void check_inside(const Box& box, const AtomValues& v, long first, long last, const std::string& path);

// The header's "term_state" entries (a term's name and the bytes of its solver state; none when
// the key is absent), each within the file's size.
std::vector<std::pair<std::string, std::size_t>> term_state_sizes(const Header& header, std::uintmax_t file_size);

// Throws unless the header's atom types and integrator are the run's; returns its step (>= 0).
long check_run(const Header& header, const std::vector<std::string>& type_names, const std::string& integrator);

// The checkpoint file opened for reading, with its size (an InputError when it is not a readable file).
std::ifstream open_file(const std::string& path, std::uintmax_t& file_size);

// The terms' solver states (ForceField::save_states): described in the header's "term_state",
// written last, read back by the sizes term_state_sizes gave, and restored by name (a term's
// refusal becomes an InputError of `path`).
using TermStates = std::vector<std::pair<std::string, std::string>>;
nlohmann::json describe_term_states(const TermStates& states);
void write_term_states(std::ostream& out, const TermStates& states);
TermStates read_term_states(std::istream& in, const std::vector<std::pair<std::string, std::size_t>>& sizes,
                            const std::string& path);
void restore_term_states(ForceField& force_field, const TermStates& states, const std::string& path);

}  // namespace quasar::md::checkpoint
