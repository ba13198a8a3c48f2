#pragma once
// What every pair term adds to forces, energy and virial, written once for the CPU half-list loops
// and the GPU full-list kernels. A pair term is fpair (force on i = fpair * (r_i - r_j)) along
// d = r_j - r_i, with energy e.
#include <vector>

#include "quasar/device/parallel.hpp"
#include "quasar/potential/potential.hpp"

namespace quasar {

// Half list on the CPU: each pair once, acting on both atoms. Adds to the arrays it is given (the
// atoms' forces and the output's per-atom arrays as they are: zeroed, or holding earlier terms'
// sums; or one thread's arrays of a threaded loop, ThreadedHalfListSums) and keeps its energy and
// virial until finish().
class HalfListSums {
 public:
  HalfListSums(AtomState& atoms, const ComputeRequest& req, ForceOutput& out)
      : HalfListSums(atoms.ref().fx, atoms.ref().fy, atoms.ref().fz, req.per_atom ? out.atom_energy.data() : nullptr,
                     req.per_atom ? out.atom_virial.data() : nullptr, static_cast<std::size_t>(atoms.size())) {}
  // atom_energy and atom_virial null: no per-atom parts.
  HalfListSums(double* fx, double* fy, double* fz, double* atom_energy, double* atom_virial, std::size_t n)
      : fx_(fx), fy_(fy), fz_(fz), atom_energy_(atom_energy), atom_virial_(atom_virial), n_(n) {}
  void add_pair(int i, int j, const Vec3& d, double fpair, double e) {
    fx_[i] -= fpair * d.x;
    fy_[i] -= fpair * d.y;
    fz_[i] -= fpair * d.z;
    fx_[j] += fpair * d.x;
    fy_[j] += fpair * d.y;
    fz_[j] += fpair * d.z;
    energy_ += e;
    const double v[9] = {d.x * d.x, d.x * d.y, d.x * d.z, d.y * d.x, d.y * d.y, d.y * d.z, d.z * d.x, d.z * d.y, d.z * d.z};
    for (int c = 0; c < 9; ++c) w_[c] += fpair * v[c];
    if (!atom_energy_) return;
    atom_energy_[i] += 0.5 * e;
    atom_energy_[j] += 0.5 * e;
    for (int c = 0; c < 9; ++c) {
      atom_virial_[c * n_ + i] += 0.5 * fpair * v[c];
      atom_virial_[c * n_ + j] += 0.5 * fpair * v[c];
    }
  }
  // A pair when some atoms are ghosts (AtomState's n_local: li, lj are 1 for a centre, 0 for a
  // ghost). fpair is the pair's force as this evaluation counts it (a pair potential's times
  // w = (li + lj) / 2, so that a code summing every rank's ghost forces onto their owners counts each
  // pair once); the energy counts with weight w and goes half to each centre among i and j (a
  // centre's energy is its own); per-atom virials are split evenly, ghosts included.
  void add_shared_pair(int i, int j, double li, double lj, const Vec3& d, double fpair, double e) {
    fx_[i] -= fpair * d.x;
    fy_[i] -= fpair * d.y;
    fz_[i] -= fpair * d.z;
    fx_[j] += fpair * d.x;
    fy_[j] += fpair * d.y;
    fz_[j] += fpair * d.z;
    energy_ += 0.5 * (li + lj) * e;
    const double v[9] = {d.x * d.x, d.x * d.y, d.x * d.z, d.y * d.x, d.y * d.y, d.y * d.z, d.z * d.x, d.z * d.y, d.z * d.z};
    for (int c = 0; c < 9; ++c) w_[c] += fpair * v[c];
    if (!atom_energy_) return;
    atom_energy_[i] += 0.5 * li * e;
    atom_energy_[j] += 0.5 * lj * e;
    for (int c = 0; c < 9; ++c) {
      atom_virial_[c * n_ + i] += 0.5 * fpair * v[c];
      atom_virial_[c * n_ + j] += 0.5 * fpair * v[c];
    }
  }
  // A one-body energy term (EAM embedding).
  void add_atom_energy(int i, double e) {
    energy_ += e;
    if (atom_energy_) atom_energy_[i] += e;
  }
  // Adds the energy and virial into the term's totals.
  void finish(ForceOutput& out) const {
    double* t = out.term_totals();
    t[0] += energy_;
    for (int c = 0; c < 9; ++c) t[1 + c] += w_[c];
  }

