#pragma once
// A small command-line parser: positional arguments, --flag and --key value (or --key=value).
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace quasar::cli {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Args {
  std::vector<std::string> positional;
  std::map<std::string, std::string> options;  // "--key" -> value ("" for flags)

  // flags: options without a value; valued: options with one. Anything else is a usage error.
  static Args parse(const std::vector<std::string>& argv, const std::set<std::string>& flags,
                    const std::set<std::string>& valued);
  bool has(const std::string& k) const { return options.count(k) > 0; }
  std::string get(const std::string& k, const std::string& fallback = "") const {
    auto it = options.find(k);
    return it == options.end() ? fallback : it->second;
  }
};

// "--type-map O,H": the names of LAMMPS's numbered types 1, 2, ... ({} for ""); a usage error when
// a name is empty.
std::vector<std::string> type_map(const std::string& list);

}  // namespace quasar::cli
