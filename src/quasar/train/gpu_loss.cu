// The training loss on the GPU (gpu_loss.hpp). Layout of one centre type's rows as in the
// inference kernels (dp_kernels.cuh): row(t, a, s) = nc sec[t] + a sel[t] + s.
//
// Tangents. With the displacement tangent d' fixed, every quantity X gets a tangent X'. The
// embedding input is s = R_hat[0] with tangent s', so inside an embedding net X' = (dX/ds) s': the
// forward pass carries dX/ds (the value rows' partners are [1] at the input), and the reverse pass
// carries h = s' dPhi/dX' in place of dPhi/dX', which obeys the same recursion. The fitting net's
// input tangent D' is general, so there the tangent rows are D' itself and h = dPhi/dX'.
#include <cublas_v2.h>

#include <algorithm>
#include <map>

#include "quasar/core/atoms.hpp"
#include "quasar/neighbor/neighbor_list.hpp"
#include "quasar/train/gpu_loss.hpp"
#include "quasar/train/gpu_loss_kernels.cuh"

namespace quasar::train {

using dp::ChunkRef;
using dp::GpuModel;
using dp::LayerRef;

namespace {

using namespace kernels;

void check(cublasStatus_t s, const char* what) { dp::cublas_check(s, what); }

template <class T>
T* grow(Array<T>& a, std::size_t n) {
  if (a.size() < n) a.resize(n);
  return a.data();
}

// A frame's atoms and neighbour list on the GPU, its atoms ordered by model type.
struct Frame {
  std::size_t n;
  Vec3 first, last;  // to notice a different frame at a reused address
  bool same(const Structure& s) const {
    auto eq = [](Vec3 a, Vec3 b) { return a.x == b.x && a.y == b.y && a.z == b.z; };
    return s.size() == n && eq(s.positions.front(), first) && eq(s.positions.back(), last);
  }
  AtomState atoms;
  NeighborList list;
  std::vector<int> count, start;  // per model type
  Array<int> order{Backend::Cuda}, model_type{Backend::Cuda};
  Frame(const dp::DpModel& model, const Structure& s)
      : n(s.size()), first(s.positions.front()), last(s.positions.back()), atoms(Backend::Cuda, s),
        list(Backend::Cuda, {model.descriptor.rcut, 0.0, ListKind::Full, 0}) {
    list.build(atoms);
    std::vector<int> mtype;
    for (const auto& name : atoms.type_names()) {
      const auto it = std::find(model.type_map.begin(), model.type_map.end(), name);
      if (it == model.type_map.end()) throw Error("training: atom type " + name + " is not in the model's type_map");
      mtype.push_back(static_cast<int>(it - model.type_map.begin()));
    }
    model_type.assign(mtype);
    const auto types = atoms.type.to_vector();
    const int nt = model.ntypes();
    count.assign(nt, 0);
    for (int t : types) ++count[mtype[t]];
    start.assign(nt, 0);
    for (int t = 1; t < nt; ++t) start[t] = start[t - 1] + count[t - 1];
    std::vector<int> idx(types.size()), fill = start;
    for (std::size_t i = 0; i < types.size(); ++i) idx[fill[mtype[types[i]]]++] = static_cast<int>(i);
    order.assign(idx);
  }
};

}  // namespace

// What every precision shares: the model's shapes and statistics and the parameter layout.
struct GpuLoss::Impl {
  // Where each layer's weights live in the flat parameter (and gradient) arrays: the order of the
  // CPU trainer's parameters (nets, then layers: w, b, idt).
  struct LayerAt {
    long w, b, idt;  // idt -1 when the layer has none
  };

  dp::DpModel model;  // shapes, activations and statistics; the parameters live on the GPU
  GpuModel m{};
  std::vector<std::vector<LayerAt>> at;  // embeddings, then fittings

  virtual ~Impl() = default;
  virtual void upload(const std::vector<double>& params) = 0;
  virtual std::vector<double> parameters() const = 0;  // the double master copy
  virtual std::vector<double> gradient() const = 0;
  virtual void moments(std::vector<double>& m1, std::vector<double>& m2) const = 0;
  virtual void set_moments(const std::vector<double>& m1, const std::vector<double>& m2) = 0;
  virtual void zero_gradient() = 0;
  virtual FrameLoss frame_loss(const Structure& s, const LossWeights& w, bool gradient) = 0;
  virtual void adam_step(double lr, long t, double frames) = 0;
  virtual void forget_frames() = 0;

