// `quasar shepard build` (a data set from Cartesian ab initio points), `convert` (text <-> HDF5),
// `eval` (energies and gradients of many configurations, or of a grid of Z-matrix coordinates) and
// `grow`.
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>

#include "quasar/cli/args.hpp"
#include "quasar/cli/commands.hpp"
#if QUASAR_WITH_SHEPARD
#include "quasar/core/error.hpp"
#include "quasar/device/backend.hpp"
#include "quasar/io/read.hpp"
#include "quasar/potential/registry.hpp"
#include "quasar/potential/shepard/cartesian_points.hpp"
#include "quasar/potential/shepard/confidence.hpp"
#include "quasar/potential/shepard/grow/grow.hpp"
#include "quasar/potential/shepard/gpu_interpolant.hpp"
#include "quasar/potential/shepard/grid_io.hpp"
#include "quasar/potential/shepard/interpolant.hpp"
#endif

namespace quasar::cli {

#if !QUASAR_WITH_SHEPARD
int shepard_command(const std::vector<std::string>& argv) {
  if (!argv.empty() && argv[0] == "qct") return qct_command({argv.begin() + 1, argv.end()});
  throw UsageError("this build has no Shepard interpolation (configured with QUASAR_WITH_SHEPARD=OFF)");
}
#else

namespace {
const char* kHelp = R"(usage: quasar shepard build POINTS OUTPUT --confidence D|bayes|fitted [--group full|identity]
                             [--weight two-part|one-part] [--p 2] [--q 12] [--wtol 1e-8]
                             [--length 1] [--confidence-energy 0.01]
       quasar shepard convert IN OUT
       quasar shepard grow INPUT.toml [--device cpu|cuda|auto]
       quasar shepard eval DATASET STRUCTURES [--format F] [--device cpu|cuda|auto]
       quasar shepard eval --grid GRID.toml [--device cpu|cuda|auto]
       quasar shepard qct INPUT.toml [--device D] [--output FILE.json]

build: the modified Shepard data set OUTPUT (.shepard; HDF5 for .h5) of the Cartesian points in
POINTS (energies, gradients and Hessians; docs/formats/shepard.md): each point's Taylor expansion
in local internal coordinates, every confidence length D (1/Å) or, with --confidence bayes, lengths per point and pair
estimated from how well each point's expansion predicts its neighbours (Bettens and Collins;
--confidence-energy: the error in eV that defines a length, --length: the length of a set of one
point), or with --confidence fitted a length per point that follows the local spacing of the data,
scaled per pair by the spread of its inverse distance, fitted so that the others predict each point
best (leave-one-out; --length: every length of a set under 10 points), the permutation group of identical atoms (full: every
permutation of atoms of one element; identity: none) and the weight's parameters.

eval: energy (eV) and gradient dV/dx (eV/Å, atom by atom) of every frame of STRUCTURES (extended XYZ
or any format `quasar eval` reads), evaluated together: one line per frame, "index energy g1x g1y
g1z ...". The atoms of each frame are the data set's, in its order. --device: the CPU's threads
(the default) or one GPU launch sequence for the whole batch.

eval --grid: the surface at every point of a direct-product grid of Z-matrix coordinates (bond
lengths, angles, dihedrals, each a list or a range), by the approximate method whose neighbour sets
are found at the centre of each group of 3 x 3 x ... grid points (or the exact method), energies and
optionally gradients written to the grid file's `output` (text, or HDF5 for .h5/.hdf5;
docs/formats/shepard.md, "Grids"). Progress lines on standard output.

convert: the data set IN written as OUT, each text (.shepard) or HDF5 (.h5, .hdf5), the same
numbers to the last bit.

grow: a data set grown against the reference force field of INPUT.toml's [potential], or the
reference program of its [reference] (PySCF, or any command: docs/formats/shepard.md): trajectories
([qct]) on the current surface, new points by h-weight and variance sampling, confidence lengths
refreshed, until the [grow] table's target or budget (docs/user-guide.md). --device: where the
interpolation runs (the reference runs on the CPU).

qct: quasi-classical trajectories of an atom + molecule collision on any force field (`quasar
shepard qct --help`).
)";

