#pragma once
// Shared by the Sigma tests (gw_sigma_test.cpp, gw_sigma_unfold_test.cpp): Si.test's matches and
// GREP, the Si-EPM mean fields with eps^-1 at every q of the inner grid, the comparison of a Sigma run
// against Si.test, and BerkeleyGW's symmetry operations for Si-EPM.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <numbers>
#include <iterator>
#include <regex>
#include <sstream>

#include "quasar/core/error.hpp"
#include "quasar/device/context.hpp"
#include "quasar/gw/coulomb_average.hpp"
#include "quasar/gw/epm.hpp"
#include "quasar/gw/epm_input.hpp"
#include "quasar/gw/epsilon.hpp"
#include "quasar/gw/gpp_kernels.hpp"
#include "quasar/gw/mean_field.hpp"
#include "quasar/gw/sigma.hpp"
#include "quasar/gw/sigma_input.hpp"
#include "quasar/gw/sigma_output.hpp"
#include "quasar/gw/symmetry.hpp"
#include "support.hpp"

namespace quasar {
namespace {


constexpr const char* kDir = "reference/gw/Si-EPM";
inline std::string ref(const std::string& name) { return test::shared_path(std::string(kDir) + "/" + name); }

// Si.test's sigma_hp.log matches of one run (between "Output : <out>" and the next "Output"/"mv").
struct Match {
  std::string name, pattern;
  int column = 0, offset = 0;
  double value = 0, precision = 0;
};
inline std::vector<Match> matches(const std::string& output) {
  std::ifstream in(ref("Si.test"));
  std::vector<Match> out;
  std::string line;
  double precision = 0;
  bool inside = false;
  const std::regex prec(R"(^Precision\s*:\s*(\S+))");
  const std::regex grep(R"re(^match\s*;\s*([^;]*?)\s*;\s*GREP\(sigma_hp\.log,\s*"([^"]*)",\s*(\d+),\s*(\d+)\);\s*(\S+))re");
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, prec)) precision = std::stod(m[1]);
    if (line.rfind("Output", 0) == 0) inside = line.find(output) != std::string::npos;
    if (line.find("mv sigma_hp.log") != std::string::npos) inside = false;
    if (inside && std::regex_search(line, m, grep))
      out.push_back({m[1], m[2], std::stoi(m[3]), std::stoi(m[4]), std::stod(m[5]), precision});
  }
  return out;
}

// Si.test's GREP(file, pattern, column, offset): word `column` of the line `offset` lines after the
// first line holding `pattern`.
inline double grep(const std::string& text, const std::string& pattern, int column, int offset) {
  std::istringstream in(text);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (lines[i].find(pattern) != std::string::npos) {
      std::istringstream words(lines.at(i + static_cast<std::size_t>(offset)));
      std::string w;
      for (int c = 0; c < column; ++c) words >> w;
      return std::stod(w);
    }
  throw Error("pattern '" + pattern + "' not found");
}

struct SiMeanFields {
  gw::Wavefunctions inner;
  std::vector<double> density;  // what BerkeleyGW's EPM writes to RHO
  gw::EpsilonResult eps;        // eps^-1 at every q of the inner grid
};

// Epsilon as Si.test's epsilon.inp (cutoff 7 Ry, 18 bands, q0 = (0, 0, 0.001)) at every q-point of
// the unshifted 2x2x2 grid: Sigma sums over the whole grid.
inline gw::EpsilonInput full_grid_epsilon_input(const gw::Wavefunctions& inner) {
  gw::EpsilonInput in;
  in.cutoff_ry = 7.0;
  in.bands = 18;
  in.qpoints.push_back({{0, 0, 0.001}, true, 0});
  for (const auto& k : inner.kpoints)
    if (std::abs(k[0]) + std::abs(k[1]) + std::abs(k[2]) > 1e-9) in.qpoints.push_back({k, false, 0});
  return in;
}

