#pragma once
// A centre element's DescriptorPlan (descriptor.hpp) on the GPU as the per-centre kernels read it
// (ElementTables, nnp_pairs.cuh): the inference kernels and the training's inputs kernel share it.
#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "quasar/core/error.hpp"
#include "quasar/device/array.hpp"
#include "quasar/potential/nnp/descriptor.hpp"
#include "quasar/potential/nnp/nnp_pairs.cuh"

namespace quasar::nnp {

// v as a narrower integer type, or an error naming what is counted.
template <class N>
N narrow(int v, const char* what) {
  if (v < std::numeric_limits<N>::min() || v > std::numeric_limits<N>::max())
    throw Error(std::string("nnp: too many ") + what + " for the GPU tables");
  return static_cast<N>(v);
}

template <class T>
struct DeviceTables {
  Array<SfParams<T>> params{Backend::Cuda}, envelopes{Backend::Cuda}, factors{Backend::Cuda};
  Array<int> envelope_of{Backend::Cuda}, radial_start{Backend::Cuda}, radial_fn{Backend::Cuda};
  Array<int> factor_envelope{Backend::Cuda}, pair_start{Backend::Cuda}, pair_split{Backend::Cuda};
  Array<AngularEntry<T>> entries{Backend::Cuda};
  Array<unsigned char> pair_flags{Backend::Cuda};
  Array<T> pair_reach{Backend::Cuda};
  ElementTables<T> tables;

  void upload(const DescriptorPlan& plan, int ne) {
    auto cast = [](const std::vector<SfParams<double>>& v) {
      std::vector<SfParams<T>> o;
      for (const auto& p : v) o.push_back(p.template cast<T>());
      return o;
    };
    auto csr = [](const std::vector<std::vector<int>>& lists, Array<int>& start, Array<int>* items) {
      std::vector<int> st{0}, it;
      for (const auto& l : lists) {
        it.insert(it.end(), l.begin(), l.end());
        st.push_back(static_cast<int>(it.size()));
      }
      start.assign(st);
      if (items) items->assign(it);
    };
    params.assign(cast(plan.functions));
    envelopes.assign(cast(plan.envelopes));
    factors.assign(cast(plan.factors));
    envelope_of.assign(plan.envelope_of);
    factor_envelope.assign(plan.factor_envelope);
    csr(plan.radial, radial_start, &radial_fn);
    csr(plan.angular, pair_start, nullptr);
    // Each list in three ranges (AngularEntry), each in the list's order (by factor), runs marked.
    std::vector<AngularEntry<T>> flat;
    std::vector<int> split;
    for (const std::vector<int>& pair : plan.angular) {
      std::vector<AngularEntry<T>> range[3];
      for (int s : pair) {
        const SfParams<double>& f = plan.functions[s];
        AngularEntry<T> e;
        e.function = narrow<unsigned short>(s, "symmetry functions");
        e.factor = narrow<unsigned short>(plan.factor_of[s], "radial factors");
        e.weighted = sf_weighted(f.type);
        e.eta = static_cast<T>(f.eta);
        e.rs = static_cast<T>(f.rs);
        int kind = 2;
        if (!sf_compact(f.type)) {
          e.lambda = static_cast<T>(f.lambda);
          e.prefactor = static_cast<T>(f.prefactor);
          e.zeta = static_cast<T>(f.zeta);
          e.zeta_int = static_cast<short>(f.zeta_int >= 1 && f.zeta_int < 32768 ? f.zeta_int : -1);
          kind = e.zeta_int >= 1 && e.zeta_int <= kSmallZeta ? 0 : 1;
        }
        if (sf_uses_rjk(f.type)) e.jk_envelope = narrow<short>(plan.envelope_of[s], "envelopes");
        range[kind].push_back(e);
      }
      for (int kind = 0; kind < 3; ++kind) {
        for (std::size_t q = 0; q < range[kind].size(); ++q) {
          AngularEntry<T>& e = range[kind][q];
          e.new_jk = q == 0 || e.factor != range[kind][q - 1].factor ||
                     (e.jk_envelope >= 0) != (range[kind][q - 1].jk_envelope >= 0);
        }
        flat.insert(flat.end(), range[kind].begin(), range[kind].end());
        if (kind < 2) split.push_back(static_cast<int>(flat.size()));
      }
    }
    pair_split.assign(split);
    entries.assign(flat);
    std::vector<unsigned char> flags;
    std::vector<T> reach;
    for (std::size_t p = 0; p < plan.angular.size(); ++p) {
      flags.push_back(static_cast<unsigned char>((plan.angular_needs_angle[p] ? kPairNeedsAngle : 0) |
                                                 (plan.angular_narrow[p] ? kPairNarrow : 0)));
      reach.push_back(static_cast<T>(plan.angular_reach[p]));
    }
    pair_flags.assign(flags);
    pair_reach.assign(reach);
    double rc = 0;
    for (const auto& f : plan.functions) rc = std::max(rc, f.rc);
    tables.count = static_cast<int>(plan.functions.size());
    tables.elements = ne;
    tables.params = params.data();
    tables.envelopes = envelopes.data();
    tables.envelope_of = envelope_of.data();
    tables.radial_start = radial_start.data();
    tables.radial_fn = radial_fn.data();
    tables.factors = factors.data();
    tables.factor_envelope = factor_envelope.data();
    tables.factor_count = static_cast<int>(plan.factors.size());
    tables.pair_start = pair_start.data();
    tables.pair_split = pair_split.data();
    tables.entries = entries.data();
    tables.entry_count = static_cast<int>(flat.size());
    tables.entries_shared = flat.size() * sizeof(AngularEntry<T>) <= kEntriesShared;
    tables.pair_flags = pair_flags.data();
    tables.pair_reach = pair_reach.data();
    tables.cutoff = static_cast<T>(rc);
  }
};

}  // namespace quasar::nnp
