// The wavefunction file (docs/formats/gw-wavefunctions.md): groups and datasets of HDF5, written in
// memory and read back with every size checked against the others before anything is allocated.
#include "quasar/gw/wavefunctions.hpp"

#include <cmath>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <sstream>

#include "quasar/core/error.hpp"
#include "quasar/io/hdf5/hdf5.hpp"
#include "quasar/io/read.hpp"

namespace quasar::gw {

namespace {

constexpr const char* kFormat = "quasar-gw-wavefunctions";
constexpr long kVersion = 1;

template <class Row>
std::vector<double> flat(const std::vector<Row>& rows) {
  std::vector<double> out;
  for (const Row& r : rows) out.insert(out.end(), r.begin(), r.end());
  return out;
}
std::vector<int> flat_ints(const std::vector<GVector>& rows) {
  std::vector<int> out;
  for (const GVector& r : rows) out.insert(out.end(), r.begin(), r.end());
  return out;
}

std::vector<GVector> gvectors_of(const h5::Reader& in, const std::string& name, hsize_t n) {
  const std::vector<long> v = in.integers(name, {n, 3});
  std::vector<GVector> out(n);
  for (hsize_t i = 0; i < n; ++i)
    for (int d = 0; d < 3; ++d) {
      const long x = v[i * 3 + d];
      if (x < -100000 || x > 100000) in.fail("dataset " + name + ": G-vector component " + std::to_string(x) + " out of range");
      out[i][d] = static_cast<int>(x);
    }
  return out;
}

hsize_t rows_of(const h5::Reader& in, const std::string& name, std::size_t rank) {
  const h5::Reader::Array a = in.array(name);
  if (a.shape.size() != rank || (rank == 2 && a.shape[1] != 3))
    in.fail("dataset " + name + " has shape " + h5::shape_text(a.shape) + (rank == 2 ? ", expected [N, 3]" : ", expected [N]"));
  return a.shape[0];
}

}  // namespace

std::size_t Wavefunctions::kgvector_offset(std::size_t k) const {
  std::size_t o = 0;
  for (std::size_t i = 0; i < k; ++i) o += static_cast<std::size_t>(gvector_counts[i]);
  return o;
}

std::size_t Wavefunctions::coefficient_offset(int spin, std::size_t k, int band) const {
  const std::size_t per_spin = total_kgvectors() * static_cast<std::size_t>(bands);
  return static_cast<std::size_t>(spin) * per_spin + kgvector_offset(k) * static_cast<std::size_t>(bands) +
         static_cast<std::size_t>(band) * static_cast<std::size_t>(gvector_counts[k]);
}

std::string Wavefunctions::problem() const {
  if (spins < 1 || spins > 2) return "spins must be 1 or 2";
  if (bands < 1) return "bands must be >= 1";
  if (!(cutoff_ry > 0) || !(density_cutoff_ry >= cutoff_ry)) return "cutoffs must be > 0, the density's >= the wavefunctions'";
  for (const Vec3d& v : lattice)
    for (double x : v)
      if (!std::isfinite(x)) return "the lattice vectors must be finite";
  if (atom_positions.size() != atomic_numbers.size()) return "one atomic number per atom";
  const std::size_t nk = kpoints.size();
  if (nk == 0) return "no k-points";
  if (weights.size() != nk || gvector_counts.size() != nk) return "one weight and one G-vector count per k-point";
  double total = 0;
  for (double w : weights) {
    if (!(w >= 0) || !std::isfinite(w)) return "weights must be finite and >= 0";
    total += w;
  }
  if (std::abs(total - 1) > 1e-10) return "the weights must sum to 1";
  std::size_t sum = 0;
  for (int c : gvector_counts) {
    if (c < bands) return "every k-point needs at least as many G-vectors as bands";
    sum += static_cast<std::size_t>(c);
  }
  if (sum != kgvectors.size()) return "the k-points' G-vectors do not add up to their counts";
  const std::size_t states = static_cast<std::size_t>(spins) * nk * static_cast<std::size_t>(bands);
  if (energies.size() != states || occupations.size() != states) return "one energy and one occupation per state";
  for (std::size_t i = 0; i < states; ++i)
    if (!std::isfinite(energies[i]) || !(occupations[i] >= 0 && occupations[i] <= 1))
      return "energies must be finite and occupations in [0, 1]";
  const std::size_t n = static_cast<std::size_t>(spins) * static_cast<std::size_t>(bands) * sum;
  if ((real ? real_coefficients.size() : complex_coefficients.size()) != n ||
      (real ? complex_coefficients.size() : real_coefficients.size()) != 0)
    return "the coefficients must be spins x bands x the k-points' G-vectors, of the file's flavour only";
  return "";
}

std::string wavefunctions_difference(const Wavefunctions& a, const Wavefunctions& b) {
  // Bitwise: the file stores every double as it is.
  auto same = [](const auto& x, const auto& y) {
    return x.size() == y.size() && (x.empty() || std::memcmp(x.data(), y.data(), x.size() * sizeof(*x.data())) == 0);
  };
  auto one = [&](const auto& x, const auto& y) { return std::memcmp(&x, &y, sizeof x) == 0; };
  if (a.real != b.real || a.spins != b.spins || a.bands != b.bands) return "flavour, spins or bands";
  if (!one(a.cutoff_ry, b.cutoff_ry) || !one(a.density_cutoff_ry, b.density_cutoff_ry)) return "cutoffs";
  if (!one(a.lattice, b.lattice) || !one(a.reciprocal, b.reciprocal)) return "lattice";
  if (!same(a.atom_positions, b.atom_positions) || a.atomic_numbers != b.atomic_numbers) return "atoms";
  if (a.fft_grid != b.fft_grid || a.kgrid != b.kgrid || !one(a.kshift, b.kshift)) return "grids";
  if (!same(a.kpoints, b.kpoints) || !same(a.weights, b.weights)) return "k-points";
  if (a.gvectors != b.gvectors || a.gvector_counts != b.gvector_counts || a.kgvectors != b.kgvectors) return "G-vectors";
  if (!same(a.energies, b.energies) || !same(a.occupations, b.occupations)) return "energies or occupations";
  if (!same(a.real_coefficients, b.real_coefficients) || !same(a.complex_coefficients, b.complex_coefficients))
    return "coefficients";
  return "";
}

std::vector<unsigned char> wavefunctions_image(const Wavefunctions& w) {
  if (std::string p = w.problem(); !p.empty()) throw Error("cannot write the wavefunctions: " + p);
  const h5::Handle file = h5::create_memory_file();
  const hid_t f = file.id();
  const hsize_t nk = w.kpoints.size(), nat = w.atom_positions.size(), ns = static_cast<hsize_t>(w.spins),
                nb = static_cast<hsize_t>(w.bands);
  h5::set_attribute(f, "/", "format", std::string(kFormat));
  h5::set_attribute(f, "/", "version", kVersion);
  h5::set_attribute(f, "/", "flavour", std::string(w.real ? "real" : "complex"));
  h5::set_attribute(f, "/", "spins", static_cast<long>(w.spins));
  h5::set_attribute(f, "/", "bands", static_cast<long>(w.bands));
  h5::set_attribute(f, "/", "cutoff", w.cutoff_ry);
  h5::set_attribute(f, "/", "density_cutoff", w.density_cutoff_ry);
  h5::set_attribute(f, "/", "energy_units", std::string("Ry"));
  h5::create_group(f, "/lattice");
  h5::write_doubles(f, "/lattice/vectors", {3, 3}, flat(std::vector<Vec3d>(w.lattice.begin(), w.lattice.end())).data());
  h5::write_doubles(f, "/lattice/reciprocal", {3, 3},
                    flat(std::vector<Vec3d>(w.reciprocal.begin(), w.reciprocal.end())).data());
  h5::create_group(f, "/atoms");
  h5::write_doubles(f, "/atoms/positions", {nat, 3}, flat(w.atom_positions).data());
  h5::write_integers(f, "/atoms/numbers", {nat}, w.atomic_numbers.data());
  h5::write_integers(f, "/fft_grid", {3}, w.fft_grid.data());
  h5::create_group(f, "/kpoints");
  h5::write_doubles(f, "/kpoints/coordinates", {nk, 3}, flat(w.kpoints).data());
  h5::write_doubles(f, "/kpoints/weights", {nk}, w.weights.data());
  h5::write_integers(f, "/kpoints/grid", {3}, w.kgrid.data());
  h5::write_doubles(f, "/kpoints/shift", {3}, w.kshift.data());
  h5::write_integers(f, "/gvectors", {w.gvectors.size(), 3}, flat_ints(w.gvectors).data());
  h5::create_group(f, "/wavefunctions");
  h5::write_integers(f, "/wavefunctions/gvector_counts", {nk}, w.gvector_counts.data());
  h5::write_integers(f, "/wavefunctions/gvectors", {w.kgvectors.size(), 3}, flat_ints(w.kgvectors).data());
  const hsize_t n = ns * nb * w.kgvectors.size();
  if (w.real) {
    h5::write_doubles(f, "/wavefunctions/coefficients", {n}, w.real_coefficients.data());
  } else {
    // complex<double> is two doubles, real part first.
    h5::write_doubles(f, "/wavefunctions/coefficients", {n, 2}, reinterpret_cast<const double*>(w.complex_coefficients.data()));
  }
  h5::write_doubles(f, "/energies", {ns, nk, nb}, w.energies.data());
  h5::write_doubles(f, "/occupations", {ns, nk, nb}, w.occupations.data());
  return h5::file_image(f);
}

void write_wavefunctions(const std::string& path, const Wavefunctions& w) {
  const std::vector<unsigned char> bytes = wavefunctions_image(w);
  io::write_file_atomically(path, [&](std::ostream& out) {
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  });
}

Wavefunctions read_wavefunctions(const void* bytes, std::size_t size, const std::string& origin) {
  const h5::Handle file = h5::open_checked(bytes, size, origin, kFormat, kVersion, "a wavefunction file");
  const h5::Reader in(file.id(), origin, size);
  Wavefunctions w;
  const std::string flavour = in.string_attribute("/", "flavour");
  if (flavour != "real" && flavour != "complex") in.fail("attribute 'flavour' of /: '" + flavour + "' (valid: real, complex)");
  w.real = flavour == "real";
  const double spins = in.number_attribute("/", "spins"), bands = in.number_attribute("/", "bands");
  if (spins != 1 && spins != 2) in.fail("attribute 'spins' of /: must be 1 or 2");
  if (!(bands >= 1 && bands <= 1e6) || bands != std::floor(bands)) in.fail("attribute 'bands' of /: must be an integer >= 1");
  w.spins = static_cast<int>(spins);
  w.bands = static_cast<int>(bands);
  w.cutoff_ry = in.number_attribute("/", "cutoff");
  w.density_cutoff_ry = in.number_attribute("/", "density_cutoff");
  if (in.string_attribute("/", "energy_units") != "Ry") in.fail("attribute 'energy_units' of /: must be \"Ry\"");
  const std::vector<double> lattice = in.doubles("/lattice/vectors", {3, 3});
  const std::vector<double> reciprocal = in.doubles("/lattice/reciprocal", {3, 3});
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) w.lattice[i][j] = lattice[i * 3 + j], w.reciprocal[i][j] = reciprocal[i * 3 + j];
  const hsize_t nat = rows_of(in, "/atoms/positions", 2);
  const std::vector<double> positions = in.doubles("/atoms/positions", {nat, 3});
  for (hsize_t i = 0; i < nat; ++i) w.atom_positions.push_back({positions[3 * i], positions[3 * i + 1], positions[3 * i + 2]});
  for (long z : in.integers("/atoms/numbers", {nat})) {
    if (z < 0 || z > 1000) in.fail("dataset /atoms/numbers: atomic number " + std::to_string(z) + " out of range");
    w.atomic_numbers.push_back(static_cast<int>(z));
  }
  const std::vector<long> fft = in.integers("/fft_grid", {3}), grid = in.integers("/kpoints/grid", {3});
  for (int d = 0; d < 3; ++d) {
    if (fft[d] < 1 || fft[d] > 100000 || grid[d] < 0 || grid[d] > 100000)
      in.fail("datasets /fft_grid and /kpoints/grid: sizes out of range");
    w.fft_grid[d] = static_cast<int>(fft[d]);
    w.kgrid[d] = static_cast<int>(grid[d]);
  }
  const std::vector<double> shift = in.doubles("/kpoints/shift", {3});
  w.kshift = {shift[0], shift[1], shift[2]};
  const hsize_t nk = rows_of(in, "/kpoints/coordinates", 2);
  const std::vector<double> k = in.doubles("/kpoints/coordinates", {nk, 3});
  for (hsize_t i = 0; i < nk; ++i) w.kpoints.push_back({k[3 * i], k[3 * i + 1], k[3 * i + 2]});
  w.weights = in.doubles("/kpoints/weights", {nk});
  w.gvectors = gvectors_of(in, "/gvectors", rows_of(in, "/gvectors", 2));
  const hsize_t total = rows_of(in, "/wavefunctions/gvectors", 2);
  for (long c : in.integers("/wavefunctions/gvector_counts", {nk})) {
    if (c < 1 || c > static_cast<long>(total)) in.fail("dataset /wavefunctions/gvector_counts: count " + std::to_string(c) + " out of range");
    w.gvector_counts.push_back(static_cast<int>(c));
  }
  w.kgvectors = gvectors_of(in, "/wavefunctions/gvectors", total);
  const hsize_t ns = static_cast<hsize_t>(w.spins), nb = static_cast<hsize_t>(w.bands);
  w.energies = in.doubles("/energies", {ns, nk, nb});
  w.occupations = in.doubles("/occupations", {ns, nk, nb});
  const hsize_t n = ns * nb * total;
  if (w.real) {
    w.real_coefficients = in.doubles("/wavefunctions/coefficients", {n});
  } else {
    const std::vector<double> c = in.doubles("/wavefunctions/coefficients", {n, 2});
    w.complex_coefficients.resize(n);
    for (hsize_t i = 0; i < n; ++i) w.complex_coefficients[i] = {c[2 * i], c[2 * i + 1]};
  }
  for (const std::vector<double>* v : std::initializer_list<const std::vector<double>*>{
           &w.real_coefficients, &positions, &lattice, &reciprocal, &shift, &k})
    for (double x : *v)
      if (!std::isfinite(x)) in.fail("non-finite values in the file");
  for (const auto& c : w.complex_coefficients)
    if (!std::isfinite(c.real()) || !std::isfinite(c.imag())) in.fail("non-finite coefficients");
  if (std::string p = w.problem(); !p.empty()) in.fail(p);
  return w;
}

Wavefunctions read_wavefunctions(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw InputError(path, 0, "cannot open the wavefunction file");
  const std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  return read_wavefunctions(bytes.data(), bytes.size(), path);
}

}  // namespace quasar::gw
