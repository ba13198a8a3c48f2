#include "quasar/potential/dp/train/model_init.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include "quasar/core/error.hpp"
#include "quasar/potential/evaluate.hpp"
#include "quasar/potential/dp/deep_potential.hpp"
#include "quasar/potential/dp/environment.hpp"

namespace quasar::dp {

namespace {

nn::Network make_net(int in_dim, const std::vector<int>& widths, bool fitting, bool timestep, nn::Activation act,
                     std::mt19937_64& rng) {
  nn::Network n;
  std::normal_distribution<double> unit(0.0, 1.0);
  int in = in_dim;
  for (std::size_t l = 0; l <= widths.size() - (fitting ? 0 : 1); ++l) {
    const bool last = fitting && l == widths.size();
    nn::Layer L;
    L.in = in;
    L.out = last ? 1 : widths[l];
    L.act = last ? nn::Activation::Linear : act;
    L.resnet = !last;
    const double sw = 1.0 / std::sqrt(static_cast<double>(L.in + L.out));
    for (int k = 0; k < L.in * L.out; ++k) L.w.push_back(sw * unit(rng));
    for (int k = 0; k < L.out; ++k) L.b.push_back(last ? 0.0 : unit(rng));
    if (timestep && !last && L.residual())
      for (int k = 0; k < L.out; ++k) L.idt.push_back(0.1 + 0.001 * unit(rng));
    n.layers.push_back(std::move(L));
    in = n.layers.back().out;
  }
  return n;
}

}  // namespace

DpModel make_model(const TrainInput& in) {
  DpModel m;
  m.type_map = in.type_map;
  const int nt = m.ntypes();
  SeE2A& de = m.descriptor;
  de.rcut = in.rcut;
  de.rcut_smth = in.rcut_smth;
  de.env_protection = in.env_protection;
  de.sel = in.sel;
  de.axis_neuron = in.axis_neuron;
  de.type_one_side = in.type_one_side;
  de.excluded.assign(static_cast<std::size_t>(nt) * nt, 0);
  for (auto [a, b] : in.exclude_types) {
    if (a < 0 || b < 0 || a >= nt || b >= nt) throw Error("training input: exclude_types index out of range");
    de.excluded[a * nt + b] = de.excluded[b * nt + a] = 1;
  }
  if (in.embedding_neuron.empty() || in.axis_neuron > in.embedding_neuron.back())
    throw Error("training input: axis_neuron must not exceed the last embedding width");
  std::mt19937_64 drng(in.descriptor_seed), frng(in.fitting_seed);
  const nn::Activation act = nn::parse_activation(in.activation), fact = nn::parse_activation(in.fitting_activation);
  const int nets = de.type_one_side ? nt : nt * nt;
  for (int k = 0; k < nets; ++k) {
    // make_net builds widths.size() layers for embeddings (input 1), widths.size() + 1 for fitting.
    std::vector<int> w = in.embedding_neuron;
    de.embeddings.push_back(make_net(1, w, false, in.embedding_resnet_dt, act, drng));
  }
  const std::size_t nnei = static_cast<std::size_t>(de.nnei());
  de.davg.assign(static_cast<std::size_t>(nt) * nnei * 4, 0.0);
  de.dstd.assign(de.davg.size(), 1.0);
  for (int t = 0; t < nt; ++t)
    m.fitting.push_back(make_net(de.m() * de.axis_neuron, in.fitting_neuron, true, in.fitting_resnet_dt, fact, frng));
  m.bias_atom_e.assign(nt, 0.0);
  m.out_bias.assign(nt, 0.0);
  m.atom_excluded.assign(nt, 0);
  m.pair_excluded.assign(static_cast<std::size_t>(nt) * nt, 0);
  return m;
}

void set_statistics(DpModel& m, const std::vector<const Structure*>& frames, Backend backend) {
  const SeE2A& de = m.descriptor;
  const int nt = m.ntypes(), nnei = de.nnei();
  std::vector<double> n(nt, 0), sr(nt, 0), sr2(nt, 0), sa(nt, 0), sa2(nt, 0);
  // Energy least squares: A^T A b = A^T E with A the type counts per frame.
  std::vector<double> ata(static_cast<std::size_t>(nt) * nt, 0.0), ate(nt, 0.0);
  std::vector<Slot> slots;
  struct Labelled {
    double energy;
    std::vector<double> count;
    const Structure* s;
  };
  std::vector<Labelled> energies;
  for (const Structure* s : frames) {
    AtomState atoms(Backend::Cpu, *s);
    std::vector<int> mtype;
    for (const auto& name : atoms.type_names()) {
      auto it = std::find(m.type_map.begin(), m.type_map.end(), name);
      if (it == m.type_map.end()) throw Error("training data: atom type '" + name + "' is not in type_map");
      mtype.push_back(static_cast<int>(it - m.type_map.begin()));
    }
    NeighborList list(Backend::Cpu, {de.rcut, 0.0, ListKind::Full, 0});
    list.build(atoms);
    const AtomsRef a = atoms.ref();
    std::vector<double> count(nt, 0.0);
    for (int i = 0; i < a.n; ++i) {
      const int ti = mtype[a.type[i]];
      ++count[ti];
      environment(m, a, list.ref(), mtype, i, slots);
      for (int t = 0, k = 0; t < nt; ++t)
        for (int q = 0; q < de.sel[t]; ++q, ++k) {
          const bool zero = slots[k].j < 0 || de.excluded[ti * nt + t];
          const double* R = slots[k].R;
          n[ti] += 1;
          if (zero) continue;
          sr[ti] += R[0];
          sr2[ti] += R[0] * R[0];
          for (int c = 1; c < 4; ++c) {
            sa[ti] += R[c];
            sa2[ti] += R[c] * R[c];
          }
        }
    }
    if (s->energy) {
      energies.push_back({*s->energy, count, s});
    }
  }
  auto std_of = [](double sum, double sq, double num) {
    if (num == 0) return 0.1;
    const double v = std::sqrt(std::max(0.0, sq / num - (sum / num) * (sum / num)));
    return std::abs(v) < 1e-2 ? 1e-2 : v;
  };
  SeE2A& d = m.descriptor;
  for (int ti = 0; ti < nt; ++ti)
    for (int k = 0; k < nnei; ++k) {
      const std::size_t at = (static_cast<std::size_t>(ti) * nnei + k) * 4;
      d.davg[at] = n[ti] ? sr[ti] / n[ti] : 0.0;
      d.dstd[at] = std_of(sr[ti], sr2[ti], n[ti]);
      for (int c = 1; c < 4; ++c) {
        d.davg[at + c] = 0.0;
        d.dstd[at + c] = std_of(sa[ti], sa2[ti], 3 * n[ti]);
      }
    }
  // The bias fits what the initial networks leave: label minus the model's energy without bias.
  m.bias_atom_e.assign(nt, 0.0);
  DeepPotential pot(m);
  for (const Labelled& l : energies) {
    const double residual = l.energy - evaluate(pot, *l.s, backend).energy;
    for (int p = 0; p < nt; ++p) {
      ate[p] += l.count[p] * residual;
      for (int q = 0; q < nt; ++q) ata[p * nt + q] += l.count[p] * l.count[q];
    }
  }
  // Solve the small normal equations (Gaussian elimination with a ridge for types never seen).
  for (int p = 0; p < nt; ++p) ata[p * nt + p] += 1e-8 * (1.0 + ata[p * nt + p]);
  std::vector<double> b = ate;
  for (int c = 0; c < nt; ++c) {
    int piv = c;
    for (int r = c + 1; r < nt; ++r)
      if (std::abs(ata[r * nt + c]) > std::abs(ata[piv * nt + c])) piv = r;
    for (int k = 0; k < nt; ++k) std::swap(ata[c * nt + k], ata[piv * nt + k]);
    std::swap(b[c], b[piv]);
    for (int r = c + 1; r < nt; ++r) {
      const double f = ata[r * nt + c] / ata[c * nt + c];
      for (int k = c; k < nt; ++k) ata[r * nt + k] -= f * ata[c * nt + k];
      b[r] -= f * b[c];
    }
  }
  for (int c = nt - 1; c >= 0; --c) {
    double s = b[c];
    for (int k = c + 1; k < nt; ++k) s -= ata[c * nt + k] * m.bias_atom_e[k];
    m.bias_atom_e[c] = s / ata[c * nt + c];
  }
}

}  // namespace quasar::dp
