// N2p2Training's checkpoints (training.hpp; the format is docs/formats/nnp-training-checkpoint.md): a
// text line naming the format, a JSON header line (the run's shape, the sections' sizes and the
// payload's FNV-1a checksum), then the payload, binary sections in a fixed order. Reading checks the
// header against this run, the payload's size and checksum, then every section, before anything
// changes; writing goes to a temporary file renamed over the last checkpoint.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>

#include "quasar/core/error.hpp"
#include "quasar/io/read.hpp"
#include "quasar/potential/nnp/train/training.hpp"

namespace quasar::nnp {

static_assert(std::endian::native == std::endian::little, "checkpoints are little-endian");

namespace {

constexpr const char* kMagic = "QUASAR-NNP-TRAINING-CHECKPOINT 1";
constexpr std::size_t kMetrics = 12;  // ErrorMetrics of the training and the test structures

std::uint64_t fnv1a(const std::string& bytes) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string hex(std::uint64_t v) {
  char s[17];
  std::snprintf(s, sizeof s, "%016llx", static_cast<unsigned long long>(v));
  return s;
}

template <class T>
void put(std::string& out, const std::vector<T>& v) {
  out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

// The payload's sections in order; the header's sizes were checked against the payload's length.
struct Sections {
  const std::string& bytes;
  std::size_t at = 0;
  template <class T>
  std::vector<T> take(std::size_t n) {
    std::vector<T> v(n);
    if (n > 0) std::memcpy(v.data(), bytes.data() + at, n * sizeof(T));
    at += n * sizeof(T);
    return v;
  }
  std::string text(std::size_t n) {
    std::string s = bytes.substr(at, n);
    at += n;
    return s;
  }
};

const char* updater_name(const TrainingSettings& s) {
  if (s.updater == TrainingSettings::Updater::KalmanFilter) return "kalman";
  return s.descent == TrainingSettings::Descent::Adam ? "adam" : "fixed";
}

// The numbers WeightUpdater::state() gives for n weights.
std::size_t state_size(const TrainingSettings& s, std::size_t n) {
  if (s.updater == TrainingSettings::Updater::KalmanFilter) return 4 + n * (n + 1) / 2;
  return s.descent == TrainingSettings::Descent::Adam ? 2 + 2 * n : 0;
}

std::vector<double> metrics(const ErrorMetrics& m) {
  return {m.rmse_pa, m.rmse, m.mae_pa, m.mae, m.force_rmse, m.force_mae};
}

ErrorMetrics metrics(const double* v) { return {v[0], v[1], v[2], v[3], v[4], v[5]}; }

// A whole number in [0, 2^62].
bool whole(const nlohmann::json& v) {
  if (!v.is_number_integer()) return false;
  return v.is_number_unsigned() ? v.get<std::uint64_t>() <= (1ull << 62) : v.get<long>() >= 0;
}

// The header's values, each checked with its key named in errors (line 2 of the file).
struct Header {
  const nlohmann::json& h;
  const std::string& path;
  [[noreturn]] void fail(const std::string& key, const std::string& msg) const {
    throw InputError(path, 2, "header key '" + key + "': " + msg);
  }
  const nlohmann::json& at(const std::string& key) const {
    if (!h.contains(key)) fail(key, "missing");
    return h.at(key);
  }
  long count(const std::string& key) const {
    if (!whole(at(key))) fail(key, "expected a whole number >= 0");
    return at(key).get<long>();
  }
  // A count that must equal this run's.
  void expect(const std::string& key, std::size_t want, const std::string& what, const std::string& hint = "") const {
    const long got = count(key);
    if (static_cast<std::size_t>(got) != want)
      fail(key,
           "the checkpoint has " + std::to_string(got) + " " + what + ", this input " + std::to_string(want) + hint);
  }
  std::vector<long> counts(const std::string& key) const {
    const nlohmann::json& v = at(key);
    if (!v.is_array() || v.size() > 1000) fail(key, "expected a list of whole numbers >= 0");
    std::vector<long> out;
    for (const nlohmann::json& x : v) {
      if (!whole(x)) fail(key, "expected a list of whole numbers >= 0");
      out.push_back(x.get<long>());
    }
    return out;
  }
  std::string string(const std::string& key) const {
    if (!at(key).is_string()) fail(key, "expected a string");
    return at(key).get<std::string>();
  }
};

}  // namespace

void N2p2Training::checkpoint_every(long every) {
  if (every < 0) throw Error("nnp training: checkpoints every " + std::to_string(every) + " epochs");
  checkpoint_every_ = every;
}

void N2p2Training::write_checkpoint(const std::string& path) {
  std::string payload;
  std::ostringstream rng;
  rng << rng_;
  payload += rng.str();
  put(payload, in_test_);
  put(payload, energy_candidates_);
  std::vector<int> forces;
  for (const ForceCandidate& f : force_candidates_) forces.insert(forces.end(), {f.s, f.a, f.c});
  put(payload, forces);
  for (const Array<double>& s : states_) put(payload, s.to_vector());
  nlohmann::json state_counts = nlohmann::json::array(), parameters = nlohmann::json::array();
  for (std::size_t u = 0; u < updaters_.size(); ++u) {
    const std::vector<double> s = updaters_[u]->state();
    put(payload, s);
    state_counts.push_back(s.size());
    parameters.push_back(states_[u].size());
  }
  put(payload, energy_pred_);
  std::size_t atoms = 0;
  for (std::size_t s = 0; s < data_.size(); ++s) {
    atoms += data_[s].size();
    if (settings_.use_forces) put(payload, force_pred_[s]);
  }
  std::vector<double> m = metrics(train_metrics_), t = metrics(test_metrics_);
  m.insert(m.end(), t.begin(), t.end());
  put(payload, m);
  payload += curve_text_;
  nlohmann::json h;
  h["epoch"] = epoch_;
  std::vector<int> elements;
  for (const ElementModel& e : model_.elements) elements.push_back(e.atomic_number);
  h["elements"] = elements;
  h["updater"] = updater_name(settings_);
  h["parameters"] = parameters;
  h["state_counts"] = state_counts;
  h["structures"] = data_.size();
  h["atoms"] = atoms;
  h["forces"] = settings_.use_forces;
  h["energy_candidates"] = energy_candidates_.size();
  h["force_candidates"] = force_candidates_.size();
  h["positions"] = {plan_[0].position, plan_[1].position};
  h["rng_bytes"] = rng.str().size();
  h["curve_bytes"] = curve_text_.size();
  h["payload_bytes"] = payload.size();
  h["fnv1a64"] = hex(fnv1a(payload));
  io::write_file_atomically(path, [&](std::ostream& o) { o << kMagic << "\n" << h.dump() << "\n" << payload; });
}

void N2p2Training::restart(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw InputError(path, 0, "cannot open the checkpoint");
  const std::uintmax_t file_size = std::filesystem::file_size(path, ec);
  std::ifstream in(path, std::ios::binary);
  if (ec || !in) throw InputError(path, 0, "cannot read the checkpoint");
  std::string first, line;
  std::getline(in, first);
  if (first != kMagic) {
    if (first.starts_with("QUASAR-NNP-TRAINING-CHECKPOINT "))
      throw InputError(path, 1, "checkpoint format '" + first.substr(0, 40) + "'; this build reads '" + kMagic + "'");
    throw InputError(path, 1, "not a checkpoint of n2p2 training (first line '" + first.substr(0, 40) + "')");
  }
  if (!std::getline(in, line) || in.eof())
    throw InputError(path, 2, "the header is truncated (and the payload missing)");
  const nlohmann::json json = nlohmann::json::parse(line, nullptr, false);
  if (!json.is_object()) throw InputError(path, 2, "the header is not a JSON object");
  const Header h{json, path};

  // The run's shape: the same input, elements, updaters and candidates.
  std::vector<int> elements;
  for (const ElementModel& e : model_.elements) elements.push_back(e.atomic_number);
  const nlohmann::json& got_elements = h.at("elements");
  if (!got_elements.is_array() || got_elements != nlohmann::json(elements))
    h.fail("elements", "the checkpoint's elements (atomic numbers) " + got_elements.dump().substr(0, 80) +
                           " are not this input's " + nlohmann::json(elements).dump());
  if (h.string("updater") != updater_name(settings_))
    h.fail("updater", "the checkpoint is of the " + h.string("updater").substr(0, 20) +
                          " updater, this input asks for " + updater_name(settings_));
  const std::vector<long> parameters = h.counts("parameters"), state_counts = h.counts("state_counts");
  if (parameters.size() != updaters_.size() || state_counts.size() != updaters_.size())
    h.fail("parameters", "the checkpoint has " + std::to_string(parameters.size()) + " updaters, this input " +
                             std::to_string(updaters_.size()) + " (update_strategy changed?)");
  std::size_t weights = 0, states = 0;
  for (std::size_t u = 0; u < updaters_.size(); ++u) {
    const std::size_t n = states_[u].size();
    if (static_cast<std::size_t>(parameters[u]) != n)
      h.fail("parameters", "updater " + std::to_string(u) + " has " + std::to_string(parameters[u]) +
                               " weights in the checkpoint, " + std::to_string(n) + " in this input's networks");
    if (static_cast<std::size_t>(state_counts[u]) != state_size(settings_, n))
      h.fail("state_counts", "updater " + std::to_string(u) + ": " + std::to_string(state_counts[u]) +
                                 " numbers, expected " + std::to_string(state_size(settings_, n)));
    weights += n;
    states += state_size(settings_, n);
  }
  std::size_t atoms = 0;
  for (const TrainingStructure& s : data_) atoms += s.size();
  h.expect("structures", data_.size(), "structures");
  h.expect("atoms", atoms, "atoms");
  if (!h.at("forces").is_boolean() || h.at("forces").get<bool>() != settings_.use_forces)
    h.fail("forces", "the checkpoint and this input differ in use_short_forces");
  const std::string split = " (another test split: input.data, test_fraction or random_seed changed?)";
  h.expect("energy_candidates", energy_candidates_.size(), "energy candidates", split);
  h.expect("force_candidates", force_candidates_.size(), "force candidates", split);
  const std::vector<long> positions = h.counts("positions");
  if (positions.size() != 2 || static_cast<std::size_t>(positions[0]) > energy_candidates_.size() ||
      static_cast<std::size_t>(positions[1]) > force_candidates_.size())
    h.fail("positions", "expected the energy and force candidates' positions, within their counts");
  const long epoch = h.count("epoch");

  // The payload: its size from the sections, then its checksum.
  const std::uintmax_t rest = file_size - static_cast<std::uintmax_t>(first.size() + line.size() + 2);
  const long rng_bytes = h.count("rng_bytes"), curve_bytes = h.count("curve_bytes");
  if (static_cast<std::uintmax_t>(rng_bytes) > rest || static_cast<std::uintmax_t>(curve_bytes) > rest)
    h.fail(static_cast<std::uintmax_t>(rng_bytes) > rest ? "rng_bytes" : "curve_bytes", "larger than the file");
  const std::size_t n = data_.size(), forces = 3 * force_candidates_.size();
  const std::size_t expected = static_cast<std::size_t>(rng_bytes) + n + 4 * energy_candidates_.size() + 4 * forces +
                               8 * (weights + states + n + (settings_.use_forces ? 3 * atoms : 0) + kMetrics) +
                               static_cast<std::size_t>(curve_bytes);
  h.expect("payload_bytes", expected, "payload bytes (the sections' sizes)");
  if (rest != expected)
    throw InputError(path, 0,
                     "the payload holds " + std::to_string(rest) + " bytes, the header says " +
                         std::to_string(expected) + (rest < expected ? " (truncated checkpoint)" : ""));
  std::string payload(expected, '\0');
  if (!in.read(payload.data(), static_cast<std::streamsize>(expected)))
    throw InputError(path, 0, "truncated checkpoint");
  const std::string sum = h.string("fnv1a64");
  if (sum != hex(fnv1a(payload)))
    throw InputError(path, 0,
                     "the payload's checksum is " + hex(fnv1a(payload)) + ", the header says '" + sum.substr(0, 20) +
                         "' (the file is corrupt)");

  // The sections, every one checked.
  Sections sec{payload};
  std::mt19937_64 rng;
  std::istringstream rng_text(sec.text(static_cast<std::size_t>(rng_bytes)));
  if (!(rng_text >> rng) || !(rng_text >> std::ws).eof())
    throw InputError(path, 0, "the random stream's state is not readable");
  if (sec.take<char>(n) != in_test_)
    throw InputError(path, 0,
                     "the checkpoint's test structures are not this input's (input.data, test_fraction or "
                     "random_seed changed since it was written)");
  std::vector<int> energy = sec.take<int>(energy_candidates_.size()), sorted = energy, mine = energy_candidates_;
  std::sort(sorted.begin(), sorted.end());
  std::sort(mine.begin(), mine.end());
  if (sorted != mine) throw InputError(path, 0, "the energy candidates are not this input's training structures");
  const std::vector<int> f = sec.take<int>(forces);
  std::vector<ForceCandidate> force(force_candidates_.size());
  for (std::size_t k = 0; k < force.size(); ++k) force[k] = {f[3 * k], f[3 * k + 1], f[3 * k + 2]};
  auto key = [](const ForceCandidate& c) { return std::tuple(c.s, c.a, c.c); };
  auto less = [&](const ForceCandidate& x, const ForceCandidate& y) { return key(x) < key(y); };
  std::vector<ForceCandidate> fs = force, fm = force_candidates_;
  std::sort(fs.begin(), fs.end(), less);
  std::sort(fm.begin(), fm.end(), less);
  for (std::size_t k = 0; k < fs.size(); ++k)
    if (key(fs[k]) != key(fm[k]))
      throw InputError(path, 0, "the force candidates are not this input's training force components");
  auto finite = [&](const std::vector<double>& v, const std::string& what) {
    for (double x : v)
      if (!std::isfinite(x)) throw InputError(path, 0, what + ": a value is not finite");
    return v;
  };
  const std::vector<double> w = finite(sec.take<double>(weights), "the weights");
  std::vector<std::vector<double>> state;
  for (std::size_t u = 0; u < updaters_.size(); ++u)
    state.push_back(sec.take<double>(state_size(settings_, states_[u].size())));
  const std::vector<double> energy_pred = finite(sec.take<double>(n), "the energy predictions");
  std::vector<std::vector<double>> force_pred(n);
  if (settings_.use_forces)
    for (std::size_t s = 0; s < n; ++s)
      force_pred[s] = finite(sec.take<double>(3 * data_[s].size()), "the force predictions");
  const std::vector<double> m = finite(sec.take<double>(kMetrics), "the errors");
  for (double x : m)
    if (x < 0) throw InputError(path, 0, "the errors: a negative value");
  std::string curve = sec.text(static_cast<std::size_t>(curve_bytes));

  // The updaters' states (each checks its own); an earlier one is put back when a later one fails.
  std::vector<std::vector<double>> before;
  for (std::size_t u = 0; u < updaters_.size(); ++u) {
    before.push_back(updaters_[u]->state());
    try {
      updaters_[u]->restore(state[u]);
    } catch (const Error& e) {
      for (std::size_t k = 0; k < u; ++k) updaters_[k]->restore(before[k]);
      throw InputError(path, 0, "updater " + std::to_string(u) + ": " + e.what());
    }
  }
  std::size_t at = 0;
  for (Array<double>& s : states_) {
    s.upload(w.data() + at, s.size());
    at += s.size();
  }
  nets_->set_weights(w.data());
  if (gpu_) gpu_->set_weights(*nets_);
  rng_ = rng;
  energy_candidates_ = std::move(energy);
  force_candidates_ = std::move(force);
  plan_[0].position = static_cast<std::size_t>(positions[0]);
  plan_[1].position = static_cast<std::size_t>(positions[1]);
  energy_pred_ = energy_pred;
  force_pred_ = std::move(force_pred);
  train_metrics_ = metrics(m.data());
  test_metrics_ = metrics(m.data() + 6);
  curve_text_ = std::move(curve);
  epoch_ = epoch;
  restarted_ = true;
}

}  // namespace quasar::nnp
