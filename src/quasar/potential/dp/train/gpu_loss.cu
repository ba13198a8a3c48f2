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
#include "quasar/potential/dp/train/gpu_loss.hpp"
#include "quasar/potential/dp/train/gpu_loss_kernels.cuh"

namespace quasar::dp {


namespace {

using namespace train_kernels;

void check(cublasStatus_t s, const char* what) { cublas_check(s, what); }

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
  Frame(const DpModel& model, const Structure& s)
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
  DpModel model;  // shapes, activations and statistics; the parameters live on the GPU
  GpuModel m{};
  // Where each layer's arrays lie in the flat parameter (and gradient) arrays, per net (embeddings,
  // then fittings): the order of nn/parameters.hpp, which the CPU trainer uses too.
  std::vector<std::vector<nn::LayerOffsets>> at;

  virtual ~Impl() = default;
  virtual void upload(const std::vector<double>& params) = 0;
  virtual std::vector<double> values() const = 0;  // the double master copy
  virtual std::vector<double> gradient() const = 0;
  virtual nn::Parameters parameters() = 0;
  virtual void zero_gradient() = 0;
  virtual train::FrameLoss frame_loss(const Structure& s, const LossWeights& w, bool gradient) = 0;
  virtual void forget_frames() = 0;

  const nn::Network& net(int k) const {
    const int ne = static_cast<int>(model.descriptor.embeddings.size());
    return k < ne ? model.descriptor.embeddings[k] : model.fitting[k - ne];
  }
  int nets() const { return static_cast<int>(model.descriptor.embeddings.size() + model.fitting.size()); }

  void set_model(const DpModel& source) {
    if (source.numb_fparam + source.numb_aparam > 0)
      throw Error("training: frame and atomic parameters are not supported yet");
    if (model.descriptor.rcut != source.descriptor.rcut || model.type_map != source.type_map) forget_frames();
    model = source;
    m = gpu_model_constants(model);
    std::vector<double> p;
    at.clear();
    for (int k = 0; k < nets(); ++k) at.push_back(nn::append_parameters(net(k), p));
    upload(p);
  }

  // Copies the flat array into the parameter arrays of `target` (of the model's shape).
  void scatter(const std::vector<double>& flat, DpModel& target) const {
    const int ne = static_cast<int>(target.descriptor.embeddings.size());
    for (int k = 0; k < nets(); ++k)
      nn::read_parameters(flat, at[k], k < ne ? target.descriptor.embeddings[k] : target.fitting[k - ne]);
  }
};

namespace {

// The networks, traces and gradient in T (double, or float for mixed32); environment, forces,
// virial, the loss and Adam's master parameters in double.
template <class T>
struct Engine final : GpuLoss::Impl {
  cublasHandle_t cublas = nullptr;
  std::map<const Structure*, std::unique_ptr<Frame>> frames;
  Array<double> params{Backend::Cuda};
  Array<double> davg{Backend::Cuda}, dstd{Backend::Cuda}, u{Backend::Cuda}, V{Backend::Cuda}, totals{Backend::Cuda};
  Array<double> disp{Backend::Cuda};
  Array<int> nbr{Backend::Cuda}, filled{Backend::Cuda};
  Array<T> params_t{Backend::Cuda}, grads{Backend::Cuda};
  Array<T> rhat{Backend::Cuda}, drhat{Backend::Cuda}, gf{Backend::Cuda};
  Array<T> emb{Backend::Cuda}, fit{Backend::Cuda};  // traces: per layer [x; x'] then [z; z']
  Array<T> gr{Backend::Cuda}, dgr{Backend::Cuda}, ggr{Backend::Cuda}, gdgr{Backend::Cuda};
  nn::DualScratch<T> scratch;

  Engine() { check(cublasCreate(&cublas), "cublasCreate"); }
  ~Engine() override { cublasDestroy(cublas); }

