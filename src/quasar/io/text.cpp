#include "quasar/io/text.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <sstream>
#include <string_view>

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

std::string comment_of(const std::string& s) {
  const auto p = s.find('#');
  return p == std::string::npos ? std::string() : join(split_words(s.substr(p + 1)));
}

std::string join(const std::vector<std::string>& w) {
  std::string out;
  for (const auto& x : w) out += (out.empty() ? "" : " ") + x;
  return out;
}

namespace {
// The word without a leading '+' that precedes a digit or a point (from_chars takes no '+').
std::string_view unsigned_plus(const std::string& w) {
  std::string_view v(w);
  if (v.size() > 1 && v[0] == '+' && (std::isdigit(static_cast<unsigned char>(v[1])) || v[1] == '.')) v.remove_prefix(1);
  return v;
}
}  // namespace

bool parse_finite(const std::string& w, double& v) {
  const std::string_view s = unsigned_plus(w);
  double x = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
  if (end != s.data() + s.size() || s.empty()) return false;
  if (ec == std::errc::result_out_of_range) {
    // from_chars reports underflow and overflow alike; strtod tells them apart.
    const double y = std::strtod(std::string(s).c_str(), nullptr);
    if (!(std::abs(y) < 1.0)) return false;
    x = y;
  } else if (ec != std::errc()) {
    return false;
  }
  if (!std::isfinite(x)) return false;
  v = x;
  return true;
}

LineReader::LineReader(const std::string& path) : path_(path), in_(path) {
  if (!in_) throw InputError(path, 0, "cannot open file");
  std::error_code ec;
  size_ = std::filesystem::file_size(path, ec);
  if (ec) size_ = std::numeric_limits<std::uintmax_t>::max();  // not a regular file: no bound from its size
}

bool LineReader::next(std::string& line) {
  if (!std::getline(in_, line)) return false;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  ++line_;
  return true;
}

bool LineReader::next_nonblank(std::string& line) {
  while (next(line))
    if (line.find_first_not_of(" \t\n\v\f\r") != std::string::npos) return true;  // the spaces of split_words
  return false;
}

std::string LineReader::next_line() {
  std::string line;
  if (!next(line)) fail("unexpected end of file");
  return line;
}

double LineReader::to_double(const std::string& w, const std::string& what) const {
  double v = 0;
  if (parse_finite(w, v)) return v;
  const std::string_view s = unsigned_plus(w);
  double x = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
  if (end == s.data() + s.size() && !s.empty() && (ec == std::errc() || ec == std::errc::result_out_of_range))
    fail("expected a finite number for " + what + ", found '" + w + "'");
  fail("expected a number for " + what + ", found '" + w + "'");
}

long LineReader::to_long(const std::string& w, const std::string& what) const {
  const std::string_view s = unsigned_plus(w);
  long v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc::result_out_of_range) fail(what + " '" + w + "' is out of range");
  if (ec != std::errc() || end != s.data() + s.size()) fail("expected an integer for " + what + ", found '" + w + "'");
  return v;
}

long LineReader::to_int(const std::string& w, const std::string& what, long lo, long hi) const {
  const long v = to_long(w, what);
  if (v < lo || v > hi)
    fail("expected " + what + " between " + std::to_string(lo) + " and " + std::to_string(hi) + ", found " + w);
  return v;
}

long LineReader::to_count(const std::string& w, const std::string& what, long bytes_each) const {
  const long n = to_long(w, what);
  if (n < 0) fail("expected a non-negative count for " + what + ", found " + w);
  if (static_cast<std::uintmax_t>(n) > size_ / static_cast<std::uintmax_t>(bytes_each))
    fail(w + " " + what + " cannot fit in this file of " + std::to_string(size_) + " bytes (each takes at least " +
         std::to_string(bytes_each) + ")");
  return n;
}

}  // namespace quasar::io
