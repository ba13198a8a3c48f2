#include "quasar/potential/force_output.hpp"

#include <algorithm>

namespace quasar {

namespace {
void zero_values(Array<double>& a, std::size_t from, std::size_t count) {
  if (a.on_device()) device::fill_zero(a.data() + from, count * sizeof(double));
  else std::fill(a.data() + from, a.data() + from + count, 0.0);
}
}  // namespace

void ForceOutput::begin(AtomState& atoms, const ComputeRequest& req, int terms, bool first_overwrites,
                        const std::vector<bool>& evaluated) {
  terms_ = std::max(terms, 1);
  term_ = 0;
  started_ = false;
  const std::size_t n = static_cast<std::size_t>(atoms.size());
  totals.resize(static_cast<std::size_t>(kTotals) * terms_);
  if (req.energy || req.virial || req.per_atom) {
    if (evaluated.empty()) {
      totals.set_zero();
    } else {
      // One zeroing per run of consecutive evaluated terms.
      for (int k = 0; k < terms_;) {
        if (!evaluated[static_cast<std::size_t>(k)]) {
          ++k;
          continue;
        }
        int end = k;
        while (end < terms_ && evaluated[static_cast<std::size_t>(end)]) ++end;
        zero_values(totals, static_cast<std::size_t>(kTotals) * k, static_cast<std::size_t>(kTotals) * (end - k));
        k = end;
      }
    }
  }
  if (req.per_atom) {
    atom_energy.resize(n);
    atom_virial.resize(9 * n);
  }
  contents = first_overwrites ? Contents::Stale : Contents::Zero;
  if (first_overwrites) return;
  for (Array<double>* f : {&atoms.fx, &atoms.fy, &atoms.fz}) f->set_zero();
  if (req.per_atom) {
    atom_energy.set_zero();
    atom_virial.set_zero();
  }
}

void ForceOutput::begin_term(int k) {
  if (started_) contents = Contents::Sums;
  started_ = true;
  term_ = k;
}

std::vector<double> ForceOutput::summed_totals() const {
  const std::vector<double> t = totals.to_vector();
  std::vector<double> sum(t.begin(), t.begin() + kTotals);
  for (int k = 1; k < terms_; ++k)
    for (int c = 0; c < kTotals; ++c) sum[c] += t[static_cast<std::size_t>(k) * kTotals + c];
  return sum;
}

Mat3 ForceOutput::virial() const {
  const auto t = summed_totals();
  return {{{t[1], t[2], t[3]}, {t[4], t[5], t[6]}, {t[7], t[8], t[9]}}};
}

std::vector<double> ForceOutput::term_energies() const {
  const std::vector<double> t = totals.to_vector();
  std::vector<double> e(terms_);
  for (int k = 0; k < terms_; ++k) e[k] = t[static_cast<std::size_t>(k) * kTotals];
  return e;
}

}  // namespace quasar
