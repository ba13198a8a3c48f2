#pragma once
// What every pair term adds to forces, energy and virial, written once for the CPU half-list loops
// and the GPU full-list kernels. A pair term is fpair (force on i = fpair * (r_i - r_j)) along
// d = r_j - r_i, with energy e.
#include "quasar/potential/potential.hpp"

namespace quasar {

// Half list on the CPU: each pair once, acting on both atoms.
class HalfListSums {
 public:
  // Adds to forces and per-atom arrays as they are (zeroed, or holding earlier terms' sums).
  HalfListSums(AtomState& atoms, const ComputeRequest& req, ForceOutput& out)
      : a_(atoms.ref()), n_(static_cast<std::size_t>(atoms.size())), per_atom_(req.per_atom), out_(out) {}
  void add_pair(int i, int j, const Vec3& d, double fpair, double e) {
    a_.fx[i] -= fpair * d.x;
    a_.fy[i] -= fpair * d.y;
    a_.fz[i] -= fpair * d.z;
    a_.fx[j] += fpair * d.x;
    a_.fy[j] += fpair * d.y;
    a_.fz[j] += fpair * d.z;
    energy_ += e;
    const double v[9] = {d.x * d.x, d.x * d.y, d.x * d.z, d.y * d.x, d.y * d.y, d.y * d.z, d.z * d.x, d.z * d.y, d.z * d.z};
    for (int c = 0; c < 9; ++c) w_[c] += fpair * v[c];
    if (!per_atom_) return;
    out_.atom_energy[i] += 0.5 * e;
    out_.atom_energy[j] += 0.5 * e;
    for (int c = 0; c < 9; ++c) {
      out_.atom_virial[c * n_ + i] += 0.5 * fpair * v[c];
      out_.atom_virial[c * n_ + j] += 0.5 * fpair * v[c];
    }
  }
  // A pair when some atoms are ghosts (AtomState's n_local: li, lj are 1 for a centre, 0 for a
  // ghost). fpair is the pair's force as this evaluation counts it (a pair potential's times
  // w = (li + lj) / 2, so that a code summing every rank's ghost forces onto their owners counts each
  // pair once); the energy counts with weight w and goes half to each centre among i and j (a
  // centre's energy is its own); per-atom virials are split evenly, ghosts included.
  void add_shared_pair(int i, int j, double li, double lj, const Vec3& d, double fpair, double e) {
    a_.fx[i] -= fpair * d.x;
    a_.fy[i] -= fpair * d.y;
    a_.fz[i] -= fpair * d.z;
    a_.fx[j] += fpair * d.x;
    a_.fy[j] += fpair * d.y;
    a_.fz[j] += fpair * d.z;
    energy_ += 0.5 * (li + lj) * e;
    const double v[9] = {d.x * d.x, d.x * d.y, d.x * d.z, d.y * d.x, d.y * d.y, d.y * d.z, d.z * d.x, d.z * d.y, d.z * d.z};
    for (int c = 0; c < 9; ++c) w_[c] += fpair * v[c];
    if (!per_atom_) return;
    out_.atom_energy[i] += 0.5 * li * e;
    out_.atom_energy[j] += 0.5 * lj * e;
    for (int c = 0; c < 9; ++c) {
      out_.atom_virial[c * n_ + i] += 0.5 * fpair * v[c];
      out_.atom_virial[c * n_ + j] += 0.5 * fpair * v[c];
    }
  }
  // A one-body energy term (EAM embedding).
  void add_atom_energy(int i, double e) {
    energy_ += e;
    if (per_atom_) out_.atom_energy[i] += e;
  }
  void finish() {
    double* t = out_.term_totals();
    t[0] += energy_;
    for (int c = 0; c < 9; ++c) t[1 + c] += w_[c];
  }

 private:
  AtomsRef a_;
  std::size_t n_;
  bool per_atom_;
  ForceOutput& out_;
  double energy_ = 0, w_[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
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
