// The growth loop (grow.hpp).
#include "quasar/potential/shepard/grow/grow.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <cmath>
#include <functional>
#include <iomanip>
#include <memory>
#include <ostream>

#include "quasar/core/error.hpp"
#include "quasar/potential/evaluate.hpp"
#include "quasar/potential/shepard/gpu_interpolant.hpp"
#include "quasar/potential/shepard/grow/selection.hpp"
#include "quasar/potential/shepard/interpolant.hpp"
#include "quasar/potential/shepard/shepard_potential.hpp"

namespace quasar::shepard {

namespace {

std::vector<Vec3> as_vectors(const std::vector<double>& x) {
  std::vector<Vec3> r;
  for (std::size_t a = 0; a + 2 < x.size(); a += 3) r.push_back({x[a], x[a + 1], x[a + 2]});
  return r;
}

std::vector<Structure> frames_of(const qct::QctSettings& q, const std::vector<std::vector<double>>& configs) {
  std::vector<Structure> frames;
  for (const auto& x : configs) frames.push_back(qct::collision_system(q, as_vectors(x), {}));
  return frames;
}

// Finite, and no two atoms closer than `min_distance`.
bool usable(const double* x, int n, double min_distance) {
  for (int a = 0; a < 3 * n; ++a)
    if (!std::isfinite(x[a])) return false;
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b) {
      double d2 = 0;
      for (int k = 0; k < 3; ++k) d2 += std::pow(x[3 * a + k] - x[3 * b + k], 2);
      if (d2 < min_distance * min_distance) return false;
    }
  return true;
}

// A QCT hook that appends the positions of every running trajectory (3 n values each) to `seen`
// when no two of its atoms are closer than min_distance.
std::function<void(const std::vector<Structure>&, const std::vector<char>&)> collect_visits(std::vector<double>& seen,
                                                                                              int n, double min_distance) {
  return [&seen, n, min_distance](const std::vector<Structure>& systems, const std::vector<char>& running) {
    for (std::size_t j = 0; j < systems.size(); ++j) {
      if (!running[j]) continue;
      std::vector<double> x;
      for (const Vec3& r : systems[j].positions) x.insert(x.end(), {r.x, r.y, r.z});
      if (usable(x.data(), n, min_distance)) seen.insert(seen.end(), x.begin(), x.end());
    }
  };
}

// Every `stride`-th of the configurations so that at most `keep` remain (flat, 3N each).
std::vector<double> thinned(const std::vector<double>& configs, std::size_t n3, long keep) {
  const std::size_t m = configs.size() / n3;
  if (keep <= 0 || m <= static_cast<std::size_t>(keep)) return configs;
  std::vector<double> out;
  for (long k = 0; k < keep; ++k) {
    const std::size_t c = static_cast<std::size_t>(k) * m / static_cast<std::size_t>(keep);
    out.insert(out.end(), configs.begin() + static_cast<std::ptrdiff_t>(c * n3),
               configs.begin() + static_cast<std::ptrdiff_t>((c + 1) * n3));
  }
  return out;
}

// The interpolated energies of many configurations on the chosen backend.
std::vector<double> interpolated(const Interpolant& f, const std::vector<double>& configs, Backend backend) {
  std::vector<double> e(configs.size() / static_cast<std::size_t>(3 * f.atoms));
  if (backend == Backend::Cuda) GpuInterpolant(f).evaluate_batch(configs, e, {});
  else evaluate_batch(f, configs, e);
  return e;
}

// The median of the set's confidence lengths: the h-weight's length for a new point.
double typical_length(const DataSet& set) {
  std::vector<double> all;
  for (const DataPoint& p : set.points) all.insert(all.end(), p.confidence.begin(), p.confidence.end());
  std::nth_element(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(all.size() / 2), all.end());
  return all[all.size() / 2];
}

// New confidence lengths for the set; what the fit found (the median length at least).
FittedLengths refresh_confidence(DataSet& set, const GrowSettings& s) {
  FittedLengths found;
  if (s.lengths == GrowSettings::Confidence::Fitted) {
    FittedSettings c = s.fitted_settings;
    c.fallback = s.confidence;
    return fitted_confidence(set, c);
  }
  if (s.lengths == GrowSettings::Confidence::Bayes) {
    ConfidenceSettings c = s.bayes_settings;
    c.fallback = s.confidence;
    bayes_confidence(set, c);
  } else {
    for (DataPoint& p : set.points) p.confidence.assign(static_cast<std::size_t>(set.pairs()), s.confidence);
  }
  found.median_length = typical_length(set);
  return found;
}

// The reference's points at these configurations: a force field's always, a program's where it could
// compute them (failures[k] the reason where not).
ReferenceBatch compute_points(GrowReference& reference, const GrowSettings& s, const std::vector<std::string>& elements,
                              const std::vector<std::vector<double>>& configs) {
  if (!reference.force_field) return run_external_reference(reference.program, elements, configs);
  ReferenceBatch batch;
  batch.points = reference_points(*reference.force_field, s.qct, configs, s.hessian_step, Backend::Cpu);
  batch.failures.resize(configs.size());
  return batch;
}

// The molecule's minimum and normal modes on a program reference (the atom `isolation` away, as
// run_qct places it): Newton steps with the program's analytic Hessians. normal_modes asks for a frame
// and its displacements by the small step at a time; the program computes the frame, and the
// displaced ones are its second-order expansion, whose central differences give its Hessian. The
// minimum is reached when every force is below 1e-4 eV/Å: the SCF's own gradient error is about
// 1e-5 (docs/formats/shepard.md).
qct::NormalModes program_modes(const GrowReference& reference, const GrowSettings& s,
                               const std::vector<std::string>& elements) {
  const int n = static_cast<int>(s.qct.molecule.size());
  Vec3 centre{};
  for (const Vec3& r : s.qct.positions) centre += r * (1.0 / n);
  std::vector<Vec3> r = s.qct.positions;
  r.push_back(centre + Vec3{0, 0, s.qct.isolation});
  const Structure system = qct::collision_system(s.qct, r, {});
  std::vector<int> molecule(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) molecule[static_cast<std::size_t>(i)] = i;
  const qct::BatchForces forces = [&](std::span<const Structure> frames) {
    std::vector<double> x0;
    for (const Vec3& p : frames[0].positions) x0.insert(x0.end(), {p.x, p.y, p.z});
    const ReferenceBatch b = run_external_reference(reference.program, elements, {x0});
    if (!b.failures[0].empty()) throw Error("grow: the reference failed at the molecule's minimum search: " + b.failures[0]);
    const CartesianPoint& p = b.points[0];
    const std::size_t n3 = x0.size();
    std::vector<Evaluation> out;
    for (const Structure& f : frames) {
      std::vector<double> dx(n3);
      for (std::size_t a = 0; a < n3 / 3; ++a)
        for (int k = 0; k < 3; ++k) dx[3 * a + static_cast<std::size_t>(k)] = f.positions[a][k] - x0[3 * a + static_cast<std::size_t>(k)];
      for (double d : dx)
        if (std::abs(d) > 1e-2) throw Error("grow: the minimum search asked for frames far apart");
      Evaluation e;
      e.energy = p.energy;
      for (std::size_t i = 0; i < n3; ++i) {
        double g = p.gradient[i];
        for (std::size_t j = 0; j < n3; ++j) g += p.hessian[i * n3 + j] * dx[j];
        e.energy += (p.gradient[i] + 0.5 * (g - p.gradient[i])) * dx[i];
        if (i % 3 == 0) e.forces.push_back({});
        e.forces.back()[static_cast<int>(i % 3)] = -g;
      }
      out.push_back(std::move(e));
    }
    return out;
  };
  qct::NormalModeSettings settings = s.qct.modes;
  settings.force_tolerance = std::max(settings.force_tolerance, 1e-4);
  return qct::normal_modes(system, molecule, forces, settings);
}

}  // namespace

