#pragma once
#include <algorithm>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "quasar/device/backend.hpp"

namespace quasar {

// A contiguous array on one backend (host memory or GPU memory). Capacity grows geometrically and
// never shrinks, so arrays resized every neighbour-list build are allocated only a few times.
template <class T>
class Array {
 public:
  using value_type = T;
  Array() = default;
  explicit Array(Backend b, std::size_t n = 0) : backend_(b) { resize(n); }
  Array(const Array&) = delete;
  Array& operator=(const Array&) = delete;
  Array(Array&& o) noexcept { swap(o); }
  Array& operator=(Array&& o) noexcept { swap(o); return *this; }
  ~Array() { free_(); }

  Backend backend() const { return backend_; }
  bool on_device() const { return backend_ == Backend::Cuda; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* data() { return ptr_; }
  const T* data() const { return ptr_; }

  // Host-only element access (CPU backend).
  T& operator[](std::size_t i) { return ptr_[i]; }
  const T& operator[](std::size_t i) const { return ptr_[i]; }

  // Changes the size keeping the first min(old, new) elements; new elements are zero.
  void resize(std::size_t n) {
    if (n > capacity_) {
      std::size_t cap = std::max(n, capacity_ + capacity_ / 2);
      T* p = alloc_(cap);
      if (size_) copy_same_(p, ptr_, size_);
      zero_(p + size_, cap - size_);
      free_();
      ptr_ = p;
      capacity_ = cap;
    } else if (n > size_) {
      zero_(ptr_ + size_, n - size_);
    }
    size_ = n;
  }
  void assign(const std::vector<T>& v) {
    resize(v.size());
    upload(v.data(), v.size());
  }
  void upload(const T* src, std::size_t n, std::size_t offset = 0) {
    if (!n) return;
    if (on_device()) device::copy_to_device(ptr_ + offset, src, n * sizeof(T));
    else std::memcpy(static_cast<void*>(ptr_ + offset), src, n * sizeof(T));
  }
  // Elements [offset, offset + n) into dst (host memory).
  void download(T* dst, std::size_t n, std::size_t offset = 0) const {
    if (!n) return;
    if (on_device()) device::copy_to_host(dst, ptr_ + offset, n * sizeof(T));
    else std::copy(ptr_ + offset, ptr_ + offset + n, dst);
  }
  std::vector<T> to_vector() const {
    std::vector<T> v(size_);
    if (!size_) return v;
    if (on_device()) device::copy_to_host(v.data(), ptr_, size_ * sizeof(T));
    else std::copy(ptr_, ptr_ + size_, v.begin());
    return v;
  }
  void set_zero() { zero_(ptr_, size_); }
  void copy_from(const Array& o) {
    resize(o.size_);
    if (!size_) return;
    if (on_device() && o.on_device()) device::copy_on_device(ptr_, o.ptr_, size_ * sizeof(T));
    else if (on_device()) device::copy_to_device(ptr_, o.ptr_, size_ * sizeof(T));
    else if (o.on_device()) device::copy_to_host(ptr_, o.ptr_, size_ * sizeof(T));
    else std::copy(o.ptr_, o.ptr_ + size_, ptr_);
  }
  void swap(Array& o) noexcept {
    std::swap(backend_, o.backend_);
    std::swap(ptr_, o.ptr_);
    std::swap(size_, o.size_);
    std::swap(capacity_, o.capacity_);
  }

 private:
  T* alloc_(std::size_t n) {
    if (on_device()) return static_cast<T*>(device::allocate(n * sizeof(T)));
    return new T[n];
  }
  void free_() noexcept {
    if (!ptr_) return;
    if (on_device()) device::release(ptr_);
    else delete[] ptr_;
    ptr_ = nullptr;
    size_ = capacity_ = 0;
  }
  void copy_same_(T* dst, const T* src, std::size_t n) {
    if (on_device()) device::copy_on_device(dst, src, n * sizeof(T));
    else std::copy(src, src + n, dst);
  }
  void zero_(T* p, std::size_t n) {
    if (!n) return;
    if (on_device()) device::fill_zero(p, n * sizeof(T));
    else std::fill(p, p + n, T{});
  }

  Backend backend_ = Backend::Cpu;
  T* ptr_ = nullptr;
  std::size_t size_ = 0, capacity_ = 0;
};

// Host memory for transfers to and from Arrays of a backend: page-locked for the GPU, so that
// copies run at the bus's speed. Grows geometrically, never shrinks; contents are not kept when it
// grows.
template <class T>
class HostBuffer {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  explicit HostBuffer(Backend b) : backend_(b) {}
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  ~HostBuffer() { free_(); }

  // Room for at least n elements; returns the storage.
  T* reserve(std::size_t n) {
    if (n > capacity_) {
      const std::size_t cap = std::max(n, capacity_ + capacity_ / 2);
      free_();
      const std::size_t bytes = cap * sizeof(T);
      ptr_ = static_cast<T*>(backend_ == Backend::Cuda ? device::allocate_pinned(bytes) : ::operator new(bytes));
      capacity_ = cap;
    }
    return ptr_;
  }

 private:
  void free_() noexcept {
    if (!ptr_) return;
    if (backend_ == Backend::Cuda) device::release_pinned(ptr_);
    else ::operator delete(ptr_);
    ptr_ = nullptr;
    capacity_ = 0;
  }

  Backend backend_;
  T* ptr_ = nullptr;
  std::size_t capacity_ = 0;
};

}  // namespace quasar
