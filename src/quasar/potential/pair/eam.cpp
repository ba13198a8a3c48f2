#include "quasar/potential/pair/eam.hpp"

#include "quasar/core/config.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "quasar/core/error.hpp"
#include "quasar/potential/pair/pair_sums.hpp"

namespace quasar {

namespace {

// Four-point Lagrange resampling of a 1-based table f[1..n] with spacing h at x (LAMMPS's funcfl
// conversion onto a common grid).
double resample(const std::vector<double>& f0, double h, double x) {
  const int n = static_cast<int>(f0.size());
  auto f = [&](int k) { return f0[k - 1]; };
  double p = x / h + 1.0;
  int k = static_cast<int>(p);
  k = std::min(k, n - 2);
  k = std::max(k, 2);
  p -= k;
  p = std::min(p, 2.0);
  const double sixth = 1.0 / 6.0;
  const double c1 = -sixth * p * (p - 1.0) * (p - 2.0);
  const double c2 = 0.5 * (p * p - 1.0) * (p - 2.0);
  const double c3 = -0.5 * p * (p + 1.0) * (p - 2.0);
  const double c4 = sixth * p * (p * p - 1.0);
  return c1 * f(k - 1) + c2 * f(k) + c3 * f(k + 1) + c4 * f(k + 2);
}

// Cubic spline coefficients of f[1..n] (f[0] unused) on a grid of spacing delta, appended to out
// as (n + 1) knots of 7 values.
void append_spline(const std::vector<double>& f, double delta, std::vector<double>& out) {
  const int n = static_cast<int>(f.size()) - 1;
  std::vector<std::array<double, 7>> s(n + 1, std::array<double, 7>{});
  for (int m = 1; m <= n; ++m) s[m][6] = f[m];
  s[1][5] = s[2][6] - s[1][6];
  s[2][5] = 0.5 * (s[3][6] - s[1][6]);
  s[n - 1][5] = 0.5 * (s[n][6] - s[n - 2][6]);
  s[n][5] = s[n][6] - s[n - 1][6];
  for (int m = 3; m <= n - 2; ++m) s[m][5] = ((s[m - 2][6] - s[m + 2][6]) + 8.0 * (s[m + 1][6] - s[m - 1][6])) / 12.0;
  for (int m = 1; m <= n - 1; ++m) {
    s[m][4] = 3.0 * (s[m + 1][6] - s[m][6]) - 2.0 * s[m][5] - s[m + 1][5];
    s[m][3] = s[m][5] + s[m + 1][5] - 2.0 * (s[m + 1][6] - s[m][6]);
  }
  s[n][4] = 0.0;
  s[n][3] = 0.0;
  for (int m = 1; m <= n; ++m) {
    s[m][2] = s[m][5] / delta;
    s[m][1] = 2.0 * s[m][4] / delta;
    s[m][0] = 3.0 * s[m][3] / delta;
  }
  for (const auto& k : s) out.insert(out.end(), k.begin(), k.end());
}

std::vector<double> one_based(const std::vector<double>& v) {
  std::vector<double> f(v.size() + 1, 0.0);
  std::copy(v.begin(), v.end(), f.begin() + 1);
  return f;
}

int pair_index(int a, int b) {  // tables stored for a >= b in the order (0,0), (1,0), (1,1), ...
  if (a < b) std::swap(a, b);
  return a * (a + 1) / 2 + b;
}

}  // namespace

Eam Eam::from_funcfl(const std::map<std::string, std::string>& files) {
  if (files.empty()) throw Error("eam: no funcfl file given");
  Eam e;
  std::vector<EamFuncfl> f;
  for (const auto& [element, path] : files) {
    e.elements_.push_back(element);
    f.push_back(read_eam_funcfl(path));
  }
  // One grid for all files: the finest spacing and the longest range of any of them.
  double rmax = 0, rhomax = 0;
  for (const auto& x : f) {
    e.dr_ = std::max(e.dr_, x.dr);
    e.drho_ = std::max(e.drho_, x.drho);
    rmax = std::max(rmax, (x.nr - 1) * x.dr);
    rhomax = std::max(rhomax, (x.nrho - 1) * x.drho);
    e.cut_ = std::max(e.cut_, x.cut);
  }
  e.nr_ = static_cast<int>(rmax / e.dr_ + 0.5);
  e.nrho_ = static_cast<int>(rhomax / e.drho_ + 0.5);
  e.nelem_ = static_cast<int>(f.size());
  for (const auto& x : f) {
    std::vector<double> fr(e.nrho_ + 1, 0.0), rr(e.nr_ + 1, 0.0);
    for (int m = 1; m <= e.nrho_; ++m) fr[m] = resample(x.frho, x.drho, (m - 1) * e.drho_);
    for (int m = 1; m <= e.nr_; ++m) rr[m] = resample(x.rhor, x.dr, (m - 1) * e.dr_);
    append_spline(fr, e.drho_, e.frho_);
    append_spline(rr, e.dr_, e.rhor_);
  }
  // r*phi from the effective charges: 27.2*0.529 converts Hartree*Bohr to eV*Å as LAMMPS does.
  for (int i = 0; i < e.nelem_; ++i)
    for (int j = 0; j <= i; ++j) {
      std::vector<double> z(e.nr_ + 1, 0.0);
      for (int m = 1; m <= e.nr_; ++m) {
        const double r = (m - 1) * e.dr_;
        z[m] = 27.2 * 0.529 * resample(f[i].zr, f[i].dr, r) * resample(f[j].zr, f[j].dr, r);
      }
      append_spline(z, e.dr_, e.z2r_);
    }
  return e;
}

Eam Eam::from_setfl(const std::string& file) {
  const EamSetfl s = read_eam_setfl(file);
  Eam e;
  e.elements_ = s.elements;
  e.nelem_ = static_cast<int>(s.elements.size());
  e.nr_ = s.nr;
  e.nrho_ = s.nrho;
  e.dr_ = s.dr;
  e.drho_ = s.drho;
  e.cut_ = s.cut;
  for (int i = 0; i < e.nelem_; ++i) {
    append_spline(one_based(s.frho[i]), e.drho_, e.frho_);
    append_spline(one_based(s.rhor[i]), e.dr_, e.rhor_);
  }
  for (const auto& z : s.z2r) append_spline(one_based(z), e.dr_, e.z2r_);
  return e;
}

Eam Eam::from_config(const ConfigTable& t, const std::filesystem::path& base_dir) {
  t.allow_only({"type", "name", "group", "file", "format", "files"});
  auto resolve = [&](const std::string& p) {
    const std::filesystem::path path(p);
    return (path.is_absolute() ? path : base_dir / path).string();
  };
  if (t.has("files")) {
    if (t.has("file")) t.fail("files", "give either 'file' or 'files', not both");
    std::map<std::string, std::string> files;
    const ConfigTable ft = t.require_sub("files");
    for (const auto& [k, v] : *ft.table) {
      files[std::string(k.str())] = resolve(ft.get_string(k.str()));
      if (!std::filesystem::is_regular_file(files[std::string(k.str())]))
        ft.fail(k.str(), "EAM file '" + files[std::string(k.str())] + "' not found");
    }
    if (files.empty()) t.fail("files", "expected one funcfl file per element, e.g. Cu = \"Cu_u3.eam\"");
    return from_funcfl(files);
  }
  const std::string file = resolve(t.get_string("file"));
  if (!std::filesystem::is_regular_file(file)) t.fail("file", "EAM file '" + file + "' not found");
  std::string format = t.get_string("format", "auto");
  if (format == "auto") format = file.size() > 4 && file.substr(file.size() - 4) == ".eam" ? "funcfl" : "setfl";
  if (format == "funcfl") return from_funcfl({{"*", file}});
  if (format == "setfl") return from_setfl(file);
  t.fail("format", "expected \"funcfl\", \"setfl\" or \"auto\", got \"" + format + "\"");
}

void Eam::bind_types(const std::vector<std::string>& names) {
  ntypes_ = static_cast<int>(names.size());
  std::vector<int> map(ntypes_);
  for (int t = 0; t < ntypes_; ++t) {
    auto it = std::find(elements_.begin(), elements_.end(), names[t]);
    if (it == elements_.end()) it = std::find(elements_.begin(), elements_.end(), "*");
    if (it == elements_.end()) {
      std::string known;
      for (const auto& e : elements_) known += " " + e;
      throw Error("eam: atom type '" + names[t] + "' is not in the potential (elements:" + known + ")");
    }
    map[t] = static_cast<int>(it - elements_.begin());
  }
  type2frho_.assign(ntypes_, 0);
  type2rhor_.assign(ntypes_ * ntypes_, 0);
  type2z2r_.assign(ntypes_ * ntypes_, 0);
  for (int i = 0; i < ntypes_; ++i) {
    type2frho_[i] = map[i];
    for (int j = 0; j < ntypes_; ++j) {
      type2rhor_[i * ntypes_ + j] = map[i];
      type2z2r_[i * ntypes_ + j] = pair_index(map[i], map[j]);
    }
  }
  d_frho_ = Array<double>();  // uploaded again by the next compute
}

void Eam::upload(Backend b) {
  if (d_frho_.backend() == b && !d_frho_.empty()) return;
  for (auto* a : {&d_frho_, &d_rhor_, &d_z2r_, &rho_, &fp_}) *a = Array<double>(b);
  for (auto* a : {&d_type2frho_, &d_type2rhor_, &d_type2z2r_}) *a = Array<int>(b);
  d_frho_.assign(frho_);
  d_rhor_.assign(rhor_);
  d_z2r_.assign(z2r_);
  d_type2frho_.assign(type2frho_);
  d_type2rhor_.assign(type2rhor_);
  d_type2z2r_.assign(type2z2r_);
}

EamEval Eam::eval() const {
  return EamEval{d_frho_.data(), d_rhor_.data(), d_z2r_.data(), d_type2frho_.data(), d_type2rhor_.data(),
                 d_type2z2r_.data(), ntypes_, nrho_, nr_, 1.0 / dr_, 1.0 / drho_, (nrho_ - 1) * drho_,
                 cut_ * cut_};
}

void Eam::compute(AtomState& atoms, NeighborRefs lists, const ComputeRequest& req, ForceOutput& out) {
  const NeighborRef& list = lists[0];
  if (ntypes_ != atoms.num_types()) bind_types(atoms.type_names());
  upload(atoms.backend());
  const int n = atoms.size();
  rho_.resize(n);
  fp_.resize(n);
  const EamEval ev = eval();
  if (atoms.backend() == Backend::Cuda) {
#ifdef QUASAR_HAVE_CUDA
    eam_compute_cuda({ev, rho_.data(), fp_.data(), nullptr}, atoms, list, req, out, packed_);
    return;
#else
    throw_no_cuda("eam on the GPU");
#endif
  }
  // CPU reference on a half list: densities, embedding, then pair forces, each pass split over
  // threads the same way (ThreadedHalfListSums); densities of neighbours go into per-thread arrays.
  const AtomsRef a = atoms.ref();
  ThreadedHalfListSums threaded(atoms, req, out, thread_buffers_);
  const int threads = threaded.threads();
  rho_.set_zero();
  density_buffers_.prepare(threads, {rho_.data()}, {static_cast<std::size_t>(n)});
  device::parallel_ranges(n, threads, [&](int t, long begin, long end) {
    double* rho = density_buffers_.get(t, 0);
    for (int i = static_cast<int>(begin); i < end; ++i)
      for (int k = 0; k < list.count[i]; ++k) {
        int j;
        const double r2 = norm2(list.delta(a.box_of(i), a.x, a.y, a.z, i, k, j));
        if (r2 >= ev.cutsq) continue;
        const double r = std::sqrt(r2);
        rho[i] += ev.density(a.type[j], a.type[i], r);
        rho[j] += ev.density(a.type[i], a.type[j], r);
      }
  });
  density_buffers_.reduce();
  // With ghosts (AtomState's n_local) only centres embed: a ghost's density is incomplete.
  const bool ghosts = atoms.n_local() < n;
  auto local = [&](int i) { return a.id[i] < a.n_local ? 1.0 : 0.0; };
  threaded.run(n, [&](HalfListSums& sums, int begin, int end) {
    for (int i = begin; i < end; ++i) {
      double f;
      ev.embed(a.type[i], rho_[i], f, fp_[i]);
      if (ghosts && local(i) == 0) fp_[i] = 0;
      else sums.add_atom_energy(i, f);
    }
  });
  threaded.run(n, [&](HalfListSums& sums, int begin, int end) {
    for (int i = begin; i < end; ++i)
      for (int k = 0; k < list.count[i]; ++k) {
        int j;
        const Vec3 d = list.delta(a.box_of(i), a.x, a.y, a.z, i, k, j);
        const double r2 = norm2(d);
        if (r2 >= ev.cutsq) continue;
        double fpair, phi;
        if (!ghosts) {
          ev.pair(a.type[i], a.type[j], std::sqrt(r2), fp_[i], fp_[j], fpair, phi);
          sums.add_pair(i, j, d, fpair, phi);
          continue;
        }
        const double li = local(i), lj = local(j);
        if (li + lj == 0) continue;
        ev.shared_pair(a.type[i], a.type[j], std::sqrt(r2), fp_[i], fp_[j], 0.5 * (li + lj), fpair, phi);
        sums.add_shared_pair(i, j, li, lj, d, fpair, phi);
      }
  });
  threaded.finish();
}

}  // namespace quasar
