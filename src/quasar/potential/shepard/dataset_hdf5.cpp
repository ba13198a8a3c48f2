// The data set's HDF5 format (docs/formats/shepard.md): the text format's content as groups,
// datasets and attributes, the data points' arrays stacked point after point.
#include <cmath>
#include <sstream>

#include "quasar/core/error.hpp"
#include "quasar/io/hdf5/hdf5.hpp"
#include "quasar/potential/shepard/dataset.hpp"
#include "quasar/potential/shepard/text_reader.hpp"

namespace quasar::shepard {

namespace {

constexpr const char* kFormat = "shepard-dataset";
constexpr long kVersion = 1;

// Datasets of the points, their units, and what each point holds.
struct PointArray {
  const char* name;
  const char* units;
};
constexpr PointArray kEnergy{"/points/energy", "eV"}, kPositions{"/points/positions", "Å"},
    kConfidence{"/points/confidence", "1/Å"}, kU{"/points/u", "1"}, kGradient{"/points/gradient", "eV Å"},
    kHessian{"/points/hessian", "eV Å^2"};

// The values of one field of every point, point after point.
template <class Get>
std::vector<double> stacked(const DataSet& s, Get get) {
  std::vector<double> out;
  for (const DataPoint& d : s.points) {
    const std::vector<double>& v = get(d);
    out.insert(out.end(), v.begin(), v.end());
  }
  return out;
}

void write_array(hid_t file, const PointArray& a, const std::vector<hsize_t>& shape, const std::vector<double>& values) {
  h5::write_doubles(file, a.name, shape, values.data());
  h5::set_attribute(file, a.name, "units", std::string(a.units));
}

// Each point's slice of a stacked dataset.
void unstack(const std::vector<double>& all, std::size_t each, std::vector<DataPoint>& points,
             std::vector<double> DataPoint::*field) {
  for (std::size_t i = 0; i < points.size(); ++i)
    points[i].*field = std::vector<double>(all.begin() + static_cast<std::ptrdiff_t>(i * each),
                                           all.begin() + static_cast<std::ptrdiff_t>((i + 1) * each));
}

}  // namespace

bool is_hdf5_name(const std::string& path) {
  auto ends = [&](const std::string& tail) {
    return path.size() >= tail.size() && path.compare(path.size() - tail.size(), tail.size(), tail) == 0;
  };
  return ends(".h5") || ends(".hdf5");
}

std::vector<unsigned char> dataset_hdf5_image(const DataSet& s) {
  if (std::string p = s.problem(); !p.empty()) throw Error("cannot write the Shepard data set: " + p);
  const h5::Handle file = h5::create_memory_file();
  const hid_t f = file.id();
  const hsize_t n = static_cast<hsize_t>(s.atoms()), nb = static_cast<hsize_t>(s.pairs()),
                ni = static_cast<hsize_t>(s.internal()), m = s.points.size(), ng = s.permutations.size();
  h5::set_attribute(f, "/", "format", std::string(kFormat));
  h5::set_attribute(f, "/", "version", kVersion);
  h5::write_strings(f, "/elements", s.elements);
  h5::write_doubles(f, "/masses", {n}, s.masses.data());
  h5::set_attribute(f, "/masses", "units", std::string("amu"));
  std::vector<int> perms;
  for (const auto& p : s.permutations) perms.insert(perms.end(), p.begin(), p.end());
  h5::write_integers(f, "/permutations", {ng, n}, perms.data());
  h5::create_group(f, "/parameters");
  h5::set_attribute(f, "/parameters", "weight", std::string(weight_kind_name(s.parameters.weight)));
  h5::set_attribute(f, "/parameters", "p", s.parameters.p);
  h5::set_attribute(f, "/parameters", "q", s.parameters.q);
  h5::set_attribute(f, "/parameters", "wtol", s.parameters.wtol);
  h5::create_group(f, "/points");
  std::vector<double> energies;
  for (const DataPoint& d : s.points) energies.push_back(d.energy);
  write_array(f, kEnergy, {m}, energies);
  write_array(f, kPositions, {m, n, 3}, stacked(s, [](const DataPoint& d) -> const auto& { return d.positions; }));
  write_array(f, kConfidence, {m, nb}, stacked(s, [](const DataPoint& d) -> const auto& { return d.confidence; }));
  write_array(f, kU, {m, nb, ni}, stacked(s, [](const DataPoint& d) -> const auto& { return d.u; }));
  write_array(f, kGradient, {m, ni}, stacked(s, [](const DataPoint& d) -> const auto& { return d.gradient; }));
  write_array(f, kHessian, {m, ni, ni}, stacked(s, [](const DataPoint& d) -> const auto& { return d.hessian; }));
  return h5::file_image(f);
}

DataSet read_dataset_hdf5(const void* bytes, std::size_t size, const std::string& origin) {
  const h5::Handle file = h5::open_checked(bytes, size, origin, kFormat, kVersion, "a Shepard data set");
  const h5::Reader in(file.id(), origin, size);
  DataSet s;
  // The atoms: their number from the masses, one per atom.
  const h5::Reader::Array masses = in.array("/masses");
  if (masses.shape.size() != 1 || masses.shape[0] < 3 || masses.shape[0] > static_cast<hsize_t>(kMaxAtoms))
    in.fail("dataset /masses has shape " + h5::shape_text(masses.shape) + ": one mass per atom, 3 to " +
            std::to_string(kMaxAtoms) + " atoms");
  const hsize_t n = masses.shape[0];
  s.masses = masses.values;
  s.elements = in.strings("/elements", n);
  if (std::string e = elements_problem(s.elements); !e.empty()) in.fail("dataset /elements: " + e);
  for (double mass : s.masses)
    if (!(mass > 0)) in.fail("dataset /masses: masses must be > 0");
  const std::string kind = in.string_attribute("/parameters", "weight");
  if (kind == "one-part") s.parameters.weight = WeightKind::OnePart;
  else if (kind == "two-part") s.parameters.weight = WeightKind::TwoPart;
  else in.fail("attribute 'weight' of /parameters: unknown weight '" + kind + "' (valid: one-part, two-part)");
  s.parameters.p = in.number_attribute("/parameters", "p");
  s.parameters.q = in.number_attribute("/parameters", "q");
  s.parameters.wtol = in.number_attribute("/parameters", "wtol");
  if (!(s.parameters.p >= 1) || !std::isfinite(s.parameters.p)) in.fail("attribute 'p' of /parameters: must be >= 1");
  if (s.parameters.weight == WeightKind::TwoPart && (!(s.parameters.q > s.parameters.p) || !std::isfinite(s.parameters.q)))
    in.fail("attribute 'q' of /parameters: must be > p for the two-part weight");
  if (!(s.parameters.wtol >= 0 && s.parameters.wtol < 1)) in.fail("attribute 'wtol' of /parameters: must be in [0, 1)");
  const h5::Reader::Array perm_shape = in.array("/permutations");
  if (perm_shape.shape.size() != 2 || perm_shape.shape[1] != n || perm_shape.shape[0] == 0)
    in.fail("dataset /permutations has shape " + h5::shape_text(perm_shape.shape) + ", expected [G, " +
            std::to_string(n) + "] (G >= 1 permutations of the atoms)");
  const hsize_t ng = perm_shape.shape[0];
  const std::vector<long> perms = in.integers("/permutations", {ng, n});
  for (hsize_t g = 0; g < ng; ++g) {
    std::vector<int> p;
    for (hsize_t a = 0; a < n; ++a) {
      const long v = perms[g * n + a];
      if (v < 0 || v >= static_cast<long>(n))
        in.fail("dataset /permutations: permutation " + std::to_string(g + 1) + " names atom " + std::to_string(v) +
                " (atoms are 0.." + std::to_string(n - 1) + ")");
      p.push_back(static_cast<int>(v));
    }
    if (std::string e = permutation_problem(p, s.elements); !e.empty())
      in.fail("dataset /permutations: permutation " + std::to_string(g + 1) + ": " + e);
    s.permutations.push_back(std::move(p));
  }
  if (std::string g = permutation_group_problem(s.permutations, s.elements); !g.empty())
    in.fail("dataset /permutations: " + g);
  // The points: their number from the energies, every other array shaped to match.
  const h5::Reader::Array energy = in.array(kEnergy.name);
  if (energy.shape.size() != 1)
    in.fail("dataset " + std::string(kEnergy.name) + " has shape " + h5::shape_text(energy.shape) + ", expected [M]");
  const hsize_t m = energy.shape[0], nb = n * (n - 1) / 2, ni = 3 * n - 6;
  s.points.resize(m);
  for (hsize_t i = 0; i < m; ++i) s.points[i].energy = energy.values[i];
  unstack(in.doubles(kPositions.name, {m, n, 3}), 3 * n, s.points, &DataPoint::positions);
  unstack(in.doubles(kConfidence.name, {m, nb}), nb, s.points, &DataPoint::confidence);
  unstack(in.doubles(kU.name, {m, nb, ni}), nb * ni, s.points, &DataPoint::u);
  unstack(in.doubles(kGradient.name, {m, ni}), ni, s.points, &DataPoint::gradient);
  unstack(in.doubles(kHessian.name, {m, ni, ni}), ni * ni, s.points, &DataPoint::hessian);
  for (hsize_t i = 0; i < m; ++i)
    if (std::string p = point_problem(s, s.points[i]); !p.empty())
      in.fail("/points: point " + std::to_string(i + 1) + ": " + p);
  if (std::string p = s.problem(); !p.empty()) in.fail(p);
  return s;
}

}  // namespace quasar::shepard
