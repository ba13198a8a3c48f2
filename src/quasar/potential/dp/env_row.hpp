#pragma once
// One row of the se_e2_a environment matrix, shared by the CPU evaluator and the kernels:
// R = w(r) [1/r, x/r^2, y/r^2, z/r^2] for the displacement d = r_j - r_i, and dR/dd.
#include <cmath>

#include "quasar/core/vec.hpp"

namespace quasar::dp {

// Smooth switch from 1 at rs to 0 at rc, and its derivative.
QUASAR_HD void smooth_switch(double r, double rs, double rc, double& w, double& dw) {
  if (r <= rs) {
    w = 1;
    dw = 0;
  } else if (r >= rc) {
    w = 0;
    dw = 0;
  } else {
    const double u = (r - rs) / (rc - rs);
    w = u * u * u * (-6 * u * u + 15 * u - 10) + 1;
    dw = (u * u * (-30 * u * u + 60 * u - 30)) / (rc - rs);
  }
}

// r is |d| shifted by env_protection, as DeePMD-kit does.
QUASAR_HD void env_row(const Vec3& d, double protection, double rs, double rc, double R[4], double dR[4][3]) {
  const double r = sqrt(norm2(d)) + protection;
  double w, dw;
  smooth_switch(r, rs, rc, w, dw);
  const double r2 = r * r, inv_r = 1.0 / r;
  const double dd[3] = {d.x, d.y, d.z};
  R[0] = w * inv_r;
  for (int c = 0; c < 3; ++c) R[1 + c] = w * dd[c] / r2;
  for (int q = 0; q < 3; ++q) {
    const double drq = dd[q] * inv_r;  // dr/dd_q
    dR[0][q] = (dw * inv_r - w / r2) * drq;
    for (int c = 0; c < 3; ++c) dR[1 + c][q] = (c == q ? w / r2 : 0.0) + dd[c] * (dw / r2 - 2 * w / (r2 * r)) * drq;
  }
}

}  // namespace quasar::dp
