// Epsilon (gw/epsilon*) against BerkeleyGW's Si-EPM test (../shared/reference/gw): every value Si.test
// matches for the static Epsilon run (chi0 at q1 and q3 from chi_converge.dat, the heads of epsilon
// and of its inverse at the three q-points), read from Si.test with its Precision lines; chi0's
// Hermiticity; the same on the GPU and CPU = GPU; the epsilon.inp reader; the command end to end.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "quasar/core/error.hpp"
#include "quasar/device/context.hpp"
#include "quasar/gw/epm.hpp"
#include "quasar/gw/epm_input.hpp"
#include "quasar/gw/epsilon.hpp"
#include "quasar/gw/epsilon_input.hpp"
#include "quasar/gw/epsilon_output.hpp"
#include "quasar/gw/mean_field.hpp"
#include "quasar/gw/symmetry.hpp"
#include "quasar/io/hdf5/hdf5.hpp"
#include "support.hpp"

namespace quasar {
namespace {

const char* kDir = "reference/gw/Si-EPM";

// The Epsilon matches of Si.test's static run: chi_converge.dat's (line, column) values and the
// head lines' values by q-point, each with the precision in force.
struct Expected {
  struct Chi {
    std::string name;
    int line = 0, column = 0;
    double value = 0, precision = 0;
  };
  struct Head {
    int q = 0;
    bool inverse = false;
    double value = 0, precision = 0;
  };
  std::vector<Chi> chi;
  std::vector<Head> heads;
  double log_head = 0, log_precision = 0;  // epsilon.log: the line after "inverse epsilon", word 7
};

Expected expected(const std::string& test_file) {
  std::ifstream in(test_file);
  Expected out;
  std::string line;
  double precision = 0;
  const std::regex prec(R"(^Precision\s*:\s*(\S+))");
  const std::regex chi(R"re(^match\s*;\s*(Re chi\S*)\s*;\s*LINE\(chi_converge\.dat,\s*(\d+),\s*(\d+)\)\s*;\s*(\S+))re");
  const std::regex head(
      R"re(^match\s*;[^;]*;\s*GREP\(eps_static_skip_chi\.out,\s*"q-pt\s+(\d+): Head of Epsilon( Inverse)?",\s*\d+,\s*0\);\s*(\S+))re");
  const std::regex log(R"re(^match\s*;[^;]*;\s*GREP\(epsilon\.log,\s*"inverse epsilon",\s*7,\s*1\);\s*(\S+))re");
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, prec)) precision = std::stod(m[1]);
    if (out.log_precision == 0 && std::regex_search(line, m, log)) out.log_head = std::stod(m[1]), out.log_precision = precision;
    if (std::regex_search(line, m, chi)) out.chi.push_back({m[1], std::stoi(m[2]), std::stoi(m[3]), std::stod(m[4]), precision});
    if (std::regex_search(line, m, head))
      out.heads.push_back({std::stoi(m[1]), m[2].matched, std::stod(m[3]), precision});
  }
  return out;
}

struct SiEpsilon {
  gw::EpsilonInput input;
  gw::Wavefunctions wfn, wfnq;
  gw::EpsilonResult result;
};

// Si.test's static Epsilon on the EPM mean fields of WFN.in and WFNq.in, on `backend`.
SiEpsilon si_epsilon(Backend backend) {
  SiEpsilon s;
  device::Context ctx(backend);
  s.input = gw::read_epsilon_input(test::shared_path(std::string(kDir) + "/epsilon.inp"));
  s.wfn = gw::solve_epm(gw::unfolded_input(gw::read_epm_input(test::shared_path(std::string(kDir) + "/WFN.in"))), ctx);
  s.wfnq = gw::solve_epm(gw::unfolded_input(gw::read_epm_input(test::shared_path(std::string(kDir) + "/WFNq.in")),
                                            &s.input.qpoints[0].q), ctx);
  s.result = gw::compute_epsilon(s.input, s.wfn, &s.wfnq, ctx);
  return s;
}

// Word `column` (1-based) of line `line` (1-based) of a text, as a number.
double word_of(const std::string& text, int line, int column) {
  std::istringstream in(text);
  std::string l;
  for (int i = 0; i < line; ++i) std::getline(in, l);
  std::istringstream words(l);
  std::string w;
  for (int i = 0; i < column; ++i) words >> w;
  return std::stod(w);
}

