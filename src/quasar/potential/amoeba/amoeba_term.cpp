#include "quasar/potential/amoeba/amoeba_term.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>

#include "quasar/core/error.hpp"
#include "quasar/io/text.hpp"
#include "quasar/potential/amoeba/induce_gpu.hpp"
#include "quasar/potential/amoeba/multipole_frame.hpp"
#include "quasar/potential/amoeba/multipole_term.hpp"
#include "quasar/potential/amoeba/pme_multipole.hpp"
#include "quasar/potential/amoeba/polar_gpu.hpp"
#include "quasar/potential/amoeba/valence_terms.hpp"

namespace quasar::amoeba {

namespace {
std::string short_name(Term t) {
  std::string k = term_keyword(t);
  return k.substr(0, k.size() - 4);  // "bondterm" -> "bond"
}

// Host copies of atoms on the CUDA backend for the terms that run on the CPU: positions, forces and
// the index map, with a view of them (the device view's cell and sizes).
struct HostAtoms {
  std::vector<double> x, y, z, fx, fy, fz;
  std::vector<int> index_of;
  AtomsRef ref;
  explicit HostAtoms(const AtomsRef& a) : ref(a) {
    const std::size_t n = static_cast<std::size_t>(a.n), bytes = n * sizeof(double);
    for (auto* v : {&x, &y, &z, &fx, &fy, &fz}) v->resize(n);
    index_of.resize(n);
    device::copy_to_host(x.data(), a.x, bytes);
    device::copy_to_host(y.data(), a.y, bytes);
    device::copy_to_host(z.data(), a.z, bytes);
    device::copy_to_host(index_of.data(), a.index_of, n * sizeof(int));
    ref.x = x.data(), ref.y = y.data(), ref.z = z.data();
    ref.fx = fx.data(), ref.fy = fy.data(), ref.fz = fz.data();
    ref.index_of = index_of.data();
  }
};

// add_result into outputs on the device: their host copies take the result as on the CPU and go back.
void add_result_on_device(const ElectrostaticResult& r, const AtomsRef& device_atoms, HostAtoms& host,
                          const ComputeRequest& req, ForceOutput& out) {
  const std::size_t n = static_cast<std::size_t>(device_atoms.n), bytes = n * sizeof(double);
  device::copy_to_host(host.fx.data(), device_atoms.fx, bytes);
  device::copy_to_host(host.fy.data(), device_atoms.fy, bytes);
  device::copy_to_host(host.fz.data(), device_atoms.fz, bytes);
  ForceOutput h(Backend::Cpu);
  device::copy_to_host(h.term_totals(), out.term_totals(), ForceOutput::kTotals * sizeof(double));
  if (req.per_atom) {
    h.atom_energy.resize(n);
    h.atom_virial.resize(9 * n);
    out.atom_energy.download(h.atom_energy.data(), n);
    out.atom_virial.download(h.atom_virial.data(), 9 * n);
  }
  add_result(r, host.ref, req, h);
  device::copy_to_device(device_atoms.fx, host.fx.data(), bytes);
  device::copy_to_device(device_atoms.fy, host.fy.data(), bytes);
  device::copy_to_device(device_atoms.fz, host.fz.data(), bytes);
  device::copy_to_device(out.term_totals(), h.term_totals(), ForceOutput::kTotals * sizeof(double));
  if (req.per_atom) {
    out.atom_energy.upload(h.atom_energy.data(), n);
    out.atom_virial.upload(h.atom_virial.data(), 9 * n);
  }
}
}  // namespace

AmoebaTerm::AmoebaTerm(std::shared_ptr<const Parameters> parameters, Term term)
    : parameters_(std::move(parameters)), term_(term) {
  if (!is_valence_term(term) && term != Term::Vdw && term != Term::Multipole && term != Term::Polarization) throw Error(std::string("not yet supported: ") + term_name(term));
}

std::string AmoebaTerm::name() const { return short_name(term_); }

void AmoebaTerm::set_precision(Precision p) {
  if (p == Precision::Mixed16) throw Error(name() + ": precision mixed16 is not offered for AMOEBA (double, mixed32)");
  precision_ = p;
}

void AmoebaTerm::bind(const SystemSetup& setup) {
  const Parameters& p = *parameters_;
  if (setup.atom_types.size() != setup.atom_count)
    throw Error("amoeba: the system's atom types are not known (a Tinker .xyz file gives them)");
  std::vector<int> types(setup.atom_count);
  for (std::size_t i = 0; i < setup.atom_count; ++i) {
    const std::string& name = setup.type_names[static_cast<std::size_t>(setup.atom_types[i])];
    double v = 0;
    if (!io::parse_finite(name, v) || !(v >= 1 && v <= 1e6) || v != std::floor(v) || !p.atoms.count(static_cast<int>(v)))
      throw InputError(p.parameter_path, 0, "atom " + std::to_string(i + 1) + " has type '" + name +
                                                "', which is no atom type of this parameter file");
    types[i] = static_cast<int>(v);
  }
  std::vector<std::vector<int>> neighbours(setup.atom_count);
  const BondedSet& bonds = setup.topology.bonds;
  for (std::size_t k = 0; k < bonds.size(); ++k) {
    const int* e = bonds.entry(k);
    if (e[0] < 0 || e[1] < 0 || static_cast<std::size_t>(std::max(e[0], e[1])) >= setup.atom_count)
      throw Error("amoeba: a bond names an atom outside the system");
    neighbours[static_cast<std::size_t>(e[0])].push_back(e[1]);
    neighbours[static_cast<std::size_t>(e[1])].push_back(e[0]);
  }
  vdw_pairs_ = -1;
  vdw_pairs_on_device_ = false;
  valence_gpu_.ready = vdw_gpu_.ready = false;
  if (term_ == Term::Vdw) vdw_ = vdw_system(p, types, neighbours);
  else if (term_ == Term::Multipole || term_ == Term::Polarization) electrostatics_ = electrostatic_system(p, types, neighbours);
  else entries_ = valence_entries(p, types, neighbours);
  atoms_ = setup.atom_count;
  bound_ = true;
}

long AmoebaTerm::entries() const {
  const bool pairwise = term_ == Term::Vdw || term_ == Term::Multipole || term_ == Term::Polarization;
  if (pairwise && vdw_pairs_on_device_) {
    double pairs = 0;
    vdw_gpu_.pairs.download(&pairs, 1);
    return static_cast<long>(pairs);
  }
  return pairwise ? vdw_pairs_ : static_cast<long>(valence_entries_count());
}

std::size_t AmoebaTerm::valence_entries_count() const {
  switch (term_) {
    case Term::Bond: return entries_.bonds.size();
    case Term::Angle: return entries_.angles.size();
    case Term::StretchBend: return entries_.strbnds.size();
    case Term::Urey: return entries_.ureys.size();
    case Term::OutOfPlane: return entries_.opbends.size();
    case Term::Torsion: return entries_.torsions.size();
    case Term::PiTorsion: return entries_.pitors.size();
    case Term::TorsionTorsion: return entries_.tortors.size();
    case Term::AngleTorsion: return entries_.angtors.size();
    case Term::StretchTorsion: return entries_.strtors.size();
    default: return 0;
  }
}

void AmoebaTerm::compute(AtomState& atoms, NeighborRefs, const ComputeRequest& req, ForceOutput& out) {
  if (!timing_) return compute_term(atoms, req, out);
  using Clock = std::chrono::steady_clock;
  const bool gpu = atoms.backend() == Backend::Cuda;
  if (gpu) device::synchronize();  // earlier work is not this term's
  times_ = Times{};
  const auto t0 = Clock::now();
  compute_term(atoms, req, out);
  if (gpu) device::synchronize();
  times_.total = std::chrono::duration<double>(Clock::now() - t0).count();
}

void AmoebaTerm::compute_term(AtomState& atoms, const ComputeRequest& req, ForceOutput& out) {
  if (!bound_) throw Error("amoeba " + name() + ": computed before it was bound to a system");
  if (static_cast<std::size_t>(atoms.size()) != atoms_)
    throw Error("amoeba " + name() + ": bound to a system of " + std::to_string(atoms_) + " atoms, given " +
                std::to_string(atoms.size()));
  const bool gpu = atoms.backend() == Backend::Cuda;
  // A structure without a cell takes the key's, as Tinker does.
  AtomsRef a = atoms.ref();
  const bool periodic = a.box.periodic[0] || a.box.periodic[1] || a.box.periodic[2];
  if (!periodic && parameters_->cell) {
    if (a.system) throw Error("amoeba " + name() + ": a key's cell applies to one system, not to a batch");
    a.box = *parameters_->cell;
  }
  if (term_ == Term::Multipole || term_ == Term::Polarization) {
    const std::string what = std::string(term_name(term_));
    if (a.system) throw Error("amoeba " + name() + ": computes one system at a time, not a batch");
    const ElectrostaticSystem& e = electrostatics_;
    PairGeometry geometry = electrostatic_geometry(*parameters_, e, a.box, periodic || parameters_->cell.has_value(), what);
    geometry.mixed = gpu && precision_ == Precision::Mixed32;  // the GPU's pair kernels in float (mixed_arith.hpp)
    std::optional<HostAtoms> host;  // on the GPU: the CPU computes on a host copy, PME on the GPU
    if (gpu) host.emplace(a);
    if (gpu && e.ewald) {
      if (!pme_gpu_) pme_gpu_ = std::make_unique<PmeGpu>();
      geometry.pme_gpu = pme_gpu_.get();
    }
    if (gpu && term_ == Term::Multipole) {
      if (!mpole_gpu_) mpole_gpu_ = std::make_unique<MpoleGpu>();
      geometry.mpole_gpu = mpole_gpu_.get();
    }
    const std::vector<Vec3> r = input_positions(gpu ? host->ref : a);
    // In a cell, the pairs within the cutoffs (the real-space one, and the solver preconditioner's)
    // from the cell lists: every pair loop is then O(N).
    PairCandidates candidates;
    if (geometry.periodic) {
      const double reach = term_ == Term::Polarization ? std::max(geometry.cutoff, e.usolve_cutoff) : geometry.cutoff;
      candidates = pair_candidates(r, geometry.box, reach);
      geometry.candidates = &candidates;
    }
    ElectrostaticResult res;
    if (term_ == Term::Multipole) {
      EwaldTimes parts;
      res = e.ewald ? multipole_ewald(e, geometry, r, req.per_atom, timing_ ? &parts : nullptr)
                    : multipole_energy(e, geometry, r, req.per_atom);
      times_.real_space = parts.real_space;
      times_.reciprocal = parts.reciprocal;
    } else {
      const auto t0 = std::chrono::steady_clock::now();
      std::optional<PolarPairSums> pair_sums;
      std::optional<InduceGpu> device;
#ifdef QUASAR_HAVE_CUDA
      // On the GPU the fields and the solve run on the device (the reciprocal part of Ewald sums
      // through geometry.pme_gpu), and the gradient's pairs on the dipoles left there (polar_gpu.hpp);
      // the reciprocal part and the frames' chain rule from the host's copies.
      if (gpu) {
        device.emplace(e, geometry, r);
        ReciprocalFieldHook hook;
        if (geometry.ewald_alpha > 0)
          hook = geometry.pme_gpu ? device_reciprocal_hook(*geometry.pme_gpu, geometry, r)
                                  : host_reciprocal_hook(geometry, r);
        induced_ = device->solve(lab_moments(e, geometry, r), hook);
      }
#endif
      if (!device) induced_ = induce(e, geometry, r);
      times_.induce = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      times_.iterations = induced_.iterations;
      if (device) pair_sums = polar_pair_sums_gpu(*device, e.mutual, e.electric / 2);
      res = polarization_energy(e, geometry, r, induced_, req.per_atom, pair_sums ? &*pair_sums : nullptr);
    }
    vdw_pairs_ = res.pairs;
    vdw_pairs_on_device_ = false;
    if (gpu) add_result_on_device(res, a, *host, req, out);
    else add_result(res, a, req, out);
  } else if (!gpu) {
    if (term_ == Term::Vdw) vdw_pairs_ = add_vdw(vdw_, a, req, out);
    else add_valence_term(term_, entries_, parameters_->header, a, req, out);
  } else {
#ifdef QUASAR_HAVE_CUDA
    if (term_ == Term::Vdw) {
      if (a.system) throw Error("amoeba vdw: computes one system at a time on the GPU, not a batch");
      if (!vdw_gpu_.ready) prepare_vdw_gpu(vdw_gpu_, vdw_);
      vdw_compute_cuda(vdw_gpu_, vdw_, a, req, out, precision_);
      vdw_pairs_on_device_ = true;
    } else {
      if (!valence_gpu_.ready) prepare_valence_gpu(valence_gpu_, term_, entries_, parameters_->header, atoms_);
      valence_compute_cuda(valence_gpu_, a, req, out, precision_);
    }
#else
    throw_no_cuda("amoeba on the GPU");
#endif
  }
}

PairGeometry electrostatic_geometry(const Parameters& p, const ElectrostaticSystem& e, const Box& box, bool periodic,
                                   const std::string& what) {
  PairGeometry geometry;
  if (periodic) {
    geometry.periodic = true;
    geometry.box = box;
    geometry.cutoff = e.ewald ? e.ewald_cutoff : e.cutoff > 0 ? e.cutoff : 9.0;
    if (e.ewald) {  // the key's Ewald settings, or Tinker's defaults
      geometry.ewald_alpha = e.ewald_alpha > 0 ? e.ewald_alpha : ewald_alpha(e.ewald_cutoff);
      geometry.pme_order = e.pme_order;
      for (int d = 0; d < 3; ++d) {
        const Vec3 v = box.h.r[d];
        geometry.pme_size[static_cast<std::size_t>(d)] =
            e.pme_grid[static_cast<std::size_t>(d)] > 0 ? e.pme_grid[static_cast<std::size_t>(d)]
                                                        : pme_grid_size(std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z));
      }
    }
    for (int c = 0; c < 3; ++c)
      if (box.periodic[c] && 2 * geometry.cutoff > box.plane_spacing(c))
        throw InputError(p.key_path, 0,
                         "not yet supported: " + what + " with a cutoff of more than half the cell (Tinker's replicas)");
  } else {
    if (e.ewald) throw InputError(p.key_path, 0, "'ewald' needs a periodic cell (" + what + ")");
    if (e.cutoff > 0) geometry.cutoff = e.cutoff;
  }
  return geometry;
}