inline const SiMeanFields& si() {
  static const SiMeanFields s = [] {
    SiMeanFields m;
    device::Context ctx(Backend::Cpu);
    const gw::Vec3d q0{0, 0, 0.001};
    const gw::Wavefunctions wfn = gw::load_mean_field(ref("WFN.in"), ctx);
    const gw::Wavefunctions wfnq = gw::load_mean_field(ref("WFNq.in"), ctx, &q0);
    m.inner = gw::load_mean_field(ref("WFN_co.in"), ctx);
    m.density = gw::mean_field_density(ref("WFN_co.in"), ctx);
    m.eps = gw::compute_epsilon(full_grid_epsilon_input(m.inner), wfn, &wfnq, ctx);
    return m;
  }();
  return s;
}

inline bool have_reference() { return !ref("Si.test").empty(); }

// Runs one of Si.test's Sigma inputs and compares every match with Si.test's precision. Returns the
// largest deviation (eV).
// `eps`: the dielectric matrices (default: every q of the grid); `result`, when given, receives the run.
inline double compare(const gw::SigmaSettings& settings, const std::string& output, const gw::EpsilonResult* eps = nullptr,
                      gw::SigmaResult* result = nullptr) {
  const SiMeanFields& m = si();
  const bool hf = settings.model == gw::SigmaModel::HartreeFock;
  const gw::SigmaResult r = gw::compute_sigma(settings, m.inner, hf ? nullptr : eps ? eps : &m.eps, {}, &m.density);
  if (result) *result = r;
  const std::string log = gw::sigma_hp_log(r, settings.exact_static_ch);
  const std::vector<Match> want = matches(output);
  EXPECT_GE(want.size(), 2u) << output;
  double largest = 0;
  for (const Match& w : want) {
    const double got = grep(log, w.pattern, w.column, w.offset);
    const double dev = std::abs(got - w.value);
    std::printf("%-12s %-32s %12.6f  Si.test %12.6f  (%+.1e, precision %.0e)\n", output.c_str(), w.name.c_str(), got,
                w.value, got - w.value, w.precision);
    EXPECT_LE(dev, w.precision) << output << ": " << w.name;
    largest = std::max(largest, dev);
  }
  return largest;
}
// BerkeleyGW's symmetry operations for Si-EPM in the order its EPM program writes them (spglib's; the
// "mtrx" lines of sigma_hp.log, here row by row: q -> M q in reciprocal coordinates): the reference for
// the order Quasar derives (gw_berkeleygw_symmetry_test) and the berkeleygw_symmetries override.
const int kBerkeleyGwOperations[48][9] = {
  {1, 0, 0, 0, 1, 0, 0, 0, 1}, {1, 0, -1, 0, 1, -1, 0, 0, -1}, {0, -1, 0, -1, 0, 0, 0, 0, -1}, {0, -1, 1, -1, 0, 1, 0, 0, 1},
  {1, 0, 0, 1, -1, 0, 1, 0, -1}, {0, -1, 1, 1, -1, 0, 0, -1, 0}, {1, 0, -1, 1, -1, 0, 1, 0, 0}, {0, -1, 0, 1, -1, 0, 0, -1, 1},
  {0, 1, -1, 0, 1, 0, -1, 1, 0}, {0, 1, 0, 0, 1, -1, -1, 1, 0}, {-1, 0, 1, -1, 0, 0, -1, 1, 0}, {-1, 0, 0, -1, 0, 1, -1, 1, 0},
  {-1, 0, 0, 0, -1, 0, 0, 0, -1}, {0, 1, 0, 1, 0, 0, 0, 0, 1}, {-1, 0, 1, 0, -1, 1, 0, 0, 1}, {0, 1, -1, 1, 0, -1, 0, 0, -1},
  {-1, 0, 0, -1, 1, 0, -1, 0, 1}, {0, 1, -1, -1, 1, 0, 0, 1, 0}, {-1, 0, 1, -1, 1, 0, -1, 0, 0}, {0, 1, 0, -1, 1, 0, 0, 1, -1},
  {0, -1, 1, 0, -1, 0, 1, -1, 0}, {1, 0, -1, 1, 0, 0, 1, -1, 0}, {0, -1, 0, 0, -1, 1, 1, -1, 0}, {1, 0, 0, 1, 0, -1, 1, -1, 0},
  {0, 0, 1, 0, -1, 1, -1, 0, 1}, {0, 0, -1, 0, -1, 0, -1, 0, 0}, {0, 0, 1, 1, 0, 0, 0, 1, 0}, {0, 0, -1, 1, 0, -1, 0, 1, -1},
  {1, -1, 0, 0, -1, 1, 0, -1, 0}, {1, -1, 0, 1, 0, 0, 1, 0, -1}, {1, -1, 0, 0, -1, 0, 0, -1, 1}, {1, -1, 0, 1, 0, -1, 1, 0, 0},
  {0, 0, 1, 0, 1, 0, 1, 0, 0}, {0, 0, -1, -1, 0, 0, 0, -1, 0}, {0, 0, -1, 0, 1, -1, 1, 0, -1}, {0, 0, 1, -1, 0, 1, 0, -1, 1},
  {-1, 1, 0, -1, 0, 0, -1, 0, 1}, {-1, 1, 0, 0, 1, 0, 0, 1, -1}, {-1, 1, 0, 0, 1, -1, 0, 1, 0}, {-1, 1, 0, -1, 0, 1, -1, 0, 0},
  {0, -1, 1, 0, 0, 1, -1, 0, 1}, {1, 0, 0, 0, 0, 1, 0, 1, 0}, {1, 0, -1, 0, 0, -1, 0, 1, -1}, {0, -1, 0, 0, 0, -1, -1, 0, 0},
  {0, 1, -1, 0, 0, -1, 1, 0, -1}, {-1, 0, 0, 0, 0, -1, 0, -1, 0}, {-1, 0, 1, 0, 0, 1, 0, -1, 1}, {0, 1, 0, 0, 0, 1, 1, 0, 0},
};
inline std::vector<gw::IntMatrix3> berkeleygw_si_operations() {
  std::vector<gw::IntMatrix3> out;
  for (const auto& o : kBerkeleyGwOperations) out.push_back({{{o[0], o[1], o[2]}, {o[3], o[4], o[5]}, {o[6], o[7], o[8]}}});
  return out;
}
// Si.test's Sigma read a dielectric file with epsilon.inp's q-points (q0, L, X); where these tests give
// eps^-1 at all eight q of the grid instead, Sigma's map onto the file's points uses those three.
// The operations are not given: Sigma takes the crystal's in BerkeleyGW's order (sigma.hpp).
inline void use_si_test_dielectric_qpoints(gw::SigmaSettings& s) { s.dielectric_qpoints = {{0, 0, 0}, {0, 0, 0.5}, {0, 0.5, 0.5}}; }

// Si.test's COHSEX off-diagonal run at L (below).
inline gw::SigmaSettings cohsex_at_l() {
  gw::SigmaSettings s;
  s.model = gw::SigmaModel::Cohsex;
  s.bands = 5;
  s.band_min = 1, s.band_max = 5;
  s.kpoints = {{0, 0, 0.5}};
  s.exact_static_ch = true;
  for (int n = 1; n <= 5; ++n)
    for (int m = 1; m <= 5; ++m) s.offdiagonal.push_back({n, m, 3});
  use_si_test_dielectric_qpoints(s);
  return s;
}

inline double run_and_compare(const std::string& input, const std::string& output, const gw::EpsilonResult* eps = nullptr,
                              gw::SigmaResult* result = nullptr) {
  gw::SigmaInput in = gw::read_sigma_input(ref(input));
  in.settings.listed_kpoints = gw::read_epm_input(ref("WFN_co.in")).kpoints;
  use_si_test_dielectric_qpoints(in.settings);
  return compare(in.settings, output, eps, result);
}
}  // namespace
}  // namespace quasar
