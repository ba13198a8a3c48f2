#pragma once
// What one atom gathers in the induced-dipole kernels (induce_kernels.cu), written for host and
// device so that the CPU tests run the same code on host arrays (amoeba_field_forms_test): its direct
// fields, its mutual field and its preconditioner product, each a sum over its partners in ascending
// order with the pair formulas of field_forms.hpp, and the filters and cutoffs of the CPU's loops
// (induced_dipoles.cpp). InduceArgs holds the system as raw pointers (host or device).
#include <type_traits>

#include "quasar/core/box.hpp"
#include "quasar/potential/amoeba/field_forms.hpp"

namespace quasar::amoeba {

struct InduceArgs {
  int n = 0;
  bool periodic = false;
  Box box;
  double cutoff = 0, usolve_cutoff = 0, ewald_alpha = 0;  // Å, Å, 1/Å (0: no Ewald sums)
  int thole_classes = 0;
  const double *position = nullptr, *alpha = nullptr, *damp = nullptr;
  const int* thole_class = nullptr;     // per atom, its row of thole_table
  const double* thole_table = nullptr;  // a pair's Thole a by the two atoms' classes
  const int *scale_offset = nullptr, *scale_partner = nullptr;  // each atom's exclusion partners, ascending
  const double *scale_d = nullptr, *scale_p = nullptr, *scale_u = nullptr;
  const int *pair_offset = nullptr, *pair_partner = nullptr;  // full list, ascending; null: every atom
  bool mixed = false;  // the GPU's mixed32 mode: float pairs into fixed-point sums (mixed_arith.hpp)
};

QUASAR_HD Vec3 load3(const double* v, int i) { return {v[3 * i], v[3 * i + 1], v[3 * i + 2]}; }
QUASAR_HD void store3(double* v, int i, const Vec3& x) {
  v[3 * i] = x.x;
  v[3 * i + 1] = x.y;
  v[3 * i + 2] = x.z;
}

// Atom i's partners in ascending order with their scale factors (1 without an exclusion rule): the
// pair list's (every other atom without one), the scales found with one moving index.
class InducePartners {
 public:
  QUASAR_HD InducePartners(const InduceArgs& args, int atom) : a_(args), i_(atom) {
    q_ = a_.pair_partner ? a_.pair_offset[i_] : 0;
    end_ = a_.pair_partner ? a_.pair_offset[i_ + 1] : a_.n;
    sp_ = a_.scale_offset[i_];
    special_end_ = a_.scale_offset[i_ + 1];
  }
  // The next partner k (false at the end) and the index of its scales (-1: none).
  QUASAR_HD bool next(int& k, int& scale) {
    for (; q_ < end_; ++q_) {
      k = a_.pair_partner ? a_.pair_partner[q_] : q_;
      if (k == i_) continue;
      ++q_;
      while (sp_ < special_end_ && a_.scale_partner[sp_] < k) ++sp_;
      scale = sp_ < special_end_ && a_.scale_partner[sp_] == k ? sp_ : -1;
      return true;
    }
    return false;
  }
  // s = r_i - r_k at the nearest image, its length r, and whether it lies within the cutoff (the
  // test of PairGeometry::separation).
  QUASAR_HD bool separation(const Vec3& ri, int k, double cutoff, Vec3& s, double& r) const {
    s = ri - load3(a_.position, k);
    if (a_.periodic) s = a_.box.minimum_image(s);
    const double r2 = s.x * s.x + s.y * s.y + s.z * s.z;
    if (!(r2 <= cutoff * cutoff)) return false;
    r = ::sqrt(r2);
    return true;
  }
  QUASAR_HD double thole(int k) const {
    return a_.thole_table[a_.thole_class[i_] * a_.thole_classes + a_.thole_class[k]];
  }
  QUASAR_HD double damp(int k) const { return a_.damp[i_] * a_.damp[k]; }

