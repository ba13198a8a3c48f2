// FftPlan: argument checks, and the CPU backend on FFTW.
#include "quasar/device/fft.hpp"

#include <fftw3.h>

#include <compare>
#include <map>
#include <mutex>
#include <string>

#include "quasar/core/error.hpp"
#include "quasar/device/fft_impl.hpp"

namespace quasar::device {

namespace {

// FFTW's planner is not thread-safe (running plans is): plans are made and destroyed under this lock.
std::mutex& planner_mutex() {
  static std::mutex m;
  return m;
}

// FFTW plans for one grid shape and batch. A plan is made for in-place or out-of-place use on arrays
// of one alignment and then runs on any arrays alike (FFTW's new-array execute functions), so each
// such combination gets its own plan, made at first use.
class FftwPlans final : public FftPlan::Impl {
 public:
  FftwPlans(const std::vector<int>& dims, int batch) : dims_(dims), batch_(batch) {
    points_ = half_ = 1;
    for (std::size_t d = 0; d < dims.size(); ++d) {
      points_ *= dims[d];
      half_ *= d + 1 < dims.size() ? dims[d] : dims[d] / 2 + 1;
    }
  }
  ~FftwPlans() override {
    std::lock_guard lock(planner_mutex());
    for (auto& entry : plans_) fftw_destroy_plan(entry.second);
  }

  void c2c(const std::complex<double>* in, std::complex<double>* out, int sign) override {
    auto* i = reinterpret_cast<fftw_complex*>(const_cast<std::complex<double>*>(in));
    auto* o = reinterpret_cast<fftw_complex*>(out);
    fftw_plan p = plan(sign < 0 ? Kind::Forward : Kind::Backward, i, o, [&] {
      return fftw_plan_many_dft(rank(), dims_.data(), batch_, i, nullptr, 1, points_, o, nullptr, 1, points_,
                                sign < 0 ? FFTW_FORWARD : FFTW_BACKWARD, FFTW_ESTIMATE);
    });
    fftw_execute_dft(p, i, o);
  }
  void r2c(const double* in, std::complex<double>* out) override {
    auto* i = const_cast<double*>(in);
    auto* o = reinterpret_cast<fftw_complex*>(out);
    fftw_plan p = plan(Kind::RealForward, i, o, [&] {
      return fftw_plan_many_dft_r2c(rank(), dims_.data(), batch_, i, nullptr, 1, points_, o, nullptr, 1, half_,
                                    FFTW_ESTIMATE);
    });
    fftw_execute_dft_r2c(p, i, o);
  }
  void c2r(std::complex<double>* in, double* out) override {
    auto* i = reinterpret_cast<fftw_complex*>(in);
    fftw_plan p = plan(Kind::RealBackward, i, out, [&] {
      return fftw_plan_many_dft_c2r(rank(), dims_.data(), batch_, i, nullptr, 1, half_, out, nullptr, 1, points_,
                                    FFTW_ESTIMATE);
    });
    fftw_execute_dft_c2r(p, i, out);
  }

 private:
  enum class Kind { Forward, Backward, RealForward, RealBackward };
  struct Key {
    Kind kind;
    bool in_place;
    int align_in, align_out;
    auto operator<=>(const Key&) const = default;
  };

  int rank() const { return static_cast<int>(dims_.size()); }

  template <class Make>
  fftw_plan plan(Kind kind, void* in, void* out, Make make) {
    const Key key{kind, in == out, fftw_alignment_of(static_cast<double*>(in)),
                  fftw_alignment_of(static_cast<double*>(out))};
    if (auto it = plans_.find(key); it != plans_.end()) return it->second;
    fftw_plan p;
    {
      std::lock_guard lock(planner_mutex());
      p = make();  // FFTW_ESTIMATE: the arrays are not touched
    }
    if (!p) throw Error("FFTW could not plan a transform of this grid (fftw_plan_many_dft returned NULL)");
    plans_.emplace(key, p);
    return p;
  }

  std::vector<int> dims_;
  int batch_;
  int points_, half_;
  std::map<Key, fftw_plan> plans_;
};

std::string shape_text(const std::vector<int>& dims, int batch) {
  std::string s;
  for (int n : dims) s += (s.empty() ? "" : "x") + std::to_string(n);
  return s + " (batch " + std::to_string(batch) + ")";
}

}  // namespace

FftPlan::FftPlan(Context& ctx, std::vector<int> dims, int batch) : ctx_(ctx), dims_(std::move(dims)), batch_(batch) {
  bool ok = !dims_.empty() && dims_.size() <= 3 && batch_ >= 1;
  double total = batch_;
  for (int n : dims_) {
    ok = ok && n >= 1;
    total *= n;
  }
  if (!ok) throw Error("FFT: a plan needs 1 to 3 grid sizes and a batch, each at least 1; got " + shape_text(dims_, batch_));
  // FFTW and cuFFT's plain interfaces count in int.
  if (total > 2147483647.0) throw Error("FFT: " + shape_text(dims_, batch_) + " has more than 2^31 - 1 values");
  if (ctx.backend() == Backend::Cuda) impl_ = make_cufft_plans(ctx, dims_, batch_);
  else impl_ = std::make_unique<FftwPlans>(dims_, batch_);
}

FftPlan::~FftPlan() = default;

std::size_t FftPlan::points() const {
  std::size_t n = 1;
  for (int d : dims_) n *= d;
  return n;
}

std::size_t FftPlan::half_points() const { return points() / dims_.back() * (dims_.back() / 2 + 1); }

namespace {
template <class T>
void check_array(const Array<T>& a, std::size_t need, Backend backend, const char* role) {
  if (a.backend() != backend)
    throw Error(std::string("FFT: the ") + role + " array is on the " + backend_name(a.backend()) +
                " backend, the plan's context on " + backend_name(backend));
  if (a.size() < need)
    throw Error(std::string("FFT: the ") + role + " array holds " + std::to_string(a.size()) +
                " values; the transform needs " + std::to_string(need));
}
}  // namespace

void FftPlan::forward(const Array<std::complex<double>>& in, Array<std::complex<double>>& out) {
  check_array(in, batch_ * points(), ctx_.backend(), "input");
  check_array(out, batch_ * points(), ctx_.backend(), "output");
  impl_->c2c(in.data(), out.data(), -1);
}

void FftPlan::backward(const Array<std::complex<double>>& in, Array<std::complex<double>>& out) {
  check_array(in, batch_ * points(), ctx_.backend(), "input");
  check_array(out, batch_ * points(), ctx_.backend(), "output");
  impl_->c2c(in.data(), out.data(), +1);
}

void FftPlan::forward(const Array<double>& in, Array<std::complex<double>>& out) {
  check_array(in, batch_ * points(), ctx_.backend(), "input");
  check_array(out, batch_ * half_points(), ctx_.backend(), "output");
  impl_->r2c(in.data(), out.data());
}

void FftPlan::backward(Array<std::complex<double>>& in, Array<double>& out) {
  check_array(in, batch_ * half_points(), ctx_.backend(), "input");
  check_array(out, batch_ * points(), ctx_.backend(), "output");
  impl_->c2r(in.data(), out.data());
}

}  // namespace quasar::device
