#pragma once
// Which pairs the electrostatic terms take and at which image (in a periodic cell from a candidate
// list, pair_list.hpp): in the gas phase every pair (or those
// within the key's mpole-cutoff/cutoff, when it gives one); in a periodic cell without Ewald, as
// Tinker's non-Ewald double loop does, each pair at its nearest image within the cutoff (mpole-cutoff,
// else cutoff, else 9 Å), with no taper. A frame's axis atoms are taken at their nearest images to the
// site, which is what Tinker computes for molecules that the cell does not cut.
#include <array>
#include <cmath>
#include <limits>

#include "quasar/core/box.hpp"
#include "quasar/core/vec.hpp"
#include "quasar/potential/amoeba/pair_list.hpp"

namespace quasar::amoeba {

class PmeGpu;
class MpoleGpu;

struct PairGeometry {
  Box box;
  bool periodic = false;
  double cutoff = std::numeric_limits<double>::infinity();  // Å
  // Ewald sums (alpha > 0): the pairs are the real-space part's, within the cutoff; the reciprocal
  // part by particle-mesh Ewald on this grid.
  double ewald_alpha = 0;
  std::array<int, 3> pme_size{};
  int pme_order = 5;
  // Where the reciprocal part runs (pme_gpu.hpp's reciprocal_pme): on this GPU particle-mesh Ewald
  // when set (the CUDA backend), else on the CPU (pme_multipole.hpp).
  PmeGpu* pme_gpu = nullptr;
  // Where multipole_energy's real-space pairs run: on this GPU object when set (the CUDA backend,
  // mpole_gpu.hpp), else on the CPU.
  MpoleGpu* mpole_gpu = nullptr;
  // The GPU's pair kernels in mixed precision (AmoebaTerm's mixed32: float pairs into 64-bit
  // fixed-point sums, mixed_arith.hpp); the CPU's loops are double whatever it says.
  bool mixed = false;
  // In a periodic cell, the pairs within reach of the cutoffs (pair_list.hpp); null: every pair.
  const PairCandidates* candidates = nullptr;

  PartnerRange partners(std::size_t i, std::size_t n) const { return amoeba::partners(candidates, i, n); }

  Vec3 nearest(Vec3 d) const { return periodic ? box.minimum_image(d) : d; }
  // s = a - b at the nearest image; false beyond the cutoff.
  bool separation(const Vec3& a, const Vec3& b, double s[3]) const {
    const Vec3 d = nearest(a - b);
    s[0] = d.x;
    s[1] = d.y;
    s[2] = d.z;
    return d.x * d.x + d.y * d.y + d.z * d.z <= cutoff * cutoff;
  }
};

}  // namespace quasar::amoeba
