// BerkeleyGW's EPM keyword files: a first pass gathers each keyword with its value words and the
// block of data lines after it (lines that begin with a number), a second interprets them.
#include "quasar/gw/epm_input.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include "quasar/core/error.hpp"
#include "quasar/io/text.hpp"

namespace quasar::gw {

namespace {

constexpr double kBohrInAngstrom = 0.52917721092;  // BerkeleyGW EPM's bohr2ang
constexpr double kRydbergInEv = 13.60569253;       // its ryd2eV

enum class Kind { Value, Flag, Block };
struct Keyword {
  const char* name;
  Kind kind;
};
// Every keyword BerkeleyGW's EPM inputs use for a wavefunction calculation from a k-point list.
constexpr Keyword kKeywords[] = {
    {"real_or_complex", Kind::Value}, {"nspin", Kind::Value}, {"disable_symmetries", Kind::Value},
    {"wfng_flag", Kind::Value}, {"wfng_file", Kind::Value}, {"rhog_flag", Kind::Value}, {"rhog_file", Kind::Value},
    {"vxcg_flag", Kind::Value}, {"vxcg_file", Kind::Value}, {"vxc_flag", Kind::Value}, {"vxc_file", Kind::Value},
    {"vxc_diag_nmin", Kind::Value}, {"vxc_diag_nmax", Kind::Value}, {"vxc_offdiag_nmin", Kind::Value},
    {"vxc_offdiag_nmax", Kind::Value}, {"temperature", Kind::Value}, {"FormFactors", Kind::Value},
    {"AbsoluteTolerance", Kind::Value}, {"DiagonalizationSwitch", Kind::Value}, {"EnergyCutoff", Kind::Value},
    {"InputEnergiesInEV", Kind::Flag}, {"FFTGrid", Kind::Value}, {"NumberOfDimensions", Kind::Value},
    {"LatticeConstantFormat", Kind::Value}, {"LatticeConstant", Kind::Value}, {"LatticeVectors", Kind::Block},
    {"NumberOfAtoms", Kind::Value}, {"NumberOfSpecies", Kind::Value}, {"ChemicalSpeciesLabel", Kind::Block},
    {"AtomicCoordinatesFormat", Kind::Value}, {"AtomicCoordinatesAndAtomicSpecies", Kind::Block},
    {"NumberOfBands", Kind::Value}, {"NumberOfOccupiedBands", Kind::Value}, {"KPointNumbers", Kind::Value},
    {"KPointOffsets", Kind::Value}, {"KPointsScale", Kind::Value}, {"KPointsList", Kind::Block},
};

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string valid_keywords() {
  std::string out;
  for (const Keyword& k : kKeywords) out += (out.empty() ? "" : ", ") + std::string(k.name);
  return out;
}

struct Row {
  long line = 0;
  std::vector<std::string> words;
};
struct Entry {
  const Keyword* keyword = nullptr;
  Row head;  // the keyword's line; words after the keyword
  std::vector<Row> rows;  // a block's data lines
};

class Parsed {
 public:
  Parsed(const std::string& path) : in_(path) {
    std::string text;
    Entry* block = nullptr;
    while (in_.next(text)) {
      std::vector<std::string> words = io::split_words(io::strip_comment(text));
      if (words.empty()) continue;
      const char first = words[0][0];
      if (!std::isalpha(static_cast<unsigned char>(first))) {
        if (!block) in_.fail("a line of numbers that belongs to no block keyword");
        block->rows.push_back({in_.line_number(), std::move(words)});
        continue;
      }
      const std::string key = lower(words[0]);
      const Keyword* k = nullptr;
      for (const Keyword& c : kKeywords)
        if (lower(c.name) == key) k = &c;
      if (!k) in_.fail("unknown keyword '" + words[0] + "' (valid: " + valid_keywords() + ")");
      if (entries_.count(key)) in_.fail("keyword '" + words[0] + "' given twice (first on line " +
                                        std::to_string(entries_[key].head.line) + ")");
      words.erase(words.begin());
      Entry& e = entries_[key];
      e.keyword = k;
      e.head = {in_.line_number(), std::move(words)};
      block = k->kind == Kind::Block ? &e : nullptr;
    }
  }