  const dp::Network& net(int k) const {
    const int ne = static_cast<int>(model.descriptor.embeddings.size());
    return k < ne ? model.descriptor.embeddings[k] : model.fitting[k - ne];
  }
  int nets() const { return static_cast<int>(model.descriptor.embeddings.size() + model.fitting.size()); }

  void set_model(const dp::DpModel& source) {
    if (source.numb_fparam + source.numb_aparam > 0)
      throw Error("training: frame and atomic parameters are not supported yet");
    if (model.descriptor.rcut != source.descriptor.rcut || model.type_map != source.type_map) forget_frames();
    model = source;
    m = dp::gpu_model_constants(model);
    std::vector<double> p;
    at.assign(nets(), {});
    for (int k = 0; k < nets(); ++k)
      for (const dp::Layer& L : net(k).layers) {
        LayerAt la{static_cast<long>(p.size()), 0, -1};
        p.insert(p.end(), L.w.begin(), L.w.end());
        la.b = static_cast<long>(p.size());
        p.insert(p.end(), L.b.begin(), L.b.end());
        if (!L.idt.empty()) {
          la.idt = static_cast<long>(p.size());
          p.insert(p.end(), L.idt.begin(), L.idt.end());
        }
        at[k].push_back(la);
      }
    upload(p);
  }

  // Copies the flat array into the parameter arrays of `target` (of the model's shape).
  void scatter(const std::vector<double>& flat, dp::DpModel& target) const {
    const int ne = static_cast<int>(target.descriptor.embeddings.size());
    for (int k = 0; k < nets(); ++k) {
      dp::Network& n = k < ne ? target.descriptor.embeddings[k] : target.fitting[k - ne];
      for (std::size_t l = 0; l < at[k].size(); ++l) {
        auto put = [&](long off, std::vector<double>& v) { std::copy(flat.begin() + off, flat.begin() + off + v.size(), v.begin()); };
        put(at[k][l].w, n.layers[l].w);
        put(at[k][l].b, n.layers[l].b);
        if (at[k][l].idt >= 0) put(at[k][l].idt, n.layers[l].idt);
      }
    }
  }
};

namespace {

// The networks, traces and gradient in T (double, or float for mixed32); environment, forces,
// virial, the loss and Adam (on double master parameters) in double.
template <class T>
struct Engine final : GpuLoss::Impl {
  cublasHandle_t cublas = nullptr;
  std::map<const Structure*, std::unique_ptr<Frame>> frames;
  Array<double> params{Backend::Cuda}, mom1{Backend::Cuda}, mom2{Backend::Cuda};
  Array<double> davg{Backend::Cuda}, dstd{Backend::Cuda}, u{Backend::Cuda}, V{Backend::Cuda}, totals{Backend::Cuda};
  Array<double> disp{Backend::Cuda};
  Array<int> nbr{Backend::Cuda}, filled{Backend::Cuda};
  Array<T> params_t{Backend::Cuda}, grads{Backend::Cuda}, ones{Backend::Cuda};
  Array<T> rhat{Backend::Cuda}, drhat{Backend::Cuda}, gf{Backend::Cuda};
  Array<T> emb{Backend::Cuda}, fit{Backend::Cuda};  // traces: per layer [x; x'] then [z; z']
  Array<T> gr{Backend::Cuda}, dgr{Backend::Cuda}, ggr{Backend::Cuda}, gdgr{Backend::Cuda};
  Array<T> ga{Backend::Cuda}, gb{Backend::Cuda}, gz{Backend::Cuda}, tmp{Backend::Cuda};

  Engine() { check(cublasCreate(&cublas), "cublasCreate"); }
  ~Engine() override { cublasDestroy(cublas); }

