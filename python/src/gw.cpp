// quasar.gw's engine side (python/quasar/gw.py): the wavefunction and dielectric-matrix files read by
// the C++ readers, and the EPM, Epsilon and Sigma run in-process through gw/run.hpp, as
// `quasar gw epm|epsilon|sigma` run them.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/complex.h>
#include <nanobind/stl/string.h>

#include <array>
#include <complex>
#include <string>
#include <vector>

#include "to_numpy.hpp"
#if QUASAR_WITH_GW
#include "quasar/device/backend.hpp"
#include "quasar/device/context.hpp"
#include "quasar/gw/epsilon_output.hpp"
#include "quasar/gw/run.hpp"
#include "quasar/gw/sigma.hpp"
#include "quasar/gw/sigma_output.hpp"
#include "quasar/gw/wavefunctions.hpp"
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

template <std::size_t N, class T>
std::vector<T> flat(const std::vector<std::array<T, N>>& rows) {
  std::vector<T> out;
  out.reserve(rows.size() * N);
  for (const auto& r : rows) out.insert(out.end(), r.begin(), r.end());
  return out;
}
template <std::size_t N, class T>
nb::ndarray<nb::numpy, T> rows(const std::vector<std::array<T, N>>& v) {
  return to_numpy(flat(v), {v.size(), N});
}
template <std::size_t N, class T>
nb::ndarray<nb::numpy, T> row(const std::array<T, N>& v) {
  return to_numpy(std::vector<T>(v.begin(), v.end()), {N});
}

// Every field of the mean field as numpy arrays in the file's layout (docs/formats/gw-wavefunctions.md):
// the flat k-point G-vectors and coefficients are split per k-point in quasar/gw.py. The big vectors are
// moved into the arrays, not copied.
nb::dict to_dict(gw::Wavefunctions&& w) {
  const std::size_t nk = w.kpoint_count(), ns = static_cast<std::size_t>(w.spins),
                    nbands = static_cast<std::size_t>(w.bands), total = w.total_kgvectors();
  nb::dict d;
  d["real"] = w.real;
  d["spins"] = w.spins;
  d["bands"] = w.bands;
  d["cutoff"] = w.cutoff_ry;
  d["density_cutoff"] = w.density_cutoff_ry;
  d["lattice"] = rows(std::vector<gw::Vec3d>(w.lattice.begin(), w.lattice.end()));
  d["reciprocal"] = rows(std::vector<gw::Vec3d>(w.reciprocal.begin(), w.reciprocal.end()));
  d["atom_positions"] = rows(w.atom_positions);
  const std::size_t atoms = w.atomic_numbers.size();
  d["atomic_numbers"] = to_numpy(std::move(w.atomic_numbers), {atoms});
  d["fft_grid"] = row(w.fft_grid);
  d["kgrid"] = row(w.kgrid);
  d["kshift"] = row(w.kshift);
  d["kpoints"] = rows(w.kpoints);
  d["weights"] = to_numpy(std::move(w.weights), {nk});
  d["gvectors"] = rows(w.gvectors);
  d["gvector_counts"] = to_numpy(std::move(w.gvector_counts), {nk});
  d["kgvectors"] = rows(w.kgvectors);
  d["energies"] = to_numpy(std::move(w.energies), {ns, nk, nbands});
  d["occupations"] = to_numpy(std::move(w.occupations), {ns, nk, nbands});
  if (w.real)
    d["coefficients"] = to_numpy(std::move(w.real_coefficients), {ns * nbands * total});
  else
    d["coefficients"] = to_numpy(std::move(w.complex_coefficients), {ns * nbands * total});
  return d;
}

nb::dict read_wavefunctions(const std::string& path) {
  gw::Wavefunctions w;
  {
    nb::gil_scoped_release release;
    w = gw::read_wavefunctions(path);
  }
  return to_dict(std::move(w));
}

// Progress lines go to Python's callable when one is given (with the GIL), else nowhere. A borrowed
// handle: the caller's argument outlives the run, and copies of the function need no reference count.
gw::RunProgress progress_to(nb::handle callback) {
  if (callback.is_none()) return {};
  return [callback](const std::string& line) {
    nb::gil_scoped_acquire gil;
    callback(line);
  };
}

// The mean field and the file written ("" when none), as `quasar gw epm INPUT [--output OUTPUT]`.
nb::dict epm(const std::string& input, const std::string& output, const std::string& device, nb::object progress) {
  gw::EpmRun run;
  const gw::RunProgress say = progress_to(progress);
  {
    nb::gil_scoped_release release;
    device::Context ctx(parse_backend(device));
    run = gw::run_epm(input, output, ctx, say);
  }
  nb::dict d;
  d["written"] = run.written;
  d["wavefunctions"] = to_dict(std::move(run.wfn));
  return d;
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
  nb::module_ g = m.def_submodule("gw", "GW: the mean field, its files, Epsilon and Sigma");
  g.attr("rydberg_ev") = gw::kRydbergEv;
  g.def("read_wavefunctions", &read_wavefunctions, "path"_a);
  g.def("epm", &epm, "input"_a, "output"_a, "device"_a, "progress"_a.none());
  g.def("read_epsilon", &read_epsilon, "path"_a);
  g.def("epsilon", &epsilon, "input"_a, "wfn"_a, "wfnq"_a, "output"_a, "device"_a, "progress"_a.none());
  g.def("sigma", &sigma, "input"_a, "wfn"_a, "epsilon"_a, "device"_a, "progress"_a.none());
#else
  (void)m;
#endif
}

}  // namespace quasar::python
