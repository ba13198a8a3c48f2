#include "quasar/cli/args.hpp"

namespace quasar::cli {

Args Args::parse(const std::vector<std::string>& argv, const std::set<std::string>& flags,
                 const std::set<std::string>& valued) {
  Args a;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    std::string w = argv[i];
    if (w.size() < 2 || w.rfind("--", 0) != 0) {
      a.positional.push_back(w);
      continue;
    }
    std::string value;
    bool inline_value = false;
    if (const auto eq = w.find('='); eq != std::string::npos) {
      value = w.substr(eq + 1);
      w = w.substr(0, eq);
      inline_value = true;
    }
    if (flags.count(w)) {
      if (inline_value) throw UsageError("option " + w + " takes no value");
      a.options[w] = "";
    } else if (valued.count(w)) {
      if (!inline_value) {
        if (i + 1 >= argv.size()) throw UsageError("option " + w + " needs a value");
        value = argv[++i];
      }
      a.options[w] = value;
    } else {
      std::string valid;
      for (const auto& f : flags) valid += " " + f;
      for (const auto& f : valued) valid += " " + f + " VALUE";
      throw UsageError("unknown option " + w + " (valid:" + valid + ")");
    }
  }
  return a;
}

std::vector<std::string> type_map(const std::string& list) {
  std::vector<std::string> names;
  if (list.empty()) return names;
  std::size_t from = 0;
  while (true) {
    const std::size_t comma = list.find(',', from);
    names.push_back(list.substr(from, comma == std::string::npos ? std::string::npos : comma - from));
    if (names.back().empty()) throw UsageError("--type-map: expected names separated by commas (O,H), found '" + list + "'");
    if (comma == std::string::npos) return names;
    from = comma + 1;
  }
}

}  // namespace quasar::cli