  void upload(const std::vector<double>& p) override {
    params.assign(p);
    params_t.assign(std::vector<T>(p.begin(), p.end()));
    for (Array<double>* a : {&mom1, &mom2}) {
      a->resize(p.size());
      a->set_zero();
    }
    grads.resize(p.size());
    grads.set_zero();
    davg.assign(model.descriptor.davg);
    dstd.assign(model.descriptor.dstd);
  }
  std::vector<double> parameters() const override { return params.to_vector(); }
  std::vector<double> gradient() const override {
    const auto g = grads.to_vector();
    return std::vector<double>(g.begin(), g.end());
  }
  void moments(std::vector<double>& m1, std::vector<double>& m2) const override {
    m1 = mom1.to_vector();
    m2 = mom2.to_vector();
  }
  void set_moments(const std::vector<double>& m1, const std::vector<double>& m2) override {
    if (m1.size() != params.size() || m2.size() != m1.size()) throw Error("training on the GPU: moments do not fit the model");
    mom1.assign(m1);
    mom2.assign(m2);
  }
  void zero_gradient() override { grads.set_zero(); }
  void forget_frames() override { frames.clear(); }
  void adam_step(double lr, long t, double count) override {
    const double c1 = 1 - std::pow(0.9, static_cast<double>(t)), c2 = 1 - std::pow(0.999, static_cast<double>(t));
    const long n = static_cast<long>(params.size());
    adam_kernel<<<grid(n), kBlock>>>(n, params.data(), params_t.data(), grads.data(), mom1.data(), mom2.data(), count, lr,
                                     c1, c2);
    QUASAR_LAUNCH_CHECK("training adam");
  }

  LayerRef<T, T> layer(int k, int l, bool gradient = false) {
    const dp::Layer& L = net(k).layers[l];
    T* base = gradient ? grads.data() : params_t.data();
    const LayerAt& la = at[k][l];
    return {L.in, L.out, L.residual(), L.act, base + la.w, base + la.w, base + la.b,
            la.idt >= 0 ? base + la.idt : nullptr};
  }
  static long max_width(const dp::Network& n) {
    long w = 0;
    for (const dp::Layer& L : n.layers) w = std::max<long>(w, std::max(L.in, L.out));
    return w;
  }

  // Trace of a net over `rows` rows: per layer x (2 rows x in) then z (2 rows x out).
  static long trace_size(const dp::Network& n, long rows) {
    long s = 0;
    for (const dp::Layer& L : n.layers) s += 2 * rows * (L.in + L.out);
    return s;
  }

  // Forward with tangents through net k; the input [x; x'] is the trace's first block. The output
  // (2 rows x out_dim) goes to `out`.
  void forward(int k, long rows, T* trace, T* out) {
    const dp::Network& n = net(k);
    long off = 0;
    for (std::size_t l = 0; l < n.layers.size(); ++l) {
      const auto L = layer(k, static_cast<int>(l));
      T* xs = trace + off;
      T* zs = xs + 2 * rows * L.in;
      dp::gemm<T, T>(cublas, 2 * rows, L.in, L.out, xs, L.w, zs, false);
      off += 2 * rows * (L.in + L.out);
      T* y = l + 1 < n.layers.size() ? trace + off : out;
      dp::embed_post_kernel<<<grid(rows * L.out), kBlock>>>(rows, L, zs, xs, y);
      QUASAR_LAUNCH_CHECK("training forward layer");
    }
  }

