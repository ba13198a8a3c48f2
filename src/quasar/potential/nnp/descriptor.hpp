#pragma once
// The symmetry functions of every centre element of a model, evaluated on the CPU in double: the
// reference for the kernels. Values are the raw (unscaled) functions in the model's sorted order (the
// network's input order); gradients are contracted with a weight per function (dE/dG), so that the
// derivatives are recomputed rather than stored.
#include <span>
#include <vector>

#include "quasar/potential/nnp/model.hpp"
#include "quasar/potential/nnp/symmetry_functions.hpp"

namespace quasar::nnp {

// A symmetry function with lengths converted to Å (length_scale: Å per model unit: eta / s^2, rs, rc
// and rlow times s; the values do not depend on the unit), angles to radians, the model's cutoff
// type and inner cutoff, the prefactor 2^(1 - zeta). Throws Error for parameters n2p2 refuses.
SfParams<double> make_sf_params(const SymmetryFunction& f, const Model& model, double length_scale);

// A neighbour of a centre: d = r_j - r_i in Å, r = |d|, the element index. Neighbours beyond a
// function's support add nothing; one atom may appear several times (periodic images).
struct NeighborEntry {
  double dx = 0, dy = 0, dz = 0, r = 0;
  int element = 0;
};

// How the functions of one centre element are visited, shared by the CPU reference and the GPU
// tables (gpu_evaluator.cu): envelopes and radial factors are evaluated once per neighbour, the
// angular functions are listed per unordered pair of neighbour elements.
struct DescriptorPlan {
  std::vector<SfParams<double>> functions;  // in the network's input order
  std::vector<int> envelope_of;             // function -> index into `envelopes`
  std::vector<SfParams<double>> envelopes;  // one function per distinct envelope
  std::vector<std::vector<int>> radial;     // neighbour element -> radial functions taking it
  std::vector<int> factor_of;               // function -> index into `factors` (angular functions; else -1)
  std::vector<SfParams<double>> factors;    // one angular function per distinct radial factor (same_radial_factor)
  std::vector<int> factor_envelope;         // factor -> index into `envelopes`
  std::vector<std::vector<int>> angular;    // element pair a * ne + b (a <= b) -> angular functions, sorted by factor
  std::vector<char> angular_needs_angle;    // per pair list: any compact function
  std::vector<char> angular_narrow;         // per pair list: every function has the factor at r_jk
  std::vector<double> angular_reach;        // per pair list: the largest rc
};

class Descriptor {
 public:
  Descriptor(const Model& model, double length_scale);

  int element_count() const { return int(plans_.size()); }
  const DescriptorPlan& plan(int element) const { return plans_.at(element); }
  int count(int element) const { return int(plans_.at(element).functions.size()); }
  // The largest rc of any function, in Å.
  double cutoff() const { return cutoff_; }
  // The functions of a centre element in the network's input order.
  const std::vector<SfParams<double>>& functions(int element) const { return plans_.at(element).functions; }
  // The atomic number of each element (the weights of types 12, 13, 23, 24, 25).
  const std::vector<double>& atomic_numbers() const { return atomic_number_; }

  // G[s] for every function s of a centre of `element` with neighbours nb (G has count(element) slots).
  void values(int element, std::span<const NeighborEntry> nb, double* G) const;
  // Adds sum_s g[s] dG_s/d(d_j) to grad[3 j + a] for every neighbour j; the centre's own gradient is
  // minus the sum over its neighbours.
  void gradient(int element, std::span<const NeighborEntry> nb, const double* g, double* grad) const;
  // The derivative of every function along a displacement of the neighbours, dG[s] = sum_j
  // dG_s/d(d_j) . t_j with t_j = t[3 j .. 3 j + 2] (forward mode; dG has count(element) slots). Only
  // the terms of the neighbours with moving[j] != 0 are visited: pass the neighbours whose t_j is not
  // zero, so that a displacement of one atom costs the pairs that contain it.
  void tangent(int element, std::span<const NeighborEntry> nb, const double* t, const char* moving, double* dG) const;
  // Every derivative dG_s/d(d_j)_c into jac[(3 j + c) count(element) + s] (zeroed first): what a
  // training keeps of a centre when it keeps its symmetry functions' derivatives.
  void jacobian(int element, std::span<const NeighborEntry> nb, double* jac) const;

 private:
  // Visits every term of a centre (descriptor.cpp: values and gradient are two visitors).
  template <class Visitor>
  void visit(int element, std::span<const NeighborEntry> nb, Visitor& visitor) const;

  std::vector<DescriptorPlan> plans_;
  std::vector<double> atomic_number_;
  double cutoff_ = 0;
};

}  // namespace quasar::nnp
