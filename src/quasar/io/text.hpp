#pragma once
// Line-oriented text reading with file:line error messages, shared by the readers. Every number a
// reader takes goes through to_double / to_long / to_count / to_int here, so that every reader
// rejects non-finite numbers and counts larger than its file could hold in the same words.
#include <cstdint>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "quasar/core/error.hpp"

namespace quasar::io {

std::vector<std::string> split_words(const std::string& s);
std::string strip_comment(const std::string& s);  // drops everything from '#'
std::string comment_of(const std::string& s);     // the words after '#', joined ("" when none)
std::string join(const std::vector<std::string>& w);  // words joined by single spaces

// Parses a whole word as a finite double; false when it is not one (nan, inf, 1e999, "1.0x").
// A leading '+' is allowed; a number too small for a double reads as 0.
bool parse_finite(const std::string& w, double& v);

class LineReader {
 public:
  explicit LineReader(const std::string& path);
  bool next(std::string& line);          // false at end of file
  bool next_nonblank(std::string& line);  // skips blank lines
  std::string next_line();               // throws at end of file
  long line_number() const { return line_; }
  const std::string& path() const { return path_; }
  std::uintmax_t file_size() const { return size_; }
  [[noreturn]] void fail(const std::string& msg) const { throw InputError(path_, line_, msg); }

  // A finite number; the message names `what` and the word found.
  double to_double(const std::string& w, const std::string& what) const;
  long to_long(const std::string& w, const std::string& what) const;
  // An integer in [lo, hi].
  long to_int(const std::string& w, const std::string& what, long lo, long hi) const;
  // A count of items that each take at least `bytes_each` bytes of this file: non-negative and no
  // larger than the file can hold, so that no reader reserves memory for a count the file lacks.
  long to_count(const std::string& w, const std::string& what, long bytes_each = 2) const;

 private:
  std::string path_;
  std::ifstream in_;
  std::uintmax_t size_ = 0;
  long line_ = 0;
};

}  // namespace quasar::io