  // Reverse through net k from [gy; h] at its output, held in ga (ga and gb alternate below); adds
  // the parameter gradient when `accumulate`. Returns [gx; h_x] at the input when `input_grad`.
  const T* backward(int k, long rows, const T* trace, bool accumulate, bool input_grad) {
    const dp::Network& n = net(k);
    std::vector<long> offs;
    long off = 0;
    for (const dp::Layer& L : n.layers) {
      offs.push_back(off);
      off += 2 * rows * (L.in + L.out);
    }
    T* g = ga.data();
    for (int l = static_cast<int>(n.layers.size()) - 1; l >= 0; --l) {
      const auto L = layer(k, l);
      const T* xs = trace + offs[l];
      const T* zs = xs + 2 * rows * L.in;
      T* gZ = grow(gz, 2 * rows * L.out);
      T* step = L.idt && accumulate ? grow(tmp, rows * L.out) : nullptr;
      dual_back_kernel<<<grid(rows * L.out), kBlock>>>(rows, L, zs, g, gZ, step);
      QUASAR_LAUNCH_CHECK("training reverse layer");
      if (accumulate) {
        const auto gL = layer(k, l, true);
        // gW (in x out) += [x; x']^T gZ; gb += the column sums of gZ's value rows; likewise idt.
        weight_gradient(cublas, L.out, L.in, static_cast<int>(2 * rows), gZ, xs, const_cast<T*>(gL.w));
        column_sums(cublas, L.out, static_cast<int>(rows), gZ, ones.data(), const_cast<T*>(gL.b));
        if (step) column_sums(cublas, L.out, static_cast<int>(rows), step, ones.data(), const_cast<T*>(gL.idt));
      }
      if (l == 0 && !input_grad) break;
      T* gX = g == ga.data() ? gb.data() : ga.data();
      dp::gemm<T, T>(cublas, 2 * rows, L.in, L.out, gZ, L.w, gX, true);
      if (L.residual) {
        residual_back_kernel<<<grid(2 * rows * L.in), kBlock>>>(2 * rows, L, g, gX);
        QUASAR_LAUNCH_CHECK("training residual");
      }
      g = gX;
    }
    return g;
  }

