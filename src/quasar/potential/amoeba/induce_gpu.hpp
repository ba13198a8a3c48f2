#pragma once
// AMOEBA's induced dipoles on the GPU, in double (or with the pair sums in mixed32 where
// PairGeometry::mixed asks, mixed_arith.hpp; the solver's vectors stay double), as induced_dipoles.cpp computes them on the CPU and
// with its formulas (field_forms.hpp): the d- and p-scaled direct fields of the lab-frame moments,
// the u-scaled mutual field T u, Tinker's preconditioner and the conjugate gradient for both dipole
// sets (induce_solver.hpp), all on the device. One thread per atom gathers its own partners in
// ascending order (induce_forms.hpp; every atom in the gas phase, in a periodic cell a full list made
// on the host from the CPU's candidate list, pair_list.hpp, uploaded once per evaluation), its scale
// factors found by walking its sorted exclusion partners: no atomics, the same bits every run. Dot
// products are one block's fixed-order sums, whose scalars the host reads to steer the solver.
//
// With Ewald sums the reciprocal-space field and the self field are the caller's, through a hook
// (ReciprocalFieldHook) that takes device arrays: device_reciprocal_hook (the GPU's particle-mesh
// Ewald), or host_reciprocal_hook (copies to the host and calls add_reciprocal_field).
#include <functional>
#include <vector>

#include "quasar/device/array.hpp"
#include "quasar/potential/amoeba/induce_forms.hpp"
#include "quasar/potential/amoeba/induced_dipoles.hpp"
#include "quasar/potential/amoeba/pme_gpu.hpp"

namespace quasar::amoeba {

// Adds to field (device, 3 n doubles, atom-major: field[3 i + a]) the reciprocal-space field of the
// sources plus Ewald's self field (4 alpha^3 / (3 sqrt(pi))) times each site's dipole, i.e. what
// add_reciprocal_field and ewald_self_field add on the CPU. The sources are device arrays, atom-major,
// `width` values per atom in input order: width 13 for lab-frame moments (Tinker's layout, q, d,
// Q / 3 as a full matrix, multipole_pair.hpp), width 3 for dipoles. It adds (field holds the real
// space part, or zeros for the permanent moments). Called from the host between launches on the
// default stream (the work queued before is visible to it; its additions must be queued on that
// stream or done when it returns), for the positions of the evaluation that made the InduceGpu, in
// input order (the hook holds them itself: it is not told them), once for the permanent moments and
// once per dipole product (two to start and up to two per solver step, one per dipole set).
using ReciprocalFieldHook = std::function<void(const double* sources, int width, double* field)>;

// The hook through the CPU's particle-mesh Ewald: a host round trip of sources and field.
ReciprocalFieldHook host_reciprocal_hook(const PairGeometry& g, const std::vector<Vec3>& r);
// The hook through the GPU's (PmeGpu::add_ewald_field): device arrays only; pme is prepared for r
// here and must outlive the hook.
ReciprocalFieldHook device_reciprocal_hook(PmeGpu& pme, const PairGeometry& g, const std::vector<Vec3>& r);

// Vectors as the kernels hold them, 3 n doubles atom-major, and back (n vectors).
std::vector<double> flatten(const std::vector<Vec3>& v);
std::vector<Vec3> unflatten(const std::vector<double>& f, std::size_t n);

// The system's data for InduceArgs, on the host: positions (3 n), polarizabilities, damping, each
// atom's Thole class and the table of a pair's Thole a by classes (thole_of), each atom's exclusion
// partners both ways in ascending order with the scales the CPU's loop takes (the lower atom's
// record), and in a cell the candidate list made full (each atom's partners ascending; empty in the
// gas phase, where every atom is a partner). InduceGpu uploads it; CPU tests run induce_forms.hpp on it.
struct InduceTables {
  int thole_classes = 0;
  std::vector<double> position, alpha, damp, thole_table, scale_d, scale_p, scale_u;
  std::vector<int> thole_class, scale_offset, scale_partner, pair_offset, pair_partner;
};
InduceTables induce_tables(const ElectrostaticSystem& e, const PairGeometry& g, const std::vector<Vec3>& r);
// The arguments of the per-atom sums over the tables' host vectors.
InduceArgs induce_args(const InduceTables& t, const ElectrostaticSystem& e, const PairGeometry& g);

// The system's data on the device for one evaluation (positions, per-atom polarization data, scale
// factors, pair list), and the solver's work arrays. Throws without CUDA.
class InduceGpu {
 public:
  InduceGpu(const ElectrostaticSystem& e, const PairGeometry& g, const std::vector<Vec3>& r);

