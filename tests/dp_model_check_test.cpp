// Deep Potential model files that are wrong in one place: DeePMD-kit's own test model, loaded as a
// dictionary, corrupted in one key, written back with the project's writers (.yaml and .dp), must
// fail to load with an InputError that names the file, the key path and what was expected (issue 14:
// a truncated weight row used to load and give plausible wrong energies).
#include <hdf5.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <limits>

#include "quasar/core/error.hpp"
#include "quasar/potential/dp/deep_potential.hpp"
#include "quasar/potential/dp/model_io.hpp"
#include "quasar/potential/evaluate.hpp"
#include "support.hpp"

namespace quasar {
namespace {

using nlohmann::json;

class DpModelCheck : public testing::Test {
 protected:
  void SetUp() override {
    const std::string model = test::shared_path("reference/deepmd/deeppot_sea.yaml");
    if (model.empty()) GTEST_SKIP() << "../shared/reference/deepmd is not here";
    dict_ = dp::read_model_dict(model);
    dir_ = test::scratch_dir("dp-check");
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  json& layer(const char* part, int net, int l) {
    json& d = dict_["model"][part];
    json& nets = std::string(part) == "descriptor" ? d["embeddings"]["networks"] : d["nets"]["networks"];
    return nets[net]["layers"][l]["@variables"];
  }
  // The message of the InputError that loading the corrupted model gives, written as `name`.
  std::string error_of(const std::function<void(json&)>& corrupt, const std::string& name) {
    json d = dict_;
    corrupt(d);
    const std::string path = (dir_ / name).string();
    dp::write_model_dict(path, d);
    try {
      dp::read_dp_model(path);
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), path);
      return e.what();
    }
    ADD_FAILURE() << name << " loaded";
    return {};
  }
  // Both file formats give the same message after the file name.
  void expect_error(const std::function<void(json&)>& corrupt, const std::string& key, const std::string& expected) {
    for (const std::string name : {"m.yaml", "m.dp"}) {
      const std::string msg = error_of(corrupt, name);
      EXPECT_NE(msg.find(name + ": " + key + ": "), std::string::npos) << msg;
      EXPECT_NE(msg.find(expected), std::string::npos) << msg;
    }
  }

