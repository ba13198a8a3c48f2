#pragma once
// The line scaffolding that BerkeleyGW's epsilon.inp and sigma.inp readers share: lines split into
// words (comments after '#' or '!' dropped), the first word lowercased as the key, numbers and
// integers checked, and keywords refused as unsupported (with the reason), unknown (with the valid
// list) or repeated; every error names the file and line.
#include <map>
#include <string>
#include <vector>

#include "quasar/io/text.hpp"

namespace quasar::gw {

std::string lower_case(std::string s);

class KeywordLines {
 public:
  explicit KeywordLines(const std::string& path) : in_(path) {}

  // The next line that has words: `words` as written, `key` the first word lowercased. False at the end.
  bool next(std::vector<std::string>& words, std::string& key);
  long line_number() const { return in_.line_number(); }
  [[noreturn]] void fail(const std::string& message) const { in_.fail(message); }

  // A finite number: "'key': 'word' is not a finite number" otherwise.
  double number(const std::string& key, const std::string& word) const;
  // An integer in [lo, hi] written without '.', 'e' or 'E'.
  int integer(const std::string& key, const std::string& word, double lo, double hi) const;
  // Exactly n values after the keyword.
  void expect_values(const std::string& key, const std::vector<std::string>& words, std::size_t n) const;

  // A keyword line outside blocks: refused when `unsupported` names it (with its reason), when it is
  // not in `known` (with `valid`, the list for the message) or when it was given before; else
  // recorded in `seen` with its line.
  void accept_keyword(const std::vector<std::string>& words, const std::string& key,
                      const std::map<std::string, std::string>& unsupported, const std::vector<std::string>& known,
                      const char* valid);
  bool seen(const std::string& key) const { return seen_.count(key) != 0; }
  long seen_line(const std::string& key) const;

 private:
  io::LineReader in_;
  std::map<std::string, long> seen_;
};

}  // namespace quasar::gw
