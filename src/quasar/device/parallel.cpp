#include "quasar/device/parallel.hpp"

#include <exception>

#if QUASAR_HAVE_OPENMP
#include <omp.h>
#endif

namespace quasar::device {

#if QUASAR_HAVE_OPENMP
int cpu_threads() { return std::max(1, omp_get_max_threads()); }
void set_cpu_threads(int threads) { omp_set_num_threads(threads > 0 ? threads : omp_get_num_procs()); }
#else
// Built without OpenMP: one thread (parallel_ranges then runs its ranges in order).
int cpu_threads() { return 1; }
void set_cpu_threads(int) {}
#endif

namespace detail {

void run_ranges(long n, int threads, RangeFunction fn, void* body) {
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(threads));
  // One range per thread, each thread t taking range t whatever OpenMP's schedule; inside another
  // parallel region OpenMP gives one thread, which then runs every range in order.
#if QUASAR_HAVE_OPENMP
#pragma omp parallel num_threads(threads)
#endif
  {
#if QUASAR_HAVE_OPENMP
    const int team = omp_get_num_threads(), me = omp_get_thread_num();
#else
    const int team = 1, me = 0;
#endif
    for (int t = me; t < threads; t += team) {
      try {
        const Range r = static_range(n, threads, t);
        fn(body, t, r.begin, r.end);
      } catch (...) {
        errors[static_cast<std::size_t>(t)] = std::current_exception();
      }
    }
  }
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace detail

void ThreadBuffers::prepare(int threads, std::vector<double*> outputs, std::vector<std::size_t> lengths) {
  threads_ = std::max(1, threads);
  outputs_ = std::move(outputs);
  lengths_ = std::move(lengths);
  if (buffers_.size() < static_cast<std::size_t>(threads_ - 1)) buffers_.resize(static_cast<std::size_t>(threads_ - 1));
  // Each thread zeroes its own buffers (first touch on its core).
  parallel_ranges(threads_ - 1, threads_ - 1, [&](int, long begin, long end) {
    for (long t = begin; t < end; ++t) {
      auto& sets = buffers_[static_cast<std::size_t>(t)];
      sets.resize(outputs_.size());
      for (std::size_t k = 0; k < outputs_.size(); ++k)
        if (outputs_[k]) sets[k].assign(lengths_[k], 0.0);
    }
  });
}

void ThreadBuffers::reduce() {
  if (threads_ == 1) return;
  for (std::size_t k = 0; k < outputs_.size(); ++k) {
    double* out = outputs_[k];
    if (!out) continue;
    const long n = static_cast<long>(lengths_[k]);
    parallel_ranges(n, threads_for(n, 4096), [&](int, long begin, long end) {
      for (int t = 1; t < threads_; ++t) {
        const double* b = buffers_[static_cast<std::size_t>(t - 1)][k].data();
        for (long i = begin; i < end; ++i) out[i] += b[i];
      }
    });
  }
}

}  // namespace quasar::device
