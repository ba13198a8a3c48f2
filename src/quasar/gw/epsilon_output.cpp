// Epsilon's outputs. The text layouts follow BerkeleyGW's Fortran formats (ES25.15E3 for the heads,
// I8 and E20.8 for chi_converge.dat), written here with printf and the exponent rewritten.
#include "quasar/gw/epsilon_output.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "quasar/core/error.hpp"
#include "quasar/io/hdf5/hdf5.hpp"
#include "quasar/io/read.hpp"

namespace quasar::gw {

namespace {

constexpr const char* kFormat = "quasar-gw-epsilon";
constexpr long kVersion = 1;

std::string right(const std::string& s, int width) {
  return static_cast<int>(s.size()) >= width ? s : std::string(static_cast<std::size_t>(width) - s.size(), ' ') + s;
}

// "E+001" for exponent 1 with 3 digits.
std::string exponent_text(int e, int digits) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "E%c%0*d", e < 0 ? '-' : '+', digits, std::abs(e));
  return buf;
}

std::string values(std::complex<double> z, bool real) {
  return fortran_es(z.real(), 25, 15, 3) + (real ? "" : fortran_es(z.imag(), 25, 15, 3));
}

std::string line(int number, const char* label, std::complex<double> z, bool real) {
  char head[64];
  std::snprintf(head, sizeof head, " q-pt %6d%s", number, label);
  return head + values(z, real) + "\n";
}

}  // namespace

std::string fortran_es(double x, int width, int digits, int exponent_digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*E", digits, x);
  std::string s(buf);
  const auto at = s.find('E');
  if (at == std::string::npos) return right(s, width);  // inf or nan
  const int e = std::atoi(s.c_str() + at + 1);
  return right(s.substr(0, at) + exponent_text(e, exponent_digits), width);
}

std::string fortran_e(double x, int width, int digits) {
  if (x == 0) return right("0." + std::string(static_cast<std::size_t>(digits), '0') + "E+00", width);
  char buf[64];
  // d.ddd...E+xx with `digits` significant digits, then shifted to 0.ddd...E+(xx+1).
  std::snprintf(buf, sizeof buf, "%.*E", digits - 1, std::abs(x));
  std::string s(buf);
  const auto at = s.find('E');
  if (at == std::string::npos) return right(s, width);
  const int e = std::atoi(s.c_str() + at + 1) + 1;
  std::string mantissa = s.substr(0, 1) + s.substr(2, at - 2);
  return right(std::string(x < 0 ? "-" : "") + "0." + mantissa + exponent_text(e, 2), width);
}

std::string epsilon_lines(const EpsilonOfQ& e, int number, bool real) {
  std::string out = line(number, ": Head of Epsilon         = ", e.at(e.epsilon, 0, 0), real);
  if (e.size() > 1) out += line(number, ": Epsilon(2, 2)            = ", e.at(e.epsilon, 1, 1), real);
  return out;
}

std::string epsilon_inverse_lines(const EpsilonOfQ& e, int number, bool real) {
  std::string out = line(number, ": Head of Epsilon Inverse = ", e.at(e.epsilon_inverse, 0, 0), real);
  if (e.size() > 1) out += line(number, ": Epsilon Inverse(2, 2)    = ", e.at(e.epsilon_inverse, 1, 1), real);
  return out;
}

std::string chi_converge_text(const EpsilonResult& r) {
  std::string out;
  for (std::size_t iq = 0; iq < r.q.size(); ++iq) {
    const EpsilonOfQ& e = r.q[iq];
    out += "# q=" + fortran_e(e.q[0], 16, 8) + fortran_e(e.q[1], 16, 8) + fortran_e(e.q[2], 16, 8) + "  (qpt " +
           std::to_string(iq + 1) + ")\n";
    out += "#" + right("ncbands", 7) + right("Re chi(0,0)", 20) + right("extrap", 20) + right("Re chi(Gmax,Gmax)", 20) +
           right("extrap", 20) + "\n";
    // The extrapolation in bands over the last tenth of them: (n S(n) - (n - d) S(n - d)) / d.
    const int n = static_cast<int>(e.chi_head_by_bands.size()), d = n / 10;
    auto extrap = [&](const std::vector<double>& s) {
      return d > 0 ? (n * s[static_cast<std::size_t>(n - 1)] - (n - d) * s[static_cast<std::size_t>(n - d - 1)]) / d : 0.0;
    };
    const double eh = extrap(e.chi_head_by_bands), eg = extrap(e.chi_gmax_by_bands);
    for (int c = 0; c < n; ++c) {
      char count[16];
      std::snprintf(count, sizeof count, "%8d", c + 1);
      out += count + fortran_e(e.chi_head_by_bands[static_cast<std::size_t>(c)], 20, 8) + fortran_e(eh, 20, 8) +
             fortran_e(e.chi_gmax_by_bands[static_cast<std::size_t>(c)], 20, 8) + fortran_e(eg, 20, 8) + "\n";
    }
    out += "\n";
  }
  return out;
}

