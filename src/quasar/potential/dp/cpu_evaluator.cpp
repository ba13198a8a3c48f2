#include "quasar/potential/dp/cpu_evaluator.hpp"

#include <algorithm>
#include <cmath>

#include "quasar/device/cpu_clones.hpp"
#include "quasar/nn/rows.hpp"
#include "quasar/potential/dp/env_row.hpp"

namespace quasar::dp {

namespace {

// A neighbour within rcut: its distance, list position and whether its pair type is excluded.
struct Candidate {
  double r;
  int k;
  bool excluded;
};

// One embedding row: a kept neighbour slot of a block atom.
struct Row {
  int atom;  // in the block
  int slot;  // of the atom's nnei slots
  int j;     // the neighbour, -1 for a padding slot (an excluded pair among the nearest)
  double d[3];
  double rhat[4];
  double dR[4][3];
};

}  // namespace

struct BlockWork {
  std::vector<std::vector<Candidate>> candidates;  // per neighbour type
  std::vector<Vec3> disp;                          // per list entry of the atom
  std::vector<std::vector<Row>> rows;              // per neighbour type
  std::vector<int> keep;                           // [atom][type]: slots filled from the environment
  std::vector<double> s, G, dG;                    // per row of one type: s_hat; rows x M
  std::vector<std::size_t> row_begin;              // per type, into G and dG
  std::vector<double> gr, x, ggr, ggr_t, H, K, grad_out, grad_in, gd, net_work, back_work;
  nn::RowsTrace trace;
};

namespace {

// gr (4 x M, component-major) += G(row) x R_hat(row) for every row of one type.
QUASAR_CPU_CLONES
void add_rows_to_gr(const Row* rows, int count, const double* __restrict G, int M, double* __restrict gr) {
  for (int r = 0; r < count; ++r) {
    const double* __restrict g = G + static_cast<long>(r) * M;
    double* __restrict out = gr + static_cast<long>(rows[r].atom) * 4 * M;
    for (int c = 0; c < 4; ++c) {
      const double rh = rows[r].rhat[c];
      double* __restrict o = out + c * M;
      for (int a = 0; a < M; ++a) o[a] += g[a] * rh;
    }
  }
}

// The gradient of the energy with respect to each row's displacement d: dE/dR_hat = ggr G, plus in
// its first component dE/dG . dG/ds = sum_c R_hat[c] (ggr dG)[c] (H and K: G and dG times ggr^T, 4
// per row), then through R(d).
QUASAR_CPU_CLONES
void row_gradients(const Row* rows, int count, const double* __restrict H, const double* __restrict K,
                   const double* __restrict dstd, double* __restrict gd_out) {
  for (int r = 0; r < count; ++r) {
    const Row& row = rows[r];
    const double* h = H + 4L * r;
    const double* kk = K + 4L * r;
    const double grh[4] = {
        h[0] + (row.rhat[0] * kk[0] + row.rhat[1] * kk[1] + row.rhat[2] * kk[2] + row.rhat[3] * kk[3]), h[1], h[2],
        h[3]};
    const double* sd = dstd + static_cast<long>(row.slot) * 4;
    double* gd = gd_out + 3L * r;
    gd[0] = gd[1] = gd[2] = 0;
    for (int c = 0; c < 4; ++c) {
      const double gR = grh[c] / sd[c];
      for (int m = 0; m < 3; ++m) gd[m] += gR * row.dR[c][m];
    }
  }
}

}  // namespace

CpuEvaluator::CpuEvaluator(const DpModel& model, const EmbeddingTables* tables) : tables_(tables) {
  model_ = &model;
  const SeE2A& de = model.descriptor;
  const int nt = model.ntypes();
  nnei_ = de.nnei();
  m_ = de.m();
  const int M = m_;
  for (const nn::Network& e : de.embeddings) embeddings_.emplace_back(e);
  for (const nn::Network& f : model.fitting) fittings_.emplace_back(f);
  pad_rhat_.assign(static_cast<std::size_t>(nt) * nnei_ * 4, 0.0);
  pad_suffix_.assign(static_cast<std::size_t>(nt) * (nnei_ + nt) * 4 * M, 0.0);
  BlockWork w;
  for (int ti = 0; ti < nt; ++ti) {
    for (int k = 0; k < nnei_ * 4; ++k) {
      const std::size_t at = static_cast<std::size_t>(ti) * nnei_ * 4 + k;
      pad_rhat_[at] = (0.0 - de.davg[at]) / de.dstd[at];  // R = 0
    }
    int base = 0;
    for (int t = 0; t < nt; ++t) {
      const int sel = de.sel[t];
      std::vector<double> s(sel), G(static_cast<std::size_t>(sel) * M), dG(G.size());
      for (int k = 0; k < sel; ++k) s[k] = pad_rhat_[(static_cast<std::size_t>(ti) * nnei_ + base + k) * 4];
      embed(w, de.type_one_side ? t : ti + t * nt, sel, s.data(), G.data(), dG.data());
      // suffix[k] = suffix[k + 1] + G(k) x R_hat(k), from suffix[sel] = 0.
      double* suffix = &pad_suffix_[(static_cast<std::size_t>(ti) * (nnei_ + nt) + base + t) * 4 * M];
      for (int k = sel; k-- > 0;) {
        const double* rh = &pad_rhat_[(static_cast<std::size_t>(ti) * nnei_ + base + k) * 4];
        const double* g = G.data() + static_cast<std::size_t>(k) * M;
        double* here = suffix + static_cast<std::size_t>(k) * 4 * M;
        const double* next = here + 4 * M;
        for (int c = 0; c < 4; ++c)
          for (int a = 0; a < M; ++a) here[c * M + a] = next[c * M + a] + g[a] * rh[c];
      }
      base += sel;
    }
  }
}

CpuEvaluator::~CpuEvaluator() = default;

void CpuEvaluator::embed(BlockWork& w, int net, int rows, const double* s, double* G, double* dG) const {
  if (rows == 0) return;
  if (tables_) {
    tables_->eval_rows(net, s, rows, G, dG);
    return;
  }
  nn::forward_tangent_rows(embeddings_[net], s, rows, G, dG, w.net_work);
}

void CpuEvaluator::compute(const DpModel& model, const AtomsRef& a, const NeighborRef& list,
                           const std::vector<int>& model_type, const std::vector<double>& extra, Outputs& out) {
  model_ = &model;
  const int nt = model.ntypes();
  // Centres by model type (in atom order within a type), then blocks of one type.
  centres_.clear();
  std::vector<int> type_begin(nt + 1, 0);
  for (int ti = 0; ti < nt; ++ti) {
    for (int i = 0; i < a.n; ++i)
      if (a.id[i] < a.n_local && model_type[a.type[i]] == ti) centres_.push_back(i);
    type_begin[ti + 1] = static_cast<int>(centres_.size());
  }
  struct Block {
    int type, begin, count;
  };
  std::vector<Block> blocks;
  for (int ti = 0; ti < nt; ++ti)
    for (int b = type_begin[ti]; b < type_begin[ti + 1]; b += kBlockAtoms)
      blocks.push_back({ti, b, std::min(kBlockAtoms, type_begin[ti + 1] - b)});
  const long nblocks = static_cast<long>(blocks.size());
  const bool forces = !out.descriptor;
  const int threads = forces ? device::threads_for(nblocks, 2) : 1;
  while (work_.size() < static_cast<std::size_t>(threads)) work_.push_back(std::make_unique<BlockWork>());
  const std::size_t n = static_cast<std::size_t>(a.n);
  buffers_.prepare(threads, {a.fx, a.fy, a.fz, out.per_atom ? out.atom_virial : nullptr}, {n, n, n, 9 * n});
  std::vector<double> partial(static_cast<std::size_t>(nblocks) * 10, 0.0);
  device::parallel_ranges(nblocks, threads, [&](int t, long begin, long end) {
    for (long k = begin; k < end; ++k) {
      const Block& bl = blocks[static_cast<std::size_t>(k)];
      block(*work_[static_cast<std::size_t>(t)], a, list, model_type, extra, bl.type, &centres_[bl.begin], bl.count,
            buffers_.get(t, 0), buffers_.get(t, 1), buffers_.get(t, 2), buffers_.get(t, 3), out,
            &partial[static_cast<std::size_t>(k) * 10]);
    }
  });
  buffers_.reduce();
  for (long k = 0; k < nblocks; ++k)
    for (int c = 0; c < 10; ++c) out.totals[c] += partial[static_cast<std::size_t>(k) * 10 + c];
}

void CpuEvaluator::block(BlockWork& w, const AtomsRef& a, const NeighborRef& list, const std::vector<int>& model_type,
                         const std::vector<double>& extra, int ti, const int* atoms, int count, double* fx, double* fy,
                         double* fz, double* atom_virial, Outputs& out, double partial[10]) {
  const DpModel& model = *model_;
  const SeE2A& de = model.descriptor;
  const int nt = model.ntypes(), M = m_, nnei = nnei_, axis = de.axis_neuron;
  const std::size_t n = static_cast<std::size_t>(a.n);
  w.candidates.resize(nt);
  w.rows.resize(nt);
  for (auto& r : w.rows) r.clear();
  w.keep.assign(static_cast<std::size_t>(count) * nt, 0);
  const double* davg = &de.davg[static_cast<std::size_t>(ti) * nnei * 4];
  const double* dstd = &de.dstd[static_cast<std::size_t>(ti) * nnei * 4];

  // 1. Environments: the nearest sel[t] neighbours of each type within rcut (ties in list order).
  for (int b = 0; b < count; ++b) {
    const int i = atoms[b];
    for (auto& c : w.candidates) c.clear();
    w.disp.resize(static_cast<std::size_t>(list.count[i]));
    const Box& box = a.box_of(i);
    for (int k = 0; k < list.count[i]; ++k) {
      int j;
      const Vec3 d = list.delta(box, a.x, a.y, a.z, i, k, j);
      w.disp[k] = d;
      const double r = std::sqrt(norm2(d));
      const int tj = model_type[a.type[j]];
      // Excluded pairs leave the list after the nearest sel[t] are chosen, as DeePMD-kit does.
      if (r < de.rcut) w.candidates[tj].push_back({r, k, model.pair_excluded[ti * nt + tj] != 0});
    }
    int base = 0;
    for (int t = 0; t < nt; ++t) {
      auto& v = w.candidates[t];
      std::sort(v.begin(), v.end(),
                [](const Candidate& p, const Candidate& q) { return p.r < q.r || (p.r == q.r && p.k < q.k); });
      const int keep = std::min(static_cast<int>(v.size()), de.sel[t]);
      w.keep[static_cast<std::size_t>(b) * nt + t] = keep;
      const bool type_excluded = de.excluded[ti * nt + t] != 0;
      for (int s = 0; s < keep; ++s) {
        const int slot = base + s;
        if (v[s].excluded) {  // padding among the nearest: its row, no force
          Row row{b, slot, -1, {0, 0, 0}, {}, {}};
          for (int c = 0; c < 4; ++c) row.rhat[c] = pad_rhat_[(static_cast<std::size_t>(ti) * nnei + slot) * 4 + c];
          w.rows[t].push_back(row);
          continue;
        }
        if (type_excluded) continue;  // a zero row: nothing to the descriptor, no force
        const int k = v[s].k;
        Row row{b, slot, list.index[list.slot_of(i, k)], {w.disp[k].x, w.disp[k].y, w.disp[k].z}, {}, {}};
        double R[4];
        env_row(w.disp[k], de.env_protection, de.rcut_smth, de.rcut, R, row.dR);
        for (int c = 0; c < 4; ++c) row.rhat[c] = (R[c] - davg[slot * 4 + c]) / dstd[slot * 4 + c];
        w.rows[t].push_back(row);
      }
      base += de.sel[t];
    }
  }

  // 2. Embedding of every row, one neighbour type at a time; then gr = sum G x R_hat / nnei, with
  // the padding slots after each atom's kept ones from the suffix tables.
  w.row_begin.assign(nt + 1, 0);
  for (int t = 0; t < nt; ++t) w.row_begin[t + 1] = w.row_begin[t] + w.rows[t].size();
  const std::size_t total_rows = w.row_begin[nt];
  w.G.resize(total_rows * M);
  w.dG.resize(total_rows * M);
  w.gr.assign(static_cast<std::size_t>(count) * 4 * M, 0.0);
  int base = 0;
  for (int t = 0; t < nt; ++t) {
    const auto& rows = w.rows[t];
    const int nr = static_cast<int>(rows.size());
    w.s.resize(rows.size());
    for (int r = 0; r < nr; ++r) w.s[r] = rows[r].rhat[0];
    double* G = w.G.data() + w.row_begin[t] * M;
    embed(w, de.type_one_side ? t : ti + t * nt, nr, w.s.data(), G, w.dG.data() + w.row_begin[t] * M);
    add_rows_to_gr(rows.data(), nr, G, M, w.gr.data());
    for (int b = 0; b < count; ++b) {
      const int keep = w.keep[static_cast<std::size_t>(b) * nt + t];
      if (keep == de.sel[t]) continue;
      const double* suffix = &pad_suffix_[((static_cast<std::size_t>(ti) * (nnei + nt) + base + t + keep) * 4) * M];
      double* gr = w.gr.data() + static_cast<std::size_t>(b) * 4 * M;
      for (int q = 0; q < 4 * M; ++q) gr[q] += suffix[q];
    }
    base += de.sel[t];
  }
  for (double& g : w.gr) g /= nnei;

  // 3. Descriptors D = gr gr[:axis]^T and the fitting input (with frame and atomic parameters).
  const nn::RowsNet& fit = fittings_[ti];
  const int fit_in = fit.in_dim(), nextra = model.numb_fparam + model.numb_aparam;
  w.x.resize(static_cast<std::size_t>(count) * fit_in);
  for (int b = 0; b < count; ++b) {
    const double* gr = w.gr.data() + static_cast<std::size_t>(b) * 4 * M;
    double* x = w.x.data() + static_cast<std::size_t>(b) * fit_in;
    for (int p = 0; p < M; ++p)
      for (int q = 0; q < axis; ++q) {
        double s = 0;
        for (int c = 0; c < 4; ++c) s += gr[c * M + p] * gr[c * M + q];
        x[p * axis + q] = s;
      }
    for (int e = 0; e < nextra; ++e) x[M * axis + e] = extra[static_cast<std::size_t>(a.id[atoms[b]]) * nextra + e];
  }
  nn::forward_rows(fit, w.x.data(), count, w.trace);
  if (out.descriptor) {  // intermediates for checks
    const int last = fit.layers.back().in;
    const std::vector<double>& ll = fit.layers.size() > 1 ? w.trace.in.back() : w.x;
    for (int b = 0; b < count; ++b) {
      const std::size_t i = static_cast<std::size_t>(atoms[b]);
      std::copy_n(w.x.data() + static_cast<std::size_t>(b) * fit_in, M * axis, &(*out.descriptor)[i * M * axis]);
      std::copy_n(&ll[static_cast<std::size_t>(b) * last], last, &(*out.fit_last_input)[i * last]);
    }
    return;
  }
  if (model.atom_excluded[ti]) return;  // no energy, no force from these centres
  double sums[10] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};  // kept here, written to `partial` at the end
  for (int b = 0; b < count; ++b) {
    const double e = w.trace.out[b] + model.bias_atom_e[ti] + model.out_bias[ti];
    sums[0] += e;
    if (out.per_atom) out.atom_energy[atoms[b]] += e;
  }