  void upload(const std::vector<double>& p) override {
    params.assign(p);
    params_t.assign(std::vector<T>(p.begin(), p.end()));
    grads.resize(p.size());
    grads.set_zero();
    davg.assign(model.descriptor.davg);
    dstd.assign(model.descriptor.dstd);
  }
  std::vector<double> values() const override { return params.to_vector(); }
  std::vector<double> gradient() const override {
    const auto g = grads.to_vector();
    return std::vector<double>(g.begin(), g.end());
  }
  nn::Parameters parameters() override {
    nn::Parameters p;
    p.size = static_cast<long>(params.size());
    p.values = params.data();
    if constexpr (std::is_same_v<T, float>) {
      p.gradient32 = grads.data();
      p.copy32 = params_t.data();
    } else {
      p.gradient = grads.data();
      p.copy = params_t.data();
    }
    return p;
  }
  void zero_gradient() override { grads.set_zero(); }
  void forget_frames() override { frames.clear(); }

  // Net k over the parameters and the gradient held here.
  nn::DualNet<T> dual_net(int k) {
    nn::DualNet<T> d;
    const nn::Network& n = net(k);
    for (std::size_t l = 0; l < n.layers.size(); ++l) {
      const nn::Layer& L = n.layers[l];
      const nn::LayerOffsets& o = at[k][l];
      auto over = [&](T* base) -> LayerRef<T, T> {
        return {L.in, L.out, L.residual(), L.act, base + o.w, base + o.w, base + o.b, o.idt >= 0 ? base + o.idt : nullptr};
      };
      d.layers.push_back(over(params_t.data()));
      d.grads.push_back(over(grads.data()));
    }
    return d;
  }

