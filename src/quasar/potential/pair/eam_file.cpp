#include "quasar/potential/pair/eam_file.hpp"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "quasar/core/error.hpp"
#include "quasar/potential/potential.hpp"

namespace quasar {

namespace {

// Whitespace-separated tokens with the line each came from, for error messages.
class Tokens {
 public:
  explicit Tokens(const std::string& path) : path_(path), in_(path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec) || !in_) throw InputError(path, 0, "cannot open EAM file");
    size_ = std::filesystem::file_size(path, ec);
  }
  // Reads one whole line (the header lines of the formats are line-oriented).
  std::string line(const char* what) {
    std::string s;
    if (!std::getline(in_, s)) fail(std::string("file ends before ") + what);
    ++line_no_;
    words_.clear();
    pos_ = 0;
    return s;
  }
  // Splits a header line into its words and starts reading from them.
  void start_line(const char* what) {
    std::istringstream ws(line(what));
    std::string w;
    while (ws >> w) words_.push_back(w);
  }
  double number(const char* what) {
    while (pos_ >= words_.size()) start_line(what);
    const std::string& w = words_[pos_++];
    double v = 0;
    const char* b = w.data();
    auto [end, ec] = std::from_chars(b, b + w.size(), v);
    if (ec != std::errc() || end != b + w.size()) fail(std::string("expected a number for ") + what + ", found '" + w + "'");
    if (!std::isfinite(v)) fail(std::string("expected a finite number for ") + what + ", found '" + w + "'");
    return v;
  }
  // A count: a whole number from 0 to 2^31 - 1 (compared before the conversion, which would
  // otherwise be undefined for a huge value).
  int integer(const char* what) {
    const double v = number(what);
    if (!(v >= 0 && v <= 2147483647.0) || v != std::floor(v))
      fail(std::string("expected a non-negative integer for ") + what);
    return static_cast<int>(v);
  }
  // Numbers still to come must fit in the rest of the file (each takes at least a digit and a
  // separator), so that a huge count in a header fails here and not as an allocation.
  void expect_numbers(double count, const std::string& what) {
    count -= static_cast<double>(words_.size() - pos_);  // those on the current line are here already
    const std::streamoff at = in_.tellg();
    const double left = at < 0 ? 0.0 : static_cast<double>(size_) - static_cast<double>(at);
    if (count > (left + 1) / 2)
      fail("the header asks for " + std::to_string(static_cast<long>(std::min(count, 1e18))) + " numbers (" + what +
           ") but only " + std::to_string(static_cast<long>(left)) + " bytes follow");
  }
  std::string word(const char* what) {
    while (pos_ >= words_.size()) start_line(what);
    return words_[pos_++];
  }
  std::vector<double> numbers(int n, const char* what) {
    std::vector<double> v(n);
    for (int k = 0; k < n; ++k) v[k] = number(what);
    return v;
  }
  // Header lines must not carry extra values that would shift everything after them.
  void end_of_header(const char* what) {
    if (pos_ < words_.size()) fail(std::string("unexpected extra value '") + words_[pos_] + "' after " + what);
    words_.clear();
    pos_ = 0;
  }
  [[noreturn]] void fail(const std::string& msg) const { throw InputError(path_, line_no_, msg); }

 private:
  std::string path_;
  std::ifstream in_;
  std::uintmax_t size_ = 0;
  long line_no_ = 0;
  std::vector<std::string> words_;
  std::size_t pos_ = 0;
};

// The grid line: at least 5 points per table, positive spacings, finite ranges, and a cutoff of at
// most kMaxCutoff. The cutoff may lie past the r table (Zhou's files end it one dr short): LAMMPS
// then extends the last spline piece, and so does Quasar.
void check_grid(Tokens& t, int nrho, double drho, int nr, double dr, double cut) {
  if (nrho < 5 || nr < 5) t.fail("the tables need at least 5 points (nrho " + std::to_string(nrho) + ", nr " + std::to_string(nr) + ")");
  if (!(drho > 0) || !(dr > 0) || !(cut > 0)) t.fail("drho, dr and the cutoff must be positive");
  if (!std::isfinite((nr - 1) * dr) || !std::isfinite((nrho - 1) * drho)) t.fail("the tables' range (n - 1) * spacing is not finite");
  if (cut > kMaxCutoff)
    t.fail("the cutoff " + std::to_string(cut) + " Å is beyond " + std::to_string(static_cast<int>(kMaxCutoff)) + " Å");
}

}  // namespace

EamFuncfl read_eam_funcfl(const std::string& path) {
  Tokens t(path);
  EamFuncfl f;
  f.file = path;
  t.line("the comment line");
  f.atomic_number = t.integer("the atomic number");
  f.mass = t.number("the mass");
  if (!(f.mass > 0)) t.fail("expected a positive mass");
  t.number("the lattice constant");
  t.word("the lattice type");
  t.end_of_header("the element line");
  f.nrho = t.integer("nrho");
  f.drho = t.number("drho");
  f.nr = t.integer("nr");
  f.dr = t.number("dr");
  f.cut = t.number("the cutoff");
  t.end_of_header("the grid line (nrho drho nr dr cutoff)");
  check_grid(t, f.nrho, f.drho, f.nr, f.dr, f.cut);
  t.expect_numbers(static_cast<double>(f.nrho) + 2.0 * f.nr, "nrho values of F(rho), nr of Z(r) and of rho(r)");
  f.frho = t.numbers(f.nrho, "F(rho)");
  f.zr = t.numbers(f.nr, "Z(r)");
  f.rhor = t.numbers(f.nr, "rho(r)");
  return f;
}

EamSetfl read_eam_setfl(const std::string& path) {
  Tokens t(path);
  EamSetfl s;
  s.file = path;
  for (int k = 0; k < 3; ++k) t.line("the three comment lines");
  const int ne = t.integer("the number of elements");
  if (ne < 1) t.fail("a setfl file needs at least one element");
  t.expect_numbers(ne, "one name per element");
  for (int e = 0; e < ne; ++e) {
    s.elements.push_back(t.word("the element names"));
    for (int k = 0; k < e; ++k)
      if (s.elements[k] == s.elements[e]) t.fail("element '" + s.elements[e] + "' appears twice");
  }
  t.end_of_header("the element names");
  s.nrho = t.integer("nrho");
  s.drho = t.number("drho");
  s.nr = t.integer("nr");
  s.dr = t.number("dr");
  s.cut = t.number("the cutoff");
  t.end_of_header("the grid line (nrho drho nr dr cutoff)");
  check_grid(t, s.nrho, s.drho, s.nr, s.dr, s.cut);
  t.expect_numbers(ne * (4.0 + s.nrho + s.nr) + ne * (ne + 1) / 2.0 * s.nr,
                   "per element a header line, F(rho) and rho(r); r*phi(r) per pair");
  for (int e = 0; e < ne; ++e) {
    t.integer("the atomic number");
    s.masses.push_back(t.number("the mass"));
    if (!(s.masses.back() > 0)) t.fail("expected a positive mass");
    t.number("the lattice constant");
    t.word("the lattice type");
    t.end_of_header("the element line");
    s.frho.push_back(t.numbers(s.nrho, "F(rho)"));
    s.rhor.push_back(t.numbers(s.nr, "rho(r)"));
  }
  for (int i = 0; i < ne; ++i)
    for (int j = 0; j <= i; ++j) s.z2r.push_back(t.numbers(s.nr, "r*phi(r)"));
  return s;
}

}  // namespace quasar
