#include "quasar/potential/amoeba/tinker_keys.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>

#include "quasar/core/error.hpp"
#include "quasar/io/text.hpp"

namespace quasar::amoeba {

namespace {

// The keywords known, by what becomes of them.
const std::set<std::string>& keywords() {
  static const std::set<std::string> k = {
      // parameter records (parameters.cpp reads them)
      "atom", "vdw", "vdwpr", "vdwpair", "bond", "angle", "anglep", "anglef", "strbnd", "ureybrad", "opbend", "torsion",
      "pitors", "tortors", "multipole", "polarize", "polpair", "angtors", "strtors", "biotype", "solute",
      // force-field header
      "forcefield", "bond-cubic", "bond-quartic", "angle-cubic", "angle-quartic", "angle-pentic", "angle-sextic",
      "angle-trigonal", "opbendtype", "opbend-cubic", "opbend-quartic", "opbend-pentic", "opbend-sextic", "urey-cubic",
      "urey-quartic", "bondunit", "angleunit", "strbndunit", "ureyunit", "opbendunit", "torsionunit", "pitorsunit",
      "tortorunit", "angtorunit", "strtorunit", "vdwtype", "radiusrule", "radiustype", "radiussize", "epsilonrule", "dielectric", "polarization",
      "vdw-12-scale", "vdw-13-scale", "vdw-14-scale", "vdw-15-scale", "mpole-12-scale", "mpole-13-scale",
      "mpole-14-scale", "mpole-15-scale", "polar-12-scale", "polar-13-scale", "polar-14-scale", "polar-15-scale",
      "polar-12-intra", "polar-13-intra", "polar-14-intra", "polar-15-intra", "direct-11-scale", "direct-12-scale",
      "direct-13-scale", "direct-14-scale", "mutual-11-scale", "mutual-12-scale", "mutual-13-scale",
      "mutual-14-scale",
      // key settings: the cell, cutoffs, Ewald, polarization solver
      "parameters", "a-axis", "b-axis", "c-axis", "alpha", "beta", "gamma", "cutoff", "vdw-cutoff", "mpole-cutoff",
      "ewald", "ewald-cutoff", "ewald-alpha", "pme-grid", "pme-order", "taper", "vdw-taper", "vdw-correction",
      "polar-eps", "polar-iter", "usolve-cutoff", "vdw-lambda", "ligand",
      // term switches (parameters.cpp)
      "bondterm", "angleterm", "strbndterm", "ureyterm", "ureybradterm", "opbendterm", "torsionterm", "pitorsterm",
      "tortorterm", "angtorterm", "strtorterm", "vdwterm", "mpoleterm", "multipoleterm", "polarizeterm",
      // settings of runs and output that no energy depends on
      "verbose", "digits", "archive", "integrator", "thermostat", "barostat", "list-buffer", "randomseed",
      "openmp-threads", "neighbor-list", "mpole-list", "vdw-list", "fft-package", "polar-predict", "echo"};
  return k;
}

// What a record continues with: multipole 4 lines, tortors 3 nx ny numbers (grid points, any number
// to a line); 0 when its counts cannot be read (its own check then fails).
struct Continuation {
  std::size_t count = 0;
  bool numbers = false;  // count numbers rather than lines
};
Continuation continuation(const KeyRecord& r) {
  if (r.keyword == "multipole") return {4, false};
  if (r.keyword == "tortors" && r.words.size() >= 7) {
    long nx = 0, ny = 0;
    try {
      nx = std::stol(r.words[5]);
      ny = std::stol(r.words[6]);
    } catch (const std::exception&) {
      return {};
    }
    if (nx > 0 && ny > 0 && nx <= 360 && ny <= 360) return {static_cast<std::size_t>(3 * nx * ny), true};
  }
  return {};
}

// Words of a line; text between double quotes is one word (atom descriptions).
std::vector<std::string> split_quoted(const std::string& line, const std::string& path, long number) {
  std::vector<std::string> w;
  std::size_t i = 0;
  while (i < line.size()) {
    if (std::isspace(static_cast<unsigned char>(line[i]))) {
      ++i;
      continue;
    }
    if (line[i] == '"') {
      const std::size_t end = line.find('"', i + 1);
      if (end == std::string::npos) throw InputError(path, number, "a quotation mark without its closing one");
      w.push_back(line.substr(i + 1, end - i - 1));
      i = end + 1;
      continue;
    }
    std::size_t j = i;
    while (j < line.size() && !std::isspace(static_cast<unsigned char>(line[j]))) ++j;
    w.push_back(line.substr(i, j - i));
    i = j;
  }
  return w;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

void KeyRecord::fail(const std::string& msg) const { throw InputError(file, line, "'" + keyword + "': " + msg); }

bool known_keyword(const std::string& keyword) { return keywords().count(keyword) > 0; }

std::vector<KeyRecord> read_keyword_file(const std::string& path, bool is_parameter_file) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw InputError(path, 0, "file not found");
  io::LineReader reader(path);
  std::vector<KeyRecord> records;
  std::string line;
  Continuation pending;  // what the last record still takes
  while (reader.next(line)) {
    const long number = reader.line_number();
    const std::vector<std::string> plain = io::split_words(line);
    if (plain.empty() || plain[0][0] == '#') continue;
    // Prose in a parameter file may hold any text (quotes included): a line is split by quotes only
    // once its first word is known to be a keyword or a continuation.
    if (pending.count == 0 && is_parameter_file && !known_keyword(lower(plain[0]))) continue;
    std::vector<std::string> w = split_quoted(line, path, number);
    if (pending.count > 0) {
      double v = 0;
      const std::string unit = pending.numbers ? " more number(s)" : " more line(s) of numbers";
      if (!io::parse_finite(w[0], v) || (pending.numbers && w.size() > pending.count))
        throw InputError(path, number, "'" + records.back().keyword + "' (line " + std::to_string(records.back().line) +
                                           ") expects " + std::to_string(pending.count) + unit);
      pending.count -= pending.numbers ? w.size() : 1;
      records.back().more.push_back(std::move(w));
      records.back().more_lines.push_back(number);
      continue;
    }
    KeyRecord r;
    r.file = path;
    r.line = number;
    r.keyword = lower(w[0]);
    r.from_key = !is_parameter_file;
    if (!known_keyword(r.keyword)) throw InputError(path, number, "unknown keyword '" + w[0] + "'");
    r.words.assign(w.begin() + 1, w.end());
    pending = continuation(r);
    records.push_back(std::move(r));
  }
  if (pending.count > 0)
    throw InputError(path, reader.line_number(), "the file ends inside '" + records.back().keyword + "' (line " +
                                                     std::to_string(records.back().line) + "), " +
                                                     std::to_string(pending.count) +
                                                     (pending.numbers ? " number(s) short" : " line(s) short"));
  return records;
}

KeyFile read_tinker_key(const std::string& key_path, const std::string& parameter_file) {
  KeyFile k;
  k.key_path = key_path;
  std::vector<KeyRecord> key = read_keyword_file(key_path, false);
  const KeyRecord* named = nullptr;
  for (const KeyRecord& r : key)
    if (r.keyword == "parameters") {
      if (r.words.size() != 1) r.fail("expected one file name");
      if (named) r.fail("the parameter file is already named on line " + std::to_string(named->line));
      named = &r;
    }
  if (!parameter_file.empty()) {
    k.parameter_path = parameter_file;
  } else {
    if (!named) throw InputError(key_path, 0, "no 'parameters' keyword names the force field's parameter file");
    // Tinker: relative to the key file's folder; ".prm" added when the name given is not a file.
    std::filesystem::path p(named->words[0]);
    if (p.is_relative()) p = std::filesystem::path(key_path).parent_path() / p;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(p, ec)) p += ".prm";
    if (!std::filesystem::is_regular_file(p, ec))
      named->fail("parameter file '" + named->words[0] + "' not found (looked for " + p.string() + ")");
    k.parameter_path = p.string();
  }
  k.records = read_keyword_file(k.parameter_path, true);
  for (const KeyRecord& r : k.records)
    if (r.keyword == "parameters") r.fail("a parameter file cannot name another");
  for (KeyRecord& r : key) k.records.push_back(std::move(r));
  return k;
}

}  // namespace quasar::amoeba
