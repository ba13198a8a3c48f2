// n2p2 potential files written by hand: they read as n2p2 reads them, symmetry functions sort as
// n2p2 sorts them, per-element networks as n2p2 builds them, and malformed files give InputErrors
// naming the file and line (the reference folders: nnp_model_test.cpp).
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "quasar/core/error.hpp"
#include "quasar/potential/nnp/model_io.hpp"
#include "support.hpp"

namespace quasar {
namespace {

using nnp::ElementModel;
using nnp::Model;
using nnp::ModelFiles;
using nnp::SymmetryFunction;

// A small potential written by hand: H (index 0) and O (index 1), two functions each, 2-3-1 networks
// (2*3 + 3 + 3*1 + 1 = 13 parameters each).
const char* kInputNn =
    "number_of_elements 2\n"               // 1
    "elements O H   # any order\n"          // 2
    "cutoff_type 1 0.1\n"                  // 3
    "scale_symmetry_functions\n"           // 4
    "scale_min_short -1\n"                 // 5
    "scale_max_short 1 ! n2p2 comment\n"   // 6
    "global_hidden_layers_short 1\n"       // 7
    "global_nodes_short 3\n"               // 8
    "global_activation_short t l\n"        // 9
    "symfunction_short H 2 H 0.5 0 5\n"    // 10
    "symfunction_short H 2 O 0.5 0 5\n"    // 11
    "symfunction_short O 2 H 0.5 0 5\n"    // 12
    "symfunction_short O 3 H H 0.1 1 1 5\n";  // 13

const char* kScaling =
    "# statistics\n"
    "1 1 0.1 1.1 0.5 0.2\n"  // 2
    "1 2 0.2 1.2 0.6 0.3\n"  // 3
    "2 1 0.3 1.3 0.7 0.4\n"  // 4
    "2 2 0.4 1.4 0.8 0.5\n";  // 5

std::string weights_text(int n, double scale) {
  std::string s = "# weights\n";
  for (int i = 0; i < n; ++i) s += std::to_string(scale * (i + 1)) + " a " + std::to_string(i + 1) + "\n";
  return s;
}

class NnpFiles : public testing::Test {
 protected:
  void SetUp() override { dir_ = test::scratch_dir("nnp-files"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }
  // The small potential with `input` as input.nn.
  void write_all(const std::string& input = kInputNn, const std::string& scaling = kScaling) {
    write("input.nn", input);
    write("scaling.data", scaling);
    write("weights.001.data", weights_text(13, 0.01));
    write("weights.008.data", weights_text(13, -0.02));
  }
  // input.nn with line `line` (1-based) replaced by `text` ("" removes it).
  static std::string with_line(int line, const std::string& text, const std::string& input = kInputNn) {
    std::istringstream in(input);
    std::string out, l;
    for (int i = 1; std::getline(in, l); ++i) out += i == line ? (text.empty() ? "" : text + "\n") : l + "\n";
    return out;
  }
  // The message of the InputError that read_model throws.
  std::string error(ModelFiles files = {}) {
    try {
      nnp::read_model(dir_, files);
    } catch (const InputError& e) {
      return e.what();
    }
    ADD_FAILURE() << "no InputError thrown";
    return {};
  }
  std::string at(const std::string& file, int line) const { return (dir_ / file).string() + ":" + std::to_string(line) + ": "; }
  std::string at(const std::string& file) const { return (dir_ / file).string() + ": "; }
  std::filesystem::path dir_;
};

TEST_F(NnpFiles, SmallPotentialReads) {
  write_all();
  const Model m = nnp::read_model(dir_);
  ASSERT_EQ(m.elements.size(), 2u);
  EXPECT_EQ(m.elements[0].symbol, "H");  // sorted by atomic number
  EXPECT_EQ(m.elements[1].symbol, "O");
  EXPECT_EQ(m.cutoff, nnp::CutoffKind::Cos);
  EXPECT_EQ(m.cutoff_alpha, 0.1);
  EXPECT_EQ(m.scaling, nnp::ScalingMode::Scale);
  EXPECT_EQ(m.scale_min, -1.0);
  EXPECT_EQ(m.scale_max, 1.0);
  EXPECT_FALSE(m.normalized);
  EXPECT_EQ(m.elements[0].layer_sizes(), (std::vector<std::size_t>{2, 3, 1}));
  EXPECT_EQ(m.elements[1].parameter_count(), 13u);
  EXPECT_EQ(m.elements[1].scaling[1].sigma, 0.5);                   // row "2 2 ..."
  EXPECT_EQ(m.elements[1].weights[12], -0.02 * 13);                 // weights.008.data, last line
  EXPECT_EQ(m.elements[1].functions[1].line, 13);
  EXPECT_EQ(m.elements[1].functions[1].e1, 0);
  EXPECT_EQ(m.max_cutoff(), 5.0);
  EXPECT_EQ(nnp::weights_file_name(8), "weights.008.data");
  EXPECT_EQ(nnp::weights_file_name(29), "weights.029.data");
}

// Expected orders below follow n2p2's SymFnc*::operator< (v2.3.0): the type first, then per type
// the keys listed beside each group, element indices compared as numbers (H = 0, O = 1 here). The
// orders derived by hand were confirmed with the symmetry function table (its "ln" column) that
// n2p2 v2.3.0's nnp-predict prints for these same files, as were the normalised order and the
// per-element networks below.
TEST_F(NnpFiles, ExponentialTypesSortAsN2p2Does) {
  const std::string input =
      "number_of_elements 2\nelements H O\ncutoff_type 1\nglobal_hidden_layers_short 0\nglobal_activation_short l\n"
      "symfunction_short H 2 H 0.01 0 6.0\n"           // line 6
      "symfunction_short O 9 H H 0.1 1 1 6.0\n"        // 7  a
      "symfunction_short O 3 O H 0.01 -1 1 6.0\n"      // 8  b  (stored as e1 = H, e2 = O)
      "symfunction_short O 2 O 0.01 0 6.0\n"           // 9  c
      "symfunction_short O 2 H 0.01 0 6.0\n"           // 10 d
      "symfunction_short O 2 H 0.001 0 6.0\n"          // 11 e
      "symfunction_short O 2 H 0.001 0 4.0\n"          // 12 f
      "symfunction_short O 2 H 0.001 1.5 4.0\n"        // 13 g
      "symfunction_short O 3 H H 0.01 1 1 6.0\n"       // 14 h
      "symfunction_short O 3 H H 0.01 -1 1 6.0\n"      // 15 i
      "symfunction_short O 3 H H 0.01 -1 2 6.0\n"      // 16 j
      "symfunction_short O 3 O O 0.01 -1 1 6.0\n"      // 17 k
      "symfunction_short O 3 H H 0.01 -1 1 6.0 0.5\n"  // 18 l
      "symfunction_short O 12 0.01 0 6.0\n"            // 19 m
      "symfunction_short O 13 0.01 0 1 1 6.0\n"        // 20 n
      "symfunction_short O 13 0.01 0 -1 1 6.0\n";      // 21 o
  // Type 2 (rc, eta, rs, e1): f (rc 4, rs 0) g (rc 4, rs 1.5) e (rc 6, eta 0.001) d (eta 0.01, H) c (O).
  // Type 3 (rc, eta, rs, zeta, lambda, e1, e2): all rc 6, eta 0.01; rs 0 before l (rs 0.5); zeta 1
  // before j (zeta 2); lambda -1 (i, b, k) before h (lambda 1); i (H,H) b (H,O) k (O,O).
  // Type 9: a. Type 12: m. Type 13 (rc, eta, rs, zeta, lambda): o (lambda -1) n (lambda 1).
  const std::vector<int> want = {12, 13, 11, 10, 9, 15, 8, 17, 14, 16, 18, 7, 19, 21, 20};
  const Model m = nnp::read_input_nn(write("input.nn", input));
  std::vector<int> lines;
  for (const SymmetryFunction& f : m.elements[1].functions) lines.push_back(f.line);
  EXPECT_EQ(lines, want);
  EXPECT_EQ(m.elements[1].functions[6].e1, 0);  // b: O H stored as H O
  EXPECT_EQ(m.elements[1].functions[6].e2, 1);
}

TEST_F(NnpFiles, CompactTypesSortAsN2p2Does) {
  const std::string input =
      "number_of_elements 2\nelements C H\ncutoff_type 6\nglobal_hidden_layers_short 0\nglobal_activation_short l\n"
      "symfunction_short H 20 H 0 5 p2\n"              // line 6
      "symfunction_short C 22 H H 0 5 0 180 p2\n"      // 7  a
      "symfunction_short C 20 H 0 5 p2a\n"             // 8  b
      "symfunction_short C 20 H 0 5 e\n"               // 9  c
      "symfunction_short C 20 C 0 5 p1\n"              // 10 d
      "symfunction_short C 20 H 0 5 p1\n"              // 11 e
      "symfunction_short C 20 H 1 5 p1\n"              // 12 f
      "symfunction_short C 20 H 0 4 p1\n"              // 13 g
      "symfunction_short C 21 C H 0 5 0 90 p2\n"       // 14 h  (stored as e1 = H, e2 = C)
      "symfunction_short C 21 H H 0 5 0 90 p2\n"       // 15 i
      "symfunction_short C 21 H H 0 5 90 180 p2\n"     // 16 j
      "symfunction_short C 21 H H 0 5 0 180 p2\n"      // 17 k
      "symfunction_short C 23 0 5 p3\n"                // 18 l
      "symfunction_short C 23 0 5 e\n"                 // 19 m
      "symfunction_short C 24 0 5 0 90 p4\n"           // 20 n
      "symfunction_short C 25 0 5 0 90 p4a\n"          // 21 o
      "symfunction_short C 21 H H -1 5 0 90 p2\n";     // 22 p
  // Elements: H = 0, C = 1. Subtypes compare as text: "e" < "p1" < "p2a".
  // Type 20 (subtype, e1, rc, rlow): c (e); p1: e1 H before C (d), among H rc 4 (g) before rc 5, then
  // rlow 0 (e) before 1 (f); then b (p2a): c g e f d b.
  // Type 21 (subtype, e1, e2, rc, rlow, left, right): (H,H) before h (H,C); among (H,H) rlow -1 (p)
  // first, then left 0 (i right 90, k right 180) before left 90 (j): p i k j h.
  // Type 22: a. Type 23 (subtype, rc, rlow): m (e) l (p3). Type 24: n. Type 25: o.
  const std::vector<int> want = {9, 13, 11, 12, 10, 8, 22, 15, 17, 16, 14, 7, 19, 18, 20, 21};
  const Model m = nnp::read_input_nn(write("input.nn", input));
  ASSERT_EQ(m.elements[1].symbol, "C");
  std::vector<int> lines;
  for (const SymmetryFunction& f : m.elements[1].functions) lines.push_back(f.line);
  EXPECT_EQ(lines, want);
  EXPECT_EQ(m.elements[1].functions[10].e1, 0);  // h: C H stored as H C
  EXPECT_EQ(m.elements[1].functions[10].e2, 1);
  EXPECT_TRUE(m.elements[1].functions[5].core_alt);
  EXPECT_EQ(m.elements[1].functions[0].core, nnp::WindowCore::Exp);
}

// n2p2 converts the parameters to normalised units before sorting (eta / conv_length^2): two etas that
// differ in the last bit can become equal, and then rs decides.
TEST_F(NnpFiles, SortUsesNormalisedParameters) {
  // Between 1.125 and 2, eta / 9 has an eighth of eta's spacing, so adjacent etas (a ninth apart
  // after division) meet about every ninth step.
  const double c = 3.0;
  double eta = 1.5;
  while (eta / (c * c) != std::nextafter(eta, 2.0) / (c * c)) eta = std::nextafter(eta, 2.0);
  const double eta_up = std::nextafter(eta, 2.0);
  char text[512];
  std::snprintf(text, sizeof text,
                "number_of_elements 1\nelements H\ncutoff_type 1\nglobal_hidden_layers_short 0\n"
                "global_activation_short l\n%s"
                "symfunction_short H 2 H %.17g 1 6\n"   // line 6: smaller eta, rs 1
                "symfunction_short H 2 H %.17g 0 6\n",  // line 7: larger eta, rs 0
                "", eta, eta_up);
  // Without normalisation eta decides: line 6 first.
  Model m = nnp::read_input_nn(write("input.nn", text));
  EXPECT_EQ(m.elements[0].functions[0].line, 6);
  // With conv_length 3 both etas are the same after division: rs decides, line 10 (rs 0) first.
  std::snprintf(text, sizeof text,
                "number_of_elements 1\nelements H\ncutoff_type 1\nglobal_hidden_layers_short 0\n"
                "global_activation_short l\n%s"
                "symfunction_short H 2 H %.17g 1 6\n"
                "symfunction_short H 2 H %.17g 0 6\n",
                "mean_energy 0\nconv_energy 1\nconv_length 3\n", eta, eta_up);
  m = nnp::read_input_nn(write("input.nn", text));
  EXPECT_EQ(m.elements[0].functions[0].line, 10);
}

// Per-element networks as n2p2's Mode::setupNeuralNetwork builds them: element_nodes_short sets the
// hidden widths but the last (its loop stops one layer short), element_activation_short the hidden
// activations but not the output's, which come from the global keywords.
TEST_F(NnpFiles, ElementNetworksAsN2p2BuildsThem) {
  std::string input = with_line(8, "global_nodes_short 4 6", with_line(7, "global_hidden_layers_short 2"));
  input = with_line(9, "global_activation_short s s l\nelement_nodes_short O 5 9\nelement_activation_short H t c e", input);
  const Model m = nnp::read_input_nn(write("input.nn", input));
  EXPECT_EQ(m.elements[0].hidden, (std::vector<int>{4, 6}));  // H: global widths
  EXPECT_EQ(m.elements[1].hidden, (std::vector<int>{5, 6}));  // O: 5 from its line, the last from the global
  EXPECT_EQ(m.elements[0].activations, "tcl");               // H: t c from its line, the output l global
  EXPECT_EQ(m.elements[1].activations, "ssl");
  // Written and read back, the same networks.
  Model w = m;
  nnp::write_input_nn(w, dir_ / "written.nn");
  EXPECT_EQ(nnp::model_difference(m, nnp::read_input_nn(dir_ / "written.nn")), "");
}

TEST_F(NnpFiles, WhatN2p2AlsoAccepts) {
  // Older scaling files end with a line of two numbers; n2p2 ignores it. Rows without sigma are
  // older n2p2's too (sigma 0, usable unless the scaling divides by sigma).
  write_all(kInputNn, std::string(kScaling) + "0.000000 0.000000\n");
  EXPECT_EQ(nnp::read_model(dir_).elements[1].scaling[1].max, 1.4);
  write("scaling.data", "1 1 0.1 1.1 0.5\n1 2 0.2 1.2 0.6\n2 1 0.3 1.3 0.7\n2 2 0.4 1.4 0.8\n");
  EXPECT_EQ(nnp::read_model(dir_).elements[1].scaling[1].sigma, 0.0);
  // Alternative names are kept under the main name; conv_charge with the normalisation.
  write("input.nn", std::string(kInputNn) +
                        "short_force_fraction 0.1\nnnp_generation 2\nsymfunction H 2 O 0.7 0 5\n"
                        "mean_energy 1\nconv_energy 2\nconv_length 1\nconv_charge 3\n");
  const std::string err = error();  // symfunction and symfunction_short together: n2p2 refuses both
  EXPECT_NE(err.find("'symfunction' and 'symfunction_short'"), std::string::npos) << err;
  write("input.nn", std::string(kInputNn) + "short_force_fraction 0.1\nnnp_generation 2\nmean_energy 1\nconv_energy 2\n"
                                            "conv_length 1\nconv_charge 3\n");
  const Model m = nnp::read_model(dir_);
  EXPECT_EQ(m.training_keywords.at("force_fraction").first, "0.1");
  EXPECT_EQ(m.training_keywords.at("conv_charge").first, "3");
  EXPECT_TRUE(m.normalized);
  nnp::write_model(m, dir_ / "out");
  EXPECT_EQ(nnp::model_difference(m, nnp::read_model(dir_ / "out")), "");
}

TEST_F(NnpFiles, MalformedInputNn) {
  struct Case {
    int line;             // line of kInputNn replaced
    std::string text;     // its replacement ("" removes it)
    int error_line;       // the line the message names (0: the file)
    std::string message;  // part of the message
  };
  const std::vector<Case> cases = {
      {3, "", 0, "missing keyword 'cutoff_type'"},
      {2, "", 0, "missing keyword 'elements'"},
      {10, "symfunction_short H 2 H 0.5x 0 5", 10, "expected a finite number for eta, found '0.5x'"},
      {10, "symfunction_short H 2 H 0.5 0 1e999", 10, "finite number for rc"},
      {5, "scale_min_short nan", 5, "finite number"},
      {5, "bogus_keyword 1", 5, "unknown keyword 'bogus_keyword'"},
      {5, "nnp_type 4G-HDNNP", 5, "not supported"},
      {5, "ewald_prec 1e-5", 5, "'ewald_prec' belongs to n2p2's 4G-HDNNP"},
      {5, "screen_electrostatics 4.8 8.0", 5, "'screen_electrostatics' belongs to n2p2's 4G-HDNNP"},
      {5, "global_nodes_electrostatic 5", 5, "4G-HDNNP"},
      {5, "cutoff_type 2", 5, "appears again (first on line 3)"},
      {1, "number_of_elements 3", 1, "says 3 but 'elements' (line 2) lists 2"},
      {2, "elements O Xx", 2, "'Xx' is not an element symbol"},
      {2, "elements O H O", 2, "listed twice"},
      {10, "symfunction_short C 2 H 0.5 0 5", 10, "centre element 'C' is not one of the elements"},
      {10, "symfunction_short H 2 H 0.5 0 0", 10, "rc must be positive"},
      {10, "symfunction_short H 2 H -0.5 0 5", 10, "eta must not be negative"},
      {10, "symfunction_short H 2 H 0.5 0", 10, "type 2 takes <neighbour> eta rs rc, found 3 values"},
      {10, "symfunction_short H 4 H 0.5 0 5", 10, "unknown symmetry function type 4"},
      {13, "symfunction_short O 3 H H 0.1 1 0.5 5", 13, "zeta must be at least 1"},
      {13, "symfunction_short O 21 H H 5 5 0 90 p2", 13, "lower radial bound 5 must lie below rc 5"},
      {13, "symfunction_short O 21 H H 0 5 90 90 p2", 13, "left angle 90 must lie below the right angle 90"},
      {13, "symfunction_short O 21 H H 0 5 -10 90 p2", 13, "centred at 0 or 180"},
      {13, "symfunction_short O 21 H H 0 5 0 90 ea", 13, "unknown subtype 'ea'"},
      {13, "symfunction_short O 20 H 0 5 p5", 13, "unknown subtype 'p5'"},
      {3, "cutoff_type 1 1.0", 3, "alpha must lie in [0, 1)"},
      {3, "cutoff_type 9", 3, "cutoff type between 0 and 8"},
      {8, "global_nodes_short 3 3", 8, "gives 2 widths for 1 hidden layers"},
      {9, "global_activation_short t x", 9, "unknown activation 'x'"},
      {9, "global_activation_short t", 9, "gives 1 activations"},
      {9, "", 0, "the activation of hidden layer 1 of H is not given"},
      {4, "mean_energy -1", 4, "all three of mean_energy, conv_energy and conv_length"},
      {4, "conv_charge 2", 4, "needs mean_energy, conv_energy and conv_length"},
      {4, "scale_symmetry_functions yes", 4, "takes no value"},
      {4, "atom_energy H 1\natom_energy H 2", 5, "has an atom_energy already (line 4)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    write_all(with_line(c.line, c.text));
    const std::string err = error();
    const std::string where = c.error_line ? at("input.nn", c.error_line) : at("input.nn");
    EXPECT_EQ(err.rfind(where, 0), 0u) << err;
    EXPECT_NE(err.find(c.message), std::string::npos) << err;
  }
  // An element without functions: the elements line.
  write_all(with_line(12, "", with_line(13, "")));
  EXPECT_EQ(error().rfind(at("input.nn", 2) + "element O has no symmetry functions", 0), 0u);
  // Sigma scaling with scale_symmetry_functions: n2p2 would use the latter and ignore the former.
  write_all(with_line(4, "scale_symmetry_functions\nscale_symmetry_functions_sigma"));
  EXPECT_EQ(error().rfind(at("input.nn", 5), 0), 0u);
}

TEST_F(NnpFiles, MalformedScalingAndWeights) {
  auto expect = [&](const std::string& where, const std::string& message) {
    const std::string err = error();
    EXPECT_EQ(err.rfind(where, 0), 0u) << err;
    EXPECT_NE(err.find(message), std::string::npos) << err;
  };
  // scaling.data: a missing row (the file ends), a row out of order, an extra row, a zero range.
  write_all(kInputNn, "# statistics\n1 1 0.1 1.1 0.5 0.2\n1 2 0.2 1.2 0.6 0.3\n2 1 0.3 1.3 0.7 0.4\n");
  expect(at("scaling.data", 4), "ends after 3 rows; input.nn's functions need 4 (the next: element 2 (O), function 2)");
  write_all(kInputNn, "1 1 0.1 1.1 0.5 0.2\n1 2 0.2 1.2 0.6 0.3\n2 2 0.4 1.4 0.8 0.5\n2 1 0.3 1.3 0.7 0.4\n");
  expect(at("scaling.data", 3), "expected the row of element 2 (O), function 1, found 2 2");
  write_all(kInputNn, std::string(kScaling) + "2 3 0.4 1.4 0.8 0.5\n");
  expect(at("scaling.data", 6), "a row beyond the functions of input.nn");
  write_all(kInputNn, "1 1 0.1 0.1 0.1 0.0\n1 2 0.2 1.2 0.6 0.3\n2 1 0.3 1.3 0.7 0.4\n2 2 0.4 1.4 0.8 0.5\n");
  expect(at("scaling.data", 1), "would divide by zero");
  write_all(kInputNn, "1 1 0.1 1.1 0.5 0.2 7\n");
  expect(at("scaling.data", 1), "expected 6 columns");
  write_all(kInputNn, "1 1 0.1 1.1 inf 0.2\n");
  expect(at("scaling.data", 1), "finite number for the mean");
  // Weights: a missing file, a short file, an extra line, a line of blanks, a word.
  write_all();
  std::filesystem::remove(dir_ / "weights.008.data");
  expect(at("weights.008.data"), "missing: the weights of element O (2-3-1 network)");
  write("weights.008.data", weights_text(12, 1.0));
  expect(at("weights.008.data", 13), "ends after 12 values; the 2-3-1 network of O takes 13");
  write("weights.008.data", weights_text(14, 1.0));
  expect(at("weights.008.data", 15), "more values than the 2-3-1 network of O takes (13)");
  write("weights.008.data", weights_text(13, 1.0) + "   \n");
  expect(at("weights.008.data", 15), "a line of blanks");
  write("weights.008.data", "# weights\n1\nx 2\n");
  expect(at("weights.008.data", 3), "expected a number for a weight, found 'x'");
  // Without weights the folder reads; the missing scaling.data too, when not asked for.
  std::filesystem::remove(dir_ / "weights.008.data");
  std::filesystem::remove(dir_ / "scaling.data");
  EXPECT_NO_THROW(nnp::read_model(dir_, ModelFiles{.scaling = false, .weights = false}));
  expect(at("scaling.data"), "cannot open file");
}

TEST_F(NnpFiles, WriteRefusesWhatInputNnCannotHold) {
  write_all();
  const Model good = nnp::read_model(dir_);
  auto problem = [&](auto change) {
    Model m = good;
    change(m);
    return nnp::model_problem(m);
  };
  EXPECT_EQ(nnp::model_problem(good), "");
  EXPECT_NE(problem([](Model& m) { std::swap(m.elements[0], m.elements[1]); }), "");
  EXPECT_NE(problem([](Model& m) { std::swap(m.elements[1].functions[0], m.elements[1].functions[1]); }).find("n2p2's order"),
            std::string::npos);
  EXPECT_NE(problem([](Model& m) { m.elements[1].hidden = {4}; }).find("last hidden layer"), std::string::npos);
  EXPECT_NE(problem([](Model& m) { m.elements[1].activations = "ts"; }).find("output activation"), std::string::npos);
  EXPECT_NE(problem([](Model& m) { m.elements[1].weights.pop_back(); }).find("12 weights"), std::string::npos);
  EXPECT_NE(problem([](Model& m) { m.elements[1].scaling.clear(); }).find("scaling rows"), std::string::npos);
  EXPECT_NE(problem([](Model& m) { m.elements[0].functions[0].zeta = 2; }).find("does not take"), std::string::npos);
  EXPECT_NE(problem([](Model& m) { m.training_keywords["bogus"] = {"1", 0}; }), "");
  EXPECT_NE(problem([](Model& m) { m.training_keywords["epochs"] = {"1 # x", 0}; }), "");
  EXPECT_NE(problem([](Model& m) { m.conv_length = 2; }).find("not normalized"), std::string::npos);
  EXPECT_THROW(nnp::write_model([&] {
    Model m = good;
    m.cutoff_alpha = 1;
    return m;
  }(), dir_ / "out"), Error);
  // A model without scaling rows and weights writes input.nn alone.
  Model bare = good;
  for (ElementModel& x : bare.elements) x.scaling.clear(), x.weights.clear();
  nnp::write_model(bare, dir_ / "bare");
  EXPECT_TRUE(std::filesystem::exists(dir_ / "bare" / "input.nn"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "bare" / "scaling.data"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "bare" / "weights.001.data"));
  EXPECT_EQ(nnp::model_difference(bare, nnp::read_model(dir_ / "bare", ModelFiles{.scaling = false, .weights = false})), "");
  // Sorting a shuffled model restores n2p2's order, scaling rows with their functions.
  Model shuffled = good;
  std::swap(shuffled.elements[1].functions[0], shuffled.elements[1].functions[1]);
  std::swap(shuffled.elements[1].scaling[0], shuffled.elements[1].scaling[1]);
  nnp::sort_symmetry_functions(shuffled);
  EXPECT_EQ(nnp::model_difference(good, shuffled), "");
}

}  // namespace
}  // namespace quasar
