#pragma once
// Threads for the CPU backend: loops split over OpenMP threads (every core, or OMP_NUM_THREADS).
// Every split is static, a function of the iteration count and the thread count only, so that a
// loop that accumulates per thread and then sums the threads' parts in thread order gives the same
// bits every run with the same thread count; with one thread it is the plain serial loop.
// OpenMP lives in parallel.cpp: this header needs no OpenMP flags, and a loop body is a template
// called once per thread's range, so the indirect call costs nothing per iteration.
#include <algorithm>
#include <cstddef>
#include <vector>

namespace quasar::device {

// Threads that CPU loops use: OMP_NUM_THREADS when it is set, else every core the process may use.
int cpu_threads();
// Sets that number for the loops that follow (1: serial); 0 goes back to every core.
void set_cpu_threads(int threads);

// Threads for a loop of n iterations of which each thread should get at least `grain` (so that
// small loops do not pay for waking threads): between 1 and cpu_threads().
inline int threads_for(long n, long grain) {
  const long most = grain > 0 ? n / grain : n;
  return static_cast<int>(std::max(1L, std::min<long>(cpu_threads(), most)));
}

// Part `thread` of [0, n) cut into `threads` consecutive ranges (the first n % threads one longer).
struct Range {
  long begin = 0, end = 0;
};
inline Range static_range(long n, int threads, int thread) {
  const long q = n / threads, r = n % threads;
  const long begin = thread * q + std::min<long>(thread, r);
  return {begin, begin + q + (thread < r ? 1 : 0)};
}

namespace detail {
using RangeFunction = void (*)(void* body, int thread, long begin, long end);
// Runs fn(body, t, range t) for t in [0, threads) on that many OpenMP threads (serially when
// threads == 1 or inside another parallel region) and rethrows the exception of the lowest thread
// that threw one.
void run_ranges(long n, int threads, RangeFunction fn, void* body);
}  // namespace detail

// Calls body(thread, begin, end) once for each of `threads` consecutive ranges covering [0, n),
// each on its own thread; returns when all are done.
template <class Body>
void parallel_ranges(long n, int threads, Body&& body) {
  if (n <= 0) return;
  threads = std::max(1, threads);
  if (threads == 1) {
    body(0, 0L, n);
    return;
  }
  detail::run_ranges(
      n, threads, [](void* b, int t, long begin, long end) { (*static_cast<Body*>(b))(t, begin, end); },
      const_cast<void*>(static_cast<const void*>(&body)));
}

// body(i) for every i in [0, n), split over threads_for(n, grain) threads. For loops whose
// iterations write only their own outputs: the result does not depend on the thread count.
template <class Body>
void parallel_for(long n, Body&& body, long grain = 64) {
  parallel_ranges(n, threads_for(n, grain), [&body](int, long begin, long end) {
    for (long i = begin; i < end; ++i) body(i);
  });
}

// Per-thread copies of output arrays that a threaded loop scatters into (forces on neighbours,
// per-atom energies): thread 0 adds into the outputs themselves, thread t > 0 into zeroed arrays of
// its own, and reduce() adds those to the outputs in thread order, so the result is the same every
// run with the same thread count and, with one thread, the serial loop's. The buffers are kept
// between uses (no allocation per step once they have grown).
class ThreadBuffers {
 public:
  // Prepares `threads` sets for outputs of these lengths (null outputs get no buffers).
  void prepare(int threads, std::vector<double*> outputs, std::vector<std::size_t> lengths);
  // Where thread t adds to output k.
  double* get(int thread, std::size_t k) {
    return thread == 0 ? outputs_[k] : (outputs_[k] ? buffers_[thread - 1][k].data() : nullptr);
  }
  // outputs[k][i] += buffer_t[k][i] for t = 1, 2, ... in that order, threaded over i.
  void reduce();
  int threads() const { return threads_; }

 private:
  int threads_ = 1;
  std::vector<double*> outputs_;
  std::vector<std::size_t> lengths_;
  std::vector<std::vector<std::vector<double>>> buffers_;  // [thread - 1][output]
};

}  // namespace quasar::device