std::string epsilon_log_text(const EpsilonResult& r) {
  std::string out;
  char buf[160];
  for (const EpsilonOfQ& e : r.q) {
    out += "\n\n" + std::string(13, ' ') + "g" + std::string(19, ' ') + "gp" + std::string(9, ' ') +
           "inverse epsilon           nspin= 1\n";
    for (std::size_t i = 0; i < e.size(); ++i)
      for (std::size_t j = i == 0 ? 0 : i - 1; j <= i; ++j) {
        const GVector& g = e.gvectors[i];
        const GVector& gp = e.gvectors[j];
        const std::complex<double> z = e.at(e.epsilon_inverse, i, j);
        std::snprintf(buf, sizeof buf, "     %5d%5d%5d     %5d%5d%5d     %13.8f", g[0], g[1], g[2], gp[0], gp[1], gp[2], z.real());
        out += buf;
        if (!r.real) std::snprintf(buf, sizeof buf, "%13.8f", z.imag()), out += buf;
        out += "\n";
      }
  }
  return out;
}

std::vector<unsigned char> epsilon_file_image(const EpsilonResult& r, const EpsilonInput& input, const Wavefunctions& wfn) {
  const h5::Handle file = h5::create_memory_file();
  const hid_t f = file.id();
  h5::set_attribute(f, "/", "format", std::string(kFormat));
  h5::set_attribute(f, "/", "version", kVersion);
  h5::set_attribute(f, "/", "flavour", std::string(r.real ? "real" : "complex"));
  h5::set_attribute(f, "/", "epsilon_cutoff", input.cutoff_ry);
  h5::set_attribute(f, "/", "number_bands", static_cast<long>(input.bands));
  h5::set_attribute(f, "/", "valence_bands", static_cast<long>(r.valence));
  h5::set_attribute(f, "/", "kpoints", static_cast<long>(r.kpoints));
  h5::set_attribute(f, "/", "volume", r.volume);
  std::vector<double> lattice, reciprocal, q;
  std::vector<int> q0;
  for (int i = 0; i < 3; ++i)
    for (int d = 0; d < 3; ++d) lattice.push_back(wfn.lattice[i][d]), reciprocal.push_back(wfn.reciprocal[i][d]);
  h5::write_doubles(f, "/lattice", {3, 3}, lattice.data());
  h5::write_doubles(f, "/reciprocal", {3, 3}, reciprocal.data());
  for (const EpsilonOfQ& e : r.q) q.insert(q.end(), e.q.begin(), e.q.end()), q0.push_back(e.q0 ? 1 : 0);
  const hsize_t nq = r.q.size();
  h5::write_doubles(f, "/qpoints", {nq, 3}, q.data());
  h5::write_integers(f, "/q0", {nq}, q0.data());
  for (std::size_t iq = 0; iq < r.q.size(); ++iq) {
    const EpsilonOfQ& e = r.q[iq];
    const std::string g = "/q" + std::to_string(iq + 1);
    h5::create_group(f, g);
    const hsize_t n = e.size();
    std::vector<int> gv;
    for (const GVector& x : e.gvectors) gv.insert(gv.end(), x.begin(), x.end());
    h5::write_integers(f, g + "/gvectors", {n, 3}, gv.data());
    h5::write_doubles(f, g + "/coulomb", {n}, e.coulomb.data());
    // Row-major [G][G'][re, im]: element (i, j) of the column-major matrices.
    std::vector<double> m(n * n * 2);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        m[(i * n + j) * 2] = e.epsilon_inverse[i + j * n].real();
        m[(i * n + j) * 2 + 1] = e.epsilon_inverse[i + j * n].imag();
      }
    h5::write_doubles(f, g + "/epsilon_inverse", {n, n, 2}, m.data());
  }
  return h5::file_image(f);
}

void write_epsilon_file(const std::string& path, const EpsilonResult& r, const EpsilonInput& input, const Wavefunctions& wfn) {
  const std::vector<unsigned char> bytes = epsilon_file_image(r, input, wfn);
  io::write_file_atomically(path, [&](std::ostream& out) {
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  });
}