 private:
  const InduceArgs& a_;
  int i_, q_, end_, sp_, special_end_;
};

// Atom i's real-space direct fields of the lab moments M (13 per atom): the d- and p-scaled Thole
// kernel, and with Ewald sums the real-space kernel less the Coulomb one (direct_fields). In T
// (mixed_arith.hpp): double, or float pairs into fixed-point sums.
template <class T>
QUASAR_HD void direct_fields_at(const InduceArgs& a, int i, const double* M, Vec3& field_d, Vec3& field_p) {
  const bool ewald = a.ewald_alpha > 0;
  const Vec3 ri = load3(a.position, i);
  Vec3SumOf<T> sum_d{}, sum_p{};
  InducePartners it(a, i);
  int k, sc;
  double r;
  Vec3 s;
  while (it.next(k, sc)) {
    const double sd = sc < 0 ? 1.0 : a.scale_d[sc], sp = sc < 0 ? 1.0 : a.scale_p[sc];
    if (sd == 0 && sp == 0 && !ewald) continue;
    if (!it.separation(ri, k, a.cutoff, s, r)) continue;
    T Mk[13];
    for (int c = 0; c < 13; ++c) Mk[c] = static_cast<T>(M[13 * static_cast<long>(k) + c]);
    if constexpr (std::is_same_v<T, double>) {
      const FieldKernels kern = field_kernels(r, it.thole(k), it.damp(k), a.ewald_alpha);
      direct_pair_fields(Mk, s, kern, sd, sp, sum_d, sum_p);
    } else {
      direct_pair_fields_mixed(Mk, vec_as<T>(s), r, it.thole(k), it.damp(k), a.ewald_alpha, sd, sp, sum_d, sum_p);
    }
  }
  field_d = sum_value(sum_d);
  field_p = sum_value(sum_p);
}
QUASAR_HD void direct_fields_at(const InduceArgs& a, int i, const double* M, Vec3& field_d, Vec3& field_p) {
  if (a.mixed) direct_fields_at<float>(a, i, M, field_d, field_p);
  else direct_fields_at<double>(a, i, M, field_d, field_p);
}

// Atom i's real-space mutual field of the dipoles u: the u-scaled Thole kernel plus Ewald's part,
// pairs of two unpolarizable atoms left out (DipoleField).
template <class T>
QUASAR_HD Vec3 mutual_field_at(const InduceArgs& a, int i, const double* u) {
  const bool ewald = a.ewald_alpha > 0;
  const Vec3 ri = load3(a.position, i);
  Vec3SumOf<T> f{};
  Vec3 s;
  InducePartners it(a, i);
  int k, sc;
  double r;
  while (it.next(k, sc)) {
    const double su = sc < 0 ? 1.0 : a.scale_u[sc];
    if ((su == 0 && !ewald) || (a.alpha[i] == 0 && a.alpha[k] == 0)) continue;
    if (!it.separation(ri, k, a.cutoff, s, r)) continue;
    if constexpr (std::is_same_v<T, double>)
      f += mutual_pair_field(load3(u, k), s, field_kernels(r, it.thole(k), it.damp(k), a.ewald_alpha), su);
    else
      f += mutual_pair_field_mixed(vec_as<T>(load3(u, k)), vec_as<T>(s), r, it.thole(k), it.damp(k), a.ewald_alpha, su);
  }
  return sum_value(f);
}
QUASAR_HD Vec3 mutual_field_at(const InduceArgs& a, int i, const double* u) {
  return a.mixed ? mutual_field_at<float>(a, i, u) : mutual_field_at<double>(a, i, u);
}

// Tinker's preconditioner at atom i: 2 alpha_i rs_i + sum_k alpha_i alpha_k u_ik T_ik rs_k over the
// pairs within usolve-cutoff, T the Thole-damped dipole tensor without Ewald's part (Preconditioner).
template <class T>
QUASAR_HD Vec3 precondition_at(const InduceArgs& a, int i, const double* rs) {
  const double ai = a.alpha[i];
  Vec3SumOf<T> f{};
  f += load3(rs, i) * (2 * ai);
  if (ai == 0) return sum_value(f);
  const Vec3 ri = load3(a.position, i);
  Vec3 s;
  InducePartners it(a, i);
  int k, sc;
  double r;
  while (it.next(k, sc)) {
    const double su = sc < 0 ? 1.0 : a.scale_u[sc];
    if (su == 0 || a.alpha[k] == 0) continue;
    if (!it.separation(ri, k, a.usolve_cutoff, s, r)) continue;
    const FieldRadialOf<T> thole =
        thole_field_radial(static_cast<T>(r), static_cast<T>(it.thole(k)), static_cast<T>(it.damp(k)));
    f += dipole_field(vec_as<T>(load3(rs, k)), vec_as<T>(s), thole) * static_cast<T>(su * ai * a.alpha[k]);
  }
  return sum_value(f);
}
QUASAR_HD Vec3 precondition_at(const InduceArgs& a, int i, const double* rs) {
  return a.mixed ? precondition_at<float>(a, i, rs) : precondition_at<double>(a, i, rs);
}

}  // namespace quasar::amoeba
