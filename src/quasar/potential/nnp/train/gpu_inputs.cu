// GpuJacobians' inputs computed on the GPU (gpu_jacobians.hpp, inputs_kernel.cuh), and what it holds
// read back for tests.
#include <algorithm>
#include <string>

#include "quasar/core/error.hpp"
#include "quasar/potential/nnp/train/gpu_jacobians_impl.cuh"
#include "quasar/potential/nnp/train/inputs_kernel.cuh"

namespace quasar::nnp {

void GpuJacobians::add_computed(std::span<const std::size_t> ids, std::span<const TrainingStructure* const> structures,
                                std::span<const Neighborhood> neighborhoods, bool derivatives) {
  Impl& m = *impl_;
  if (m.tables.empty())
    throw Error("nnp: inputs on the GPU take models of up to " + std::to_string(kMaxElements) + " elements");
  int functions = 0;
  for (const Impl::Element& el : m.elements) functions = std::max(functions, el.inputs);
  if (functions > inputs::kFunctionSizes[3])
    throw Error("nnp: inputs on the GPU take up to " + std::to_string(inputs::kFunctionSizes[3]) +
                " symmetry functions per element, not " + std::to_string(functions));
  // The slice's atoms in a row: their entries, elements and where their values and derivatives go.
  std::vector<NeighborEntry> entries;
  std::vector<int> entry_atom, element;
  std::vector<long> entry_start{0}, x_at, d_at;
  long nx = 0, nd = 0;
  for (std::size_t k = 0; k < ids.size(); ++k) {
    const TrainingStructure& t = *structures[k];
    const Neighborhood& hood = neighborhoods[k];
    auto meta = std::make_unique<Impl::Meta>();
    meta->element = t.element;
    meta->neighbors = hood.atoms;
    for (std::size_t i = 0; i < t.size(); ++i) {
      const int el = t.element[i];
      const long nf = m.elements[static_cast<std::size_t>(el)].inputs;
      const std::vector<NeighborEntry>& nb = hood.entries[i];
      meta->x_at.push_back(m.x_used + nx);
      meta->d_at.push_back(m.d_used + nd);
      x_at.push_back(m.x_used + nx);
      d_at.push_back(m.d_used + nd);
      nx += nf;
      if (derivatives) nd += 3 * static_cast<long>(nb.size()) * nf;
      entry_atom.insert(entry_atom.end(), nb.size(), static_cast<int>(element.size()));
      entries.insert(entries.end(), nb.begin(), nb.end());
      entry_start.push_back(static_cast<long>(entries.size()));
      element.push_back(el);
    }
    if (m.structures.size() <= ids[k]) m.structures.resize(ids[k] + 1);
    m.structures[ids[k]] = std::move(meta);
  }
  // Values and derivatives are sums: the new parts start at zero (Array::resize zeroes them).
  m.x_all.resize(static_cast<std::size_t>(m.x_used + nx));
  m.d_all.resize(static_cast<std::size_t>(m.d_used + nd));
  m.x_used += nx;
  m.d_used += nd;
  const int atoms = static_cast<int>(element.size());
  if (atoms == 0) return;
  Array<NeighborEntry> d_entries(Backend::Cuda);
  Array<int> d_entry_atom(Backend::Cuda), d_element(Backend::Cuda);
  Array<long> d_entry_start(Backend::Cuda), d_x_at(Backend::Cuda), d_d_at(Backend::Cuda);
  d_entries.assign(entries);
  d_entry_atom.assign(entry_atom);
  d_element.assign(element);
  d_entry_start.assign(entry_start);
  d_x_at.assign(x_at);
  d_d_at.assign(d_at);
  inputs::Tables tables;
  for (std::size_t e = 0; e < m.tables.size(); ++e) tables.element[e] = m.tables[e].tables;
  const inputs::Slice slice{d_entries.data(), d_entry_atom.data(), d_entry_start.data(), d_element.data(),
                            d_x_at.data(),    d_d_at.data(),       static_cast<long>(entries.size())};
  if (slice.entry_count > 0) {
    const unsigned blocks = static_cast<unsigned>((slice.entry_count + inputs::kThreads - 1) / inputs::kThreads);
    auto launch = [&](auto kernel) {
      kernel<<<blocks, inputs::kThreads>>>(tables, slice, m.x_all.data(), derivatives ? m.d_all.data() : nullptr);
      QUASAR_LAUNCH_CHECK("nnp inputs_kernel");
    };
    if (functions <= inputs::kFunctionSizes[0])
      launch(inputs::inputs_kernel<inputs::kFunctionSizes[0]>);
    else if (functions <= inputs::kFunctionSizes[1])
      launch(inputs::inputs_kernel<inputs::kFunctionSizes[1]>);
    else if (functions <= inputs::kFunctionSizes[2])
      launch(inputs::inputs_kernel<inputs::kFunctionSizes[2]>);
    else
      launch(inputs::inputs_kernel<inputs::kFunctionSizes[3]>);
  }
  inputs::ScaleShift ss{m.input_scale.data(), m.input_shift.data(), {}};
  for (std::size_t e = 0; e < m.input_at.size(); ++e) ss.at[e] = m.input_at[e];
  inputs::scale_kernel<<<static_cast<unsigned>(atoms), 64>>>(tables, slice, atoms, ss, m.x_all.data());
  QUASAR_LAUNCH_CHECK("nnp scale_kernel");
  device::synchronize();  // the slice's arrays go out of scope
}

std::vector<int> GpuJacobians::neighbor_elements(std::size_t s, int a) const {
  const Impl::Meta& t = *impl_->structures.at(s);
  std::vector<int> out;
  for (int k : t.neighbors.at(static_cast<std::size_t>(a))) out.push_back(t.element[static_cast<std::size_t>(k)]);
  return out;
}

StructureInputs GpuJacobians::inputs(std::size_t s) const {
  const Impl& m = *impl_;
  const Impl::Meta& t = *m.structures.at(s);
  StructureInputs in;
  in.neighbors.atoms = t.neighbors;
  for (std::size_t i = 0; i < t.element.size(); ++i) {
    const std::size_t nf = static_cast<std::size_t>(m.elements[static_cast<std::size_t>(t.element[i])].inputs);
    in.x.emplace_back(nf);
    in.derivatives.emplace_back(3 * t.neighbors[i].size() * nf);
    m.x_all.download(in.x.back().data(), nf, static_cast<std::size_t>(t.x_at[i]));
    m.d_all.download(in.derivatives.back().data(), in.derivatives.back().size(), static_cast<std::size_t>(t.d_at[i]));
  }
  return in;
}

}  // namespace quasar::nnp
