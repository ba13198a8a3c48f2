// The Shepard data-set files (docs/formats/shepard.md), text and HDF5: written and read back to the
// last bit, text -> HDF5 -> text giving the same bytes, and bad input rejected with the file and the
// line and key (text) or the object (HDF5) named.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <fstream>
#include <sstream>

#include "quasar/core/error.hpp"
#include "quasar/io/hdf5/hdf5.hpp"
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

void write_bytes(const fs::path& p, const std::vector<unsigned char>& bytes) {
  std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                           static_cast<std::streamsize>(bytes.size()));
}

TEST_F(ShepardFile, TextToHdf5ToTextGivesTheSameBytes) {
  shepard::DataSet one_part = small_set();
  one_part.parameters.weight = shepard::WeightKind::OnePart;
  one_part.parameters.p = 1.5;
  shepard::DataSet empty = small_set();
  empty.points.clear();
  for (const shepard::DataSet& s : {small_set(), one_part, empty}) {
    const fs::path text = dir / "a.shepard", h5 = dir / "a.shepard.h5", again = dir / "b.shepard";
    shepard::write_dataset(text.string(), s);
    const shepard::DataSet from_text = shepard::read_dataset(text.string());
    shepard::write_dataset(h5.string(), from_text);
    const shepard::DataSet from_h5 = shepard::read_dataset(h5.string());
    EXPECT_EQ(shepard::dataset_difference(s, from_h5), "");
    shepard::write_dataset(again.string(), from_h5);
    EXPECT_EQ(slurp(text), slurp(again));
    // The same content gives the same bytes (no modification times in the file).
    EXPECT_EQ(shepard::dataset_hdf5_image(s), shepard::dataset_hdf5_image(from_h5));
  }
}

TEST_F(ShepardFile, Hdf5IsChosenByNameOrContent) {
  const shepard::DataSet s = small_set();
  const fs::path h5 = dir / "set.hdf5", disguised = dir / "set.shepard", text_named_h5 = dir / "text.h5";
  shepard::write_dataset(h5.string(), s);
  EXPECT_EQ(slurp(h5).rfind("\x89HDF", 0), 0u);
  fs::copy_file(h5, disguised);
  EXPECT_EQ(shepard::dataset_difference(s, shepard::read_dataset(disguised.string())), "");
  shepard::write_dataset((dir / "text.shepard").string(), s);
  fs::copy_file(dir / "text.shepard", text_named_h5);
  try {
    shepard::read_dataset(text_named_h5.string());
    ADD_FAILURE() << "a text file named .h5 was read";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), text_named_h5.string() + ": not an HDF5 file (no HDF5 signature at its start)");
  }
  EXPECT_THROW(shepard::read_dataset((dir / "missing.h5").string()), InputError);
}

// The HDF5 bytes of small_set() after `change` on the open file (HDF5 calls and h5:: writers).
std::vector<unsigned char> changed_image(const std::function<void(hid_t)>& change) {
  std::vector<unsigned char> bytes = shepard::dataset_hdf5_image(small_set());
  const h5::Handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  H5Pset_fapl_core(fapl.id(), 1 << 16, 0);
  H5Pset_file_image(fapl.id(), bytes.data(), bytes.size());
  const h5::Handle file(H5Fopen("changed.h5", H5F_ACC_RDWR, fapl.id()), H5Fclose);
  EXPECT_TRUE(file.valid());
  change(file.id());
  return h5::file_image(file.id());
}

void replace_doubles(hid_t f, const std::string& name, const std::vector<hsize_t>& shape, std::vector<double> values = {}) {
  H5Ldelete(f, name.c_str(), H5P_DEFAULT);
  std::size_t n = 1;
  for (hsize_t s : shape) n *= s;
  values.resize(n, 0.5);
  h5::write_doubles(f, name, shape, values.data());
}

// One change of the file: the error names the file and holds `words`.
void expect_hdf5_error(const fs::path& dir, const std::function<void(hid_t)>& change, const std::string& words) {
  const fs::path bad = dir / "bad.h5";
  write_bytes(bad, changed_image(change));
  try {
    shepard::read_dataset(bad.string());
    ADD_FAILURE() << "no error; expected " << words;
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind(bad.string() + ": ", 0), 0u) << msg;
    EXPECT_NE(msg.find(words), std::string::npos) << msg;
  }
}