  // On host vectors, for tests: the direct fields of lab moments M and the mutual field T u, each
  // in real space, plus the hook's part where one is given and Ewald sums are on.
  void direct_fields(const std::vector<Moments>& M, std::vector<Vec3>& field_d, std::vector<Vec3>& field_p,
                     const ReciprocalFieldHook& hook = nullptr);
  std::vector<Vec3> mutual_field(const std::vector<Vec3>& u, const ReciprocalFieldHook& hook = nullptr);

  // The induced dipoles of lab moments M: direct fields (with the hook's part under Ewald sums) and
  // the solve, as induce() does; the result is copied to the host. Ewald without a hook throws.
  InducedDipoles solve(const std::vector<Moments>& M, const ReciprocalFieldHook& hook);

  // Device arrays (3 n, atom-major) of the last solve: fields and dipoles.
  const Array<double>& field_d() const { return field_d_; }
  const Array<double>& field_p() const { return field_p_; }
  const Array<double>& ud() const { return x_[0]; }
  const Array<double>& up() const { return x_[1]; }
  // The lab moments of the last solve (13 n) and the system's device data (polar_gpu.hpp reuses them).
  const Array<double>& moments() const { return moments_; }
  InduceArgs device_args() const;

 private:
  struct DeviceOps;  // induce_solver.hpp's operations on the device arrays
  void mutual_product(const double* u, double* field, const ReciprocalFieldHook& hook);
  void direct_product(const std::vector<Moments>& M, const ReciprocalFieldHook& hook);
  double dot(const Array<double>& a, const Array<double>& b);

  const ElectrostaticSystem& e_;
  const PairGeometry& g_;
  int n_ = 0;
  InduceArgs host_args_;  // the sizes and settings; its pointers are replaced by the device's
  Array<double> position_{Backend::Cuda}, alpha_{Backend::Cuda}, damp_{Backend::Cuda}, thole_table_{Backend::Cuda};
  Array<int> thole_class_{Backend::Cuda};
  Array<int> scale_offset_{Backend::Cuda}, scale_partner_{Backend::Cuda};  // both ways, ascending per atom
  Array<double> scale_d_{Backend::Cuda}, scale_p_{Backend::Cuda}, scale_u_{Backend::Cuda};
  Array<int> pair_offset_{Backend::Cuda}, pair_partner_{Backend::Cuda};  // full list; empty: every atom
  Array<double> moments_{Backend::Cuda}, field_d_{Backend::Cuda}, field_p_{Backend::Cuda};
  Array<double> x_[2]{Array<double>{Backend::Cuda}, Array<double>{Backend::Cuda}};
  Array<double> rs_[2]{Array<double>{Backend::Cuda}, Array<double>{Backend::Cuda}};
  Array<double> z_[2]{Array<double>{Backend::Cuda}, Array<double>{Backend::Cuda}};
  Array<double> p_[2]{Array<double>{Backend::Cuda}, Array<double>{Backend::Cuda}};
  Array<double> product_{Backend::Cuda}, applied_{Backend::Cuda}, scalar_{Backend::Cuda};
};

// induce() with the fields and the solve on the GPU (the lab moments on the host): what the CUDA
// backend's polarization uses. With Ewald sums and no hook, device_reciprocal_hook on g.pme_gpu, or
// host_reciprocal_hook where that is null.
InducedDipoles induce_gpu(const ElectrostaticSystem& e, const PairGeometry& g, const std::vector<Vec3>& r,
                          const ReciprocalFieldHook& hook = nullptr);

}  // namespace quasar::amoeba
