#pragma once
// Reading validated TOML input: every table checks its keys against the valid ones, and every
// error names the file and the dotted key.
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include <toml++/toml.h>

#include "quasar/core/error.hpp"

namespace quasar {

// A TOML table with the file it came from and its dotted path, for messages.
struct ConfigTable {
  const toml::table* table;
  std::string file;
  std::string path;  // "" for the root, else "potential", "md.thermostat", ...

  std::string key_path(std::string_view key) const {
    return path.empty() ? std::string(key) : path + "." + std::string(key);
  }
  [[noreturn]] void fail(std::string_view key, const std::string& msg) const;
  // Throws if the table holds a key not in `valid`, listing the valid keys.
  void allow_only(std::initializer_list<std::string_view> valid) const;
  bool has(std::string_view key) const { return table->contains(key); }

  std::optional<ConfigTable> sub(std::string_view key) const;
  ConfigTable require_sub(std::string_view key) const;
  std::string get_string(std::string_view key, std::optional<std::string> fallback = std::nullopt) const;
  // Numbers must be finite (TOML has inf and nan; no key of the input means them).
  double get_double(std::string_view key, std::optional<double> fallback = std::nullopt) const;
  // Integers within [min, max], so that a narrowing cast by the caller keeps the value.
  long get_int(std::string_view key, std::optional<long> fallback = std::nullopt,
               long min = std::numeric_limits<long>::min(), long max = std::numeric_limits<long>::max()) const;
  bool get_bool(std::string_view key, std::optional<bool> fallback = std::nullopt) const;
  std::vector<double> get_doubles(std::string_view key) const;
  std::vector<std::string> get_strings(std::string_view key) const;
  int line_of(std::string_view key) const;
  KeyLocation location(std::string_view key) const { return {file, line_of(key), key_path(key)}; }

 private:
  double finite_number(const toml::node& n, std::string_view key) const;
};

// Parses a TOML file; syntax errors (and every other error toml++ reports) name the file, line and
// column.
toml::table parse_toml_file(const std::string& file);
// The same for TOML text; `origin` stands for the file name in messages.
toml::table parse_toml_text(const std::string& text, const std::string& origin);

}  // namespace quasar