  json dict_;
  std::filesystem::path dir_;
};

TEST_F(DpModelCheck, TheReferenceModelLoads) {
  for (const std::string name : {"ok.yaml", "ok.dp"}) {
    const std::string path = (dir_ / name).string();
    dp::write_model_dict(path, dict_);
    EXPECT_EQ(dp::read_dp_model(path).descriptor.nnei(), 138);
  }
}

TEST_F(DpModelCheck, TruncatedWeightRow) {
  // One value short in row 3 of the second fitting layer: a ragged array (HDF5 cannot hold one,
  // so the .dp case drops the whole row instead).
  const std::string msg = error_of([&](json& d) {
    d["model"]["fitting"]["nets"]["networks"][0]["layers"][1]["@variables"]["w"]["value"][3].erase(9);
  }, "m.yaml");
  EXPECT_NE(msg.find("m.yaml: model.fitting.nets.networks[0].layers[1].@variables.w.value: row [3] has 9 values, "
                     "expected 10 (shape 10x10; a truncated or ragged array)"),
            std::string::npos) << msg;
  const std::string dp = error_of([&](json& d) {
    d["model"]["fitting"]["nets"]["networks"][0]["layers"][1]["@variables"]["w"]["value"].erase(3);
  }, "m.dp");
  EXPECT_NE(dp.find("m.dp: model.fitting.nets.networks[0].layers[1].@variables.w: expected a 10x10 matrix (input 10: "
                    "the output of layer 0; output 10: model.fitting.nets.networks[0].neuron[1]), found 9x10"),
            std::string::npos) << dp;
}

TEST_F(DpModelCheck, EmbeddingLayerOfTheWrongShape) {
  // The last embedding layer of type 1 gives 11 outputs where neuron says 12.
  expect_error([&](json& d) {
    json& v = d["model"]["descriptor"]["embeddings"]["networks"][1]["layers"][2]["@variables"];
    for (auto& row : v["w"]["value"]) row.erase(11);
    v["b"]["value"].erase(11);
  }, "model.descriptor.embeddings.networks[1].layers[2].@variables.w",
      "expected a 6x12 matrix (input 6: the output of layer 1; output 12: "
      "model.descriptor.embeddings.networks[1].neuron[2]), found 6x11");
  // A layer whose input is not the previous layer's output.
  expect_error([&](json& d) {
    json& w = d["model"]["descriptor"]["embeddings"]["networks"][0]["layers"][1]["@variables"]["w"]["value"];
    w.push_back(w[0]);
  }, "model.descriptor.embeddings.networks[0].layers[1].@variables.w", "expected a 3x6 matrix");
  // A bias of the wrong length.
  expect_error([&](json& d) {
    d["model"]["descriptor"]["embeddings"]["networks"][0]["layers"][0]["@variables"]["b"]["value"].push_back(0.1);
  }, "model.descriptor.embeddings.networks[0].layers[0].@variables.b", "expected [3] or 1x3 (one per output of the 1x3 matrix), found [4]");
  // A timestep vector of the wrong length.
  expect_error([&](json& d) {
    d["model"]["fitting"]["nets"]["networks"][1]["layers"][2]["@variables"]["idt"]["value"].erase(0);
  }, "model.fitting.nets.networks[1].layers[2].@variables.idt", "expected [10] or 1x10 (one per output of the 10x10 matrix), found [9]");
  // A rank-3 weight.
  expect_error([&](json& d) {
    json& w = d["model"]["fitting"]["nets"]["networks"][0]["layers"][3]["@variables"]["w"]["value"];
    for (auto& row : w) row = json::array({row});
  }, "model.fitting.nets.networks[0].layers[3].@variables.w", "expected at most 2 dimensions");
}

TEST_F(DpModelCheck, ArchitectureMismatches) {
  // Fitting nets that end in two outputs.
  expect_error([&](json& d) {
    json& v = d["model"]["fitting"]["nets"]["networks"][0]["layers"][3]["@variables"];
    for (auto& row : v["w"]["value"]) row.push_back(0.0);
    v["b"]["value"].push_back(0.0);
  }, "model.fitting.nets.networks[0].layers[3].@variables.w", "output 1: the atomic energy), found 10x2");
  // One layer fewer than neuron declares.
  expect_error([&](json& d) { d["model"]["descriptor"]["embeddings"]["networks"][0]["layers"].erase(2); },
               "model.descriptor.embeddings.networks[0].layers",
               "expected 3 layers (model.descriptor.embeddings.networks[0].neuron has 3 widths), found 2");
  // axis_neuron larger than the embedding width.
  expect_error([&](json& d) { d["model"]["descriptor"]["axis_neuron"] = 13; }, "model.descriptor.axis_neuron",
               "expected at most the embedding width 12");
  // The fitting input follows M x axis_neuron: a changed axis_neuron no longer matches it.
  expect_error([&](json& d) { d["model"]["descriptor"]["axis_neuron"] = 3; d["model"]["fitting"].erase("dim_descrpt"); },
               "model.fitting.nets.networks[0].in_dim", "expected 36 (embedding width 12 x axis_neuron 3");
  // A NetworkCollection with a net missing, and nets for two-sided embeddings with ndim 1.
  expect_error([&](json& d) { d["model"]["fitting"]["nets"]["networks"].erase(1); }, "model.fitting.nets.networks",
               "expected 2 networks for 2 types, found 1");
  expect_error([&](json& d) { d["model"]["descriptor"]["type_one_side"] = false; },
               "model.descriptor.embeddings.ndim", "expected 2");
  // type_map repeated or not matching the descriptor's.
  expect_error([&](json& d) { d["model"]["type_map"] = {"O", "O"}; }, "model.type_map[1]", "type 'O' appears twice");
  expect_error([&](json& d) { d["model"]["descriptor"]["type_map"] = {"H", "O"}; }, "model.descriptor.type_map",
               "differs from model.type_map");
}

TEST_F(DpModelCheck, StatisticsAndCutoffs) {
  expect_error([&](json& d) { d["model"]["descriptor"]["@variables"]["davg"]["value"][1][5][0] = NAN; },
               "model.descriptor.@variables.davg.value", "element [1][5][0] is nan, not finite");
  expect_error([&](json& d) { d["model"]["descriptor"]["@variables"]["dstd"]["value"][0][7][2] = 0.0; },
               "model.descriptor.@variables.dstd", "element [0][7][2] is 0.000000; standard deviations must be positive");
  expect_error([&](json& d) {
    for (auto& per_type : d["model"]["descriptor"]["@variables"]["davg"]["value"]) per_type.erase(0);
  },
               "model.descriptor.@variables.davg", "expected [2, 138, 4] (ntypes, sum(sel), 4), found [2, 137, 4]");
  expect_error([&](json& d) { d["model"]["descriptor"]["sel"] = {46, -92}; }, "model.descriptor.sel[1]",
               "expected an integer from 0 to 100000, found -92");
  expect_error([&](json& d) { d["model"]["descriptor"]["sel"] = {46, 91}; }, "model.descriptor.@variables.davg",
               "found [2, 138, 4]");
  expect_error([&](json& d) { d["model"]["descriptor"]["sel"] = {46}; }, "model.descriptor.sel",
               "expected one entry per type (2), found 1");
  expect_error([&](json& d) { d["model"]["descriptor"]["rcut"] = -6.0; }, "model.descriptor.rcut",
               "expected a cutoff in (0, 100] Å");
  expect_error([&](json& d) { d["model"]["descriptor"]["rcut_smth"] = 6.0; }, "model.descriptor.rcut_smth",
               "expected less than rcut");
  expect_error([&](json& d) { d["model"]["fitting"]["@variables"]["bias_atom_e"]["value"] = {{1.0}, {2.0}, {3.0}}; },
               "model.fitting.@variables.bias_atom_e", "expected 2x1 or [2] (one per type), found 3x1");
  expect_error([&](json& d) { d["model"]["@variables"]["out_bias"]["value"] = json::parse("[[[0.0]]]"); },
               "model.@variables.out_bias", "expected [1, 2, 1] or 2x1 or [2]");
}

TEST_F(DpModelCheck, KeysTypesAndNames) {
  expect_error([&](json& d) { d["model"]["descriptor"].erase("rcut"); }, "model.descriptor", "missing key 'rcut'");
  expect_error([&](json& d) { d["model"]["descriptor"]["@variables"].erase("dstd"); }, "model.descriptor.@variables",
               "missing key 'dstd'");
  expect_error([&](json& d) { d["model"]["descriptor"]["rcut"] = "six"; }, "model.descriptor.rcut",
               "expected a number, found the string \"six\"");
  expect_error([&](json& d) { d["model"]["fitting"]["nets"]["networks"][0]["layers"][1]["activation_function"] = "tanhh"; },
               "model.fitting.nets.networks[0].layers[1].activation_function", "unsupported activation function 'tanhh'");
  expect_error([&](json& d) { d["model"]["descriptor"]["embeddings"]["networks"][0]["layers"][0]["precision"] = "float128"; },
               "model.descriptor.embeddings.networks[0].layers[0].precision", "unknown precision 'float128'");
  // (a .dp takes the dtype from its dataset)
  const std::string dtype = error_of([&](json& d) {
    d["model"]["fitting"]["nets"]["networks"][0]["layers"][0]["@variables"]["w"]["dtype"] = "int8";
  }, "m.yaml");
  EXPECT_NE(dtype.find("m.yaml: model.fitting.nets.networks[0].layers[0].@variables.w.dtype: expected float64, float32 "
                       "or float16, found 'int8'"), std::string::npos) << dtype;
  expect_error([&](json& d) { d["model"]["fitting"]["exclude_types"] = {0}; }, "model.fitting.exclude_types",
               "is not supported (model.atom_exclude_types is)");
  expect_error([&](json& d) { d["model"]["atom_exclude_types"] = {2}; }, "model.atom_exclude_types[0]",
               "expected an integer from 0 to 1, found 2");
}

TEST_F(DpModelCheck, FrameAndAtomicParameters) {
  const std::string model = test::shared_path("reference/deepmd/fparam_aparam.yaml");
  if (model.empty()) GTEST_SKIP() << "../shared/reference/deepmd is not here";
  dict_ = dp::read_model_dict(model);
  expect_error([&](json& d) { d["model"]["fitting"]["@variables"]["fparam_avg"]["value"].push_back(0.0); },
               "model.fitting.@variables.fparam_avg", "expected [1] or 1x1 (one per parameter), found [2]");
  expect_error([&](json& d) { d["model"]["fitting"]["@variables"]["aparam_inv_std"]["value"][0] = INFINITY; },
               "model.fitting.@variables.aparam_inv_std.value", "element [0] is inf, not finite");
  // A second frame parameter that the fitting nets do not take.
  expect_error([&](json& d) { d["model"]["fitting"]["numb_fparam"] = 2; }, "model.fitting.nets.networks[0].in_dim",
               "expected 163 (embedding width 20 x axis_neuron 8 + numb_fparam 2 + numb_aparam 1)");
}

TEST_F(DpModelCheck, CompressionSettings) {
  dict_["model"]["quasar_compress"] = {{"min_nbor_dist", 0.8}, {"step", 0.01}, {"extrapolate", 5}};
  EXPECT_TRUE(dp::DeepPotential::from_file([&] {
                const std::string p = (dir_ / "c.yaml").string();
                dp::write_model_dict(p, dict_);
                return p;
              }()).model().compressed);
  // A step so fine that the tables would need gigabytes fails before they are built.
  expect_error([&](json& d) { d["model"]["quasar_compress"]["step"] = 1e-9; }, "model.quasar_compress",
               "use a larger step");
  expect_error([&](json& d) { d["model"]["quasar_compress"]["extrapolate"] = 0; }, "model.quasar_compress.extrapolate",
               "expected an integer from 1 to 1000, found 0");
  expect_error([&](json& d) { d["model"]["quasar_compress"].erase("min_nbor_dist"); }, "model.quasar_compress",
               "missing key 'min_nbor_dist'");
}

TEST_F(DpModelCheck, CompressedNetsTakeAtomsOnOneSpot) {
  // Two atoms on one spot give inf and nan in the environment: the table lookup clamps (defined
  // conversions, which the sanitizer build checks) and the energy says nan.
  dict_["model"]["quasar_compress"] = {{"min_nbor_dist", 0.8}, {"step", 0.01}, {"extrapolate", 5}};
  dp::DeepPotential pot(dp::model_from_json(dict_, "c"));
  Structure s;
  s.box = Box::orthorhombic(12, 12, 12);
  for (const char* t : {"O", "H", "H"}) s.types.push_back(s.type_index(t));
  s.positions = {{1, 1, 1}, {1, 1, 1}, {1.8, 1.2, 1}};
  EXPECT_TRUE(std::isnan(evaluate(pot, s, Backend::Cpu).energy));
}

TEST_F(DpModelCheck, YamlAliasesCannotExpandBeyondTheFile) {
  // Nine levels of aliases, each doubling: 2^9 copies of a list from a file of a few hundred bytes.
  std::string text = "a0: &a0 [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]\n";
  for (int k = 1; k <= 14; ++k)
    text += "a" + std::to_string(k) + ": &a" + std::to_string(k) + " [*a" + std::to_string(k - 1) + ", *a" +
            std::to_string(k - 1) + "]\n";
  const std::string path = (dir_ / "bomb.yaml").string();
  std::ofstream(path) << text;
  try {
    dp::read_model_dict(path);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bomb.yaml: YAML aliases expand to more values than the file could hold"),
              std::string::npos) << e.what();
  }
}

TEST_F(DpModelCheck, DpDatasetsMustHoldWhatTheyDeclare) {
  // A .dp whose dataset declares a million values and stores none (chunked, never written: HDF5
  // would read fill values), and one that holds strings.
  const std::string path = (dir_ / "hollow.dp").string();
  dp::write_model_dict(path, dict_);
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  H5Ldelete(file, "/variable_0000", H5P_DEFAULT);
  const hsize_t dims[1] = {1000000}, chunk[1] = {1000};
  const hid_t space = H5Screate_simple(1, dims, nullptr), plist = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(plist, 1, chunk);
  const hid_t ds = H5Dcreate2(file, "/variable_0000", H5T_IEEE_F64LE, space, H5P_DEFAULT, plist, H5P_DEFAULT);
  H5Dclose(ds);
  H5Pclose(plist);
  H5Sclose(space);
  H5Fclose(file);
  try {
    dp::read_dp_model(path);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("hollow.dp: dataset /variable_0000 declares shape [1000000] but stores only 0 bytes"),
              std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace quasar
