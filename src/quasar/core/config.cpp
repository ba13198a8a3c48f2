#include "quasar/core/config.hpp"

#include <cmath>
#include <sstream>

namespace quasar {

// A number node as a finite double: toml++ gives no double for an integer it cannot convert exactly
// (beyond 2^53), and TOML floats may be inf or nan.
double ConfigTable::finite_number(const toml::node& n, std::string_view key) const {
  const std::optional<double> v = n.value<double>();
  if (!v) fail(key, "expected a number that a double holds exactly");
  if (!std::isfinite(*v)) fail(key, "expected a finite number");
  return *v;
}

int ConfigTable::line_of(std::string_view key) const {
  const toml::node* n = table->get(key);
  return n ? static_cast<int>(n->source().begin.line) : static_cast<int>(table->source().begin.line);
}

void ConfigTable::fail(std::string_view key, const std::string& msg) const {
  throw InputError(file, line_of(key), "'" + key_path(key) + "': " + msg);
}

void ConfigTable::allow_only(std::initializer_list<std::string_view> valid) const {
  for (const auto& [k, v] : *table) {
    bool ok = false;
    for (auto name : valid) ok = ok || k.str() == name;
    if (ok) continue;
    std::ostringstream os;
    os << "unknown key '" << key_path(k.str()) << "'; valid keys" << (path.empty() ? "" : " in [" + path + "]")
       << ":";
    for (auto name : valid) os << " " << name;
    throw InputError(file, static_cast<long>(v.source().begin.line), os.str());
  }
}

std::optional<ConfigTable> ConfigTable::sub(std::string_view key) const {
  const toml::node* n = table->get(key);
  if (!n) return std::nullopt;
  if (!n->is_table()) fail(key, "expected a table");
  return ConfigTable{n->as_table(), file, key_path(key)};
}

ConfigTable ConfigTable::require_sub(std::string_view key) const {
  auto s = sub(key);
  if (!s) throw InputError(file, 0, "missing table [" + key_path(key) + "]");
  return *s;
}

std::string ConfigTable::get_string(std::string_view key, std::optional<std::string> fallback) const {
  const toml::node* n = table->get(key);
  if (!n) {
    if (fallback) return *fallback;
    throw InputError(file, line_of(key), "missing key '" + key_path(key) + "' (a string)");
  }
  if (!n->is_string()) fail(key, "expected a string");
  return std::string(*n->value<std::string>());
}

double ConfigTable::get_double(std::string_view key, std::optional<double> fallback) const {
  const toml::node* n = table->get(key);
  if (!n) {
    if (fallback) return *fallback;
    throw InputError(file, line_of(key), "missing key '" + key_path(key) + "' (a number)");
  }
  if (!n->is_number()) fail(key, "expected a number");
  return finite_number(*n, key);
}

long ConfigTable::get_int(std::string_view key, std::optional<long> fallback, long min, long max) const {
  const toml::node* n = table->get(key);
  if (!n) {
    if (fallback) return *fallback;
    throw InputError(file, line_of(key), "missing key '" + key_path(key) + "' (an integer)");
  }
  if (!n->is_integer()) fail(key, "expected an integer");
  const long v = static_cast<long>(*n->value<int64_t>());
  if (v < min || v > max) {
    std::ostringstream os;
    os << "expected an integer";
    if (min > std::numeric_limits<long>::min()) os << " >= " << min;
    if (min > std::numeric_limits<long>::min() && max < std::numeric_limits<long>::max()) os << " and";
    if (max < std::numeric_limits<long>::max()) os << " <= " << max;
    os << ", found " << v;
    fail(key, os.str());
  }
  return v;
}

bool ConfigTable::get_bool(std::string_view key, std::optional<bool> fallback) const {
  const toml::node* n = table->get(key);
  if (!n) {
    if (fallback) return *fallback;
    throw InputError(file, line_of(key), "missing key '" + key_path(key) + "' (true or false)");
  }
  if (!n->is_boolean()) fail(key, "expected true or false");
  return *n->value<bool>();
}

std::vector<double> ConfigTable::get_doubles(std::string_view key) const {
  const toml::node* n = table->get(key);
  if (!n) throw InputError(file, line_of(key), "missing key '" + key_path(key) + "' (an array of numbers)");
  if (n->is_number()) return {finite_number(*n, key)};
  if (!n->is_array()) fail(key, "expected an array of numbers");
  std::vector<double> out;
  for (const auto& e : *n->as_array()) {
    if (!e.is_number()) fail(key, "expected an array of numbers");
    out.push_back(finite_number(e, key));
  }
  return out;
}

std::vector<std::string> ConfigTable::get_strings(std::string_view key) const {
  const toml::node* n = table->get(key);
  if (!n) throw InputError(file, line_of(key), "missing key '" + key_path(key) + "' (an array of strings)");
  if (n->is_string()) return {std::string(*n->value<std::string>())};
  if (!n->is_array()) fail(key, "expected an array of strings");
  std::vector<std::string> out;
  for (const auto& e : *n->as_array()) {
    if (!e.is_string()) fail(key, "expected an array of strings");
    out.emplace_back(*e.value<std::string>());
  }
  return out;
}

namespace {
InputError toml_error(const toml::parse_error& e, const std::string& origin) {
  std::ostringstream os;
  os << e.description() << " (column " << e.source().begin.column << ")";
  return InputError(origin, static_cast<long>(e.source().begin.line), os.str());
}
}  // namespace

toml::table parse_toml_file(const std::string& file) {
  try {
    return toml::parse_file(file);
  } catch (const toml::parse_error& e) {
    throw toml_error(e, file);
  }
}

toml::table parse_toml_text(const std::string& text, const std::string& origin) {
  try {
    return toml::parse(text, origin);
  } catch (const toml::parse_error& e) {
    throw toml_error(e, origin);
  }
}

}  // namespace quasar
