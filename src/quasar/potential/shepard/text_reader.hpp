#pragma once
// The keyed-line reader of the Shepard text formats (data sets, Cartesian points): non-blank lines
// with '#' comments removed; every failure names the file, the line and the key.
#include <string>
#include <vector>

#include "quasar/io/text.hpp"

namespace quasar::shepard {

inline constexpr int kMaxAtoms = 64;  // 2016 pairs: far beyond what the interpolation is used for

// Reads non-blank lines with comments removed; every failure names the file, line and key.
class Reader {
 public:
  explicit Reader(const std::string& path) : in_(path) {}

  [[noreturn]] void fail(const std::string& key, const std::string& msg) const { in_.fail("'" + key + "': " + msg); }

  // The next line's words; fails at the end of the file, saying what was expected.
  std::vector<std::string> line(const std::string& expected) {
    std::string text;
    while (in_.next(text)) {
      auto words = io::split_words(io::strip_comment(text));
      if (!words.empty()) return words;
    }
    in_.fail("unexpected end of file: expected '" + expected + "'");
  }
  // A line "key values...": the values, exactly `count` of them (-1: any number, at least one).
  std::vector<std::string> keyed(const std::string& key, int count) {
    auto words = line(key);
    if (words[0] != key) in_.fail("expected '" + key + "', found '" + words[0] + "'");
    words.erase(words.begin());
    if (count >= 0 && static_cast<int>(words.size()) != count)
      fail(key, "expected " + std::to_string(count) + " value" + (count == 1 ? "" : "s") + ", found " +
                    std::to_string(words.size()));
    if (count < 0 && words.empty()) fail(key, "expected values");
    return words;
  }
  double number(const std::string& w, const std::string& key) const {
    double v = 0;
    if (!io::parse_finite(w, v)) fail(key, "expected a finite number, found '" + w + "'");
    return v;
  }
  void numbers(const std::vector<std::string>& words, const std::string& key, std::vector<double>& out) const {
    for (const auto& w : words) out.push_back(number(w, key));
  }
  // `rows` lines of `cols` numbers each, appended to out.
  void matrix(const std::string& key, int rows, int cols, std::vector<double>& out) {
    for (int r = 0; r < rows; ++r) {
      const auto words = line(key + " row");
      if (static_cast<int>(words.size()) != cols)
        fail(key, "row " + std::to_string(r + 1) + ": expected " + std::to_string(cols) + " numbers, found " +
                      std::to_string(words.size()));
      numbers(words, key, out);
    }
  }
  long count(const std::string& w, const std::string& key, long bytes_each) const {
    return in_.to_count(w, "'" + key + "'", bytes_each);
  }
  const io::LineReader& reader() const { return in_; }
  void expect_end() {
    std::string text;
    while (in_.next(text))
      if (!io::split_words(io::strip_comment(text)).empty()) in_.fail("unexpected text after the last point");
  }

 private:
  io::LineReader in_;
};

}  // namespace quasar::shepard
