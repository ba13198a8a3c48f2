#pragma once
// Line-oriented text reading with file:line error messages, shared by the readers.
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "quasar/core/error.hpp"

namespace quasar::io {

std::vector<std::string> split_words(const std::string& s);
std::string strip_comment(const std::string& s);  // drops everything from '#'
std::string join(const std::vector<std::string>& w);  // words joined by single spaces

class LineReader {
 public:
  explicit LineReader(const std::string& path);
  bool next(std::string& line);          // false at end of file
  bool next_nonblank(std::string& line);  // skips blank lines
  std::string next_line();               // throws at end of file
  long line_number() const { return line_; }
  const std::string& path() const { return path_; }
  [[noreturn]] void fail(const std::string& msg) const { throw InputError(path_, line_, msg); }
  double to_double(const std::string& w, const std::string& what) const;
  long to_long(const std::string& w, const std::string& what) const;

 private:
  std::string path_;
  std::ifstream in_;
  long line_ = 0;
};

}  // namespace quasar::io