TEST_F(ShepardFile, Hdf5ErrorsNameTheFileAndTheObject) {
  auto gone = [](const char* name) { return [name](hid_t f) { H5Ldelete(f, name, H5P_DEFAULT); }; };
  auto attribute = [](const char* object, const char* name, auto value) {
    return [=](hid_t f) {
      H5Adelete_by_name(f, object, name, H5P_DEFAULT);
      h5::set_attribute(f, object, name, value);
    };
  };
  expect_hdf5_error(dir, gone("/points/u"), "dataset /points/u is missing");
  expect_hdf5_error(dir, gone("/points"), "dataset /points/energy is missing");
  expect_hdf5_error(dir, gone("/elements"), "dataset /elements is missing");
  expect_hdf5_error(dir, [](hid_t f) { H5Adelete_by_name(f, "/parameters", "weight", H5P_DEFAULT); },
                    "attribute 'weight' of /parameters is missing");
  expect_hdf5_error(dir, attribute("/", "format", std::string("shepard-points")), "not a Shepard data set");
  expect_hdf5_error(dir, attribute("/", "version", 2L), "attribute 'version' of /: unknown version 2 (this reader knows 1)");
  expect_hdf5_error(dir, attribute("/parameters", "weight", std::string("three-part")),
                    "attribute 'weight' of /parameters: unknown weight 'three-part' (valid: one-part, two-part)");
  expect_hdf5_error(dir, attribute("/parameters", "p", 0.5), "attribute 'p' of /parameters: must be >= 1");
  expect_hdf5_error(dir, attribute("/parameters", "q", std::string("12")), "attribute 'q' of /parameters is not one number");
  expect_hdf5_error(dir, attribute("/parameters", "wtol", 1.0), "attribute 'wtol' of /parameters: must be in [0, 1)");
  expect_hdf5_error(dir, [](hid_t f) { replace_doubles(f, "/points/u", {3, 6, 5}); },
                    "dataset /points/u has shape [3, 6, 5], expected [3, 6, 6]");
  expect_hdf5_error(dir, [](hid_t f) { replace_doubles(f, "/points/energy", {3, 1}); },
                    "dataset /points/energy has shape [3, 1], expected [M]");
  expect_hdf5_error(dir, [](hid_t f) { replace_doubles(f, "/masses", {2}); }, "dataset /masses has shape [2]");
  expect_hdf5_error(dir, [](hid_t f) { replace_doubles(f, "/permutations", {6, 4}); },
                    "dataset /permutations holds floating-point numbers; integers were expected");
  expect_hdf5_error(dir, [](hid_t f) {
    H5Ldelete(f, "/masses", H5P_DEFAULT);
    h5::write_strings(f, "/masses", {"15.999", "1.008", "1.008", "1.008"});
  }, "dataset /masses does not hold numbers");
  expect_hdf5_error(dir, [](hid_t f) {
    H5Ldelete(f, "/elements", H5P_DEFAULT);
    h5::write_strings(f, "/elements", {"O", "H", "H 1", "H"});
  }, "element 3 ('H 1') is not one word");
  expect_hdf5_error(dir, [](hid_t f) {
    const std::vector<int> p{0, 1, 2, 3, 1, 0, 2, 3};
    H5Ldelete(f, "/permutations", H5P_DEFAULT);
    h5::write_integers(f, "/permutations", {2, 4}, p.data());
  }, "dataset /permutations: permutation 2: it exchanges atoms of different elements");
  expect_hdf5_error(dir, [](hid_t f) {
    const std::vector<int> p{0, 1, 2, 3, 0, 2, 3, 1};
    H5Ldelete(f, "/permutations", H5P_DEFAULT);
    h5::write_integers(f, "/permutations", {2, 4}, p.data());
  }, "not a group");
  expect_hdf5_error(dir, [](hid_t f) { replace_doubles(f, "/points/confidence", {3, 6}, {-0.1}); },
                    "/points: point 1: confidence lengths must be > 0");
  expect_hdf5_error(dir, [](hid_t f) { replace_doubles(f, "/points/hessian", {3, 6, 6}, {1.0, 2.0}); },
                    "/points: point 1: hessian is not symmetric");
  expect_hdf5_error(dir, [](hid_t f) { replace_doubles(f, "/points/positions", {3, 4, 3}, {std::nan("")}); },
                    "/points: point 1: a number is not finite");
  // A dataset declared with nothing stored would read as fill values.
  expect_hdf5_error(dir, [](hid_t f) {
    H5Ldelete(f, "/points/hessian", H5P_DEFAULT);
    h5::create_doubles(f, "/points/hessian", {3, 6, 6});
  }, "dataset /points/hessian declares shape [3, 6, 6] but stores only 0 bytes");
}

}  // namespace
}  // namespace quasar
