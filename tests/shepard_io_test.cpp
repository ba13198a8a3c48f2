// The Shepard data-set file (docs/formats/shepard.md): written and read back to the last bit, and
// bad input rejected with the file, line and key named.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "quasar/core/error.hpp"
#include "quasar/potential/shepard/coordinates.hpp"
#include "quasar/potential/shepard/dataset.hpp"
#include "shepard_surface.hpp"
#include "support.hpp"

namespace quasar {
namespace {

namespace fs = std::filesystem;

shepard::DataSet small_set() {
  const test::TestSurface f{{"O", "H", "H", "H"}};
  shepard::DataSet s;
  s.elements = f.elements;
  s.masses = {15.999, 1.008, 1.008, 1.008};
  s.permutations = shepard::full_permutation_group(s.elements);
  s.parameters.wtol = 1e-7;
  const double shifts[] = {0, 0.031, -0.047};
  for (double d : shifts) {
    shepard::CartesianPoint p;
    p.positions = {0, 0, 0.1, 0.95 + d, 0.1, -0.2, -0.45, 0.85 + d / 3, -0.25, -0.5, -0.8, -0.3 - d};
    p.energy = f(p.positions, &p.gradient, &p.hessian);
    std::vector<double> conf;
    for (int l = 0; l < 6; ++l) conf.push_back(0.1 + 0.01 * l + d);
    s.points.push_back(shepard::make_data_point(p, conf));
  }
  return s;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class ShepardFile : public testing::Test {
 protected:
  fs::path dir = fs::temp_directory_path() / ("quasar-shepard-io-" + std::to_string(::getpid()));
  void SetUp() override { fs::create_directories(dir); }
  void TearDown() override { fs::remove_all(dir); }
};

TEST_F(ShepardFile, RoundTripIsExact) {
  const shepard::DataSet s = small_set();
  const fs::path a = dir / "a.shepard", b = dir / "b.shepard";
  shepard::write_dataset(a.string(), s);
  const shepard::DataSet back = shepard::read_dataset(a.string());
  EXPECT_EQ(shepard::dataset_difference(s, back), "");
  shepard::write_dataset(b.string(), back);
  EXPECT_EQ(slurp(a), slurp(b));
  // One-part weights and comments.
  shepard::DataSet one = s;
  one.parameters.weight = shepard::WeightKind::OnePart;
  one.parameters.p = 1.5;
  shepard::write_dataset(a.string(), one);
  std::string text = "# a comment line\n\n" + slurp(a);
  std::ofstream(a) << text;
  EXPECT_EQ(shepard::dataset_difference(one, shepard::read_dataset(a.string())), "");
}

// Replaces the first occurrence of `from` in the written file by `to` and expects an InputError
// whose message starts with "FILE:LINE" (the line where `from` began) and holds `words`.
void expect_error(const fs::path& dir, const std::string& from, const std::string& to, const std::string& words,
                  long line_shift = 0) {
  const fs::path good = dir / "good.shepard", bad = dir / "bad.shepard";
  shepard::write_dataset(good.string(), small_set());
  std::string text = slurp(good);
  const auto at = text.find(from);
  ASSERT_NE(at, std::string::npos) << from;
  const long line = 1 + static_cast<long>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n')) + line_shift;
  text.replace(at, from.size(), to);
  std::ofstream(bad) << text;
  try {
    shepard::read_dataset(bad.string());
    ADD_FAILURE() << "no error for '" << to << "'";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind(bad.string() + ":" + std::to_string(line) + ":", 0), 0u) << msg;
    EXPECT_NE(msg.find(words), std::string::npos) << msg;
  }
}

TEST_F(ShepardFile, BadInputNamesFileLineAndKey) {
  expect_error(dir, "shepard-dataset 1", "shepard-dataset 2", "'shepard-dataset': unknown version '2'");
  expect_error(dir, "atoms 4", "atoms 2", "'atoms'");
  expect_error(dir, "atoms 4", "atom 4", "expected 'atoms', found 'atom'");
  expect_error(dir, "elements O H H H", "elements O H H", "'elements': expected 4 values, found 3");
  expect_error(dir, "masses 15.999", "masses -15.999", "'masses'");
  expect_error(dir, "weight two-part", "weight three-part", "valid: one-part, two-part");
  expect_error(dir, "p 2\n", "p 0.5\n", "'p': must be >= 1");
  expect_error(dir, "q 12\n", "q 1\n", "'q': must be > p");
  expect_error(dir, "wtol 9.9999999999999995e-08", "wtol 1", "'wtol'");
  expect_error(dir, "permutations 6\n0 1 2 3", "permutations 6\n1 0 2 3", "'permutations': permutation 1: it exchanges atoms of different elements", 1);
  expect_error(dir, "permutations 6\n0 1 2 3", "permutations 6\n0 1 2", "'permutations': expected 4 atom indices", 1);
  expect_error(dir, "points 3", "points 99999999", "cannot fit in this file");
  expect_error(dir, "point 2", "point 3", "'point': expected point 2");
  expect_error(dir, "energy ", "energy nan", "'energy': expected a finite number, found 'nan");
  expect_error(dir, "confidence 0.1", "confidence -0.1", "'confidence': lengths must be > 0");
  expect_error(dir, "gradient ", "gradient x", "'gradient': expected a finite number, found 'x");
  expect_error(dir, "hessian\n", "hessian\n1 2\n", "'hessian': row 1: expected 6 numbers (the upper triangle)", 1);
  expect_error(dir, "u\n", "u\n1 2 3\n", "'u': row 1: expected 6 numbers", 1);
  expect_error(dir, "positions\n0 0 0.1", "positions\n0 0", "'positions': row 1: expected 3 numbers", 1);
  expect_error(dir, "permutations 6\n0 1 2 3", "permutations 2\n0 1 2 3\n0 2 3 1\n", "not a group", 2);
}

TEST_F(ShepardFile, TruncatedAndTrailingText) {
  const fs::path good = dir / "good.shepard", bad = dir / "bad.shepard";
  shepard::write_dataset(good.string(), small_set());
  const std::string text = slurp(good);
  std::ofstream(bad) << text.substr(0, text.size() / 2);
  EXPECT_THROW(shepard::read_dataset(bad.string()), InputError);
  std::ofstream(bad) << text << "extra\n";
  try {
    shepard::read_dataset(bad.string());
    ADD_FAILURE() << "no error for trailing text";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unexpected text after the last point"), std::string::npos) << e.what();
  }
  EXPECT_THROW(shepard::read_dataset((dir / "missing.shepard").string()), Error);
}

}  // namespace
}  // namespace quasar