  train::FrameLoss frame_loss(const Structure& s, const LossWeights& w, bool gradient) override;
  void centre_type(Frame& f, int ti, bool tangents, double dl_de, bool accumulate);
};

// Everything for the atoms of centre type ti. Without tangents: energy into totals[0], forces and
// virial (totals[1..9]). With them: the loss gradient (dL/dE = dl_de; u and V on the device).
template <class T>
void Engine<T>::centre_type(Frame& f, int ti, bool tangents, double dl_de, bool accumulate) {
  const SeE2A& de = model.descriptor;
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
  if (scratch.ones.size() < static_cast<std::size_t>(std::max<long>(rows, nc)))
    scratch.ones.assign(std::vector<T>(std::max<long>(rows, nc), T(1)));
  const std::size_t env_shm = list.capacity * (sizeof(double) + sizeof(int));
  environment_kernel<T><<<nc, kAtomBlock, env_shm>>>(m, a, list, f.model_type.data(), c, davg.data(),
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
  auto emb_net = [&](int t) { return dual_net(de.type_one_side ? t : ti + t * nt); };
  const nn::DualNet<T> fnet = dual_net(static_cast<int>(de.embeddings.size()) + ti);
  std::vector<long> emb_at(nt + 1, 0);
  long widest = 2L * nc * fnet.max_width();  // [gy; h] at any layer's output or input
  for (int t = 0; t < nt; ++t) {
    const long R = static_cast<long>(nc) * m.sel[t];
    const nn::DualNet<T> enet = emb_net(t);
    emb_at[t + 1] = emb_at[t] + enet.trace_size(R);
    widest = std::max(widest, 2 * R * enet.max_width());
  }
  grow(emb, emb_at[nt]);
  grow(scratch.ga, widest);
  grow(scratch.gb, widest);
  for (int t = 0; t < nt; ++t) {
    const long R = static_cast<long>(nc) * m.sel[t];
    if (R == 0) continue;
    T* trace = emb.data() + emb_at[t];
    first_input_kernel<<<grid(R), kBlock>>>(R, rhat.data() + 4L * nc * m.sec[t], trace);
    QUASAR_LAUNCH_CHECK("training embedding input");
    nn::dual_forward(cublas, emb_net(t), R, trace, gf.data() + 2L * nc * m.sec[t] * M);
  }
  // Descriptor and fitting net with tangents.
  grow(gr, 4L * nc * M);
  grow(dgr, 4L * nc * M);
  grow(fit, fnet.trace_size(nc) + 2L * nc);
  T* fit_out = fit.data() + fnet.trace_size(nc);
  dual_descriptor_kernel<<<nc, kBlock, 8 * M * sizeof(T)>>>(m, c, rhat.data(), drhat.data(), gf.data(), gr.data(),
                                                                dgr.data(), fit.data());
  QUASAR_LAUNCH_CHECK("training descriptor");
  nn::dual_forward(cublas, fnet, nc, fit.data(), fit_out);
  // dPhi/dE_i = dl_de and dPhi/dE_i' = 1 (with tangents), or dE/dE_i = 1 for the forces.
  std::vector<T> g0(2L * nc, T(0));
  for (int i = 0; i < nc; ++i) {
    g0[i] = static_cast<T>(tangents ? dl_de : 1.0);
    g0[nc + i] = T(tangents ? 1 : 0);
  }
  scratch.ga.upload(g0.data(), g0.size());
  const T* gX = nn::dual_backward(cublas, fnet, nc, fit.data(), scratch, accumulate, true);
  if (!tangents) {
    energy_kernel<<<grid(nc), kBlock>>>(nc, m.bias[ti], fit_out, totals.data());
    QUASAR_LAUNCH_CHECK("training energy");
    force_kernel<T><<<nc, kAtomBlock, 8 * M * sizeof(T)>>>(
        m, c, a, gr.data(), gX, rhat.data(), nbr.data(), disp.data(), dstd.data(), filled.data(),
        GemmSource<T>{gf.data(), M}, totals.data(), nullptr, device::FloatSum{});
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
                                                          gdgr.data(), scratch.ga.data());
    QUASAR_LAUNCH_CHECK("training embedding output gradient");
    nn::dual_backward(cublas, emb_net(t), R, emb.data() + emb_at[t], scratch, accumulate, false);
  }
}

template <class T>
train::FrameLoss Engine<T>::frame_loss(const Structure& s, const LossWeights& w, bool gradient) {
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
  train::FrameLoss fl;
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

void GpuLoss::set_model(const DpModel& model) { impl_->set_model(model); }
void GpuLoss::download(DpModel& model) const { impl_->scatter(impl_->values(), model); }
nn::Parameters GpuLoss::parameters() { return impl_->parameters(); }
void GpuLoss::zero_gradient() { impl_->zero_gradient(); }
train::FrameLoss GpuLoss::frame_loss(const Structure& frame, const LossWeights& w, bool gradient) {
  return impl_->frame_loss(frame, w, gradient);
}

train::FrameLoss GpuLoss::frame_loss(const DpModel& model, const Structure& frame, const LossWeights& w, ModelGrad* grad) {
  set_model(model);
  const train::FrameLoss fl = impl_->frame_loss(frame, w, grad != nullptr);
  if (!grad) return fl;
  DpModel shaped = model;  // the gradient in the model's shape
  impl_->scatter(impl_->gradient(), shaped);
  const int ne = static_cast<int>(model.descriptor.embeddings.size());
  for (int k = 0; k < impl_->nets(); ++k) {
    const nn::Network& n = k < ne ? shaped.descriptor.embeddings[k] : shaped.fitting[k - ne];
    nn::NetworkGrad& ng = k < ne ? grad->emb[k] : grad->fit[k - ne];
    for (std::size_t l = 0; l < n.layers.size(); ++l) {
      for (std::size_t e = 0; e < n.layers[l].w.size(); ++e) ng.w[l][e] += n.layers[l].w[e];
      for (std::size_t e = 0; e < n.layers[l].b.size(); ++e) ng.b[l][e] += n.layers[l].b[e];
      for (std::size_t e = 0; e < n.layers[l].idt.size(); ++e) ng.idt[l][e] += n.layers[l].idt[e];
    }
  }
  return fl;
}

}  // namespace quasar::dp