  FrameLoss frame_loss(const Structure& s, const LossWeights& w, bool gradient) override;
  void centre_type(Frame& f, int ti, bool tangents, double dl_de, bool accumulate);
};

// Everything for the atoms of centre type ti. Without tangents: energy into totals[0], forces and
// virial (totals[1..9]). With them: the loss gradient (dL/dE = dl_de; u and V on the device).
template <class T>
void Engine<T>::centre_type(Frame& f, int ti, bool tangents, double dl_de, bool accumulate) {
  const dp::SeE2A& de = model.descriptor;
  const int nt = m.ntypes, nc = f.count[ti], M = m.m;
  const ChunkRef c{nc, ti, f.order.data() + f.start[ti]};
  const long rows = static_cast<long>(nc) * m.nnei;
  AtomsRef a = f.atoms.ref();
  const NeighborRef list = f.list.ref();
  grow(nbr, rows);
  grow(filled, static_cast<long>(nc) * nt);
  grow(disp, 3 * rows);
  grow(rhat, 4 * rows);
  grow(drhat, 4 * rows);
  grow(gf, 2 * rows * M);
  if (ones.size() < static_cast<std::size_t>(std::max<long>(rows, nc)))
    ones.assign(std::vector<T>(std::max<long>(rows, nc), T(1)));
  const std::size_t env_shm = list.capacity * (sizeof(double) + sizeof(int));
  dp::environment_kernel<T><<<nc, dp::kAtomBlock, env_shm>>>(m, a, list, f.model_type.data(), c, davg.data(),
                                                                   dstd.data(), nbr.data(), disp.data(), rhat.data(),
                                                                   filled.data());
  QUASAR_LAUNCH_CHECK("training environment");
  if (tangents) {
    tangent_kernel<<<grid(rows), kBlock>>>(m, c, nbr.data(), disp.data(), dstd.data(), u.data(), V.data(), drhat.data());
    QUASAR_LAUNCH_CHECK("training tangents");
  } else {
    drhat.set_zero();
  }
  // Embedding nets, per neighbour type, traces kept.
  const dp::Network& fnet = model.fitting[ti];
  std::vector<long> emb_at(nt + 1, 0);
  long widest = 2L * nc * max_width(fnet);  // [gy; h] at any layer's output or input
  for (int t = 0; t < nt; ++t) {
    const long R = static_cast<long>(nc) * m.sel[t];
    emb_at[t + 1] = emb_at[t] + trace_size(de.embedding(ti, t, nt), R);
    widest = std::max(widest, 2 * R * max_width(de.embedding(ti, t, nt)));
  }
  grow(emb, emb_at[nt]);
  grow(ga, widest);
  grow(gb, widest);
  auto emb_net = [&](int t) { return de.type_one_side ? t : ti + t * nt; };
  for (int t = 0; t < nt; ++t) {
    const long R = static_cast<long>(nc) * m.sel[t];
    if (R == 0) continue;
    T* trace = emb.data() + emb_at[t];
    first_input_kernel<<<grid(R), kBlock>>>(R, rhat.data() + 4L * nc * m.sec[t], trace);
    QUASAR_LAUNCH_CHECK("training embedding input");
    forward(emb_net(t), R, trace, gf.data() + 2L * nc * m.sec[t] * M);
  }
  // Descriptor and fitting net with tangents.
  grow(gr, 4L * nc * M);
  grow(dgr, 4L * nc * M);
  const int fk = static_cast<int>(de.embeddings.size()) + ti;
  grow(fit, trace_size(fnet, nc) + 2L * nc);
  T* fit_out = fit.data() + trace_size(fnet, nc);
  dual_descriptor_kernel<<<nc, kBlock, 8 * M * sizeof(T)>>>(m, c, rhat.data(), drhat.data(), gf.data(), gr.data(),
                                                                dgr.data(), fit.data());
  QUASAR_LAUNCH_CHECK("training descriptor");
  forward(fk, nc, fit.data(), fit_out);
  // dPhi/dE_i = dl_de and dPhi/dE_i' = 1 (with tangents), or dE/dE_i = 1 for the forces.
  std::vector<T> g0(2L * nc, T(0));
  for (int i = 0; i < nc; ++i) {
    g0[i] = static_cast<T>(tangents ? dl_de : 1.0);
    g0[nc + i] = T(tangents ? 1 : 0);
  }
  ga.upload(g0.data(), g0.size());
  const T* gX = backward(fk, nc, fit.data(), accumulate, true);
  if (!tangents) {
    energy_kernel<<<grid(nc), kBlock>>>(nc, m.bias[ti], fit_out, totals.data());
    QUASAR_LAUNCH_CHECK("training energy");
    dp::force_kernel<T><<<nc, dp::kAtomBlock, 8 * M * sizeof(T)>>>(
        m, c, a, gr.data(), gX, rhat.data(), nbr.data(), disp.data(), dstd.data(), filled.data(),
        dp::GemmSource<T>{gf.data(), M}, totals.data(), nullptr, device::FloatSum{});
    QUASAR_LAUNCH_CHECK("training forces");
    return;
  }
  // Reverse into the embedding nets (gX is in ga or gb; ggr and gdgr are read before ga is reused).
  grow(ggr, 4L * nc * M);
  grow(gdgr, 4L * nc * M);
  dual_dterm_kernel<<<nc, kBlock>>>(m, nc, gr.data(), dgr.data(), gX, ggr.data(), gdgr.data());
  QUASAR_LAUNCH_CHECK("training descriptor reverse");
  for (int t = 0; t < nt; ++t) {
    const long R = static_cast<long>(nc) * m.sel[t];
    if (R == 0) continue;
    embedding_output_grad_kernel<<<grid(R * M), kBlock>>>(m, nc, t, rhat.data(), drhat.data(), ggr.data(),
                                                          gdgr.data(), ga.data());
    QUASAR_LAUNCH_CHECK("training embedding output gradient");
    backward(emb_net(t), R, emb.data() + emb_at[t], accumulate, false);
  }
}

template <class T>
FrameLoss Engine<T>::frame_loss(const Structure& s, const LossWeights& w, bool gradient) {
  if (at.empty()) throw Error("training on the GPU: no model set");
  auto& slot = frames[&s];
  if (!slot || !slot->same(s)) slot = std::make_unique<Frame>(model, s);
  Frame& f = *slot;
  const int n = f.atoms.size();
  // Pass 1: energy, forces and virial.
  grow(totals, 10);
  totals.set_zero();
  f.atoms.fx.set_zero();
  f.atoms.fy.set_zero();
  f.atoms.fz.set_zero();
  for (int ti = 0; ti < m.ntypes; ++ti)
    if (f.count[ti] > 0 && !m.atom_excluded[ti]) centre_type(f, ti, false, 0.0, false);
  const auto tot = totals.to_vector();
  const auto fx = f.atoms.fx.to_vector(), fy = f.atoms.fy.to_vector(), fz = f.atoms.fz.to_vector();
  const auto id = f.atoms.id.to_vector();
  // The loss and its derivatives with respect to E, F and W (as loss.cpp).
  const double N = n;
  FrameLoss fl;
  fl.atoms = n;
  double dl_de = 0;
  if (s.energy) {
    fl.energy_error = tot[0] - *s.energy;
    fl.loss += w.pe * fl.energy_error * fl.energy_error / N;
    dl_de = 2 * w.pe * fl.energy_error / N;
  }
  std::vector<double> uh(3L * n, 0.0), Vh(9, 0.0);
  if (!s.forces.empty()) {
    for (int i = 0; i < n; ++i) {
      const Vec3 d = Vec3{fx[i], fy[i], fz[i]} - s.forces[id[i]];
      fl.force_sq += norm2(d);
      for (int p = 0; p < 3; ++p) uh[3 * i + p] = (2 * w.pf / (3 * N)) * d[p];
    }
    fl.loss += w.pf * fl.force_sq / (3 * N);
  }
  if (s.virial) {
    for (int c = 0; c < 9; ++c) {
      const double d = tot[1 + c] - (*s.virial)(c / 3, c % 3);
      fl.virial_sq += d * d;
      Vh[c] = 2 * w.pv * d / (9 * N);
    }
    fl.loss += w.pv * fl.virial_sq / (9 * N);
  }
  if (!gradient) return fl;
  // Pass 2: tangents along d' and the reverse pass into the parameters.
  u.assign(uh);
  V.assign(Vh);
  for (int ti = 0; ti < m.ntypes; ++ti)
    if (f.count[ti] > 0 && !m.atom_excluded[ti]) centre_type(f, ti, true, dl_de, true);
  return fl;
}

}  // namespace

GpuLoss::GpuLoss(Precision precision) {
  if (precision == Precision::Double) impl_ = std::make_unique<Engine<double>>();
  else if (precision == Precision::Mixed32) impl_ = std::make_unique<Engine<float>>();
  else throw Error("training on the GPU: precision must be double or mixed32");
}
GpuLoss::~GpuLoss() = default;

void GpuLoss::set_model(const dp::DpModel& model) { impl_->set_model(model); }
void GpuLoss::download(dp::DpModel& model) const { impl_->scatter(impl_->parameters(), model); }
void GpuLoss::moments(std::vector<double>& m, std::vector<double>& v) const { impl_->moments(m, v); }
void GpuLoss::set_moments(const std::vector<double>& m, const std::vector<double>& v) { impl_->set_moments(m, v); }
void GpuLoss::zero_gradient() { impl_->zero_gradient(); }
FrameLoss GpuLoss::frame_loss(const Structure& frame, const LossWeights& w, bool gradient) {
  return impl_->frame_loss(frame, w, gradient);
}
void GpuLoss::adam_step(double lr, long t, double frames) { impl_->adam_step(lr, t, frames); }

FrameLoss GpuLoss::frame_loss(const dp::DpModel& model, const Structure& frame, const LossWeights& w, ModelGrad* grad) {
  set_model(model);
  const FrameLoss fl = impl_->frame_loss(frame, w, grad != nullptr);
  if (!grad) return fl;
  dp::DpModel shaped = model;  // the gradient in the model's shape
  impl_->scatter(impl_->gradient(), shaped);
  const int ne = static_cast<int>(model.descriptor.embeddings.size());
  for (int k = 0; k < impl_->nets(); ++k) {
    const dp::Network& n = k < ne ? shaped.descriptor.embeddings[k] : shaped.fitting[k - ne];
    NetworkGrad& ng = k < ne ? grad->emb[k] : grad->fit[k - ne];
    for (std::size_t l = 0; l < n.layers.size(); ++l) {
      for (std::size_t e = 0; e < n.layers[l].w.size(); ++e) ng.w[l][e] += n.layers[l].w[e];
      for (std::size_t e = 0; e < n.layers[l].b.size(); ++e) ng.b[l][e] += n.layers[l].b[e];
      for (std::size_t e = 0; e < n.layers[l].idt.size(); ++e) ng.idt[l][e] += n.layers[l].idt[e];
    }
  }
  return fl;
}

}  // namespace quasar::train
