#include "quasar/potential/force_output.hpp"

#include <algorithm>

#include "quasar/device/segments.hpp"

namespace quasar {

namespace {
void zero_values(Array<double>& a, std::size_t from, std::size_t count) {
  if (a.on_device()) device::fill_zero(a.data() + from, count * sizeof(double));
  else std::fill(a.data() + from, a.data() + from + count, 0.0);
}

// Zeroes the blocks (one of `block` values per term) of the evaluated terms, one call per run of
// consecutive evaluated terms; every block when `evaluated` is empty (all terms).
void zero_blocks(Array<double>& a, std::size_t block, const std::vector<bool>& evaluated) {
  if (evaluated.empty()) {
    a.set_zero();
    return;
  }
  const int terms = static_cast<int>(evaluated.size());
  for (int k = 0; k < terms;) {
    if (!evaluated[static_cast<std::size_t>(k)]) {
      ++k;
      continue;
    }
    int end = k;
    while (end < terms && evaluated[static_cast<std::size_t>(end)]) ++end;
    zero_values(a, block * k, block * (end - k));
    k = end;
  }
}
}  // namespace

void ForceOutput::begin(AtomState& atoms, const ComputeRequest& req, int terms, bool first_overwrites,
                        const std::vector<bool>& evaluated) {
  terms_ = std::max(terms, 1);
  term_ = 0;
  started_ = false;
  separated_ = false;
  const std::size_t n = static_cast<std::size_t>(atoms.size());
  totals.resize(static_cast<std::size_t>(kTotals) * terms_);
  systems_ = atoms.num_systems();
  atoms_ = atoms.size();
  per_atom_ = req.per_atom;
  offsets_ = atoms.is_batch() ? atoms.system_offset.data() : nullptr;
  if (atoms.is_batch()) system_totals.resize(static_cast<std::size_t>(kTotals) * terms_ * systems_);
  if (req.energy || req.virial || req.per_atom) {
    zero_blocks(totals, kTotals, evaluated);
    if (atoms.is_batch()) zero_blocks(system_totals, static_cast<std::size_t>(kTotals) * systems_, evaluated);
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
  if (!(systems_ > 1 && per_atom_ && contents == Contents::Sums)) return;
  const std::size_t n = static_cast<std::size_t>(atoms_);
  term_energy_.resize(n);
  term_virial_.resize(9 * n);
  term_energy_.set_zero();
  term_virial_.set_zero();
  atom_energy.swap(term_energy_);
  atom_virial.swap(term_virial_);
  separated_ = true;
}

void ForceOutput::end_term() {
  if (!(systems_ > 1 && per_atom_)) return;
  const Backend b = totals.backend();
  double* block = system_totals.data() + static_cast<std::size_t>(kTotals) * systems_ * term_;
  device::segment_sums(b, atom_energy.data(), atoms_, 1, offsets_, systems_, block, kTotals);
  device::segment_sums(b, atom_virial.data(), atoms_, 9, offsets_, systems_, block + 1, kTotals);
  if (!separated_) return;
  atom_energy.swap(term_energy_);
  atom_virial.swap(term_virial_);
  device::add_into(b, atom_energy.data(), term_energy_.data(), atom_energy.size());
  device::add_into(b, atom_virial.data(), term_virial_.data(), atom_virial.size());
  separated_ = false;
}

std::vector<double> ForceOutput::system_term_totals() const {
  if (systems_ <= 1) return totals.to_vector();
  return system_totals.to_vector();
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
