#include "quasar/io/text.hpp"

#include <charconv>
#include <sstream>

namespace quasar::io {

std::vector<std::string> split_words(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  std::string w;
  while (in >> w) out.push_back(w);
  return out;
}

std::string strip_comment(const std::string& s) {
  const auto p = s.find('#');
  return p == std::string::npos ? s : s.substr(0, p);
}

std::string join(const std::vector<std::string>& w) {
  std::string out;
  for (const auto& x : w) out += (out.empty() ? "" : " ") + x;
  return out;
}

LineReader::LineReader(const std::string& path) : path_(path), in_(path) {
  if (!in_) throw InputError(path, 0, "cannot open file");
}

bool LineReader::next(std::string& line) {
  if (!std::getline(in_, line)) return false;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  ++line_;
  return true;
}

bool LineReader::next_nonblank(std::string& line) {
  while (next(line))
    if (line.find_first_not_of(" \t") != std::string::npos) return true;
  return false;
}

std::string LineReader::next_line() {
  std::string line;
  if (!next(line)) fail("unexpected end of file");
  return line;
}

double LineReader::to_double(const std::string& w, const std::string& what) const {
  double v = 0;
  auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), v);
  if (ec != std::errc() || end != w.data() + w.size()) fail("expected a number for " + what + ", found '" + w + "'");
  return v;
}

long LineReader::to_long(const std::string& w, const std::string& what) const {
  long v = 0;
  auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), v);
  if (ec != std::errc() || end != w.data() + w.size()) fail("expected an integer for " + what + ", found '" + w + "'");
  return v;
}

}  // namespace quasar::io