class GwEpsilonBackends : public testing::TestWithParam<Backend> {};

TEST_P(GwEpsilonBackends, MatchesBerkeleyGWsSiTest) {
  const std::string test_file = test::shared_path(std::string(kDir) + "/Si.test");
  if (test_file.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/gw/Si-EPM is absent");
  const Expected want = expected(test_file);
  ASSERT_EQ(want.chi.size(), 4u) << "Si.test's chi_converge.dat matches";
  ASSERT_EQ(want.heads.size(), 6u) << "Si.test's head matches of the static run";
  const SiEpsilon s = si_epsilon(GetParam());
  const gw::EpsilonResult& r = s.result;
  ASSERT_EQ(r.q.size(), 3u);
  EXPECT_EQ(r.valence, 4);
  EXPECT_EQ(r.conduction, 14);
  // WFN's two k-points (weights 2 and 6) unfolded by the 48 rotations: stars of 8 and 24 points.
  EXPECT_EQ(r.kpoints, 32);
  EXPECT_EQ(s.wfnq.kpoint_count(), 32u);  // WFNq's ten, by the rotations that keep q0

  // chi0 as the test reads it: chi_converge.dat's printed (8-digit) values.
  const std::string chi_text = gw::chi_converge_text(r);
  test::MaxError chi_error("chi_converge.dat value - Si.test");
  double chi_precision = 0;
  for (const auto& c : want.chi) {
    const double got = word_of(chi_text, c.line, c.column);
    std::printf("%s: %.8E (Si.test %.8E)\n", c.name.c_str(), got, c.value);
    chi_error.add(got, c.value);
    chi_precision = std::max(chi_precision, c.precision);
  }
  EXPECT_TRUE(chi_error.within(chi_precision));
  for (const auto& e : r.q)
    std::printf("q (%g %g %g): %zu G-vectors, chi0(0,0) %.12E, chi0(Gmax,Gmax) %.12E\n", e.q[0], e.q[1], e.q[2], e.size(),
                e.at(e.chi, 0, 0).real(), e.at(e.chi, e.size() - 1, e.size() - 1).real());

  // The heads, to each match's precision (2e-11 for epsilon at q1, 2e-13 for the others).
  for (const auto& h : want.heads) {
    const gw::EpsilonOfQ& e = r.q[static_cast<std::size_t>(h.q - 1)];
    const std::complex<double> got = e.at(h.inverse ? e.epsilon_inverse : e.epsilon, 0, 0);
    std::printf("q-pt %d head of epsilon%s: %.16f (Si.test %.16f)\n", h.q, h.inverse ? " inverse" : "", got.real(), h.value);
    test::MaxError error(std::string("head of epsilon") + (h.inverse ? " inverse" : "") + " at q" + std::to_string(h.q));
    error.add(got.real(), h.value);
    EXPECT_TRUE(error.within(h.precision));
  }

  // epsilon.log: the word 7 of the line after the first "inverse epsilon" (printed with 8 decimals).
  {
    ASSERT_GT(want.log_precision, 0) << "Si.test's epsilon.log match";
    const std::string log = gw::epsilon_log_text(r);
    const std::size_t at = log.find("inverse epsilon");
    ASSERT_NE(at, std::string::npos);
    std::istringstream rest(log.substr(log.find('\n', at) + 1));
    std::string w;
    for (int i = 0; i < 7; ++i) rest >> w;
    test::MaxError error("epsilon.log's inverse head - Si.test");
    error.add(std::stod(w), want.log_head);
    EXPECT_TRUE(error.within(want.log_precision));
  }

  // chi0 is Hermitian, and real for silicon (inversion symmetry about the origin).
  test::MaxError hermitian("chi0 - chi0^H (relative to its largest element)");
  test::MaxError imaginary("Im chi0 (relative to its largest element)");
  for (const auto& e : r.q) {
    double largest = 0;
    for (const auto& x : e.chi) largest = std::max(largest, std::abs(x));
    hermitian.add(e.hermiticity_error / largest, 0);
    for (const auto& x : e.chi) imaginary.add(std::abs(x.imag()) / largest, 0);
  }
  EXPECT_TRUE(hermitian.within(1e-14));
  EXPECT_TRUE(imaginary.within(1e-13));

  // The FFT's matrix elements against the direct convolution M(G) = sum_G' c_c(G')^* c_v(G' + G) at q3,
  // for chi0's head and last diagonal element (regular q: valence and conduction both from WFN).
  {
    const gw::EpsilonOfQ& e = r.q[2];
    const gw::Wavefunctions& w = s.wfn;
    const double factor = 4 / (r.kpoints * r.volume);
    test::MaxError direct("chi0 by FFT - by direct convolution, q3 (relative)");
    for (std::size_t which : {std::size_t{0}, e.size() - 1}) {
      const gw::GVector& g = e.gvectors[which];
      double sum = 0;
      for (std::size_t k = 0; k < w.kpoint_count(); ++k) {
        // k + q = kpoints[kq] + umklapp.
        std::size_t kq = 0;
        gw::GVector umklapp{};
        for (std::size_t j = 0; j < w.kpoint_count(); ++j) {
          bool same = true;
          gw::GVector u{};
          for (int d = 0; d < 3; ++d) {
            const double diff = w.kpoints[k][d] + e.q[d] - w.kpoints[j][d];
            u[d] = static_cast<int>(std::lround(diff));
            same = same && std::abs(diff - u[d]) < 1e-9;
          }
          if (same) kq = j, umklapp = u;
        }
        std::map<gw::GVector, std::size_t> at;
        for (std::size_t i = 0; i < static_cast<std::size_t>(w.gvector_counts[kq]); ++i)
          at[w.kgvectors[w.kgvector_offset(kq) + i]] = i;
        for (int v = 0; v < r.valence; ++v)
          for (int c = r.valence; c < r.valence + r.conduction; ++c) {
            double m = 0;  // real coefficients: M is real
            for (std::size_t i = 0; i < static_cast<std::size_t>(w.gvector_counts[k]); ++i) {
              const gw::GVector& gc = w.kgvectors[w.kgvector_offset(k) + i];
              const gw::GVector gv{gc[0] + g[0] + umklapp[0], gc[1] + g[1] + umklapp[1], gc[2] + g[2] + umklapp[2]};
              const auto it = at.find(gv);
              if (it == at.end()) continue;
              m += w.real_coefficients[w.coefficient_offset(0, k, c) + i] * w.real_coefficients[w.coefficient_offset(0, kq, v) + it->second];
            }
            sum -= m * m * factor / (w.energy(0, k, c) - w.energy(0, kq, v));
          }
      }
      direct.add(e.at(e.chi, which, which).real() / sum, 1);
    }
    EXPECT_TRUE(direct.within(1e-13));
  }

  // CPU = GPU: the whole inverse matrices.
  if (GetParam() == Backend::Cuda) {
    const SiEpsilon cpu = si_epsilon(Backend::Cpu);
    test::MaxError same("epsilon^-1 GPU - CPU");
    for (std::size_t iq = 0; iq < r.q.size(); ++iq)
      for (std::size_t i = 0; i < r.q[iq].epsilon_inverse.size(); ++i)
        same.add(std::abs(r.q[iq].epsilon_inverse[i] - cpu.result.q[iq].epsilon_inverse[i]), 0);
    // Measured on the H100: 9.6e-12 (at q -> 0, chi0's rounding times v(q0) = 2.2e7 bohr^3 Ry).
    EXPECT_TRUE(same.within(1e-10));
  }
}

QUASAR_INSTANTIATE_BACKENDS(GwEpsilonBackends);

// BerkeleyGW's complex flavour of the test (Si_cplx.test, made from Si.test) keeps the same reference
// values: the mean fields stored as complex coefficients (real_or_complex 2) give the same heads, and
// the head lines carry imaginary parts.
TEST(GwEpsilon, ComplexFlavourGivesTheSameHeads) {
  const std::string test_file = test::shared_path(std::string(kDir) + "/Si.test");
  if (test_file.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/gw/Si-EPM is absent");
  const Expected want = expected(test_file);
  device::Context ctx(Backend::Cpu);
  const gw::EpsilonInput input = gw::read_epsilon_input(test::shared_path(std::string(kDir) + "/epsilon.inp"));
  gw::EpmInput wfn_in = gw::read_epm_input(test::shared_path(std::string(kDir) + "/WFN.in"));
  gw::EpmInput wfnq_in = gw::read_epm_input(test::shared_path(std::string(kDir) + "/WFNq.in"));
  wfn_in.real = wfnq_in.real = false;
  const gw::Wavefunctions wfn = gw::solve_epm(gw::unfolded_input(wfn_in), ctx);
  const gw::Wavefunctions wfnq = gw::solve_epm(gw::unfolded_input(wfnq_in, &input.qpoints[0].q), ctx);
  ASSERT_FALSE(wfn.real);
  const gw::EpsilonResult r = gw::compute_epsilon(input, wfn, &wfnq, ctx);
  EXPECT_FALSE(r.real);
  for (const auto& h : want.heads) {
    const gw::EpsilonOfQ& e = r.q[static_cast<std::size_t>(h.q - 1)];
    const std::complex<double> got = e.at(h.inverse ? e.epsilon_inverse : e.epsilon, 0, 0);
    test::MaxError error(std::string("complex flavour: head of epsilon") + (h.inverse ? " inverse" : "") + " at q" +
                         std::to_string(h.q));
    error.add(got.real(), h.value);
    error.add(got.imag(), 0);
    EXPECT_TRUE(error.within(h.precision));
  }
  // The head lines then carry real and imaginary parts.
  const std::string lines = gw::epsilon_inverse_lines(r.q[0], 1, r.real);
  std::istringstream words(lines);
  std::vector<std::string> w;
  for (std::string x; words >> x && w.size() < 9;) w.push_back(x);
  ASSERT_EQ(w.size(), 9u);
  EXPECT_NEAR(std::stod(w[7]), 0.0650198678428007, 2e-13);
  EXPECT_NEAR(std::stod(w[8]), 0, 2e-13);
}

// What Epsilon refuses: band counts beyond the mean field, without conduction bands or through a
// degenerate level, a q whose k + q is not among the k-points, a q -> 0 point without WFNq.
TEST(GwEpsilon, RefusesWhatItCannotSum) {
  const std::string wfn_in = test::shared_path(std::string(kDir) + "/WFN.in");
  if (wfn_in.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/gw/Si-EPM is absent");
  device::Context ctx(Backend::Cpu);
  const gw::Wavefunctions wfn = gw::solve_epm(gw::unfolded_input(gw::read_epm_input(wfn_in)), ctx);
  auto refused = [&](int bands, gw::EpsilonQPoint q, const std::string& message) {
    gw::EpsilonInput in;
    in.path = "eps.inp";
    in.cutoff_ry = 2;
    in.bands = bands;
    in.qpoints = {q};
    try {
      gw::compute_epsilon(in, wfn, nullptr, ctx);
      ADD_FAILURE() << "accepted: " << message;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  };
  gw::EpsilonQPoint q2;
  q2.q = {0, 0, 0.5};
  refused(20, q2, "eps.inp: number_bands 20 exceeds the 19 bands of WFN");
  refused(4, q2, "number_bands 4 leaves no conduction band (4 are filled)");
  // Bands 6 and 7 are degenerate at k-point 1, (1/4, 1/4, 1/4) on the three-fold axis.
  EXPECT_LT(std::abs(wfn.energy(0, 0, 6) - wfn.energy(0, 0, 5)), 1e-9);
  refused(6, q2, "number_bands 6 splits degenerate states at k-point 1");
  gw::EpsilonQPoint off;
  off.q = {0, 0, 0.25};
  refused(8, off, "WFN has no k-point at");
  gw::EpsilonQPoint q0;
  q0.q = {0, 0, 0.001};
  q0.q0 = true;
  refused(8, q0, "the q -> 0 point needs the shifted mean field WFNq");
}

TEST(GwEpsilon, GVectorsSortedAsBerkeleyGW) {
  const std::string wfn_in = test::shared_path(std::string(kDir) + "/WFN.in");
  if (wfn_in.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/gw/Si-EPM is absent");
  device::Context ctx(Backend::Cpu);
  gw::EpmInput in = gw::read_epm_input(wfn_in);
  in.kpoints.resize(1), in.weights.resize(1);
  const gw::Wavefunctions w = gw::solve_epm(in, ctx);
  // q3 = (0, 1/2, 1/2): |q+G| ties with G = (0, -1, -1), which comes first ((G1, G2, G3) ascending).
  const auto g = gw::epsilon_gvectors(w, {0, 0.5, 0.5}, false, 7.0);
  ASSERT_GE(g.size(), 2u);
  EXPECT_EQ(g[0], (gw::GVector{0, -1, -1}));
  EXPECT_EQ(g[1], (gw::GVector{0, 0, 0}));
  // The q -> 0 point takes |G|^2: G = 0 first, then the 8 of the first shell.
  const auto g0 = gw::epsilon_gvectors(w, {0, 0, 0.001}, true, 7.0);
  EXPECT_EQ(g0[0], (gw::GVector{0, 0, 0}));
}

// Si's point group (Si.test: 48 symmetries of the crystal) and the stars of WFN's k-points.
TEST(GwEpsilon, SiliconRotationsAndStars) {
  const std::string wfn_in = test::shared_path(std::string(kDir) + "/WFN.in");
  if (wfn_in.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/gw/Si-EPM is absent");
  const gw::EpmInput in = gw::read_epm_input(wfn_in);
  EXPECT_EQ(gw::crystal_rotations(in).size(), 48u);
  EXPECT_EQ(gw::unfold_kpoints({in.kpoints[0]}, gw::crystal_rotations(in)).size(), 8u);
  EXPECT_EQ(gw::unfold_kpoints({in.kpoints[1]}, gw::crystal_rotations(in)).size(), 24u);
  // Two like atoms on the [111] axis at another distance: the pair's D3d (12 operations, inversion
  // about its midpoint among them); of unlike species, C3v (6).
  gw::EpmInput moved = in;
  moved.atoms[1].position = {0.2, 0.2, 0.2};
  EXPECT_EQ(gw::crystal_rotations(moved).size(), 12u);
  moved.species.push_back({32, "Ge"});
  moved.atoms[1].species = 1;
  EXPECT_EQ(gw::crystal_rotations(moved).size(), 6u);
  // A list whose weights are not its stars' shares is refused, naming the file.
  gw::EpmInput wrong = in;
  wrong.weights = {0.5, 0.5};
  try {
    gw::unfolded_input(wrong);
    ADD_FAILURE() << "weights 1:1 accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("WFN.in: KPointsList: k-point 1 has weight 0.5"), std::string::npos) << e.what();
  }
}

TEST(GwEpsilon, FortranNumberFormats) {
  EXPECT_EQ(gw::fortran_es(16.9619547514149, 25, 15, 3), "   1.696195475141490E+001");
  EXPECT_EQ(gw::fortran_es(-0.0650198678428007, 25, 15, 3), "  -6.501986784280070E-002");
  EXPECT_EQ(gw::fortran_e(-0.71438266e-6, 20, 8), "     -0.71438266E-06");
  EXPECT_EQ(gw::fortran_e(0.001, 16, 8), "  0.10000000E-02");
  EXPECT_EQ(gw::fortran_e(0, 16, 8), "  0.00000000E+00");
}

// The epsilon.inp reader: Si.test's input, then errors that name the file, line and keyword.
TEST(GwEpsilonInput, ReadsTheSiInputAndNamesErrors) {
  const std::string path = test::shared_path(std::string(kDir) + "/epsilon.inp");
  if (path.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/gw/Si-EPM is absent");
  const gw::EpsilonInput in = gw::read_epsilon_input(path);
  EXPECT_EQ(in.cutoff_ry, 7.0);
  EXPECT_EQ(in.bands, 18);
  ASSERT_EQ(in.qpoints.size(), 3u);
  EXPECT_TRUE(in.qpoints[0].q0);
  EXPECT_FALSE(in.qpoints[1].q0);
  EXPECT_EQ(in.qpoints[0].q[2], 0.001);
  EXPECT_EQ(in.qpoints[2].q[1], 0.5);

  const auto dir = test::scratch_dir("gw-epsilon-input");
  const std::string good = "epsilon_cutoff 7.0\nnumber_bands 18\nbegin qpoints\n 0 0 0.002 2.0 1\nend\n";
  {
    std::ofstream((dir / "divisor.inp").string()) << good;
    const gw::EpsilonInput d = gw::read_epsilon_input((dir / "divisor.inp").string());
    EXPECT_EQ(d.qpoints[0].q[2], 0.001);
  }
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"epsilon_cutof 7.0\n", "bad.inp:1: unknown keyword 'epsilon_cutof'"},
      {good + "skip_chi\n", "bad.inp:6: keyword 'skip_chi' is not supported"},
      {good + "epsilon_cutoff 8\n", "bad.inp:6: keyword 'epsilon_cutoff' given twice"},
      {"epsilon_cutoff 7.0\nnumber_bands 18.5\n", "bad.inp:2: 'number_bands': '18.5' is not an integer"},
      {"epsilon_cutoff x\n", "bad.inp:1: 'epsilon_cutoff': 'x' is not a finite number"},
      {"epsilon_cutoff 7\nnumber_bands 8\nbegin qpoints\n 0 0 0.5 1.0\nend\n", "bad.inp:4: 'qpoints': expected 5 values"},
      {"epsilon_cutoff 7\nnumber_bands 8\nbegin qpoints\n 0 0 0.5 1.0 2\nend\n", "bad.inp:4: 'qpoints': flag 2"},
      {"epsilon_cutoff 7\nnumber_bands 8\nbegin qpoints\n 0 0 0.5 0 0\nend\n", "bad.inp:4: 'qpoints': the divisor"},
      {"epsilon_cutoff 7\nnumber_bands 8\nbegin qpoints\n 0 0 0.5 1 0\n", "'begin qpoints' without its 'end'"},
      {"epsilon_cutoff 7\nnumber_bands 8\n", "no q-points"},
      {"epsilon_cutoff 7\nbegin qpoints\n 0 0 0.5 1 0\nend\n", "keyword 'number_bands' is missing"},
      {"frequency_dependence 2\n", "bad.inp:1: 'frequency_dependence': only 0"},
  };
  for (const auto& [text, message] : bad) {
    std::ofstream((dir / "bad.inp").string(), std::ios::trunc) << text;
    try {
      gw::read_epsilon_input((dir / "bad.inp").string());
      ADD_FAILURE() << "accepted:\n" << text;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what() << "\nwanted: " << message;
    }
  }
}

// `quasar gw epsilon epsilon.inp` in a scratch folder: the head lines as Si.test greps them, the
// chi_converge.dat line it reads, the HDF5 file's inverse head and the JSON summary.
TEST(GwEpsilonCommand, WritesBerkeleyGWsLinesAndFiles) {
  const std::string input = test::shared_path(std::string(kDir) + "/epsilon.inp");
  if (input.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/gw/Si-EPM is absent");
  const auto dir = test::scratch_dir("gw-epsilon-command");
  const std::string cmd = "cd " + dir.string() + " && " + test::binary_path("quasar") + " gw epsilon " + input + " > out.txt 2> err.txt";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream out(dir / "out.txt");
  std::string line;
  std::map<std::string, double> heads;
  bool progress = false;
  while (std::getline(out, line)) {
    progress = progress || line.find("q-pt 2 of 3") != std::string::npos;
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string x; words >> x;) w.push_back(x);
    // GREP(..., "q-pt      1: Head of Epsilon", 7, 0) and "... Inverse", 8, 0: the first line of each.
    if (line.rfind(" q-pt      1: Head of Epsilon Inverse", 0) == 0 && !heads.count("inv1")) heads["inv1"] = std::stod(w.at(7));
    else if (line.rfind(" q-pt      1: Head of Epsilon", 0) == 0 && !heads.count("eps1")) heads["eps1"] = std::stod(w.at(6));
    if (line.rfind(" q-pt      3: Head of Epsilon Inverse", 0) == 0) heads["inv3"] = std::stod(w.at(7));
  }
  EXPECT_TRUE(progress);
  EXPECT_NEAR(heads["eps1"], 16.9619547514149, 2e-11);
  EXPECT_NEAR(heads["inv1"], 0.0650198678428007, 2e-13);
  EXPECT_NEAR(heads["inv3"], 0.36570423105364530, 2e-13);
  std::ifstream chi(dir / "chi_converge.dat");
  std::stringstream chi_text;
  chi_text << chi.rdbuf();
  EXPECT_NEAR(word_of(chi_text.str(), 16, 2), -0.71438266E-06, 1e-13);  // Si.test's LINE(chi_converge.dat, 16, 2)
  EXPECT_NEAR(word_of(chi_text.str(), 50, 4), -0.74153363E-03, 1e-13);

  std::ifstream file(dir / "epsilon.h5", std::ios::binary);
  const std::vector<char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const h5::Handle h = h5::open_checked(bytes.data(), bytes.size(), "epsilon.h5", "quasar-gw-epsilon", 1, "an epsilon file");
  const h5::Reader r(h.id(), "epsilon.h5", bytes.size());
  const h5::Reader::Array inv = r.array("/q1/epsilon_inverse");
  ASSERT_EQ(inv.shape.size(), 3u);
  EXPECT_NEAR(inv.values[0], 0.0650198678428007, 2e-13);
  EXPECT_EQ(r.array("/q1/gvectors").shape[0], inv.shape[0]);

  std::ifstream json(dir / "epsilon.json");
  const nlohmann::json j = nlohmann::json::parse(json);
  EXPECT_NEAR(j["qpoints"][2]["head_of_epsilon"].get<double>(), 2.8944796695309591, 2e-13);

  // With a GPU: the same command on it, its JSON summary equal to the CPU's.
  for (Backend b : test::backends()) {
    if (b != Backend::Cuda) continue;
    const std::string gpu = "cd " + dir.string() + " && " + test::binary_path("quasar") + " gw epsilon " + input +
                            " --device cuda --json gpu.json --output gpu.h5 > gpu.txt 2> gpu-err.txt";
    ASSERT_EQ(std::system(gpu.c_str()), 0);
    std::ifstream gj(dir / "gpu.json");
    const nlohmann::json g = nlohmann::json::parse(gj);
    // epsilon's head at q -> 0 is 1 - v chi0 with v(q0) = 2.2e7 bohr^3 Ry: chi0's rounding shows there
    // (2.8e-12 between the CPU and BerkeleyGW), so it gets Si.test's precision; the inverse, 1e-12.
    test::MaxError head("quasar gw epsilon --device cuda - cpu (heads of epsilon)");
    test::MaxError inverse("quasar gw epsilon --device cuda - cpu (epsilon^-1 (1,1), (2,2))");
    for (std::size_t iq = 0; iq < 3; ++iq) {
      head.add(g["qpoints"][iq]["head_of_epsilon"].get<double>(), j["qpoints"][iq]["head_of_epsilon"].get<double>());
      for (const char* key : {"head_of_epsilon_inverse", "epsilon_inverse_2_2"})
        inverse.add(g["qpoints"][iq][key].get<double>(), j["qpoints"][iq][key].get<double>());
    }
    EXPECT_TRUE(head.within(2e-11));
    EXPECT_TRUE(inverse.within(1e-12));
  }
}

// The mean fields as wavefunction files of the whole zone (what `quasar gw epm` writes for a full
// k-point list): the same heads; a symmetry-reduced file is refused, naming it.
TEST(GwEpsilonCommand, ReadsWavefunctionFilesOfTheWholeZone) {
  const std::string input = test::shared_path(std::string(kDir) + "/epsilon.inp");
  if (input.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/gw/Si-EPM is absent");
  const auto dir = test::scratch_dir("gw-epsilon-files");
  device::Context ctx(Backend::Cpu);
  const gw::EpsilonInput in = gw::read_epsilon_input(input);
  gw::write_wavefunctions((dir / "WFN.h5").string(), gw::load_mean_field(test::shared_path(std::string(kDir) + "/WFN.in"), ctx));
  gw::write_wavefunctions((dir / "WFNq.h5").string(),
                          gw::load_mean_field(test::shared_path(std::string(kDir) + "/WFNq.in"), ctx, &in.qpoints[0].q));
  const std::string cmd = "cd " + dir.string() + " && " + test::binary_path("quasar") + " gw epsilon " + input +
                          " --wfn WFN.h5 --wfnq WFNq.h5 > out.txt 2> err.txt";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream json(dir / "epsilon.json");
  const nlohmann::json j = nlohmann::json::parse(json);
  EXPECT_EQ(j["kpoints"].get<int>(), 32);
  EXPECT_NEAR(j["qpoints"][0]["head_of_epsilon_inverse"].get<double>(), 0.0650198678428007, 2e-13);
  EXPECT_NEAR(j["qpoints"][2]["head_of_epsilon"].get<double>(), 2.8944796695309591, 2e-13);

  // WFN.in's own two k-points, as `quasar gw epm` writes them: refused.
  gw::write_wavefunctions((dir / "reduced.h5").string(),
                          gw::solve_epm(gw::read_epm_input(test::shared_path(std::string(kDir) + "/WFN.in")), ctx));
  try {
    gw::load_mean_field((dir / "reduced.h5").string(), ctx);
    ADD_FAILURE() << "a reduced list accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("reduced.h5: k-point 1 has weight 0.250000, not 1/2"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace quasar
