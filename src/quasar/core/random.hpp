#pragma once
// Counter-based random numbers (Philox-4x32-10): the stream for (seed, step, atom, channel) is a
// pure function, so the CPU and GPU paths draw identical numbers in any order, and a restarted
// run continues exactly with nothing but the step number.
#include <cmath>
#include <cstdint>

#include "quasar/core/hd.hpp"

namespace quasar {

struct Philox {
  uint32_t c[4];
  uint32_t k[2];

  QUASAR_HD static void mulhilo(uint32_t a, uint32_t b, uint32_t& hi, uint32_t& lo) {
    const uint64_t p = static_cast<uint64_t>(a) * b;
    hi = static_cast<uint32_t>(p >> 32);
    lo = static_cast<uint32_t>(p);
  }
  // Four independent 32-bit words for counter (step, atom, channel) under key seed.
  QUASAR_HD static void draw(uint64_t seed, uint64_t step, uint32_t atom, uint32_t channel, uint32_t out[4]) {
    uint32_t ctr[4] = {static_cast<uint32_t>(step), static_cast<uint32_t>(step >> 32), atom, channel};
    uint32_t key[2] = {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)};
    for (int r = 0; r < 10; ++r) {
      uint32_t hi0, lo0, hi1, lo1;
      mulhilo(0xD2511F53u, ctr[0], hi0, lo0);
      mulhilo(0xCD9E8D57u, ctr[2], hi1, lo1);
      ctr[0] = hi1 ^ ctr[1] ^ key[0];
      ctr[1] = lo1;
      ctr[2] = hi0 ^ ctr[3] ^ key[1];
      ctr[3] = lo0;
      key[0] += 0x9E3779B9u;
      key[1] += 0xBB67AE85u;
    }
    for (int i = 0; i < 4; ++i) out[i] = ctr[i];
  }
};

// Uniform in (0, 1) from 32 bits.
QUASAR_HD double uniform_open(uint32_t u) { return (static_cast<double>(u) + 0.5) * 2.3283064365386963e-10; }

// Two standard normal numbers from four words (Box-Muller on 2 x 64-bit-ish uniforms).
QUASAR_HD void normal_pair(const uint32_t w[4], double& g0, double& g1) {
  const double u1 = uniform_open(w[0]) + static_cast<double>(w[1]) * 5.421010862427522e-20;  // finer low bits
  const double u2 = uniform_open(w[2]);
  const double r = sqrt(-2.0 * log(u1 < 1.0 ? u1 : 0.9999999999999999));
  const double t = 6.283185307179586 * u2;
  g0 = r * cos(t);
  g1 = r * sin(t);
}

// Three standard normal numbers for atom `atom` at `step` (channel separates independent uses).
QUASAR_HD void normal3(uint64_t seed, uint64_t step, uint32_t atom, uint32_t channel, double g[3]) {
  uint32_t w[4];
  Philox::draw(seed, step, atom, 2 * channel, w);
  double a, b;
  normal_pair(w, a, b);
  g[0] = a;
  g[1] = b;
  Philox::draw(seed, step, atom, 2 * channel + 1, w);
  normal_pair(w, a, b);
  g[2] = a;
}

}  // namespace quasar