  // 4. Backwards: dE/dD from the fitting net, then dE/dgr (ggr, 4 x M per atom).
  w.grad_out.assign(count, 1.0);
  w.grad_in.resize(static_cast<std::size_t>(count) * fit_in);
  nn::backward_rows(fit, w.trace, w.grad_out.data(), w.grad_in.data(), w.back_work);
  w.ggr.resize(static_cast<std::size_t>(count) * 4 * M);
  for (int b = 0; b < count; ++b) {
    const double* gD = w.grad_in.data() + static_cast<std::size_t>(b) * fit_in;
    const double* gr = w.gr.data() + static_cast<std::size_t>(b) * 4 * M;
    double* ggr = w.ggr.data() + static_cast<std::size_t>(b) * 4 * M;
    for (int p = 0; p < M; ++p)
      for (int c = 0; c < 4; ++c) {
        double s = 0;
        for (int q = 0; q < axis; ++q) s += gD[p * axis + q] * gr[c * M + q];
        if (p < axis)
          for (int q = 0; q < M; ++q) s += gD[q * axis + p] * gr[c * M + q];
        ggr[c * M + p] = s / nnei;
      }
  }

  // 5. Forces and virials of every row with a neighbour. Rows of one type come atom by atom: each
  // atom's rows times its ggr^T (M x 4, padded to a tile) as matrix products.
  double fi[kBlockAtoms][3] = {};
  std::vector<double>& gd = w.gd;  // 3 per row
  const int wide = nn::padded_width(4);
  w.ggr_t.assign(static_cast<std::size_t>(M) * wide, 0.0);
  for (int t = 0; t < nt; ++t) {
    const auto& rows = w.rows[t];
    const int nr = static_cast<int>(rows.size());
    const double* G = w.G.data() + w.row_begin[t] * M;
    const double* dG = w.dG.data() + w.row_begin[t] * M;
    w.H.resize(4 * rows.size());
    w.K.resize(4 * rows.size());
    for (int r0 = 0; r0 < nr;) {
      const int b = rows[r0].atom;
      int r1 = r0;
      while (r1 < nr && rows[r1].atom == b) ++r1;
      const double* ggr = w.ggr.data() + static_cast<std::size_t>(b) * 4 * M;
      for (int q = 0; q < M; ++q)
        for (int c = 0; c < 4; ++c) w.ggr_t[static_cast<std::size_t>(q) * wide + c] = ggr[c * M + q];
      const long first = static_cast<long>(r0) * M;
      nn::product_rows(G + first, M, r1 - r0, M, w.ggr_t.data(), 4, nullptr, w.H.data() + 4L * r0, 4);
      nn::product_rows(dG + first, M, r1 - r0, M, w.ggr_t.data(), 4, nullptr, w.K.data() + 4L * r0, 4);
      r0 = r1;
    }
    gd.resize(3 * rows.size());
    row_gradients(rows.data(), nr, w.H.data(), w.K.data(), dstd, gd.data());
    for (int r = 0; r < nr; ++r) {
      const Row& row = rows[r];
      if (row.j < 0) continue;
      const double* g = &gd[3 * static_cast<std::size_t>(r)];
      const int j = row.j;
      fx[j] -= g[0];
      fy[j] -= g[1];
      fz[j] -= g[2];
      for (int m = 0; m < 3; ++m) fi[row.atom][m] += g[m];
      for (int p = 0; p < 3; ++p)
        for (int q = 0; q < 3; ++q) {
          // DeePMD-kit's convention: -(dE/dd)_p d_q, given to the neighbour. Summed over atoms it
          // equals the symmetric total virial.
          const double v = -g[p] * row.d[q];
          sums[1 + p * 3 + q] += v;
          if (out.per_atom) atom_virial[(p * 3 + q) * n + j] += v;
        }
    }
  }
  for (int b = 0; b < count; ++b) {
    fx[atoms[b]] += fi[b][0];
    fy[atoms[b]] += fi[b][1];
    fz[atoms[b]] += fi[b][2];
  }
  std::copy(sums, sums + 10, partial);
}

}  // namespace quasar::dp