EpsilonResult read_epsilon_file(const void* bytes, std::size_t size, const std::string& origin) {
  const h5::Handle file = h5::open_checked(bytes, size, origin, kFormat, kVersion, "a dielectric-matrix file");
  const h5::Reader in(file.id(), origin, size);
  EpsilonResult r;
  const std::string flavour = in.string_attribute("/", "flavour");
  if (flavour != "real" && flavour != "complex") in.fail("attribute 'flavour' of /: '" + flavour + "' (valid: real, complex)");
  r.real = flavour == "real";
  const double valence = in.number_attribute("/", "valence_bands"), kpoints = in.number_attribute("/", "kpoints");
  if (!(valence >= 1 && valence <= 1e6) || valence != std::floor(valence)) in.fail("attribute 'valence_bands' of /: not an integer >= 1");
  if (!(kpoints >= 1 && kpoints <= 1e9) || kpoints != std::floor(kpoints)) in.fail("attribute 'kpoints' of /: not an integer >= 1");
  r.valence = static_cast<int>(valence);
  r.kpoints = static_cast<int>(kpoints);
  r.volume = in.number_attribute("/", "volume");
  if (!(r.volume > 0) || !std::isfinite(r.volume)) in.fail("attribute 'volume' of /: must be > 0");
  const h5::Reader::Array qa = in.array("/qpoints");
  if (qa.shape.size() != 2 || qa.shape[1] != 3 || qa.shape[0] < 1) in.fail("dataset /qpoints: shape " + h5::shape_text(qa.shape) + ", expected [Q, 3]");
  const hsize_t nq = qa.shape[0];
  const std::vector<long> q0 = in.integers("/q0", {nq});
  for (hsize_t iq = 0; iq < nq; ++iq) {
    EpsilonOfQ e;
    for (int d = 0; d < 3; ++d) {
      e.q[d] = qa.values[iq * 3 + d];
      if (!std::isfinite(e.q[d])) in.fail("dataset /qpoints: a non-finite coordinate");
    }
    if (q0[iq] != 0 && q0[iq] != 1) in.fail("dataset /q0: values must be 0 or 1");
    e.q0 = q0[iq] == 1;
    const std::string g = "/q" + std::to_string(iq + 1);
    const h5::Reader::Array ga = in.array(g + "/gvectors");
    if (ga.shape.size() != 2 || ga.shape[1] != 3 || ga.shape[0] < 1 || !ga.integer)
      in.fail("dataset " + g + "/gvectors: shape " + h5::shape_text(ga.shape) + ", expected integers [n, 3]");
    const hsize_t n = ga.shape[0];
    for (hsize_t i = 0; i < n; ++i) {
      GVector v{};
      for (int d = 0; d < 3; ++d) {
        const double x = ga.values[i * 3 + d];
        if (std::abs(x) > 1e6) in.fail("dataset " + g + "/gvectors: a component beyond 10^6");
        v[d] = static_cast<int>(x);
      }
      e.gvectors.push_back(v);
    }
    e.coulomb = in.doubles(g + "/coulomb", {n});
    const std::vector<double> m = in.doubles(g + "/epsilon_inverse", {n, n, 2});
    e.epsilon_inverse.resize(n * n);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        const double re = m[(i * n + j) * 2], im = m[(i * n + j) * 2 + 1];
        if (!std::isfinite(re) || !std::isfinite(im)) in.fail("dataset " + g + "/epsilon_inverse: a non-finite value");
        e.epsilon_inverse[i + j * n] = {re, im};
      }
    r.q.push_back(std::move(e));
  }
  return r;
}

EpsilonResult read_epsilon_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw InputError(path, 0, "cannot open the dielectric-matrix file");
  const std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  return read_epsilon_file(bytes.data(), bytes.size(), path);
}

std::string epsilon_json(const EpsilonResult& r, const EpsilonInput& input) {
  using nlohmann::json;
  auto z = [&](std::complex<double> x) { return r.real ? json(x.real()) : json::array({x.real(), x.imag()}); };
  json out = {{"format", "quasar-gw-epsilon-summary"},
              {"flavour", r.real ? "real" : "complex"},
              {"epsilon_cutoff_ry", input.cutoff_ry},
              {"number_bands", input.bands},
              {"valence_bands", r.valence},
              {"conduction_bands", r.conduction},
              {"kpoints", r.kpoints},
              {"volume_bohr3", r.volume}};
  json qs = json::array();
  for (std::size_t iq = 0; iq < r.q.size(); ++iq) {
    const EpsilonOfQ& e = r.q[iq];
    json q = {{"index", iq + 1},
              {"q", e.q},
              {"q0", e.q0},
              {"gvectors", e.size()},
              {"fft_grid", e.fft_grid},
              {"head_of_epsilon", z(e.at(e.epsilon, 0, 0))},
              {"head_of_epsilon_inverse", z(e.at(e.epsilon_inverse, 0, 0))},
              {"chi0_head", z(e.at(e.chi, 0, 0))},
              {"chi0_gmax", z(e.at(e.chi, e.size() - 1, e.size() - 1))},
              {"chi0_head_by_conduction_bands", e.chi_head_by_bands},
              {"chi0_gmax_by_conduction_bands", e.chi_gmax_by_bands},
              {"chi0_hermiticity_error", e.hermiticity_error}};
    if (e.size() > 1) {
      q["epsilon_2_2"] = z(e.at(e.epsilon, 1, 1));
      q["epsilon_inverse_2_2"] = z(e.at(e.epsilon_inverse, 1, 1));
    }
    qs.push_back(q);
  }
  out["qpoints"] = qs;
  return out.dump(2) + "\n";
}

}  // namespace quasar::gw
