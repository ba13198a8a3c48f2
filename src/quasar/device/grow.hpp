#pragma once
// Scratch arrays that kernels reuse between calls: grown to the size a call needs, never shrunk.
#include <cstddef>

#include "quasar/device/array.hpp"

namespace quasar {

// The array's storage, grown to hold at least n values (resize: what it holds is kept).
template <class T>
T* grow(Array<T>& a, std::size_t n) {
  if (a.size() < n) a.resize(n);
  return a.data();
}

}  // namespace quasar