 private:
  double *fx_, *fy_, *fz_, *atom_energy_, *atom_virial_;
  std::size_t n_;
  double energy_ = 0, w_[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
};

// HalfListSums for a loop over atoms split over CPU threads (run()): thread t adds into the outputs
// (t = 0) or into arrays of its own (buffers), and finish() adds those arrays to the outputs and each
// thread's energy and virial to the totals, both in thread order: the same bits every run with the
// same thread count; with one thread, exactly the serial loop. Loops over fewer than kGrain atoms per
// thread stay on one thread.
class ThreadedHalfListSums {
 public:
  static constexpr long kGrain = 256;
  ThreadedHalfListSums(AtomState& atoms, const ComputeRequest& req, ForceOutput& out, device::ThreadBuffers& buffers)
      : out_(out), buffers_(buffers) {
    const AtomsRef a = atoms.ref();
    const std::size_t n = static_cast<std::size_t>(a.n);
    double* ae = req.per_atom ? out.atom_energy.data() : nullptr;
    double* av = req.per_atom ? out.atom_virial.data() : nullptr;
    buffers_.prepare(device::threads_for(a.n, kGrain), {a.fx, a.fy, a.fz, ae, av}, {n, n, n, n, 9 * n});
    for (int t = 0; t < buffers_.threads(); ++t)
      sums_.emplace_back(buffers_.get(t, 0), buffers_.get(t, 1), buffers_.get(t, 2), buffers_.get(t, 3),
                         buffers_.get(t, 4), n);
  }
  int threads() const { return buffers_.threads(); }
  // body(sums, begin, end) for each thread's range of [0, n), with that thread's sums as a local
  // copy while it runs (its running totals stay in registers, and threads share no cache line).
  template <class Body>
  void run(long n, Body&& body) {
    device::parallel_ranges(n, threads(), [&](int t, long begin, long end) {
      HalfListSums sums = sums_[static_cast<std::size_t>(t)];
      body(sums, static_cast<int>(begin), static_cast<int>(end));
      sums_[static_cast<std::size_t>(t)] = sums;
    });
  }
  void finish() {
    buffers_.reduce();
    for (const HalfListSums& s : sums_) s.finish(out_);
  }

 private:
  ForceOutput& out_;
  device::ThreadBuffers& buffers_;
  std::vector<HalfListSums> sums_;
};

// Full list on the GPU: one thread sums everything that acts on its atom i; energy and virial of
// each pair are split evenly between i's and j's threads. With ghosts, the caller passes the force
// times the pair's weight w (see HalfListSums::add_shared_pair) and the energy times li, so that a
// centre's thread takes half of each of its pairs' energy and a ghost's none.
template <bool kEnergy>
struct FullListSums {
  double f[3] = {0, 0, 0};
  double acc[10] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};  // energy, virial by rows
  QUASAR_HD void add_pair(const Vec3& d, double fpair, double e) {
    f[0] -= fpair * d.x;
    f[1] -= fpair * d.y;
    f[2] -= fpair * d.z;
    if (!kEnergy) return;
    acc[0] += 0.5 * e;
    const double h = 0.5 * fpair;
    acc[1] += h * d.x * d.x;
    acc[2] += h * d.x * d.y;
    acc[3] += h * d.x * d.z;
    acc[4] += h * d.y * d.x;
    acc[5] += h * d.y * d.y;
    acc[6] += h * d.y * d.z;
    acc[7] += h * d.z * d.x;
    acc[8] += h * d.z * d.y;
    acc[9] += h * d.z * d.z;
  }
  // Atom i's force and, when asked, its energy and virial (component-major): written over stale
  // values when `overwrite` (the first term of an evaluation), else added. The energy is always
  // added: a kernel that overwrites sets atom_energy[i] itself first (EAM: the embedding energy).
  QUASAR_HD void store(AtomsRef& a, int i, double* atom_energy, double* atom_virial, bool overwrite) const {
    if (overwrite) {
      a.fx[i] = f[0];
      a.fy[i] = f[1];
      a.fz[i] = f[2];
    } else {
      a.fx[i] += f[0];
      a.fy[i] += f[1];
      a.fz[i] += f[2];
    }
    if (!atom_energy) return;
    atom_energy[i] += acc[0];
    for (int c = 0; c < 9; ++c) {
      double& w = atom_virial[static_cast<long>(c) * a.n + i];
      w = overwrite ? acc[1 + c] : w + acc[1 + c];
    }
  }
};

}  // namespace quasar
