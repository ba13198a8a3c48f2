#include "quasar/potential/dp/deep_potential_gpu.hpp"

#include "quasar/core/error.hpp"

namespace quasar::dp {

GpuModel gpu_model_constants(const DpModel& model) {
  const SeE2A& de = model.descriptor;
  const int nt = model.ntypes();
  if (nt > kGpuMaxTypes) throw Error("deepmd on the GPU: at most 8 atom types");
  for (const nn::Network& f : model.fitting)
    if (f.layers.size() < 2) throw Error("deepmd on the GPU: fitting nets need at least one hidden layer");
  GpuModel g{};
  g.ntypes = nt;
  g.nnei = de.nnei();
  g.m = de.m();
  g.axis = de.axis_neuron;
  g.extra = model.numb_fparam + model.numb_aparam;
  g.fit_in = g.m * g.axis + g.extra;
  g.rcut = de.rcut;
  g.rcut_smth = de.rcut_smth;
  g.env_protection = de.env_protection;
  g.type_one_side = de.type_one_side ? 1 : 0;
  g.sec[0] = 0;
  for (int t = 0; t < nt; ++t) {
    g.sel[t] = de.sel[t];
    g.sec[t + 1] = g.sec[t] + de.sel[t];
    g.bias[t] = model.bias_atom_e[t] + model.out_bias[t];
    g.atom_excluded[t] = model.atom_excluded[t];
    for (int u = 0; u < nt; ++u) {
      g.excluded[t * nt + u] = de.excluded[t * nt + u];
      g.pair_excluded[t * nt + u] = model.pair_excluded[t * nt + u];
    }
  }
  return g;
}

}  // namespace quasar::dp
