// N2p2Training's epochs (training.hpp): errors, candidate selection, updates, outputs.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <ostream>
#include <sstream>

#include "quasar/core/error.hpp"
#include "quasar/device/backend.hpp"
#include "quasar/device/parallel.hpp"
#include "quasar/io/n2p2_data.hpp"
#include "quasar/io/read.hpp"
#include "quasar/potential/evaluate.hpp"
#include "quasar/potential/force_field.hpp"
#include "quasar/potential/nnp/model_io.hpp"
#include "quasar/potential/nnp/nnp_potential.hpp"
#include "quasar/potential/nnp/train/random.hpp"
#include "quasar/potential/nnp/train/training.hpp"

namespace quasar::nnp {

// The predictions of every structure by the inference code on the GPU, in batches, converted to the
// training units.
void N2p2Training::predict_on_gpu() {
  if (frames_.empty()) frames_ = io::read_n2p2_data((dir_ / "input.data").string());
  ForceField field(std::make_shared<NnpPotential>(model()));
  const double conv_energy = model_.normalized ? model_.conv_energy : 1.0;
  const double conv_length = model_.normalized ? model_.conv_length : 1.0;
  const double mean = model_.normalized ? model_.mean_energy : 0.0;
  std::size_t s = 0;
  for (std::span<const Structure> batch : split_batches(frames_)) {
    const std::vector<Evaluation> got = evaluate_batch(field, batch, Backend::Cuda);
    for (const Evaluation& e : got) {
      const TrainingStructure& t = data_[s];
      double offsets = 0;
      for (int el : t.element) offsets += model_.elements[el].atom_energy;
      energy_pred_[s] = (e.energy - offsets - static_cast<double>(t.size()) * mean) * conv_energy;
      force_pred_[s].resize(3 * t.size());
      for (std::size_t a = 0; a < t.size(); ++a)
        for (int c = 0; c < 3; ++c) force_pred_[s][3 * a + c] = e.forces[a][c] * conv_energy / conv_length;
      ++s;
    }
  }
}

// The predictions of every structure by the training's networks, structures on the CPU's threads.
void N2p2Training::predict_on_cpu() {
  device::parallel_for(
      static_cast<long>(data_.size()),
      [&](long s) {
        const TrainingStructure& t = data_[s];
        const bool keep = settings_.memorize || inputs_[s];
        StructureInputs temporary;
        if (!keep)
          temporary = nets_->inputs(t, false);
        else if (!inputs_[s])
          inputs_[s] = std::make_unique<StructureInputs>(nets_->inputs(t, keep_derivatives()));
        const StructureInputs& in = keep ? *inputs_[s] : temporary;
        if (settings_.use_forces)
          energy_pred_[s] = nets_->energy_and_forces(t, in, force_pred_[s]);
        else
          energy_pred_[s] = nets_->energy(t, in);
      },
      1);
}

void N2p2Training::compute_errors() {
  energy_pred_.resize(data_.size());
  force_pred_.resize(data_.size());
  if (backend_ == Backend::Cuda)
    predict_on_gpu();
  else
    predict_on_cpu();
  // n2p2's sums, structure by structure: squared and absolute errors, per atom and per structure.
  struct Sums {
    double e2pa = 0, e2 = 0, epa = 0, e = 0, f2 = 0, f = 0;
    long structures = 0, components = 0;
  } sums[2];
  for (std::size_t s = 0; s < data_.size(); ++s) {
    Sums& x = sums[in_test_[s] ? 1 : 0];
    const double n = static_cast<double>(data_[s].size()), d = energy_ref_[s] - energy_pred_[s];
    ++x.structures;
    x.e2pa += d * d / (n * n);
    x.e2 += d * d;
    x.epa += std::abs(d) / n;
    x.e += std::abs(d);
    if (!settings_.use_forces) continue;
    for (std::size_t a = 0; a < data_[s].size(); ++a) {
      double sq = 0, abs = 0;
      for (int c = 0; c < 3; ++c) {
        const double df = force_ref_[s][3 * a + c] - force_pred_[s][3 * a + c];
        sq += df * df;
        abs += std::abs(df);
      }
      x.f2 += sq;
      x.f += abs;
      x.components += 3;
    }
  }
  for (int k = 0; k < 2; ++k) {
    ErrorMetrics& m = k ? test_metrics_ : train_metrics_;
    const Sums& x = sums[k];
    const double n = static_cast<double>(x.structures), c = static_cast<double>(x.components);
    m = {};
    if (x.structures > 0) m = {std::sqrt(x.e2pa / n), std::sqrt(x.e2 / n), x.epa / n, x.e / n, 0, 0};
    if (x.components > 0) {
      m.force_rmse = std::sqrt(x.f2 / c);
      m.force_mae = x.f / c;
    }
  }
}

double N2p2Training::reference(const Candidate& c, bool forces) const {
  return forces ? force_ref_[c.s][3 * static_cast<std::size_t>(c.a) + c.c] : energy_ref_[c.s];
}

// |reference - prediction| relative to the training RMSE (per atom for energies) of the last errors.
double N2p2Training::current_error(const Candidate& c, bool forces) {
  if (gpu_) {
    upload_inputs(c.s);
    return relative_error(c, forces, forces ? gpu_->force(c.s, c.a, c.c) : gpu_->energy(c.s));
  }
  const StructureInputs& in = inputs(c.s);
  const double prediction = forces ? nets_->force(data_[c.s], in, c.a, c.c) : nets_->energy(data_[c.s], in);
  release(c.s);
  return relative_error(c, forces, prediction);
}

double N2p2Training::relative_error(const Candidate& c, bool forces, double prediction) const {
  const double error = std::abs(reference(c, forces) - prediction);
  return forces ? error / train_metrics_.force_rmse
                : error / (static_cast<double>(data_[c.s].size()) * train_metrics_.rmse_pa);
}

// The inputs of every training structure (with forces, and their derivatives), computed on the GPU from
// neighbourhoods that the CPU's threads list, a slice of structures at a time.
void N2p2Training::upload_all_inputs() {
  std::vector<std::size_t> missing;
  for (std::size_t s = 0; s < data_.size(); ++s)
    if (!in_test_[s] && !gpu_->has(s)) missing.push_back(s);
  const std::size_t slice = 256;
  std::vector<Neighborhood> hoods(slice);
  std::vector<const TrainingStructure*> structures(slice);
  for (std::size_t first = 0; first < missing.size(); first += slice) {
    const std::size_t n = std::min(slice, missing.size() - first);
    device::parallel_for(
        static_cast<long>(n),
        [&](long k) {
          structures[k] = &data_[missing[first + k]];
          hoods[k] = neighborhood(*structures[k], nets_->descriptor().cutoff());
        },
        1);
    gpu_->add_computed(std::span(missing).subspan(first, n), std::span(structures).first(n), std::span(hoods).first(n),
                       settings_.use_forces);
  }
}

void N2p2Training::upload_inputs(std::size_t s) {
  if (gpu_->has(s)) return;
  const TrainingStructure* t = &data_[s];
  const Neighborhood hood = neighborhood(*t, nets_->descriptor().cutoff());
  gpu_->add_computed(std::span(&s, 1), std::span(&t, 1), std::span(&hood, 1), settings_.use_forces);
}

N2p2Training::Candidate N2p2Training::select(bool forces) {
  Plan& plan = plan_[forces ? 1 : 0];
  const PropertyPlan& p = forces ? settings_.force : settings_.energy;
  const bool threshold = p.selection_at(epoch_) == Selection::Threshold;
  const std::size_t size = forces ? force_candidates_.size() : energy_candidates_.size();
  auto candidate = [&](std::size_t k) {
    if (forces) return Candidate{force_candidates_[k].s, force_candidates_[k].a, force_candidates_[k].c};
    return Candidate{energy_candidates_[k], 0, 0};
  };
  Candidate best{};
  double best_error = -1;
  const long trials = threshold ? p.trials : 1;
  for (long t = 0; t < trials; ++t) {
    if (plan.position >= size) plan.position = 0;
    const Candidate c = candidate(plan.position++);
    if (!threshold) return c;
    const double error = current_error(c, forces);
    if (!(error <= p.threshold)) return c;  // above it (or no RMSE to compare with yet)
    if (error > best_error) best_error = error, best = c;
  }
  return best;
}

// Per element (per-element updaters): its share of an energy error, its share of the structure's atoms,
// or of a force error, its share of the atom's neighbours (their elements given).
std::vector<double> N2p2Training::element_shares(const TrainingStructure& s, const std::vector<int>* neighbors) const {
  std::vector<double> share(updaters_.size(), 0.0);
  if (neighbors) {
    for (int e : *neighbors) share[static_cast<std::size_t>(e)] += 1;
    const double n = static_cast<double>(neighbors->size());
    for (double& x : share) x = n > 0 ? x / n : 0.0;
  } else {
    for (std::size_t e = 0; e < share.size(); ++e)
      share[e] = static_cast<double>(s.per_element[e]) / static_cast<double>(s.size());
  }
  return share;
}

void N2p2Training::update_on_gpu(bool forces) {
  const long batch = plan_[forces ? 1 : 0].batch;
  const int rows = settings_.full_jacobian ? static_cast<int>(batch) : 1;
  const bool combined = updaters_.size() == 1;
  const std::size_t total = static_cast<std::size_t>(nets_->parameter_count());
  gpu_jacobian_.resize(total * static_cast<std::size_t>(rows));
  gpu_jacobian_.set_zero();
  std::vector<std::vector<double>> error(updaters_.size(), std::vector<double>(static_cast<std::size_t>(rows), 0.0));
  for (long b = 0; b < batch; ++b) {
    const Candidate c = select(forces);
    upload_inputs(c.s);
    const std::size_t row = settings_.full_jacobian ? static_cast<std::size_t>(b) : 0;
    double* j = gpu_jacobian_.data() + row * total;
    const double err = reference(c, forces) - (forces ? gpu_->force(c.s, c.a, c.c, j) : gpu_->energy(c.s, j));
    if (combined) {
      error[0][row] += err;
      continue;
    }
    const std::vector<int> neighbors = forces ? gpu_->neighbor_elements(c.s, c.a) : std::vector<int>{};
    const std::vector<double> share = element_shares(data_[c.s], forces ? &neighbors : nullptr);
    for (std::size_t e = 0; e < updaters_.size(); ++e) error[e][row] += err * share[e];
  }
  if (forces) {
    for (auto& x : error)
      for (double& v : x) v *= settings_.force_weight;
    GpuJacobians::scale(gpu_jacobian_.data(), static_cast<long>(gpu_jacobian_.size()), settings_.force_weight);
  }
  if (combined) {
    errors_[0].assign(error[0]);
    updaters_[0]->update(states_[0], errors_[0], gpu_jacobian_, rows);
    gpu_->set_weights(states_[0].data());  // the CPU's networks get them at the epoch's end
    return;
  }
  // Per element: its block of each row of the Jacobian, its updater; then the weights in the combined order.
  gpu_weights_.resize(total);
  for (std::size_t e = 0; e < updaters_.size(); ++e) {
    const std::size_t n = states_[e].size(), at = static_cast<std::size_t>(nets_->offset(static_cast<int>(e)));
    jacobians_[e].resize(n * static_cast<std::size_t>(rows));
    for (std::size_t r = 0; r < static_cast<std::size_t>(rows); ++r)
      device::copy_on_device(jacobians_[e].data() + r * n, gpu_jacobian_.data() + r * total + at, n * sizeof(double));
    errors_[e].assign(error[e]);
    updaters_[e]->update(states_[e], errors_[e], jacobians_[e], rows);
    device::copy_on_device(gpu_weights_.data() + at, states_[e].data(), n * sizeof(double));
  }
  gpu_->set_weights(gpu_weights_.data());
}

void N2p2Training::update(bool forces) {
  if (gpu_) return update_on_gpu(forces);
  const Plan& plan = plan_[forces ? 1 : 0];
  const long batch = plan.batch;
  const int rows = settings_.full_jacobian ? static_cast<int>(batch) : 1;
  const bool combined = updaters_.size() == 1;
  const std::size_t total = static_cast<std::size_t>(nets_->parameter_count());
  std::vector<std::vector<double>> error(updaters_.size()), jacobian(updaters_.size());
  for (std::size_t u = 0; u < updaters_.size(); ++u) {
    error[u].assign(static_cast<std::size_t>(rows), 0.0);
    jacobian[u].assign(states_[u].size() * static_cast<std::size_t>(rows), 0.0);
  }
  std::vector<double> j(total);
  for (long b = 0; b < batch; ++b) {
    const Candidate c = select(forces);
    const StructureInputs& in = inputs(c.s);
    const TrainingStructure& s = data_[c.s];
    std::fill(j.begin(), j.end(), 0.0);
    const double prediction = forces ? nets_->force(s, in, c.a, c.c, j.data()) : nets_->energy(s, in, j.data());
    const double err = reference(c, forces) - prediction;
    const std::size_t row = settings_.full_jacobian ? static_cast<std::size_t>(b) : 0;
    if (combined) {
      error[0][row] += err;
      double* out = jacobian[0].data() + row * total;
      for (std::size_t k = 0; k < total; ++k) out[k] += j[k];
    } else {
      std::vector<int> neighbors;
      if (forces)
        for (const NeighborEntry& nb : in.neighbors.entries[c.a]) neighbors.push_back(nb.element);
      const std::vector<double> share = element_shares(s, forces ? &neighbors : nullptr);
      for (std::size_t e = 0; e < updaters_.size(); ++e) {
        error[e][row] += err * share[e];
        const std::size_t n = states_[e].size(), at = static_cast<std::size_t>(nets_->offset(static_cast<int>(e)));
        double* out = jacobian[e].data() + row * n;
        for (std::size_t k = 0; k < n; ++k) out[k] += j[at + k];
      }
    }
    release(c.s);
  }
  for (std::size_t u = 0; u < updaters_.size(); ++u) {
    if (forces) {
      for (double& x : error[u]) x *= settings_.force_weight;
      for (double& x : jacobian[u]) x *= settings_.force_weight;
    }
    errors_[u].assign(error[u]);
    jacobians_[u].assign(jacobian[u]);
    updaters_[u]->update(states_[u], errors_[u], jacobians_[u], rows);
  }
  pull_weights();
}

void N2p2Training::pull_weights() {
  std::vector<double> w;
  for (const Array<double>& s : states_) {
    const std::vector<double> part = s.to_vector();
    w.insert(w.end(), part.begin(), part.end());
  }
  nets_->set_weights(w.data());
}

void N2p2Training::train_epoch() {
  ++epoch_;
  for (int k = 0; k < 2; ++k) {
    const bool forces = k == 1;
    if (forces && !settings_.use_forces) continue;
    const PropertyPlan& p = forces ? settings_.force : settings_.energy;
    plan_[k].position = 0;
    if (p.selection_at(epoch_) != Selection::Sort) {
      if (forces)
        shuffle(force_candidates_, rng_);
      else
        shuffle(energy_candidates_, rng_);
      continue;
    }
    // The largest errors of the last evaluation first.
    if (forces) {
      std::stable_sort(force_candidates_.begin(), force_candidates_.end(), [&](const auto& x, const auto& y) {
        const double ex = std::abs(force_ref_[x.s][3 * x.a + x.c] - force_pred_[x.s][3 * x.a + x.c]);
        const double ey = std::abs(force_ref_[y.s][3 * y.a + y.c] - force_pred_[y.s][3 * y.a + y.c]);
        return ex > ey;
      });
    } else {
      auto error = [&](int s) {
        return std::abs(energy_ref_[s] - energy_pred_[s]) / static_cast<double>(data_[s].size());
      };
      std::stable_sort(energy_candidates_.begin(), energy_candidates_.end(),
                       [&](int x, int y) { return error(x) > error(y); });
    }
  }
  // The epoch's updates, force and energy ones mixed at random.
  std::vector<char> schedule(static_cast<std::size_t>(plan_[1].updates), 1);
  schedule.insert(schedule.end(), static_cast<std::size_t>(plan_[0].updates), 0);
  if (plan_[0].updates > 0 && plan_[1].updates > 0) shuffle(schedule, rng_);
  if (gpu_) upload_all_inputs();
  for (char forces : schedule) update(forces != 0);
  if (!gpu_) return;
  pull_weights();
  long n = 0;
  for (const auto& u : updaters_) n += u->rejected();
  if (n > 0)
    throw Error("nnp training, epoch " + std::to_string(epoch_) + ": " + std::to_string(n) +
                " Kalman updates had H^T P H + R not positive and were skipped (the filter's covariance "
                "lost positive definiteness)");
}

void N2p2Training::write_epoch_files(const std::filesystem::path& dir) {
  if (settings_.write_weights.at(epoch_)) {
    const Model m = model();
    for (const ElementModel& e : m.elements)
      write_weights(e, dir / formatted("weights.%03d.%06ld.out", e.atomic_number, epoch_));
  }
  for (int forces = 0; forces < 2; ++forces) {
    if (forces && !settings_.use_forces) continue;
    if (!(forces ? settings_.write_forces : settings_.write_energies).at(epoch_)) continue;
    for (int test = 0; test < 2; ++test) {
      const std::string name =
          formatted("%s%s.%06ld.out", test ? "test" : "train", forces ? "forces" : "points", epoch_);
      io::write_file_atomically((dir / name).string(), [&](std::ostream& o) {
        write_comparison_header(o, forces != 0);
        for (std::size_t s = 0; s < data_.size(); ++s) {
          if ((in_test_[s] != 0) != (test != 0)) continue;
          if (!forces) {
            const double n = static_cast<double>(data_[s].size());
            o << formatted("%10ld %16.8E %16.8E\n", data_[s].index, energy_ref_[s] / n, energy_pred_[s] / n);
            continue;
          }
          for (std::size_t a = 0; a < data_[s].size(); ++a)
            for (int c = 0; c < 3; ++c)
              o << formatted("%10ld %10zu %16.8E %16.8E\n", data_[s].index, a, force_ref_[s][3 * a + c],
                             force_pred_[s][3 * a + c]);
        }
      });
    }
  }
}

std::vector<std::string> N2p2Training::run(const std::string& output, std::ostream* log) {
  const std::filesystem::path dir(output);
  std::filesystem::create_directories(dir);
  CurveLayout layout;
  layout.forces = settings_.use_forces;
  layout.normalized = model_.normalized;
  if (model_.normalized) {
    layout.energy_unit = 1.0 / model_.conv_energy;
    layout.force_unit = model_.conv_length / model_.conv_energy;
  }
  // A restarted run writes the curve up to its checkpoint's epoch again, then goes on.
  std::ofstream curve(dir / "learning-curve.out");
  if (!curve) throw Error("cannot write " + (dir / "learning-curve.out").string());
  if (!restarted_) {
    std::ostringstream header;
    write_curve_header(header, layout);
    curve_text_ = header.str();
  }
  curve << curve_text_;
  const std::string checkpoint = (dir / "training.ckpt").string();
  if (log) {
    long test = 0;
    for (char t : in_test_) test += t;
    *log << "n2p2 training: " << data_.size() - test << " training and " << test << " test structures, "
         << nets_->parameter_count() << " weights, " << plan_[0].updates << " energy and " << plan_[1].updates
         << " force updates per epoch" << (computed_scaling_ ? "; scaling.data computed from input.data" : "")
         << "\n  errors in the units of the files: energy " << settings_.error_metric << ", force "
         << (settings_.error_metric.starts_with("MAE") ? "MAE" : "RMSE") << ", training / test\n";
    if (restarted_) *log << "  continuing from a checkpoint after epoch " << epoch_ << "\n";
  }
  auto report = [&](double seconds, double updates) {
    std::ostringstream row;
    write_curve_row(row, layout, epoch_, train_metrics_, test_metrics_);
    curve_text_ += row.str();
    curve << row.str() << std::flush;
    write_epoch_files(dir);
    if (!log) return;
    const std::string& m = settings_.error_metric;
    auto energy = [&](const ErrorMetrics& x) {
      return (m == "RMSEpa" ? x.rmse_pa : m == "RMSE" ? x.rmse : m == "MAEpa" ? x.mae_pa : x.mae) * layout.energy_unit;
    };
    auto force = [&](const ErrorMetrics& x) {
      return (m.starts_with("MAE") ? x.force_mae : x.force_rmse) * layout.force_unit;
    };
    *log << formatted("epoch %5ld/%ld  E %11.5E / %11.5E", epoch_, settings_.epochs, energy(train_metrics_),
                      energy(test_metrics_));
    if (settings_.use_forces) *log << formatted("  F %11.5E / %11.5E", force(train_metrics_), force(test_metrics_));
    // The epoch's seconds last; before them those of its updates (the rest: errors and files).
    *log << formatted("  updates %7.2f s %8.2f s\n", updates, seconds) << std::flush;
  };
  auto clock = std::chrono::steady_clock::now();
  auto lap = [&]() {
    const auto now = std::chrono::steady_clock::now();
    const double s = std::chrono::duration<double>(now - clock).count();
    clock = now;
    return s;
  };
  // Checkpoints after the epochs of the schedule (their errors included), and after the last.
  long saved = -1;
  auto save = [&](bool last) {
    const bool due = checkpoint_every_ < 0 ? settings_.write_weights.at(epoch_)
                                           : checkpoint_every_ > 0 && epoch_ % checkpoint_every_ == 0;
    if (!due && !last) return;
    write_checkpoint(checkpoint);
    saved = epoch_;
  };
  if (!restarted_) {
    compute_errors();
    report(lap(), 0.0);
    save(epoch_ >= settings_.epochs);
  }
  while (epoch_ < settings_.epochs) {
    train_epoch();
    const double updates = lap();
    compute_errors();
    report(updates + lap(), updates);
    save(epoch_ >= settings_.epochs);
  }
  if (saved != epoch_) write_checkpoint(checkpoint);  // a restart at or past the last epoch
  const Model m = model();
  write_model(m, dir);
  std::vector<std::string> files{(dir / "input.nn").string(), (dir / "scaling.data").string()};
  for (const ElementModel& e : m.elements) files.push_back((dir / weights_file_name(e.atomic_number)).string());
  return files;
}

}  // namespace quasar::nnp
