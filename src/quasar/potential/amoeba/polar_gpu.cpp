#include "quasar/potential/amoeba/polar_gpu.hpp"

#include "quasar/device/backend.hpp"

namespace quasar::amoeba {

namespace {

long count(const std::vector<int>& pairs) {
  long total = 0;
  for (int p : pairs) total += p;
  return total;
}

}  // namespace

PolarPairSums polar_pair_sums(const InduceArgs& a, const std::vector<Moments>& M, const InducedDipoles& u,
                              bool mutual, double f) {
  const std::size_t n = static_cast<std::size_t>(a.n);
  std::vector<double> flatM(13 * n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t c = 0; c < 13; ++c) flatM[13 * i + c] = M[i][c];
  const std::vector<double> ud = flatten(u.ud), up = flatten(u.up);
  PolarPairSums out;
  out.grad.resize(3 * n);
  out.dM.resize(13 * n);
  out.virial.resize(9 * n);
  std::vector<int> pairs(n);
  for (std::size_t i = 0; i < n; ++i) {
    PolarSums s;
    polar_pairs_at(a, static_cast<int>(i), flatM.data(), ud.data(), up.data(), mutual, f, s);
    for (std::size_t c = 0; c < 3; ++c) out.grad[3 * i + c] = s.grad[c];
    for (std::size_t c = 0; c < 13; ++c) out.dM[13 * i + c] = s.dM[c];
    for (std::size_t c = 0; c < 9; ++c) out.virial[9 * i + c] = s.virial[c];
    pairs[i] = s.pairs;
  }
  out.pairs = count(pairs);
  return out;
}

#ifdef QUASAR_HAVE_CUDA

PolarPairSums polar_pair_sums_gpu(const InduceGpu& gpu, bool mutual, double f) {
  const InduceArgs a = gpu.device_args();
  const std::size_t n = static_cast<std::size_t>(a.n);
  Array<double> grad(Backend::Cuda, 3 * n), dM(Backend::Cuda, 13 * n), virial(Backend::Cuda, 9 * n);
  Array<int> pairs(Backend::Cuda, n);
  launch_polar_pairs(a, gpu.moments().data(), gpu.ud().data(), gpu.up().data(), mutual, f, grad.data(), dM.data(),
                     virial.data(), pairs.data());
  PolarPairSums out;
  out.grad = grad.to_vector();
  out.dM = dM.to_vector();
  out.virial = virial.to_vector();
  out.pairs = count(pairs.to_vector());
  return out;
}

#else

PolarPairSums polar_pair_sums_gpu(const InduceGpu&, bool, double) {
  throw_no_cuda("amoeba polarization forces on the GPU");
}
void launch_polar_pairs(const InduceArgs&, const double*, const double*, const double*, bool, double, double*,
                        double*, double*, int*) {
  throw_no_cuda("amoeba polarization forces on the GPU");
}

#endif

}  // namespace quasar::amoeba