ForceField load_tinker_force_field(const std::string& key_path, const std::string& parameter_file) {
  auto p = std::make_shared<const Parameters>(read_parameters(key_path, parameter_file));
  auto on = [&](Term t) { return p->term_on[static_cast<std::size_t>(t)]; };
  const struct {
    Term term;
    bool present;
  } valence[] = {{Term::Bond, !p->bonds.empty()},         {Term::Angle, !p->angles.empty()},
                 {Term::StretchBend, !p->strbnds.empty()}, {Term::Urey, !p->ureys.empty()},
                 {Term::OutOfPlane, !p->opbends.empty()},  {Term::Torsion, !p->torsions.empty()},
                 {Term::PiTorsion, !p->pitors.empty()},    {Term::TorsionTorsion, !p->tortors.empty()},
                 {Term::AngleTorsion, !p->angtors.empty()}, {Term::StretchTorsion, !p->strtors.empty()},
                 {Term::Vdw, !p->vdw.empty()},            {Term::Multipole, !p->multipole_list.empty()},
                 {Term::Polarization, !p->polarize.empty() && !p->multipole_list.empty()}};
  ForceField ff;
  for (const auto& t : valence)
    if (on(t.term) && t.present) ff.add(std::make_shared<AmoebaTerm>(p, t.term));
  if (ff.empty()) throw InputError(key_path, 0, "the key leaves no energy term on");
  return ff;
}

std::string tinker_term_name(const std::string& name) {
  for (int t = 0; t < kTerms; ++t)
    if (short_name(static_cast<Term>(t)) == name) return term_name(static_cast<Term>(t));
  return "";
}

}  // namespace quasar::amoeba
