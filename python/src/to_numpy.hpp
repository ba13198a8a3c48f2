#pragma once
// What the extension's source files share: numpy arrays that own a vector's storage, and the
// bindings each file adds to the module.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <initializer_list>
#include <vector>

namespace quasar::python {

// A numpy array that owns a vector's storage (no copy).
template <class T>
nanobind::ndarray<nanobind::numpy, T> to_numpy(std::vector<T>&& v, std::initializer_list<std::size_t> shape) {
  auto* owned = new std::vector<T>(std::move(v));
  nanobind::capsule owner(owned, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  return nanobind::ndarray<nanobind::numpy, T>(owned->data(), shape, owner);
}

// shepard.cpp: modified Shepard data sets, their evaluation, and QCT studies.
void bind_shepard(nanobind::module_& m);
// gw.cpp: the GW dielectric-matrix file, Epsilon and Sigma (the submodule _quasar.gw; absent without GW).
void bind_gw(nanobind::module_& m);

}  // namespace quasar::python
