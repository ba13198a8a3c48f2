// Keyword-file lines for the Epsilon and Sigma readers (see keyword_lines.hpp).
#include "quasar/gw/keyword_lines.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace quasar::gw {

std::string lower_case(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool KeywordLines::next(std::vector<std::string>& words, std::string& key) {
  std::string text;
  while (in_.next(text)) {
    std::string line = io::strip_comment(text);
    if (const auto bang = line.find('!'); bang != std::string::npos) line.erase(bang);
    words = io::split_words(line);
    if (words.empty()) continue;
    key = lower_case(words[0]);
    return true;
  }
  return false;
}

double KeywordLines::number(const std::string& key, const std::string& word) const {
  double v = 0;
  if (!io::parse_finite(word, v)) fail("'" + key + "': '" + word + "' is not a finite number");
  return v;
}

int KeywordLines::integer(const std::string& key, const std::string& word, double lo, double hi) const {
  const double v = number(key, word);
  if (v != std::floor(v) || word.find_first_of(".eE") != std::string::npos || v < lo || v > hi)
    fail("'" + key + "': '" + word + "' is not an integer in [" + std::to_string(static_cast<long>(lo)) + ", " +
         std::to_string(static_cast<long>(hi)) + "]");
  return static_cast<int>(v);
}

void KeywordLines::expect_values(const std::string& key, const std::vector<std::string>& words, std::size_t n) const {
  if (words.size() != n + 1)
    fail("'" + key + "': expected " + std::to_string(n) + " value" + (n == 1 ? "" : "s") + ", found " +
         std::to_string(words.size() - 1));
}

void KeywordLines::accept_keyword(const std::vector<std::string>& words, const std::string& key,
                                  const std::map<std::string, std::string>& unsupported,
                                  const std::vector<std::string>& known, const char* valid) {
  if (const auto u = unsupported.find(key); u != unsupported.end())
    fail("keyword '" + words[0] + "' is not supported: " + u->second);
  if (std::find(known.begin(), known.end(), key) == known.end())
    fail("unknown keyword '" + words[0] + "' (valid: " + valid + ")");
  if (seen(key)) fail("keyword '" + words[0] + "' given twice (first on line " + std::to_string(seen_[key]) + ")");
  seen_[key] = in_.line_number();
}

long KeywordLines::seen_line(const std::string& key) const {
  const auto it = seen_.find(key);
  return it == seen_.end() ? 0 : it->second;
}

}  // namespace quasar::gw
