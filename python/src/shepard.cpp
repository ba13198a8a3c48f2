// Modified Shepard interpolation and quasi-classical trajectories for Python (quasar.shepard):
// data sets (read, write, built from Cartesian points), the Cartesian-points file, the exact and
// approximate evaluation of many configurations on the CPU or a GPU, and QCT studies. The Python
// layer (python/quasar/shepard/__init__.py) checks shapes and passes C-contiguous float64 arrays.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "quasar/core/config.hpp"
#include "quasar/core/error.hpp"
#include "quasar/device/backend.hpp"
#include "quasar/potential/registry.hpp"
#include "quasar/qct/qct.hpp"
#include "quasar/qct/report.hpp"
#include "to_numpy.hpp"
#if QUASAR_WITH_SHEPARD
#include "quasar/potential/shepard/cartesian_points.hpp"
#include "quasar/potential/shepard/gpu_interpolant.hpp"
#include "quasar/potential/shepard/grid_io.hpp"
#include "quasar/potential/shepard/interpolant.hpp"
#endif

namespace nb = nanobind;
using namespace nb::literals;

namespace quasar::python {

namespace {

using Rows = nb::ndarray<const double, nb::ndim<2>, nb::c_contig, nb::device::cpu>;
using Flat = nb::ndarray<const double, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

// A QCT study from TOML text ([potential] table(s) and [qct]): the JSON report.
std::string run_qct_text(const std::string& text, const std::string& base_dir, const std::string& device,
                         bool progress) {
  const toml::table root = parse_toml_text(text, "<qct settings>");
  const ConfigTable top{&root, "<qct settings>", ""};
  top.allow_only({"potential", "qct", "device"});
  // The caller's device, else the settings' (as `quasar shepard qct --device` overrides the file's).
  const Backend backend = parse_backend(device.empty() ? top.get_string("device", "auto") : device);
  const qct::QctSettings settings = qct::qct_settings_from_config(top.require_sub("qct"));
  ForceField force_field = make_force_field(top, std::filesystem::path(base_dir));
  nb::gil_scoped_release release;
  const qct::QctResult result = qct::run_qct(settings, std::move(force_field), backend, progress ? &std::cout : nullptr);
  return qct::report_json(settings, result, "<python>");
}

#if QUASAR_WITH_SHEPARD
// A grid input file (quasar shepard eval --grid): the energies (and gradients) in grid order, the
// grid's shape and coordinates; the output file too when the input names one.
nb::dict run_grid_file(const std::string& path, const std::string& device, bool progress) {
  const toml::table root = parse_toml_file(path);
  const ConfigTable top{&root, path, ""};
  const shepard::GridSettings s = shepard::grid_settings_from_config(top);
  const Backend backend = parse_backend(device.empty() ? s.device : device);
  const std::size_t points = static_cast<std::size_t>(s.grid.points()), n3 = 3 * s.grid.rows.size();
  std::vector<double> energies(points), gradients(s.gradients ? points * n3 : 0);
  std::string output;
  {
    nb::gil_scoped_release release;
    output = shepard::run_grid(
        s, std::filesystem::absolute(path).parent_path().string(), backend,
        [&](const shepard::GridSlab& slab) {
          const std::size_t first = static_cast<std::size_t>(slab.first), count = static_cast<std::size_t>(slab.count);
          std::copy(slab.energies, slab.energies + count, energies.begin() + static_cast<std::ptrdiff_t>(first));
          if (slab.gradients)
            std::copy(slab.gradients, slab.gradients + count * n3, gradients.begin() + static_cast<std::ptrdiff_t>(first * n3));
        },
        progress ? &std::cout : nullptr);
  }
  nb::dict d;
  d["energy"] = to_numpy(std::move(energies), {points});
  d["gradient"] = s.gradients ? nb::cast(to_numpy(std::move(gradients), {points * n3})) : nb::none();
  d["shape"] = s.grid.shape();
  nb::list axes;
  nb::dict coordinates;
  const std::vector<shepard::ZCoordinate> coords = shepard::zmatrix_coordinates(s.grid.atoms());
  for (std::size_t k = 0; k < coords.size(); ++k) {
    axes.append(coords[k].name());
    coordinates[coords[k].name().c_str()] = to_numpy(std::vector<double>(s.grid.values[k]), {s.grid.values[k].size()});
  }
  d["axes"] = axes;
  d["coordinates"] = coordinates;
  d["output"] = output;
  return d;
}

std::vector<double> copy(const Rows& a) { return {a.data(), a.data() + a.size()}; }

nb::dict points_dict(const shepard::CartesianPoints& c) {
  const std::size_t n = c.elements.size(), n3 = 3 * n, m = c.points.size();
  std::vector<double> positions, energies, gradients, hessians;
  for (const shepard::CartesianPoint& p : c.points) {
    positions.insert(positions.end(), p.positions.begin(), p.positions.end());
    energies.push_back(p.energy);
    gradients.insert(gradients.end(), p.gradient.begin(), p.gradient.end());
    hessians.insert(hessians.end(), p.hessian.begin(), p.hessian.end());
  }
  nb::dict d;
  d["elements"] = c.elements;
  d["positions"] = to_numpy(std::move(positions), {m, n, 3});
  d["energies"] = to_numpy(std::move(energies), {m});
  d["gradients"] = to_numpy(std::move(gradients), {m, n, 3});
  d["hessians"] = to_numpy(std::move(hessians), {m, n3, n3});
  return d;
}

// Points from arrays: positions and gradients (M, 3N), energies (M), hessians (M, 9N^2).
shepard::CartesianPoints make_points(const std::vector<std::string>& elements, Rows positions, Flat energies,
                                     Rows gradients, Rows hessians) {
  const std::size_t n3 = 3 * elements.size(), m = energies.shape(0);
  if (positions.shape(0) != m || gradients.shape(0) != m || hessians.shape(0) != m || positions.shape(1) != n3 ||
      gradients.shape(1) != n3 || hessians.shape(1) != n3 * n3)
    throw Error("Cartesian points: the arrays' shapes do not fit " + std::to_string(m) + " points of " +
                std::to_string(elements.size()) + " atoms");
  shepard::CartesianPoints c;
  c.elements = elements;
  for (std::size_t k = 0; k < m; ++k) {
    shepard::CartesianPoint p;
    p.positions.assign(positions.data() + k * n3, positions.data() + (k + 1) * n3);
    p.energy = energies(k);
    p.gradient.assign(gradients.data() + k * n3, gradients.data() + (k + 1) * n3);
    p.hessian.assign(hessians.data() + k * n3 * n3, hessians.data() + (k + 1) * n3 * n3);
    c.points.push_back(std::move(p));
  }
  return c;
}

shepard::Parameters make_parameters(const std::string& weight, double p, double q, double wtol) {
  shepard::Parameters out;
  if (weight == "one-part") out.weight = shepard::WeightKind::OnePart;
  else if (weight != "two-part") throw Error("weight: two-part or one-part, not '" + weight + "'");
  out.p = p;
  out.q = q;
  out.wtol = wtol;
  return out;
}

nb::dict parameters_dict(const shepard::Parameters& p) {
  nb::dict d;
  d["weight"] = std::string(shepard::weight_kind_name(p.weight));
  d["p"] = p.p;
  d["q"] = p.q;
  d["wtol"] = p.wtol;
  return d;
}

// The interpolated surface of a data set on one backend (the GPU's copy made once).
class PySurface {
 public:
  PySurface(const shepard::DataSet& set, const std::string& device)
      : f_(shepard::Interpolant::from(set)), backend_(parse_backend(device)) {
    if (backend_ == Backend::Cuda) gpu_ = std::make_unique<shepard::GpuInterpolant>(f_);
  }
  // configs (M, 3N): energies (M) and, when asked, gradients (M, 3N).
  std::tuple<nb::ndarray<nb::numpy, double>, nb::object> evaluate(Rows configs, bool gradients) {
    const std::size_t m = configs.shape(0), n3 = 3 * static_cast<std::size_t>(f_.atoms);
    if (configs.shape(1) != n3) throw Error("configurations: " + std::to_string(n3) + " coordinates each");
    std::vector<double> e(m), g(gradients ? m * n3 : 0);
    {
      nb::gil_scoped_release release;
      const std::span<const double> x(configs.data(), configs.size());
      if (gpu_) gpu_->evaluate_batch(x, e, g);
      else shepard::evaluate_batch(f_, x, e, g);
    }
    nb::object grad = gradients ? nb::cast(to_numpy(std::move(g), {m, n3})) : nb::none();
    return {to_numpy(std::move(e), {m}), grad};
  }
  // The approximate method: groups [offsets[g], offsets[g+1]) sharing the neighbours of centres[g].
  std::tuple<nb::ndarray<nb::numpy, double>, nb::object> evaluate_groups(Rows configs, const std::vector<int>& offsets,
                                                                         const std::vector<int>& centres,
                                                                         bool gradients) {
    const std::size_t m = configs.shape(0), n3 = 3 * static_cast<std::size_t>(f_.atoms);
    if (configs.shape(1) != n3) throw Error("configurations: " + std::to_string(n3) + " coordinates each");
    std::vector<double> e(m), g(gradients ? m * n3 : 0);
    {
      nb::gil_scoped_release release;
      const std::span<const double> x(configs.data(), configs.size());
      if (gpu_) gpu_->evaluate_groups(x, offsets, centres, e, g);
      else shepard::evaluate_groups(f_, x, offsets, centres, e, g);
    }
    nb::object grad = gradients ? nb::cast(to_numpy(std::move(g), {m, n3})) : nb::none();
    return {to_numpy(std::move(e), {m}), grad};
  }
  std::string device() const { return backend_name(backend_); }
  double mean_neighbours() const { return gpu_ ? gpu_->mean_neighbours() : -1.0; }

