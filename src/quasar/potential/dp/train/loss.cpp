#include "quasar/potential/dp/train/loss.hpp"

#include <algorithm>

#include "quasar/core/error.hpp"
#include "quasar/potential/dp/deep_potential.hpp"
#include "quasar/potential/force_field.hpp"
#include "quasar/potential/dp/environment.hpp"

namespace quasar::dp {


void ModelGrad::zero_like(const DpModel& m) {
  emb.resize(m.descriptor.embeddings.size());
  fit.resize(m.fitting.size());
  for (std::size_t k = 0; k < emb.size(); ++k) emb[k].zero_like(m.descriptor.embeddings[k]);
  for (std::size_t k = 0; k < fit.size(); ++k) fit[k].zero_like(m.fitting[k]);
}

void ModelGrad::add(const ModelGrad& o, double scale) {
  for (std::size_t k = 0; k < emb.size(); ++k) emb[k].add(o.emb[k], scale);
  for (std::size_t k = 0; k < fit.size(); ++k) fit[k].add(o.fit[k], scale);
}

namespace {

// dPhi/d(gr) of D = gr gr[:axis]^T contracted with g (dPhi/dD): sum_b g[x,b] v[b] + [x < axis] sum_a g[a,x] v[a].
void d_term(const double* g, const std::vector<double>& v, int M, int axis, std::vector<double>& out) {
  for (int x = 0; x < M; ++x)
    for (int c = 0; c < 4; ++c) {
      double s = 0;
      for (int b = 0; b < axis; ++b) s += g[x * axis + b] * v[b * 4 + c];
      if (x < axis)
        for (int a = 0; a < M; ++a) s += g[a * axis + x] * v[a * 4 + c];
      out[x * 4 + c] += s;
    }
}

}  // namespace

train::FrameLoss frame_loss(const DpModel& model, const Structure& frame, const LossWeights& w, ModelGrad* grad) {
  if (model.numb_fparam + model.numb_aparam > 0) throw Error("training: frame and atomic parameters are not supported yet");
  // Forces, virial and energy from the reference evaluator.
  ForceField pot(std::make_shared<DeepPotential>(model));
  AtomState atoms(Backend::Cpu, frame);
  pot.bind(SystemSetup::of(frame));
  NeighborList list(Backend::Cpu, {model.descriptor.rcut, 0.0, ListKind::Full, 0});
  list.build(atoms);
  ForceOutput out(Backend::Cpu);
  const NeighborRef ref = list.ref();
  pot.compute(atoms, {&ref, 1}, {true, true, false}, out);
  const AtomsRef a = atoms.ref();
  const int n = a.n;
  const double N = n;
  train::FrameLoss fl;
  fl.atoms = n;
  // dL/dE, u = dL/dF (per atom, in AtomState order), V = dL/dW.
  double dl_de = 0;
  if (frame.energy) {
    fl.energy_error = out.totals[0] - *frame.energy;
    fl.loss += w.pe * fl.energy_error * fl.energy_error / N;
    dl_de = 2 * w.pe * fl.energy_error / N;
  }
  std::vector<Vec3> u(n);
  if (!frame.forces.empty()) {
    for (int i = 0; i < n; ++i) {
      const Vec3 d = Vec3{a.fx[i], a.fy[i], a.fz[i]} - frame.forces[a.id[i]];
      fl.force_sq += norm2(d);
      u[i] = (2 * w.pf / (3 * N)) * d;
    }
    fl.loss += w.pf * fl.force_sq / (3 * N);
  }
  double V[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
  if (frame.virial) {
    for (int c = 0; c < 9; ++c) {
      const double d = out.totals[1 + c] - (*frame.virial)(c / 3, c % 3);
      fl.virial_sq += d * d;
      V[c / 3][c % 3] = 2 * w.pv * d / (9 * N);
    }
    fl.loss += w.pv * fl.virial_sq / (9 * N);
  }
  if (!grad) return fl;

  const SeE2A& de = model.descriptor;
  const int nt = model.ntypes(), nnei = de.nnei(), M = de.m(), axis = de.axis_neuron;
  std::vector<int> mtype;
  for (const auto& name : atoms.type_names())
    mtype.push_back(static_cast<int>(std::find(model.type_map.begin(), model.type_map.end(), name) - model.type_map.begin()));
  std::vector<Slot> slots;
  std::vector<nn::DualTrace> traces(nnei);
  std::vector<double> rhat(4 * nnei), drhat(4 * nnei), y, dy;
  for (int i = 0; i < n; ++i) {
    const int ti = mtype[a.type[i]];
    if (model.atom_excluded[ti]) continue;
    environment(model, a, list.ref(), mtype, i, slots);
    std::vector<double> gr(4 * M, 0.0), dgr(4 * M, 0.0);
    for (int t = 0, k = 0; t < nt; ++t)
      for (int s = 0; s < de.sel[t]; ++s, ++k) {
        const Slot& sl = slots[k];
        const std::size_t off = (static_cast<std::size_t>(ti) * nnei + k) * 4;
        const bool zeroed = sl.j >= 0 && de.excluded[ti * nt + t];
        // Tangent of the displacement: d' = -(u_j - u_i) - V d.
        double dd[3] = {0, 0, 0};
        if (sl.j >= 0 && !zeroed) {
          const double d[3] = {sl.d.x, sl.d.y, sl.d.z};
          for (int p = 0; p < 3; ++p) dd[p] = -(u[sl.j][p] - u[i][p]) - (V[p][0] * d[0] + V[p][1] * d[1] + V[p][2] * d[2]);
        }
        for (int c = 0; c < 4; ++c) {
          rhat[4 * k + c] = zeroed ? 0.0 : (sl.R[c] - de.davg[off + c]) / de.dstd[off + c];
          drhat[4 * k + c] = (sl.dR[c][0] * dd[0] + sl.dR[c][1] * dd[1] + sl.dR[c][2] * dd[2]) / de.dstd[off + c];
        }
        nn::dual_forward(de.embedding(ti, t, nt), &rhat[4 * k], &drhat[4 * k], traces[k], y, dy);
        for (int q = 0; q < M; ++q) {
          for (int c = 0; c < 4; ++c) {
            gr[4 * q + c] += y[q] * rhat[4 * k + c] / nnei;
            dgr[4 * q + c] += (dy[q] * rhat[4 * k + c] + y[q] * drhat[4 * k + c]) / nnei;
          }
        }
      }
    // D = gr gr[:axis]^T and its tangent; the fitting net with tangents.
    std::vector<double> D(static_cast<std::size_t>(M) * axis), dD(D.size());
    for (int p = 0; p < M; ++p)
      for (int b = 0; b < axis; ++b) {
        double s = 0, ds = 0;
        for (int c = 0; c < 4; ++c) {
          s += gr[4 * p + c] * gr[4 * b + c];
          ds += dgr[4 * p + c] * gr[4 * b + c] + gr[4 * p + c] * dgr[4 * b + c];
        }
        D[p * axis + b] = s;
        dD[p * axis + b] = ds;
      }
    nn::DualTrace ft;
    nn::dual_forward(model.fitting[ti], D.data(), dD.data(), ft, y, dy);
    // Phi_i = dL/dE E_i + E_i' : reverse through everything.
    std::vector<double> gD(D.size()), gdD(D.size());
    const double one = 1.0;
    nn::dual_backward(model.fitting[ti], ft, &dl_de, &one, grad->fit[ti], gD.data(), gdD.data());
    std::vector<double> ggr(4 * M, 0.0), gdgr(4 * M, 0.0);
    d_term(gD.data(), gr, M, axis, ggr);
    d_term(gdD.data(), dgr, M, axis, ggr);
    d_term(gdD.data(), gr, M, axis, gdgr);
    std::vector<double> gG(M), gdG(M);
    for (int t = 0, k = 0; t < nt; ++t)
      for (int s = 0; s < de.sel[t]; ++s, ++k) {
        for (int q = 0; q < M; ++q) {
          double g1 = 0, g2 = 0;
          for (int c = 0; c < 4; ++c) {
            g1 += ggr[4 * q + c] * rhat[4 * k + c] + gdgr[4 * q + c] * drhat[4 * k + c];
            g2 += gdgr[4 * q + c] * rhat[4 * k + c];
          }
          gG[q] = g1 / nnei;
          gdG[q] = g2 / nnei;
        }
        nn::dual_backward(de.embedding(ti, t, nt), traces[k], gG.data(), gdG.data(),
                      grad->emb[de.type_one_side ? t : ti + t * nt], nullptr, nullptr);
      }
  }
  return fl;
}

}  // namespace quasar::dp
