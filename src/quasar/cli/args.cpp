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

}  // namespace quasar::cli