std::vector<std::vector<int>> permutations_of(const std::vector<int>& atoms, int n) {
  std::vector<int> order = atoms;
  std::sort(order.begin(), order.end());
  std::vector<std::vector<int>> group;
  do {
    std::vector<int> p(static_cast<std::size_t>(n));
    for (int a = 0; a < n; ++a) p[static_cast<std::size_t>(a)] = a;
    std::vector<int> sorted = atoms;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t k = 0; k < sorted.size(); ++k) p[static_cast<std::size_t>(sorted[k])] = order[k];
    group.push_back(std::move(p));
  } while (std::next_permutation(order.begin(), order.end()));
  return group;
}

std::vector<CartesianPoint> reference_points(ForceField& reference, const qct::QctSettings& q,
                                             const std::vector<std::vector<double>>& configs, double h, Backend backend) {
  std::vector<std::vector<double>> displaced;
  for (const auto& x : configs) {
    displaced.push_back(x);
    for (std::size_t a = 0; a < x.size(); ++a)
      for (double sign : {1.0, -1.0}) {
        std::vector<double> y = x;
        y[a] += sign * h;
        displaced.push_back(std::move(y));
      }
  }
  const std::vector<Structure> frames = frames_of(q, displaced);
  const std::vector<Evaluation> ev = evaluate_batch(reference, frames, backend);
  std::vector<CartesianPoint> out;
  std::size_t at = 0;
  for (const auto& x : configs) {
    const std::size_t n3 = x.size();
    CartesianPoint p;
    p.positions = x;
    p.energy = ev[at].energy;
    for (const Vec3& f : ev[at].forces) p.gradient.insert(p.gradient.end(), {-f.x, -f.y, -f.z});
    p.hessian.assign(n3 * n3, 0.0);
    for (std::size_t a = 0; a < n3; ++a) {
      const auto& plus = ev[at + 1 + 2 * a].forces;
      const auto& minus = ev[at + 2 + 2 * a].forces;
      for (std::size_t b = 0; b < n3 / 3; ++b) {
        const Vec3 d = (minus[b] - plus[b]) * (1 / (2 * h));  // d(gradient)/dx_a = -dF/dx_a
        p.hessian[a * n3 + 3 * b] = d.x;
        p.hessian[a * n3 + 3 * b + 1] = d.y;
        p.hessian[a * n3 + 3 * b + 2] = d.z;
      }
    }
    for (std::size_t a = 0; a < n3; ++a)
      for (std::size_t b = a + 1; b < n3; ++b)
        p.hessian[a * n3 + b] = p.hessian[b * n3 + a] = 0.5 * (p.hessian[a * n3 + b] + p.hessian[b * n3 + a]);
    out.push_back(std::move(p));
    at += 1 + 2 * n3;
  }
  return out;
}

