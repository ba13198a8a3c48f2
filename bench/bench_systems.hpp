#pragma once
// Small systems and a timer that the batch and ensemble benchmarks share.
#include <chrono>
#include <random>
#include <vector>

#include "quasar/core/structure.hpp"

namespace quasar::bench {

using Clock = std::chrono::steady_clock;
inline double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// `count` argon molecules of 6 atoms: an octahedron of atoms `distance` Å from its centre, each
// moved by a normal jitter of `spread` Å (the same molecules every run), in a cell without
// periodic directions around them.
inline std::vector<Structure> argon_octahedra(long count, double distance, double spread) {
  const double d = distance;
  const Vec3 octahedron[6] = {{d, 0, 0}, {-d, 0, 0}, {0, d, 0}, {0, -d, 0}, {0, 0, d}, {0, 0, -d}};
  std::mt19937 rng(2026);
  std::normal_distribution<double> g(0.0, spread);
  std::vector<Structure> out;
  for (long k = 0; k < count; ++k) {
    Structure s;
    const int t = s.type_index("Ar");
    for (const Vec3& r : octahedron) {
      s.positions.push_back(r + Vec3{g(rng), g(rng), g(rng)});
      s.types.push_back(t);
    }
    s.box = Box::enclosing(s.positions);
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace quasar::bench
