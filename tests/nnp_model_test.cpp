// n2p2 potentials (input.nn, scaling.data, weights.ZZZ.data): the examples of ../shared/reference/n2p2
// load with the shapes n2p2's documentation gives, their symmetry functions sort as n2p2's training
// log lists them, and they write and read back bit for bit (files written by hand: nnp_files_test.cpp).
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

// A folder of reference/n2p2, or "" when ../shared is absent.
std::string reference(const std::string& folder) { return test::shared_path("reference/n2p2/" + folder); }

// The number of `symfunction_short EL ...` lines of input.nn per centre symbol, counted without the
// reader (comments are whole lines in these files).
std::map<std::string, std::size_t> count_functions(const std::string& input_nn) {
  std::ifstream in(input_nn);
  std::map<std::string, std::size_t> n;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string key, centre;
    if (words >> key >> centre && (key == "symfunction_short" || key == "symfunction")) ++n[centre];
  }
  return n;
}

// What NOTES.md's table (from n2p2's documentation of its examples) says of each folder.
struct Expected {
  std::string folder;
  std::vector<std::string> symbols;                 // in atomic-number order
  std::map<std::string, std::size_t> functions;      // per element as the table gives them (0: not given)
  std::vector<int> hidden;
  std::string activations;
  nnp::CutoffKind cutoff;
  nnp::ScalingMode scaling;
  bool weights;
};

const std::vector<Expected>& folders() {
  using nnp::CutoffKind;
  using nnp::ScalingMode;
  static const std::vector<Expected> list = {
      {"predict/H2O_RPBE-D3", {"H", "O"}, {{"H", 27}, {"O", 30}}, {25, 25}, "ttl", CutoffKind::TanhU, ScalingMode::ScaleCenter, true},
      {"predict/Cu2S_PBE", {"S", "Cu"}, {{"S", 72}, {"Cu", 66}}, {25, 25}, "ppl", CutoffKind::Poly2, ScalingMode::ScaleSigma, true},
      {"predict/Anisole_SCAN", {"H", "C", "O"}, {}, {30, 20}, "ppl", CutoffKind::Poly2, ScalingMode::ScaleCenter, true},
      {"predict/DMABN_SCAN", {"H", "C", "N"}, {}, {25, 25}, "ppl", CutoffKind::Poly2, ScalingMode::ScaleCenter, true},
      {"train/H2O_RPBE-D3", {"H", "O"}, {}, {25, 25}, "ttl", CutoffKind::TanhU, ScalingMode::ScaleCenter, false},
      {"train/Cu2S_PBE", {"S", "Cu"}, {}, {15, 15}, "ppl", CutoffKind::Poly2, ScalingMode::ScaleSigma, false},
  };
  return list;
}