double number(const Args& a, const std::string& key, const std::string& fallback) {
  const std::string text = a.get(key, fallback);
  try {
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  throw UsageError(key + " takes a finite number, not '" + text + "'");
}

int build(const Args& a) {
  if (a.positional.size() != 3) throw UsageError("shepard build needs POINTS and OUTPUT");
  if (!a.has("--confidence"))
    throw UsageError("shepard build needs --confidence D (the confidence length, 1/Å), bayes or fitted");
  shepard::Parameters p;
  const std::string weight = a.get("--weight", "two-part");
  if (weight == "one-part") p.weight = shepard::WeightKind::OnePart;
  else if (weight != "two-part") throw UsageError("--weight takes two-part or one-part, not '" + weight + "'");
  p.p = number(a, "--p", "2");
  p.q = number(a, "--q", "12");
  p.wtol = number(a, "--wtol", "1e-8");
  const std::string group = a.get("--group", "full");
  if (group != "full" && group != "identity") throw UsageError("--group takes full or identity, not '" + group + "'");
  const bool bayes = a.get("--confidence", "") == "bayes", fitted = a.get("--confidence", "") == "fitted";
  const double confidence = bayes || fitted ? number(a, "--length", "1") : number(a, "--confidence", "");
  if (!(confidence > 0)) throw UsageError(std::string(bayes || fitted ? "--length" : "--confidence") + " must be positive (1/Å)");
  shepard::ConfidenceSettings cs;
  cs.energy = number(a, "--confidence-energy", "0.01");
  cs.fallback = confidence;
  if (!(cs.energy > 0)) throw UsageError("--confidence-energy must be positive (eV)");
  const shepard::CartesianPoints points = shepard::read_cartesian_points(a.positional[1]);
  shepard::DataSet set;
  try {
    set = shepard::build_dataset(points, p, confidence,
                                 group == "identity" ? shepard::identity_group(static_cast<int>(points.elements.size()))
                                                     : std::vector<std::vector<int>>{});
    if (bayes) shepard::bayes_confidence(set, cs);
    if (fitted) {
      shepard::FittedSettings fs;
      fs.fallback = confidence;
      const shepard::FittedLengths fit = shepard::fitted_confidence(set, fs);
      if (fit.leave_one_out_rms > 0)
        std::cout << "fitted confidence lengths: median " << fit.median_length << "/Å (scale " << fit.scale << "/Å, exponent "
                  << fit.exponent << "), leave-one-out RMS error " << fit.leave_one_out_rms << " eV\n";
    }
  } catch (const InputError&) {
    throw;
  } catch (const Error& e) {
    throw InputError(a.positional[1], 0, e.what());  // a point that makes no data point, or bad parameters
  }
  shepard::write_dataset(a.positional[2], set);
  std::cout << "wrote " << a.positional[2] << ": " << set.points.size() << " data points x " << set.permutations.size()
            << " permutations, " << set.internal() << " internal coordinates\n";
  return 0;
}

int eval_grid(const Args& a) {
  if (a.positional.size() != 1) throw UsageError("shepard eval --grid GRID.toml takes no other file");
  const std::string path = a.get("--grid", "");
  const toml::table root = parse_toml_file(path);
  const ConfigTable top{&root, path, ""};
  const shepard::GridSettings s = shepard::grid_settings_from_config(top);
  if (s.output.empty()) throw InputError(path, 0, "missing key 'output' (the file the grid's energies go to)");
  const Backend backend = parse_backend(a.get("--device", s.device));
  const std::string output =
      shepard::run_grid(s, std::filesystem::absolute(path).parent_path().string(), backend, {}, &std::cout);
  std::cout << "wrote " << output << ": " << s.grid.points() << " grid points\n";
  return 0;
}

int convert(const Args& a) {
  if (a.positional.size() != 3) throw UsageError("shepard convert needs IN and OUT");
  const shepard::DataSet set = shepard::read_dataset(a.positional[1]);
  shepard::write_dataset(a.positional[2], set);
  std::cout << "wrote " << a.positional[2] << " (" << (shepard::is_hdf5_name(a.positional[2]) ? "HDF5" : "text")
            << "): " << set.points.size() << " data points\n";
  return 0;
}

int eval(const Args& a) {
  if (a.has("--grid")) return eval_grid(a);
  if (a.positional.size() != 3) throw UsageError("shepard eval needs DATASET and STRUCTURES");
  const shepard::DataSet set = shepard::read_dataset(a.positional[1]);
  const shepard::Interpolant f = shepard::Interpolant::from(set);
  const std::string path = a.positional[2];
  const std::vector<Structure> frames = io::read_frames(path, a.get("--format", "auto"));
  const std::size_t n3 = static_cast<std::size_t>(3 * f.atoms);
  std::vector<double> configs;
  configs.reserve(frames.size() * n3);
  for (std::size_t k = 0; k < frames.size(); ++k) {
    const Structure& s = frames[k];
    if (static_cast<int>(s.size()) != f.atoms)
      throw InputError(path, 0, "frame " + std::to_string(k + 1) + " has " + std::to_string(s.size()) +
                                    " atoms; the data set has " + std::to_string(f.atoms));
    for (int i = 0; i < f.atoms; ++i) {
      const std::string& element = s.type_names[static_cast<std::size_t>(s.types[static_cast<std::size_t>(i)])];
      if (element != set.elements[static_cast<std::size_t>(i)])
        throw InputError(path, 0, "frame " + std::to_string(k + 1) + ", atom " + std::to_string(i + 1) + " is " +
                                      element + " where the data set has " + set.elements[static_cast<std::size_t>(i)]);
      const Vec3 r = s.positions[static_cast<std::size_t>(i)];
      configs.insert(configs.end(), {r.x, r.y, r.z});
    }
  }
  const Backend backend = parse_backend(a.get("--device", "cpu"));
  std::vector<double> energies(frames.size()), grads(configs.size());
  if (backend == Backend::Cuda) shepard::GpuInterpolant(f).evaluate_batch(configs, energies, grads);
  else shepard::evaluate_batch(f, configs, energies, grads);
  std::cout << "# index energy (eV), then dV/dx (eV/Å) atom by atom\n" << std::setprecision(15);
  for (std::size_t k = 0; k < frames.size(); ++k) {
    std::cout << k << ' ' << energies[k];
    for (std::size_t i = 0; i < n3; ++i) std::cout << ' ' << grads[k * n3 + i];
    std::cout << '\n';
  }
  return 0;
}
int grow(const Args& a) {
  if (a.positional.size() != 2) throw UsageError("shepard grow takes one input file");
  const std::string path = a.positional[1];
  const toml::table root = parse_toml_file(path);
  const ConfigTable top{&root, path, ""};
  top.allow_only({"potential", "reference", "qct", "grow", "device"});
  const Backend backend = parse_backend(a.get("--device", top.get_string("device", "cpu")));
  const auto base = std::filesystem::absolute(path).parent_path();
  shepard::GrowSettings settings = shepard::grow_settings_from_config(top.require_sub("grow"), top.require_sub("qct"));
  if (!settings.output.empty()) settings.output = (base / settings.output).string();
  shepard::GrowReference reference;
  if (top.has("reference")) {
    if (top.has("potential")) top.fail("reference", "give the reference either as [potential] or as [reference], not both");
    reference.program = shepard::external_reference_from_config(top.require_sub("reference"), base);
  } else {
    reference.force_field = make_force_field(top, base);
  }
  const shepard::GrowResult r = shepard::grow(settings, std::move(reference), backend, &std::cout);
  if (!settings.output.empty())
    std::cout << "grow: wrote " << settings.output << ": " << r.set.points.size() << " data points\n";
  return 0;
}
}  // namespace

int shepard_command(const std::vector<std::string>& argv) {
  if (!argv.empty() && argv[0] == "qct") return qct_command({argv.begin() + 1, argv.end()});
  const Args a = Args::parse(argv, {"--help"},
                             {"--confidence", "--group", "--weight", "--p", "--q", "--wtol", "--format", "--device",
                              "--length", "--confidence-energy", "--grid"});
  if (a.has("--help") || a.positional.empty()) {
    std::cout << kHelp;
    return a.has("--help") ? 0 : 2;
  }
  const std::string sub = a.positional[0];
  if (sub == "build") return build(a);
  if (sub == "eval") return eval(a);
  if (sub == "convert") return convert(a);
  if (sub == "grow") return grow(a);
  throw UsageError("unknown shepard command '" + sub + "' (valid: build, convert, eval, grow, qct)");
}

#endif  // QUASAR_WITH_SHEPARD

}  // namespace quasar::cli
