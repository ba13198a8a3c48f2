#include "quasar/potential/dp/train/input.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <numeric>
#include <set>

#include "quasar/core/error.hpp"
#include "quasar/nn/network.hpp"
#include "quasar/potential/potential.hpp"

namespace quasar::dp {

namespace {

using nlohmann::json;

// Bounds far beyond any se_e2_a training input; they keep the model that make_model builds from
// the input (weights of widths x widths per layer, statistics of ntypes x sum(sel)) allocatable.
constexpr long kMaxTypes = 1024, kMaxSel = 100000, kMaxWidth = 4096, kMaxCount = 1L << 40;

std::string type_name(const json& v) { return v.is_null() ? "null" : v.type_name(); }

// One object of the input with its dotted path ("input.model.descriptor"). Every read checks the
// value's type and range; errors name the file and the key.
struct Section {
  const json& j;
  std::string where, origin;
  [[noreturn]] void fail(const std::string& key, const std::string& msg) const {
    throw InputError(origin, 0, where + (key.empty() ? "" : "." + key) + ": " + msg);
  }
  // Every key must be known; "_..." keys are comments.
  void allow(const std::set<std::string>& keys) const {
    if (!j.is_object()) fail("", "expected an object, found " + type_name(j));
    for (const auto& [k, v] : j.items())
      if (!k.empty() && k[0] != '_' && !keys.count(k)) {
        std::string valid;
        for (const auto& x : keys) valid += " " + x;
        fail(k, "unknown or unsupported key (valid:" + valid + ")");
      }
  }
  bool has(const std::string& k) const { return j.contains(k) && !j.at(k).is_null(); }
  Section sub(const std::string& k) const {
    if (!has(k)) fail(k, "missing section");
    return {j.at(k), where + "." + k, origin};
  }
  // Checked scalars of a value at `key` (for messages; "sel[2]" for a list element).
  long integer_value(const json& v, const std::string& key, long lo, long hi) const {
    const std::string want = "expected an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
    if (v.is_number_unsigned()) {  // JSON's non-negative integers arrive as unsigned
      const auto u = v.get<unsigned long>();
      if (u <= static_cast<unsigned long>(hi) && (lo <= 0 || u >= static_cast<unsigned long>(lo))) return static_cast<long>(u);
    }
    if (v.is_number_integer() && !v.is_number_unsigned() && v.get<long>() >= lo && v.get<long>() <= hi) return v.get<long>();
    if (v.is_number_float()) {  // 1000.0 is 1000 (Python writes some counts so)
      const double d = v.get<double>();
      if (d >= static_cast<double>(lo) && d <= static_cast<double>(hi) && d == std::floor(d)) return static_cast<long>(d);
    }
    fail(key, want + ", found " + (v.is_number() ? v.dump() : type_name(v)));
  }
  double number_value(const json& v, const std::string& key) const {
    if (!v.is_number()) fail(key, "expected a number, found " + type_name(v));
    const double d = v.get<double>();
    if (!std::isfinite(d)) fail(key, "expected a finite number");
    return d;
  }
  // Optional keys with a default; need() for required ones.
  long integer(const std::string& k, long fallback, long lo, long hi) const {
    return has(k) ? integer_value(j.at(k), k, lo, hi) : fallback;
  }
  double number(const std::string& k, double fallback) const { return has(k) ? number_value(j.at(k), k) : fallback; }
  // A positive number (rates, cutoffs).
  double positive(const std::string& k, double fallback) const {
    const double v = number(k, fallback);
    if (!(v > 0)) fail(k, "expected a positive number");
    return v;
  }
  bool boolean(const std::string& k, bool fallback) const {
    if (!has(k)) return fallback;
    if (!j.at(k).is_boolean()) fail(k, "expected true or false, found " + type_name(j.at(k)));
    return j.at(k).get<bool>();
  }
  std::string string(const std::string& k, const std::string& fallback) const {
    if (!has(k)) return fallback;
    if (!j.at(k).is_string()) fail(k, "expected a string, found " + type_name(j.at(k)));
    return j.at(k).get<std::string>();
  }
  std::vector<long> integers(const std::string& k, long lo, long hi) const {
    const json& v = j.at(k);
    if (!v.is_array()) fail(k, "expected a list of integers, found " + type_name(v));
    std::vector<long> out;
    for (std::size_t i = 0; i < v.size(); ++i) out.push_back(integer_value(v[i], k + "[" + std::to_string(i) + "]", lo, hi));
    return out;
  }
  std::vector<std::string> strings(const std::string& k) const {
    const json& v = j.at(k);
    if (v.is_string()) return {v.get<std::string>()};
    if (!v.is_array()) fail(k, "expected a string or a list of strings, found " + type_name(v));
    std::vector<std::string> out;
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_string()) fail(k + "[" + std::to_string(i) + "]", "expected a string, found " + type_name(v[i]));
      out.push_back(v[i].get<std::string>());
    }
    return out;
  }
  void need(const std::string& k) const {
    if (!has(k)) fail(k, "missing key");
  }
  // Layer widths: a list of 1 to 16 widths from 1 to kMaxWidth.
  std::vector<int> widths(const std::string& k, const std::vector<int>& fallback) const {
    if (!has(k)) return fallback;
    const auto v = integers(k, 1, kMaxWidth);
    if (v.empty() || v.size() > 16) fail(k, "expected 1 to 16 layer widths");
    return {v.begin(), v.end()};
  }
  unsigned seed(const std::string& k) const { return static_cast<unsigned>(integer(k, 1, 0, 4294967295L)); }
  std::string activation(const std::string& k) const {
    const std::string a = string(k, "tanh");
    try {
      nn::parse_activation(a);
    } catch (const Error& e) {
      fail(k, e.what());
    }
    return a;
  }
};