 private:
  shepard::Interpolant f_;
  Backend backend_;
  std::unique_ptr<shepard::GpuInterpolant> gpu_;
};
#endif

}  // namespace

void bind_shepard(nb::module_& m) {
  m.def("qct_run", &run_qct_text, "text"_a, "base_dir"_a, "device"_a, "progress"_a);
  m.attr("shepard_built") = static_cast<bool>(QUASAR_WITH_SHEPARD);
#if QUASAR_WITH_SHEPARD
  nb::class_<shepard::DataSet>(m, "ShepardDataSet")
      .def_static("read", &shepard::read_dataset, "path"_a)
      .def("write", [](const shepard::DataSet& s, const std::string& path) { shepard::write_dataset(path, s); },
           "path"_a)
      .def_static(
          "build",
          [](const std::vector<std::string>& elements, Rows positions, Flat energies, Rows gradients, Rows hessians,
             double confidence, const std::vector<std::vector<int>>& group, const std::string& weight, double p,
             double q, double wtol) {
            return shepard::build_dataset(make_points(elements, positions, energies, gradients, hessians),
                                          make_parameters(weight, p, q, wtol), confidence, group);
          },
          "elements"_a, "positions"_a, "energies"_a, "gradients"_a, "hessians"_a, "confidence"_a, "group"_a,
          "weight"_a, "p"_a, "q"_a, "wtol"_a)
      .def_ro("elements", &shepard::DataSet::elements)
      .def_ro("masses", &shepard::DataSet::masses)
      .def_ro("permutations", &shepard::DataSet::permutations)
      .def_prop_ro("parameters", [](const shepard::DataSet& s) { return parameters_dict(s.parameters); })
      .def_prop_ro("num_points", [](const shepard::DataSet& s) { return s.points.size(); })
      .def_prop_ro("internal", &shepard::DataSet::internal)
      .def("point", [](const shepard::DataSet& s, std::size_t i) {
        if (i >= s.points.size()) throw nb::index_error("no such data point");
        const shepard::DataPoint& p = s.points[i];
        const std::size_t n = s.elements.size(), pairs = p.confidence.size(), nint = p.gradient.size();
        nb::dict d;
        d["positions"] = to_numpy(std::vector<double>(p.positions), {n, 3});
        d["energy"] = p.energy;
        d["confidence"] = to_numpy(std::vector<double>(p.confidence), {pairs});
        d["u"] = to_numpy(std::vector<double>(p.u), {pairs, nint});
        d["gradient"] = to_numpy(std::vector<double>(p.gradient), {nint});
        d["hessian"] = to_numpy(std::vector<double>(p.hessian), {nint, nint});
        return d;
      }, "index"_a)
      .def("difference", [](const shepard::DataSet& a, const shepard::DataSet& b) {
        return shepard::dataset_difference(a, b);
      }, "other"_a);
  m.def("shepard_read_points", [](const std::string& path) { return points_dict(shepard::read_cartesian_points(path)); },
        "path"_a);
  m.def("shepard_write_points",
        [](const std::string& path, const std::vector<std::string>& elements, Rows positions, Flat energies,
           Rows gradients, Rows hessians) {
          shepard::write_cartesian_points(path, make_points(elements, positions, energies, gradients, hessians));
        },
        "path"_a, "elements"_a, "positions"_a, "energies"_a, "gradients"_a, "hessians"_a);
  m.def("shepard_grid", &run_grid_file, "path"_a, "device"_a, "progress"_a);
  nb::class_<PySurface>(m, "ShepardSurface")
      .def(nb::init<const shepard::DataSet&, const std::string&>(), "dataset"_a, "device"_a)
      .def("evaluate", &PySurface::evaluate, "configs"_a, "gradients"_a)
      .def("evaluate_groups", &PySurface::evaluate_groups, "configs"_a, "offsets"_a, "centres"_a, "gradients"_a)
      .def_prop_ro("device", &PySurface::device)
      .def_prop_ro("mean_neighbours", &PySurface::mean_neighbours);
#endif
}

}  // namespace quasar::python
