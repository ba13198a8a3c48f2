// The registry of potential families: the built-in families and their capabilities, TOML types and
// model files found through it (by name ending and by a folder's files), errors that list what is
// registered, and precisions set through the Potential interface where a family supports them.
#include <fstream>

#include "quasar/core/error.hpp"
#include "quasar/potential/registry.hpp"
#include "support.hpp"

namespace quasar {
namespace {

// A potential of no physics, to see what the registry does with a family's factories.
class Probe : public Potential {
 public:
  explicit Probe(std::string name) : name_(std::move(name)) {}
  std::string name() const override { return name_; }
  double cutoff() const override { return 0; }
  void bind(const SystemSetup&) override {}
  void compute(AtomState&, NeighborRefs, const ComputeRequest&, ForceOutput&) override {}
  void set_precision(Precision p) override { precision = p; }
  Precision precision = Precision::Double;

 private:
  std::string name_;
};

PotentialFamily probe_family(const std::string& name) {
  PotentialFamily f;
  f.name = name;
  f.description = "a test family";
  f.from_config = [name](const ConfigTable&, const std::filesystem::path&) -> std::unique_ptr<Potential> {
    return std::make_unique<Probe>(name);
  };
  f.from_file = [name](const std::string&, const ModelOptions&) -> std::unique_ptr<Potential> { return std::make_unique<Probe>(name); };
  return f;
}

// The families this build registers (potential/families.cpp: those of the modules built, in order).
std::string built_in_types() {
  std::string types;
  auto add = [&](bool built, const char* names) {
    if (built) types += (types.empty() ? "" : ", ") + std::string(names);
  };
  add(QUASAR_WITH_PAIR, "lj, eam");
  add(QUASAR_WITH_BONDED, "bond/harmonic, angle/harmonic");
  add(QUASAR_WITH_DP, "deepmd");
  add(QUASAR_WITH_NNP, "nnp");
  add(QUASAR_WITH_SHEPARD, "shepard");
  add(QUASAR_WITH_SURFACES, "analytic-surface");
  add(QUASAR_WITH_AMOEBA, "amoeba");
  return types;
}

TEST(Registry, BuiltInFamiliesAndTheirCapabilities) {
  const PotentialRegistry& r = potential_registry();
  EXPECT_EQ(r.type_names(), built_in_types());
  std::vector<std::string> mixed32;
  if (QUASAR_WITH_DP) mixed32.push_back("deepmd");
  if (QUASAR_WITH_NNP) mixed32.push_back("nnp");
  if (QUASAR_WITH_AMOEBA) mixed32.push_back("amoeba");
  EXPECT_EQ(r.families_with(Precision::Mixed32), mixed32);
  EXPECT_EQ(r.find("morse"), nullptr);
  if (!QUASAR_WITH_PAIR || !QUASAR_WITH_BONDED || !QUASAR_WITH_DP) GTEST_SKIP() << "this build leaves out families";
  for (const PotentialFamily& f : r.families()) {
    // The analytic reference surfaces are CPU-only.
    EXPECT_EQ(f.capabilities.gpu, f.name != "analytic-surface") << f.name;
    EXPECT_TRUE(f.capabilities.per_atom) << f.name;
    EXPECT_TRUE(f.capabilities.supports(Precision::Double)) << f.name;
    EXPECT_FALSE(f.description.empty()) << f.name;
  }
  ASSERT_NE(r.find("deepmd"), nullptr);
  EXPECT_TRUE(r.find("deepmd")->capabilities.supports(Precision::Mixed16));
  EXPECT_FALSE(r.find("eam")->capabilities.supports(Precision::Mixed32));
  // Bonded terms need Quasar's topology, which ghost atoms (a LAMMPS pair style) do not come with.
  EXPECT_FALSE(r.find("bond/harmonic")->capabilities.ghost_atoms);
  EXPECT_TRUE(r.find("eam")->capabilities.ghost_atoms);
}

TEST(Registry, ModelFilesByTheirEnding) {
  const PotentialRegistry& r = potential_registry();
  auto family = [&](const char* path) {
    const PotentialFamily* f = r.probe_model(path);
    return f ? f->name : std::string("none");
  };
  EXPECT_EQ(family("Cu_u3.eam"), "eam");
  EXPECT_EQ(family("/a/b/CuNi.eam.alloy"), "eam");
  EXPECT_EQ(family("x.setfl"), "eam");
  EXPECT_EQ(family("water.dp"), QUASAR_WITH_DP ? "deepmd" : "none");
  EXPECT_EQ(family("water.yaml"), QUASAR_WITH_DP ? "deepmd" : "none");
  EXPECT_EQ(family("frames.xyz"), "none");
  EXPECT_EQ(family("model.eam.xyz"), "none");
}

TEST(Registry, TheLongestEndingWinsAndAFolderIsKnownByItsFiles) {
  PotentialRegistry r;
  PotentialFamily a = probe_family("short"), b = probe_family("long"), c = probe_family("folder");
  a.model_extensions = {".nn"};
  b.model_extensions = {".ab.nn"};
  c.model_folder_files = {"input.nn"};
  r.add(a);
  r.add(b);
  r.add(c);
  EXPECT_EQ(r.probe_model("m.nn")->name, "short");
  EXPECT_EQ(r.probe_model("m.ab.nn")->name, "long");
  const std::filesystem::path dir = test::scratch_dir("registry_folder");
  EXPECT_EQ(r.probe_model(dir), nullptr);  // a folder without the file
  std::ofstream(dir / "input.nn") << "\n";
  ASSERT_NE(r.probe_model(dir), nullptr);
  EXPECT_EQ(r.probe_model(dir)->name, "folder");
  EXPECT_EQ(r.model_formats(), ".nn (short); .ab.nn (long); a folder with input.nn (folder)");
  std::filesystem::remove_all(dir);
}

// `quasar train` finds the family by its input: a name ending, a file name, or that file in a folder.
TEST(Registry, TrainingInputsFindTheirFamily) {
  PotentialRegistry r;
  PotentialFamily a = probe_family("json"), b = probe_family("nn");
  a.training_extensions = {".json"};
  b.training_files = {"input.nn"};
  for (PotentialFamily* f : {&a, &b})
    f->training = [](const std::string&, Backend, std::optional<Precision>) { return train::TrainingJob{}; };
  r.add(a);
  r.add(b);
  PotentialFamily untrained = probe_family("untrained");
  untrained.training_extensions = {".toml"};  // no training factory: not a trainer
  r.add(untrained);
  const std::filesystem::path dir = test::scratch_dir("registry_training");
  EXPECT_EQ(r.probe_training("/a/input.json")->name, "json");
  EXPECT_EQ(r.probe_training("/a/input.nn")->name, "nn");
  EXPECT_EQ(r.probe_training("x.toml"), nullptr);
  EXPECT_EQ(r.probe_training(dir), nullptr);
  std::ofstream(dir / "input.nn") << "\n";
  EXPECT_EQ(r.probe_training(dir)->name, "nn");
  QUASAR_REQUIRE_FAMILY("deepmd");
  EXPECT_EQ(potential_registry().probe_training("water.json")->name, "deepmd");
  std::ofstream(dir / "frames.xyz") << "\n";
  try {
    training_job((dir / "frames.xyz").string(), Backend::Cpu, std::nullopt);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("frames.xyz: no family trains from this input (known: .json (deepmd)"),
              std::string::npos)
        << e.what();
    if (potential_registry().find("nnp")) {
      EXPECT_NE(std::string(e.what()).find("input.nn (nnp)"), std::string::npos) << e.what();
    }
  }
  if (potential_registry().find("nnp")) {
    EXPECT_EQ(potential_registry().probe_training(dir)->name, "nnp");
  }
  std::filesystem::remove_all(dir);
}

TEST(Registry, NamesAreUnique) {
  PotentialRegistry r;
  PotentialFamily a = probe_family("one");
  a.aliases = {"uno"};
  r.add(a);
  EXPECT_THROW(r.add(probe_family("one")), Error);
  EXPECT_THROW(r.add(probe_family("uno")), Error);
  PotentialFamily b = probe_family("two");
  b.aliases = {"one"};
  EXPECT_THROW(r.add(b), Error);
  EXPECT_EQ(r.find("uno")->name, "one");
  PotentialFamily nameless = probe_family("");
  EXPECT_THROW(r.add(nameless), Error);
}

TEST(Registry, UnknownTypesAndFormatsListWhatIsRegistered) {
  const toml::table root = parse_toml_text("[potential]\ntype = \"morse\"\n", "in.toml");
  try {
    make_force_field(ConfigTable{&root, "in.toml", ""}, ".");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("in.toml:2: 'potential.type': unknown potential type \"morse\"; valid types: " +
                                         built_in_types()),
              std::string::npos)
        << e.what();
  }
  const std::filesystem::path dir = test::scratch_dir("registry_format");
  std::ofstream(dir / "model.bin") << "\n";
  try {
    load_model((dir / "model.bin").string());
    FAIL() << "no error";
  } catch (const InputError& e) {
    const std::string formats =
        QUASAR_WITH_PAIR && QUASAR_WITH_DP && QUASAR_WITH_NNP && QUASAR_WITH_SHEPARD && QUASAR_WITH_AMOEBA
            ? ".eam, .eam.alloy, .setfl (eam); .dp, .yaml, .yml (deepmd); input.nn, a folder with input.nn (nnp); "
              ".shepard, .shepard.h5, .shepard.hdf5 (shepard); .key (amoeba)"
            : potential_registry().model_formats();
    EXPECT_NE(std::string(e.what()).find("unknown model format (expected " + formats + ", or a .toml file with [potential])"),
              std::string::npos)
        << e.what();
  }
  std::filesystem::remove_all(dir);
}