GrowResult grow(const GrowSettings& s, GrowReference reference, Backend backend, std::ostream* progress) {
  if (!reference.force_field && reference.program.command.empty()) throw Error("grow: no reference method");
  const auto clock_start = std::chrono::steady_clock::now();
  const int n = static_cast<int>(s.qct.molecule.size()) + 1;
  const std::size_t n3 = static_cast<std::size_t>(3 * n);
  std::vector<std::string> elements = s.qct.molecule;
  elements.push_back(s.qct.projectile);
  GrowResult result;
  DataSet& set = result.set;
  set.elements = elements;
  for (const std::string& e : elements) {
    const auto it = s.qct.masses.find(e);
    set.masses.push_back(it != s.qct.masses.end() ? it->second : element_mass(e));
  }
  set.permutations = s.permute.empty() ? full_permutation_group(elements) : permutations_of(s.permute, n);
  if (std::string p = permutation_group_problem(set.permutations, elements); !p.empty()) throw Error("grow: " + p);
  set.parameters = s.parameters;
  const std::vector<double> constant(static_cast<std::size_t>(set.pairs()), s.confidence);

  // The start points.
  double lowest = 0;
  FittedLengths fit;  // the lengths' last refresh
  {
    const ReferenceBatch batch = compute_points(reference, s, elements, s.start);
    for (std::size_t k = 0; k < batch.failures.size(); ++k)
      if (!batch.failures[k].empty())
        throw Error("grow: the reference failed at start point " + std::to_string(k + 1) + ": " + batch.failures[k]);
    const std::vector<CartesianPoint>& first = batch.points;
    lowest = first.front().energy;
    for (std::size_t k = 0; k < first.size(); ++k) {
      lowest = std::min(lowest, first[k].energy);
      try {
        set.points.push_back(make_data_point(first[k], constant));
      } catch (const Error& e) {
        throw Error("grow: start point " + std::to_string(k + 1) + ": " + e.what());
      }
    }
    fit = refresh_confidence(set, s);
  }
  // The held-out configurations: from trajectories on a force-field reference, which also give the
  // modes. A program reference has none (grow.hpp); its Hessians give the modes.
  std::vector<double> held;
  qct::NormalModes modes;
  if (!reference.force_field) {
    modes = program_modes(reference, s, elements);
  } else {
    qct::QctSettings q = s.qct;
    q.trajectories = s.held_out_trajectories > 0 ? s.held_out_trajectories : s.qct.trajectories;
    q.collision.seed = s.qct.collision.seed + 1000003;  // a stream of its own
    std::vector<double> seen;
    qct::QctHooks hooks;
    hooks.visit = collect_visits(seen, n, s.min_distance);
    const qct::QctResult r = qct::run_qct(q, *reference.force_field, Backend::Cpu, nullptr, hooks);
    modes = r.modes;
    held = thinned(seen, n3, s.held_out);
    if (held.empty()) throw Error("grow: the reference trajectories visited no configuration to hold out");
  }
  std::vector<double> held_reference;
  if (reference.force_field) {
    std::vector<std::vector<double>> configs;
    for (std::size_t c = 0; c < held.size() / n3; ++c)
      configs.emplace_back(held.begin() + static_cast<std::ptrdiff_t>(c * n3), held.begin() + static_cast<std::ptrdiff_t>((c + 1) * n3));
    for (const Evaluation& e : evaluate_batch(*reference.force_field, frames_of(s.qct, configs), Backend::Cpu))
      held_reference.push_back(e.energy);
  }
  if (progress) {
    *progress << "grow: " << set.points.size() << " start points x " << set.permutations.size() << " permutations; ";
    if (reference.force_field) *progress << held_reference.size() << " held-out configurations from reference trajectories";
    else {
      *progress << "reference " << reference.program.description << "; error measured at each iteration's new points; "
                << "the molecule's minimum on it after " << modes.iterations << " Newton steps, frequencies (cm^-1):"
                << std::fixed << std::setprecision(1);
      for (int k = 0; k < modes.modes(); ++k) *progress << ' ' << modes.wavenumber(k);
      *progress << std::defaultfloat << std::setprecision(6);
    }
    *progress << std::endl;
  }
  // An external reference's held-out error: at the last new points, before they were added.
  double last_new_rms = std::numeric_limits<double>::infinity(), last_new_max = last_new_rms;

  double previous_sigma = -1;
  bool sigma_converged = false;
  for (int it = 0;; ++it) {
    GrowIteration row;
    row.iteration = it;
    row.points = static_cast<long>(set.points.size());
    const Interpolant f = Interpolant::from(set);
    if (held.empty()) {
      row.rms = last_new_rms;
      row.max_error = last_new_max;
    } else {
      const std::vector<double> e = interpolated(f, held, backend);
      double sum = 0;
      for (std::size_t c = 0; c < e.size(); ++c) {
        const double d = e[c] - held_reference[c];
        sum += d * d;
        row.max_error = std::max(row.max_error, std::abs(d));
      }
      row.rms = std::sqrt(sum / static_cast<double>(e.size()));
      if (!std::isfinite(row.rms)) row.rms = row.max_error = std::numeric_limits<double>::infinity();
      // The dynamically relevant region: the held-out configurations within rms_window of the lowest start point.
      double window_sum = 0;
      for (std::size_t c = 0; c < e.size(); ++c)
        if (held_reference[c] <= lowest + s.rms_window) window_sum += std::pow(e[c] - held_reference[c], 2), ++row.window_count;
      row.window_rms = row.window_count > 0 ? std::sqrt(window_sum / static_cast<double>(row.window_count)) : 0;
      if (!std::isfinite(row.window_rms)) row.window_rms = std::numeric_limits<double>::infinity();
    }
    row.median_length = fit.median_length;
    row.leave_one_out_rms = fit.leave_one_out_rms;
    row.length_exponent = fit.exponent;
    auto line = [&](const GrowIteration& r, bool with_sigma) {
      if (!progress) return;
      *progress << "grow: iteration " << r.iteration << ": " << r.points << " points" << std::setprecision(4);
      if (!held.empty())
        *progress << ", RMS error " << r.rms * 1e3 << " meV (max " << r.max_error * 1e3 << " meV), within " << s.rms_window
                  << " eV " << r.window_rms * 1e3 << " meV (" << r.window_count << " configurations)";
      *progress << ", median length " << r.median_length << "/A";
      if (r.leave_one_out_rms > 0)
        *progress << " (exponent " << r.length_exponent << ", leave-one-out RMS " << r.leave_one_out_rms * 1e3 << " meV)";
      if (with_sigma)
        *progress << ", sigma " << r.cross_section << " +- " << r.cross_section_error << " A^2 on " << r.visited
                  << " visited configurations, " << r.added << " added (RMS error there " << r.new_rms * 1e3
                  << " meV), " << r.skipped << " skipped";
      if (r.failed) *progress << ", " << r.failed << " failed in the reference";
      *progress << ", " << std::setprecision(3) << r.seconds << " s" << std::setprecision(6) << std::endl;
    };
    const bool budget_spent = static_cast<long>(set.points.size()) >= s.max_points;
    std::string stop;
    if (s.target_rms > 0 && row.rms <= s.target_rms) stop = "the RMS error reached the target";
    else if (budget_spent) stop = "the point budget is spent";
    else if (sigma_converged) stop = "the cross section changed by less than the tolerance";
    else if (it >= s.iterations) stop = "the iteration limit is reached";
    if (!stop.empty()) {
      row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - clock_start).count();
      line(row, false);
      result.iterations.push_back(row);
      result.stopped_because = stop;
      break;
    }
    // Trajectories on the current surface; every configuration they visit is a candidate.
    std::vector<double> seen;
    qct::QctSettings q = s.qct;
    q.collision.seed = s.qct.collision.seed + static_cast<uint64_t>(it);
    qct::QctHooks hooks;
    hooks.modes = &modes;
    hooks.visit = collect_visits(seen, n, s.min_distance);
    ForceField surface(std::make_shared<ShepardPotential>(set, "grow iteration " + std::to_string(it)));
    const qct::QctResult run = qct::run_qct(q, std::move(surface), backend, nullptr, hooks);
    row.visited = static_cast<long>(seen.size() / n3);
    row.cross_section = run.reactive.cross_section;
    row.cross_section_error = run.reactive.cross_section_error;
    const std::vector<double> candidates = thinned(seen, n3, s.candidates);
    // New points: h-weight first, then variance sampling among the rest, within the budget.
    const long room = s.max_points - static_cast<long>(set.points.size());
    std::vector<int> chosen;
    if (!candidates.empty()) {
      const double length = typical_length(set);
      chosen = select_by_h_weight(f, set.permutations, candidates, s.h_weight_points, length);
      for (int c : select_by_variance(f, candidates, s.variance_points + static_cast<int>(chosen.size()), 0.1 * length))
        if (std::find(chosen.begin(), chosen.end(), c) == chosen.end() &&
            static_cast<int>(chosen.size()) < s.h_weight_points + s.variance_points)
          chosen.push_back(c);
    }
    if (static_cast<long>(chosen.size()) > room) chosen.resize(static_cast<std::size_t>(room));
    std::vector<std::vector<double>> configs;
    for (int c : chosen)
      configs.emplace_back(candidates.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(c) * n3),
                           candidates.begin() + static_cast<std::ptrdiff_t>((static_cast<std::size_t>(c) + 1) * n3));
    double new_sum = 0, new_max = 0;
    const ReferenceBatch batch = compute_points(reference, s, elements, configs);
    for (std::size_t k = 0; k < configs.size(); ++k) {
      if (!batch.failures[k].empty()) {
        ++row.failed;
        result.failures.push_back("iteration " + std::to_string(it) + ": " + batch.failures[k]);
        continue;
      }
      const CartesianPoint& p = batch.points[k];
      const double miss = evaluate(f, p.positions.data()) - p.energy;
      new_sum += miss * miss;
      new_max = std::max(new_max, std::abs(miss));
      if (!(p.energy <= lowest + s.max_energy)) {
        ++row.skipped;
        continue;
      }
      try {
        set.points.push_back(make_data_point(p, constant));
        ++row.added;
      } catch (const Error&) {
        ++row.skipped;  // a (nearly) linear geometry
      }
    }
    const long computed = static_cast<long>(configs.size()) - row.failed;
    row.new_rms = computed == 0 ? 0 : std::sqrt(new_sum / static_cast<double>(computed));
    if (computed > 0) {
      last_new_rms = row.new_rms;
      last_new_max = new_max;
    }
    fit = refresh_confidence(set, s);
    if (!s.output.empty()) write_dataset(s.output, set);
    row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - clock_start).count();
    line(row, true);
    result.iterations.push_back(row);
    if (row.added == 0) {
      result.stopped_because = "no new point could be added";
      break;
    }
    sigma_converged = s.cross_section_tolerance > 0 && previous_sigma >= 0 &&
                      std::abs(row.cross_section - previous_sigma) < s.cross_section_tolerance;
    previous_sigma = row.cross_section;
  }
  if (!s.output.empty()) write_dataset(s.output, set);
  if (progress) {
    if (!result.failures.empty())
      *progress << "grow: the reference failed at " << result.failures.size() << " chosen configurations (skipped): "
                << result.failures.front() << (result.failures.size() > 1 ? ", ..." : "") << std::endl;
    *progress << "grow: stopped: " << result.stopped_because << std::endl;
  }
  return result;
}

}  // namespace quasar::shepard
