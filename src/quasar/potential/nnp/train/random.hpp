#pragma once
// The random numbers of the training, from a 64-bit Mersenne twister, drawn the same way on every
// platform (the standard library's distributions and shuffle may differ between implementations).
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace quasar::nnp {

// Uniform in [0, 1) with 53 random bits.
inline double uniform01(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

// Uniform in [0, n) (n > 0) to within n / 2^64.
inline std::size_t uniform_below(std::mt19937_64& rng, std::size_t n) { return static_cast<std::size_t>(rng() % n); }

// Fisher-Yates.
template <class T>
void shuffle(std::vector<T>& v, std::mt19937_64& rng) {
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[uniform_below(rng, i)]);
}

}  // namespace quasar::nnp