// A family added to the registry at run time is found like the built-in ones: by its TOML type, by
// its model folder, and for precisions by its capabilities (no cast to a family's own type).
TEST(Registry, AFamilyAddedLaterIsUsedThroughTheRegistry) {
  PotentialFamily f = probe_family("probe-family");
  f.capabilities.precisions = {Precision::Double, Precision::Mixed32};
  f.model_folder_files = {"probe.model"};
  potential_registry().add(f);
  const toml::table root =
      parse_toml_text("[[potential]]\ntype = \"probe-family\"\n[[potential]]\ntype = \"lj\"\ncutoff = 3.0\n"
                      "species.Ar = { epsilon = 0.01, sigma = 3.4 }\n",
                      "in.toml");
  ForceField ff = make_force_field(ConfigTable{&root, "in.toml", ""}, ".");
  ASSERT_EQ(ff.size(), 2);
  EXPECT_EQ(ff.describe(), "probe-family + lj");
  set_model_precision(ff, "mixed32");  // the probe takes it; lj, which evaluates in double, is left alone
  EXPECT_EQ(static_cast<Probe&>(ff.potential(0)).precision, Precision::Mixed32);
  try {
    set_model_precision(ff, "mixed16");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), QUASAR_WITH_DP ? "precision mixed16 applies to deepmd models only"
                                                    : "precision mixed16 applies to no models only");
  }
  try {
    set_model_precision(ff.potential(1), "mixed32");
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string built = std::string(QUASAR_WITH_DP ? "deepmd, " : "") + (QUASAR_WITH_NNP ? "nnp, " : "") +
                              (QUASAR_WITH_AMOEBA ? "amoeba, " : "");
    EXPECT_EQ(std::string(e.what()), "precision mixed32 applies to " + built + "probe-family models only");
  }
  const std::filesystem::path dir = test::scratch_dir("registry_added");
  std::ofstream(dir / "probe.model") << "\n";
  EXPECT_EQ(load_model(dir.string())->name(), "probe-family");
  EXPECT_EQ(load_force_field(dir.string()).describe(), "probe-family");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace quasar
