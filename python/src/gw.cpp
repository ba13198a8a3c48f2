// quasar.gw's engine side (python/quasar/gw.py): the dielectric-matrix file read by the C++ reader,
// and Epsilon and Sigma run in-process through gw/run.hpp, as `quasar gw epsilon|sigma` run them.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/complex.h>
#include <nanobind/stl/string.h>

#include <complex>
#include <string>
#include <vector>

#include "to_numpy.hpp"
#if QUASAR_WITH_GW
#include "quasar/device/backend.hpp"
#include "quasar/device/context.hpp"
#include "quasar/gw/epsilon_output.hpp"
#include "quasar/gw/run.hpp"
#include "quasar/gw/sigma_output.hpp"
#endif

namespace nb = nanobind;
using namespace nb::literals;

namespace quasar::python {

#if QUASAR_WITH_GW
namespace {

// The matrices as numpy's row-major (n, n) arrays (the engine stores them column by column).
nb::ndarray<nb::numpy, std::complex<double>> square(const std::vector<std::complex<double>>& m, std::size_t n) {
  std::vector<std::complex<double>> out(n * n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) out[i * n + j] = m[i + j * n];
  return to_numpy(std::move(out), {n, n});
}

// Per q-point: q, the q -> 0 flag, the G-vectors, v(q+G) and eps^-1 (chi and epsilon when computed here).
nb::dict to_dict(const gw::EpsilonResult& r) {
  nb::list qs;
  for (const gw::EpsilonOfQ& e : r.q) {
    const std::size_t n = e.size();
    std::vector<int> g(3 * n);
    for (std::size_t i = 0; i < n; ++i)
      for (int c = 0; c < 3; ++c) g[3 * i + c] = e.gvectors[i][c];
    nb::dict d;
    d["q"] = to_numpy(std::vector<double>{e.q[0], e.q[1], e.q[2]}, {3});
    d["q0"] = e.q0;
    d["gvectors"] = to_numpy(std::move(g), {n, 3});
    if (e.coulomb.size() == n) d["coulomb"] = to_numpy(std::vector<double>(e.coulomb), {n});
    d["epsilon_inverse"] = square(e.epsilon_inverse, n);
    if (e.epsilon.size() == n * n) d["epsilon"] = square(e.epsilon, n);
    if (e.chi.size() == n * n) d["chi"] = square(e.chi, n);
    qs.append(d);
  }
  nb::dict d;
  d["real"] = r.real;
  d["valence_bands"] = r.valence;
  d["volume"] = r.volume;
  d["qpoints"] = qs;
  return d;
}

nb::dict read_epsilon(const std::string& path) { return to_dict(gw::read_epsilon_file(path)); }

// Progress lines go to Python's callable when one is given (with the GIL), else nowhere. A borrowed
// handle: the caller's argument outlives the run, and copies of the function need no reference count.
gw::RunProgress progress_to(nb::handle callback) {
  if (callback.is_none()) return {};
  return [callback](const std::string& line) {
    nb::gil_scoped_acquire gil;
    callback(line);
  };
}

nb::dict epsilon(const std::string& input, const std::string& wfn, const std::string& wfnq, const std::string& output,
                 const std::string& device, nb::object progress) {
  gw::EpsilonRun run;
  const gw::RunProgress say = progress_to(progress);
  {
    nb::gil_scoped_release release;
    device::Context ctx(parse_backend(device));
    run = gw::run_epsilon(input, wfn, wfnq, ctx, say);
    if (!output.empty()) gw::write_epsilon_file(output, run.result, run.input, run.wfn);
  }
  return to_dict(run.result);
}

// The summary as `quasar gw sigma` writes it to sigma.json (parsed by quasar.gw like the file).
std::string sigma(const std::string& input, const std::string& wfn, const std::string& epsilon_path,
                  const std::string& device, nb::object progress) {
  const gw::RunProgress say = progress_to(progress);
  nb::gil_scoped_release release;
  device::Context ctx(parse_backend(device));
  const gw::SigmaRun run = gw::run_sigma(input, wfn, epsilon_path, ctx, say);
  return gw::sigma_json(run.result);
}

}  // namespace
#endif

void bind_gw(nb::module_& m) {
#if QUASAR_WITH_GW
  nb::module_ g = m.def_submodule("gw", "GW: the dielectric-matrix file, Epsilon and Sigma");
  g.def("read_epsilon", &read_epsilon, "path"_a);
  g.def("epsilon", &epsilon, "input"_a, "wfn"_a, "wfnq"_a, "output"_a, "device"_a, "progress"_a.none());
  g.def("sigma", &sigma, "input"_a, "wfn"_a, "epsilon"_a, "device"_a, "progress"_a.none());
#else
  (void)m;
#endif
}

}  // namespace quasar::python