std::vector<std::string> systems(const Section& s, const std::string& base) {
  s.need("systems");
  const auto paths = s.strings("systems");
  if (paths.empty()) s.fail("systems", "expected at least one system");
  std::vector<std::string> out;
  for (const auto& p : paths) {
    if (p.empty()) s.fail("systems", "empty path");
    std::filesystem::path q(p);
    out.push_back((q.is_relative() ? std::filesystem::path(base) / q : q).lexically_normal().string());
  }
  return out;
}

int batch(const Section& s, const char* key, int fallback) {
  if (!s.has(key)) return fallback;
  const json& v = s.j.at(key);
  if (v.is_string()) {
    if (v.get<std::string>() != "auto") s.fail(key, "expected a positive integer or \"auto\"");
    return 0;
  }
  return static_cast<int>(s.integer_value(v, key, 1, 1000000));
}

}  // namespace

TrainInput parse_train_input(const json& root, const std::string& origin, const std::string& base) {
  TrainInput in;
  const Section top{root, "input", origin};
  top.allow({"model", "learning_rate", "loss", "training"});
  const Section model = top.sub("model");
  model.allow({"type_map", "descriptor", "fitting_net", "data_stat_nbatch", "type"});
  if (model.string("type", "standard") != "standard") model.fail("type", "only standard energy models");
  model.need("type_map");
  in.type_map = model.strings("type_map");
  const int nt = static_cast<int>(in.type_map.size());
  if (nt < 1 || nt > kMaxTypes) model.fail("type_map", "expected 1 to " + std::to_string(kMaxTypes) + " type names");
  for (int t = 0; t < nt; ++t)
    if (in.type_map[t].empty() || std::find(in.type_map.begin(), in.type_map.begin() + t, in.type_map[t]) != in.type_map.begin() + t)
      model.fail("type_map[" + std::to_string(t) + "]", "empty or repeated type name '" + in.type_map[t] + "'");
  in.stat_frames = static_cast<int>(model.integer("data_stat_nbatch", 10, 1, 1000000));

  const Section d = model.sub("descriptor");
  d.allow({"type", "sel", "rcut", "rcut_smth", "neuron", "axis_neuron", "resnet_dt", "type_one_side", "precision", "seed",
           "activation_function", "exclude_types", "env_protection", "set_davg_zero", "trainable"});
  d.need("type");
  const std::string type = d.string("type", "");
  if (type != "se_e2_a" && type != "se_a") d.fail("type", "descriptor '" + type + "' is not supported (se_e2_a)");
  d.need("sel");
  if (d.j.at("sel").is_string()) d.fail("sel", "\"auto\" is not supported: give the numbers");
  const auto sel = d.integers("sel", 0, kMaxSel);
  in.sel.assign(sel.begin(), sel.end());
  if (static_cast<int>(in.sel.size()) != nt) d.fail("sel", "needs one entry per type in type_map");
  if (std::accumulate(sel.begin(), sel.end(), 0L) < 1) d.fail("sel", "needs at least one neighbour slot in total");
  d.need("rcut");
  in.rcut = d.positive("rcut", in.rcut);
  if (in.rcut > kMaxCutoff) d.fail("rcut", "expected at most " + std::to_string(static_cast<int>(kMaxCutoff)) + " Å");
  in.rcut_smth = d.number("rcut_smth", in.rcut_smth);
  if (!(in.rcut_smth < in.rcut)) d.fail("rcut_smth", "expected less than rcut");
  in.embedding_neuron = d.widths("neuron", in.embedding_neuron);
  in.axis_neuron = static_cast<int>(d.integer("axis_neuron", in.axis_neuron, 1, kMaxWidth));
  if (in.axis_neuron > in.embedding_neuron.back())
    d.fail("axis_neuron", "expected at most the last embedding width " + std::to_string(in.embedding_neuron.back()));
  in.embedding_resnet_dt = d.boolean("resnet_dt", false);
  in.type_one_side = d.boolean("type_one_side", false);
  in.precision = d.string("precision", "float64");
  if (in.precision != "float64" && in.precision != "float32") d.fail("precision", "float64 or float32");
  in.descriptor_seed = d.seed("seed");
  in.activation = d.activation("activation_function");
  in.env_protection = d.number("env_protection", 0.0);
  if (in.env_protection < 0) d.fail("env_protection", "expected a non-negative number");
  if (d.boolean("set_davg_zero", false)) d.fail("set_davg_zero", "is not supported");
  if (!d.boolean("trainable", true)) d.fail("trainable", "a frozen descriptor is not supported");
  if (d.has("exclude_types")) {
    const json& ex = d.j.at("exclude_types");
    if (!ex.is_array()) d.fail("exclude_types", "expected a list of pairs of type indices");
    for (std::size_t k = 0; k < ex.size(); ++k) {
      const std::string key = "exclude_types[" + std::to_string(k) + "]";
      const json& pv = ex[k];
      if (!pv.is_array() || pv.size() != 2) d.fail(key, "expected a pair of type indices");
      in.exclude_types.push_back({static_cast<int>(d.integer_value(pv[0], key + "[0]", 0, nt - 1)),
                                  static_cast<int>(d.integer_value(pv[1], key + "[1]", 0, nt - 1))});
    }
  }

  const Section f = model.sub("fitting_net");
  f.allow({"type", "neuron", "resnet_dt", "precision", "seed", "activation_function", "numb_fparam", "numb_aparam",
           "trainable"});
  if (f.string("type", "ener") != "ener") f.fail("type", "only energy fitting");
  if (f.integer("numb_fparam", 0, 0, kMaxWidth) || f.integer("numb_aparam", 0, 0, kMaxWidth))
    f.fail("numb_fparam", "frame and atomic parameters are not supported in training yet");
  in.fitting_neuron = f.widths("neuron", in.fitting_neuron);
  in.fitting_resnet_dt = f.boolean("resnet_dt", true);
  if (f.has("precision") && f.string("precision", "") != "float64" && f.string("precision", "") != "float32")
    f.fail("precision", "float64 or float32");
  in.fitting_seed = f.seed("seed");
  in.fitting_activation = f.activation("activation_function");
  if (f.has("trainable")) {
    const json& tr = f.j.at("trainable");
    const bool all = tr.is_boolean() ? tr.get<bool>()
                                     : tr.is_array() && std::all_of(tr.begin(), tr.end(), [](const json& x) {
                                         return x.is_boolean() && x.get<bool>();
                                       });
    if (!all) f.fail("trainable", "frozen fitting layers are not supported");
  }

  const Section lr = top.sub("learning_rate");
  lr.allow({"type", "start_lr", "stop_lr", "decay_steps", "scale_by_worker"});
  if (lr.string("type", "exp") != "exp") lr.fail("type", "only exponential decay (exp)");
  in.start_lr = lr.positive("start_lr", in.start_lr);
  in.stop_lr = lr.positive("stop_lr", in.stop_lr);
  in.decay_steps = lr.integer("decay_steps", in.decay_steps, 1, kMaxCount);
  lr.string("scale_by_worker", "linear");

  const Section loss = top.sub("loss");
  loss.allow({"type", "start_pref_e", "limit_pref_e", "start_pref_f", "limit_pref_f", "start_pref_v", "limit_pref_v"});
  if (loss.string("type", "ener") != "ener") loss.fail("type", "only the energy loss (ener)");
  auto prefactor = [&](const std::string& k, double fallback) {
    const double v = loss.number(k, fallback);
    if (v < 0) loss.fail(k, "expected a non-negative prefactor");
    return v;
  };
  in.start_pref_e = prefactor("start_pref_e", in.start_pref_e);
  in.limit_pref_e = prefactor("limit_pref_e", in.limit_pref_e);
  in.start_pref_f = prefactor("start_pref_f", in.start_pref_f);
  in.limit_pref_f = prefactor("limit_pref_f", in.limit_pref_f);
  in.start_pref_v = prefactor("start_pref_v", in.start_pref_v);
  in.limit_pref_v = prefactor("limit_pref_v", in.limit_pref_v);

  const Section t = top.sub("training");
  t.allow({"training_data", "validation_data", "numb_steps", "seed", "disp_file", "disp_freq", "save_freq", "save_ckpt",
           "disp_training", "time_training", "profiling", "tensorboard", "numb_test"});
  const Section td = t.sub("training_data");
  td.allow({"systems", "batch_size", "set_prefix", "auto_prob"});
  in.training_systems = systems(td, base);
  in.batch_size = batch(td, "batch_size", 0);
  td.string("set_prefix", "set");
  td.string("auto_prob", "prob_sys_size");
  if (t.has("validation_data")) {
    const Section vd = t.sub("validation_data");
    vd.allow({"systems", "batch_size", "numb_btch", "set_prefix", "auto_prob"});
    in.validation_systems = systems(vd, base);
    in.validation_batch_size = std::max(1, batch(vd, "batch_size", 1));
    in.validation_batches = static_cast<int>(vd.integer("numb_btch", 1, 1, 1000000));
    vd.string("set_prefix", "set");
    vd.string("auto_prob", "prob_sys_size");
  }
  t.need("numb_steps");
  in.numb_steps = t.integer("numb_steps", 0, 0, kMaxCount);
  in.seed = t.seed("seed");
  in.disp_file = t.string("disp_file", in.disp_file);
  // DeePMD-kit treats 0 as 1 here; so does Quasar.
  in.disp_freq = std::max(1L, t.integer("disp_freq", in.disp_freq, 0, kMaxCount));
  in.save_freq = std::max(1L, t.integer("save_freq", in.save_freq, 0, kMaxCount));
  in.save_ckpt = t.string("save_ckpt", in.save_ckpt);
  if (in.disp_file.empty() || in.save_ckpt.empty()) t.fail(in.disp_file.empty() ? "disp_file" : "save_ckpt", "empty file name");
  for (const char* k : {"disp_training", "time_training", "profiling", "tensorboard"}) t.boolean(k, false);
  t.integer("numb_test", 1, 0, kMaxCount);
  return in;
}

TrainInput read_train_input(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f || std::filesystem::is_directory(path)) throw InputError(path, 0, "cannot open training input");
  const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& e) {
    // The line of the byte where parsing stopped.
    const std::size_t end = std::min<std::size_t>(e.byte, text.size());
    const long line = 1 + std::count(text.begin(), text.begin() + static_cast<long>(end > 0 ? end - 1 : 0), '\n');
    throw InputError(path, line, std::string("JSON error: ") + e.what());
  } catch (const json::exception& e) {
    throw InputError(path, 0, std::string("JSON error: ") + e.what());
  }
  return parse_train_input(root, path, std::filesystem::path(path).parent_path().string());
}

}  // namespace quasar::dp