TEST(NnpModel, ReferenceFoldersLoadWithTheirShapes) {
  for (const Expected& want : folders()) {
    SCOPED_TRACE(want.folder);
    const std::string dir = reference(want.folder);
    if (dir.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/n2p2 is not here");
    const Model m = nnp::read_model(dir, ModelFiles{.scaling = true, .weights = want.weights});
    const auto counted = count_functions(dir + "/input.nn");
    ASSERT_EQ(m.elements.size(), want.symbols.size());
    EXPECT_EQ(m.cutoff, want.cutoff);
    EXPECT_EQ(m.scaling, want.scaling);
    EXPECT_TRUE(m.normalized);  // every example is normalised (mean_energy, conv_energy, conv_length)
    EXPECT_EQ(m.length_unit, 1.0);
    EXPECT_EQ(m.energy_unit, 1.0);
    for (std::size_t i = 0; i < m.elements.size(); ++i) {
      const ElementModel& x = m.elements[i];
      EXPECT_EQ(x.symbol, want.symbols[i]);
      if (auto it = want.functions.find(x.symbol); it != want.functions.end()) {
        EXPECT_EQ(x.functions.size(), it->second);
      }
      EXPECT_EQ(x.functions.size(), counted.at(x.symbol));
      EXPECT_EQ(x.scaling.size(), x.functions.size());
      EXPECT_EQ(x.hidden, want.hidden);
      EXPECT_EQ(x.activations, want.activations);
      EXPECT_EQ(x.weights.size(), want.weights ? x.parameter_count() : 0u);
      for (const SymmetryFunction& f : x.functions) EXPECT_EQ(f.centre, static_cast<int>(i));
    }
  }
}

TEST(NnpModel, AtomicNumbersNormalisationAndTrainingKeywordsOfWater) {
  const std::string dir = reference("train/H2O_RPBE-D3");
  if (dir.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/n2p2 is not here");
  const Model m = nnp::read_model(dir, ModelFiles{.weights = false});
  // Values as the file writes them.
  EXPECT_EQ(m.elements[0].atomic_number, 1);
  EXPECT_EQ(m.elements[1].atomic_number, 8);
  EXPECT_EQ(m.elements[0].atom_energy, -0.45890771);
  EXPECT_EQ(m.elements[1].atom_energy, -74.94518524);
  EXPECT_EQ(m.mean_energy, -2.3353824022135491E-01);
  EXPECT_EQ(m.conv_energy, 8.5167544626563699E+02);
  EXPECT_EQ(m.conv_length, 2.2798325235535355E+01);
  EXPECT_EQ(m.scale_min, 0.0);
  EXPECT_EQ(m.scale_max, 1.0);
  // Training keywords under n2p2's main names (short_force_fraction is force_fraction).
  ASSERT_TRUE(m.training_keywords.count("force_fraction"));
  EXPECT_EQ(m.training_keywords.at("force_fraction").first, "0.0041");
  EXPECT_EQ(m.training_keywords.at("epochs").first, "2");
  EXPECT_EQ(m.training_keywords.at("use_short_forces").first, "");
  EXPECT_FALSE(m.training_keywords.count("short_force_fraction"));
}

TEST(NnpModel, ScalingRowsOfWater) {
  const std::string dir = reference("predict/H2O_RPBE-D3");
  if (dir.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/n2p2 is not here");
  const Model m = nnp::read_model(dir);
  // The first and the last rows of scaling.data, as the file writes them.
  const nnp::Scaling& first = m.elements[0].scaling.front();
  EXPECT_EQ(first.min, 1.0882016636170764E+00);
  EXPECT_EQ(first.max, 9.6166419119419064E+00);
  EXPECT_EQ(first.mean, 2.2691752247542194E+00);
  EXPECT_EQ(first.sigma, 6.7883526611658462E-01);
  const nnp::Scaling& last = m.elements[1].scaling.back();
  EXPECT_EQ(last.min, 2.9595491075765732E-03);
  EXPECT_EQ(last.max, 1.5478537567691833E-01);
  EXPECT_EQ(last.mean, 1.1641055270110553E-02);
  EXPECT_EQ(last.sigma, 8.9415193910804703E-03);
  // The first weight of each file (the first column of its first data line).
  EXPECT_EQ(m.elements[0].weights[0], 1.2539155865352127E+00);  // weights.001.data (H)
  EXPECT_EQ(m.elements[0].weights[1], 2.2490365890661286E+00);
  EXPECT_EQ(m.elements[1].weights[0], -4.2252995889643252E-01);  // weights.008.data (O)
}

// One row of the symmetry function table that n2p2 prints when it sets up a potential: its sorted
// position, then type, neighbours and parameters in normalised units, rounded to 4 digits.
struct LogRow {
  int type = 0;
  std::string e1, e2;
  double eta = 0, rs = 0, lambda = 0, zeta = 0, rc = 0;
};

// The tables of reference-nnp-train.log, per centre symbol.
std::map<std::string, std::vector<LogRow>> log_tables(const std::string& path) {
  std::ifstream in(path);
  std::map<std::string, std::vector<LogRow>> tables;
  std::string line, centre;
  int rules = 0;
  while (std::getline(in, line)) {
    const std::string head = "Short range atomic symmetry functions element";
    if (line.rfind(head, 0) == 0) {
      std::istringstream w(line.substr(head.size()));
      w >> centre;
      rules = 0;
      continue;
    }
    if (centre.empty()) continue;
    if (line.rfind("-----", 0) == 0) {
      if (++rules == 3) centre.clear();
      continue;
    }
    if (rules != 2) continue;
    std::istringstream w(line);
    int index = 0;
    std::string ec;
    LogRow r;
    w >> index >> ec >> r.type >> r.e1;
    if (r.type == 2) {
      w >> r.eta >> r.rs >> r.rc;
    } else {
      w >> r.e2 >> r.eta >> r.rs >> r.lambda >> r.zeta >> r.rc;
    }
    EXPECT_EQ(index, static_cast<int>(tables[centre].size()) + 1) << line;
    tables[centre].push_back(r);
  }
  return tables;
}

// n2p2's own log of training the shipped potentials lists each element's functions in its sorted order
// (reference-nnp-train.log); the predict/ folder's input.nn holds the same functions (same count,
// same conv_length). Our order must be the log's, row by row.
TEST(NnpModel, SortOrderIsTheOrderOfNnpTrainsLog) {
  for (const std::string name : {"H2O_RPBE-D3", "Cu2S_PBE"}) {
    SCOPED_TRACE(name);
    const std::string dir = reference("predict/" + name);
    const std::string log = reference("train/" + name + "/reference-nnp-train.log");
    if (dir.empty() || log.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/n2p2 is not here");
    const Model m = nnp::read_input_nn(dir + "/input.nn");
    const auto tables = log_tables(log);
    const double c = m.conv_length;
    // The log prints 4 significant digits: relative differences up to 5e-4 are rounding.
    auto near = [](double ours, double logged) { return std::abs(ours - logged) <= 6e-4 * std::abs(logged); };
    for (const ElementModel& x : m.elements) {
      ASSERT_TRUE(tables.count(x.symbol)) << x.symbol;
      const auto& rows = tables.at(x.symbol);
      ASSERT_EQ(rows.size(), x.functions.size()) << x.symbol;
      for (std::size_t k = 0; k < rows.size(); ++k) {
        const SymmetryFunction& f = x.functions[k];
        const LogRow& r = rows[k];
        SCOPED_TRACE(x.symbol + " function " + std::to_string(k + 1) + " (input.nn line " + std::to_string(f.line) + ")");
        EXPECT_EQ(f.type, r.type);
        EXPECT_EQ(m.elements[static_cast<std::size_t>(f.e1)].symbol, r.e1);
        if (f.type != 2) {
          EXPECT_EQ(m.elements[static_cast<std::size_t>(f.e2)].symbol, r.e2);
        }
        EXPECT_TRUE(near(f.eta / (c * c), r.eta)) << f.eta / (c * c) << " against " << r.eta;
        EXPECT_TRUE(near(f.rs * c, r.rs)) << f.rs * c << " against " << r.rs;
        EXPECT_TRUE(near(f.rc * c, r.rc)) << f.rc * c << " against " << r.rc;
        if (f.type != 2) {
          EXPECT_EQ(f.lambda, r.lambda);
          EXPECT_EQ(f.zeta, r.zeta);
        }
      }
    }
  }
}

TEST(NnpModel, ReferenceFoldersWriteAndReadBackIdentical) {
  const auto out = test::scratch_dir("nnp-model-write");
  for (const Expected& want : folders()) {
    SCOPED_TRACE(want.folder);
    const std::string dir = reference(want.folder);
    if (dir.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/n2p2 is not here");
    const ModelFiles files{.scaling = true, .weights = want.weights};
    const Model m = nnp::read_model(dir, files);
    const auto to = out / want.folder;
    nnp::write_model(m, to);
    EXPECT_EQ(std::filesystem::exists(to / "weights.001.data") || std::filesystem::exists(to / "weights.016.data"), want.weights);
    const Model back = nnp::read_model(to, files);
    EXPECT_EQ(nnp::model_difference(m, back), "");
    // Written again, the files are the same bytes.
    nnp::write_model(back, out / "again");
    for (const auto& file : std::filesystem::directory_iterator(to)) {
      std::ifstream a(file.path()), b(out / "again" / file.path().filename());
      std::stringstream sa, sb;
      sa << a.rdbuf();
      sb << b.rdbuf();
      EXPECT_EQ(sa.str(), sb.str()) << file.path();
    }
    std::filesystem::remove_all(out / "again");
  }
  std::filesystem::remove_all(out);
}

}  // namespace
}  // namespace quasar