  const Entry* find(const char* name) const {
    auto it = entries_.find(lower(name));
    return it == entries_.end() ? nullptr : &it->second;
  }
  const Entry& require(const char* name) const {
    if (const Entry* e = find(name)) return *e;
    throw InputError(in_.path(), 0, "keyword '" + std::string(name) + "' is missing");
  }
  [[noreturn]] void fail(const Row& r, const std::string& key, const std::string& msg) const {
    throw InputError(in_.path(), r.line, "'" + key + "': " + msg);
  }
  // The value words of a keyword, exactly `n` of them (block keywords: the words after the keyword).
  const std::vector<std::string>& values(const Entry& e, std::size_t n) const {
    if (e.head.words.size() != n)
      fail(e.head, e.keyword->name, "expected " + std::to_string(n) + " value" + (n == 1 ? "" : "s") + ", found " +
                                        std::to_string(e.head.words.size()));
    return e.head.words;
  }
  double number(const Row& r, const std::string& key, const std::string& w) const {
    double v = 0;
    if (!io::parse_finite(w, v)) fail(r, key, "'" + w + "' is not a finite number");
    return v;
  }
  long integer(const Row& r, const std::string& key, const std::string& w, long lo, long hi) const {
    const double v = number(r, key, w);
    if (v != std::floor(v) || w.find_first_of(".eE") != std::string::npos)
      fail(r, key, "'" + w + "' is not an integer");
    if (v < static_cast<double>(lo) || v > static_cast<double>(hi))
      fail(r, key, w + " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    return static_cast<long>(v);
  }
  bool flag(const Entry& e) const {
    const std::string v = lower(values(e, 1)[0]);
    if (v == "t" || v == ".true." || v == "true") return true;
    if (v == "f" || v == ".false." || v == "false") return false;
    fail(e.head, e.keyword->name, "'" + e.head.words[0] + "' is not a logical (T or F)");
  }
  const std::string& path() const { return in_.path(); }

 private:
  io::LineReader in_;
  std::map<std::string, Entry> entries_;
};

// The block rows of `e`: exactly `n` of `width` words each.
const std::vector<Row>& block_rows(const Parsed& p, const Entry& e, std::size_t n, std::size_t width) {
  if (e.rows.size() != n)
    p.fail(e.head, e.keyword->name, "expected " + std::to_string(n) + " lines after it, found " +
                                         std::to_string(e.rows.size()));
  for (const Row& r : e.rows)
    if (r.words.size() != width)
      p.fail(r, e.keyword->name, "expected " + std::to_string(width) + " values on the line, found " +
                                     std::to_string(r.words.size()));
  return e.rows;
}

constexpr long kMaxCount = 1000000;

}  // namespace

EpmInput read_epm_input(const std::string& path) {
  const Parsed p(path);
  EpmInput in;
  in.path = path;
  auto value = [&](const char* name) -> const Entry* { return p.find(name); };
  auto int_of = [&](const Entry& e, long lo, long hi) {
    return static_cast<int>(p.integer(e.head, e.keyword->name, p.values(e, 1)[0], lo, hi));
  };
  auto word_of = [&](const Entry& e) { return p.values(e, 1)[0]; };

  if (const Entry* e = value("real_or_complex")) in.real = int_of(*e, 1, 2) == 1;
  if (const Entry* e = value("nspin")) in.spins = int_of(*e, 1, 2);
  if (const Entry* e = value("disable_symmetries")) in.disable_symmetries = p.flag(*e);
  if (const Entry* e = value("wfng_flag")) in.write_wavefunctions = p.flag(*e);
  if (const Entry* e = value("wfng_file")) in.wavefunction_file = word_of(*e);
  if (const Entry* e = value("rhog_flag")) in.write_density = p.flag(*e);
  if (const Entry* e = value("rhog_file")) in.density_file = word_of(*e);
  if (const Entry* e = value("vxcg_flag")) in.write_vxc_g = p.flag(*e);
  if (const Entry* e = value("vxcg_file")) in.vxc_g_file = word_of(*e);
  if (const Entry* e = value("vxc_flag")) in.write_vxc = p.flag(*e);
  if (const Entry* e = value("vxc_file")) in.vxc_file = word_of(*e);
  if (const Entry* e = value("vxc_diag_nmin")) in.vxc_diag_min = int_of(*e, 0, kMaxCount);
  if (const Entry* e = value("vxc_diag_nmax")) in.vxc_diag_max = int_of(*e, 0, kMaxCount);
  if (const Entry* e = value("vxc_offdiag_nmin")) in.vxc_offdiag_min = int_of(*e, 0, kMaxCount);
  if (const Entry* e = value("vxc_offdiag_nmax")) in.vxc_offdiag_max = int_of(*e, 0, kMaxCount);
  if (const Entry* e = value("temperature")) {
    in.temperature_ry = p.number(e->head, "temperature", word_of(*e));
    if (in.temperature_ry < 0) p.fail(e->head, "temperature", "must be >= 0 (Ry)");
  }
  if (const Entry* e = value("FormFactors")) {
    std::array<double, 6> ff{};
    const auto& w = p.values(*e, 6);
    for (int i = 0; i < 6; ++i) ff[i] = p.number(e->head, "FormFactors", w[i]);
    in.form_factors = ff;
  }
  if (const Entry* e = value("AbsoluteTolerance")) in.absolute_tolerance = p.number(e->head, "AbsoluteTolerance", word_of(*e));
  if (const Entry* e = value("DiagonalizationSwitch"); e && int_of(*e, 0, 2) != 0)
    p.fail(e->head, "DiagonalizationSwitch", "only 0 (direct diagonalisation) is provided");
  {
    const Entry& e = p.require("EnergyCutoff");
    in.cutoff_ry = p.number(e.head, "EnergyCutoff", word_of(e));
    if (value("InputEnergiesInEV")) {
      if (!value("InputEnergiesInEV")->head.words.empty())
        p.fail(value("InputEnergiesInEV")->head, "InputEnergiesInEV", "takes no value");
      in.cutoff_ry /= kRydbergInEv;
    }
    if (!(in.cutoff_ry > 0)) p.fail(e.head, "EnergyCutoff", "must be > 0");
  }
  if (const Entry* e = value("FFTGrid")) {
    std::array<int, 3> g{};
    const auto& w = p.values(*e, 3);
    for (int i = 0; i < 3; ++i) g[i] = static_cast<int>(p.integer(e->head, "FFTGrid", w[i], 1, 4096));
    in.fft_grid = g;
  }
  if (const Entry* e = value("NumberOfDimensions"); e && int_of(*e, 1, 3) != 3)
    p.fail(e->head, "NumberOfDimensions", "only 3 is provided");

  // The lattice: vectors in units of the lattice constant, in bohr or Angstrom.
  double scale = 1;
  if (const Entry* e = value("LatticeConstantFormat")) {
    const std::string f = lower(word_of(*e));
    if (f == "angstrom") scale = 1 / kBohrInAngstrom;
    else if (f != "bohr") p.fail(e->head, "LatticeConstantFormat", "'" + word_of(*e) + "' (valid: Bohr, Angstrom)");
  }
  if (const Entry* e = value("LatticeConstant")) {
    in.lattice_constant = p.number(e->head, "LatticeConstant", word_of(*e)) * scale;
    if (!(in.lattice_constant > 0)) p.fail(e->head, "LatticeConstant", "must be > 0");
  }
  {
    const Entry& e = p.require("LatticeVectors");
    p.values(e, 0);
    const auto& rows = block_rows(p, e, 3, 3);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) in.lattice[i][j] = in.lattice_constant * p.number(rows[i], "LatticeVectors", rows[i].words[j]);
    const Vec& a = in.lattice[0];
    const Vec& b = in.lattice[1];
    const Vec& c = in.lattice[2];
    const double volume = a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
                          a[2] * (b[0] * c[1] - b[1] * c[0]);
    double longest = 0;
    for (const Vec& v : in.lattice) longest = std::max(longest, std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]));
    if (!(std::abs(volume) > 1e-6 * longest * longest * longest) || !std::isfinite(volume))
      p.fail(e.head, "LatticeVectors", "the vectors span no volume");
  }

  // Species and atoms.
  const Entry& species_entry = p.require("NumberOfSpecies");
  const int nspecies = int_of(species_entry, 1, 1000);
  {
    const Entry& e = p.require("ChemicalSpeciesLabel");
    p.values(e, 0);
    for (const Row& r : block_rows(p, e, static_cast<std::size_t>(nspecies), 3)) {
      const long index = p.integer(r, "ChemicalSpeciesLabel", r.words[0], 1, nspecies);
      if (index != static_cast<long>(in.species.size()) + 1)
        p.fail(r, "ChemicalSpeciesLabel", "species must be numbered 1, 2, ... in order");
      EpmSpecies s;
      s.atomic_number = static_cast<int>(p.integer(r, "ChemicalSpeciesLabel", r.words[1], 1, 118));
      s.label = r.words[2];
      in.species.push_back(s);
    }
  }
  bool cartesian = false;
  if (const Entry* e = value("AtomicCoordinatesFormat")) {
    const std::string f = lower(word_of(*e));
    if (f == "scaledcartesian") cartesian = true;
    else if (f != "scaledbylatticevectors")
      p.fail(e->head, "AtomicCoordinatesFormat", "'" + word_of(*e) + "' (valid: ScaledByLatticeVectors, ScaledCartesian)");
  }
  {
    const int natoms = int_of(p.require("NumberOfAtoms"), 1, kMaxCount);
    const Entry& e = p.require("AtomicCoordinatesAndAtomicSpecies");
    p.values(e, 0);
    // Cartesian positions in units of the lattice constant -> fractional: x = f A, so f = x A^-1.
    const auto& A = in.lattice;
    const double det = A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) - A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0]) +
                       A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]);
    for (const Row& r : block_rows(p, e, static_cast<std::size_t>(natoms), 4)) {
      EpmAtom atom;
      Vec x{};
      for (int j = 0; j < 3; ++j) x[j] = p.number(r, "AtomicCoordinatesAndAtomicSpecies", r.words[j]);
      atom.species = static_cast<int>(p.integer(r, "AtomicCoordinatesAndAtomicSpecies", r.words[3], 1, nspecies)) - 1;
      if (cartesian) {
        for (int j = 0; j < 3; ++j) x[j] *= in.lattice_constant;
        // Columns of A^-1 by cofactors: f_i = (x . (a_j x a_k)) / det for the cyclic (i, j, k).
        for (int i = 0; i < 3; ++i) {
          const Vec& aj = A[(i + 1) % 3];
          const Vec& ak = A[(i + 2) % 3];
          const Vec cross{aj[1] * ak[2] - aj[2] * ak[1], aj[2] * ak[0] - aj[0] * ak[2], aj[0] * ak[1] - aj[1] * ak[0]};
          atom.position[i] = (x[0] * cross[0] + x[1] * cross[1] + x[2] * cross[2]) / det;
        }
      } else {
        atom.position = x;
      }
      in.atoms.push_back(atom);
    }
  }

  // Bands and k-points.
  in.bands = int_of(p.require("NumberOfBands"), 1, kMaxCount);
  in.occupied = in.bands;
  if (const Entry* e = value("NumberOfOccupiedBands")) in.occupied = int_of(*e, 0, in.bands);
  if (const Entry* e = value("KPointsScale"); e && lower(word_of(*e)) != "reciprocallatticevectors")
    p.fail(e->head, "KPointsScale", "'" + word_of(*e) + "': KPointsList is read in ReciprocalLatticeVectors only");
  if (const Entry* e = value("KPointNumbers")) {
    const auto& w = p.values(*e, 3);
    for (int i = 0; i < 3; ++i) in.kgrid[i] = static_cast<int>(p.integer(e->head, "KPointNumbers", w[i], 0, kMaxCount));
  }
  if (const Entry* e = value("KPointOffsets")) {
    const auto& w = p.values(*e, 3);
    for (int i = 0; i < 3; ++i) in.kshift[i] = p.number(e->head, "KPointOffsets", w[i]);
  }
  {
    const Entry& e = p.require("KPointsList");
    const long n = p.integer(e.head, "KPointsList", p.values(e, 1)[0], 1, kMaxCount);
    double total = 0;
    for (const Row& r : block_rows(p, e, static_cast<std::size_t>(n), 4)) {
      Vec k{};
      for (int j = 0; j < 3; ++j) k[j] = p.number(r, "KPointsList", r.words[j]);
      const double w = p.number(r, "KPointsList", r.words[3]);
      if (w < 0) p.fail(r, "KPointsList", "weights must be >= 0");
      in.kpoints.push_back(k);
      in.weights.push_back(w);
      total += w;
    }
    if (!(total > 1e-6)) p.fail(e.head, "KPointsList", "the weights sum to zero");
    for (double& w : in.weights) w /= total;
  }
  return in;
}

}  // namespace quasar::gw
