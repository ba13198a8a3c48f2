#include "quasar/train/input.hpp"

#include <filesystem>
#include <fstream>
#include <set>

#include "quasar/core/error.hpp"

namespace quasar::train {

namespace {

using nlohmann::json;

struct Section {
  const json& j;
  std::string where, origin;
  [[noreturn]] void fail(const std::string& key, const std::string& msg) const {
    throw InputError(origin, 0, where + (key.empty() ? "" : "." + key) + ": " + msg);
  }
  // Every key must be known; "_..." keys are comments.
  void allow(const std::set<std::string>& keys) const {
    if (!j.is_object()) fail("", "expected an object");
    for (const auto& [k, v] : j.items())
      if (!k.empty() && k[0] != '_' && !keys.count(k)) {
        std::string valid;
        for (const auto& x : keys) valid += " " + x;
        fail(k, "unknown or unsupported key (valid:" + valid + ")");
      }
  }
  bool has(const std::string& k) const { return j.contains(k) && !j.at(k).is_null(); }
  Section sub(const std::string& k) const {
    if (!j.contains(k)) fail(k, "missing section");
    return {j.at(k), where + "." + k, origin};
  }
  template <class T>
  T get(const std::string& k, T fallback) const {
    if (!has(k)) return fallback;
    try {
      return j.at(k).get<T>();
    } catch (const json::exception&) {
      fail(k, "wrong type");
    }
  }
  template <class T>
  T need(const std::string& k) const {
    if (!has(k)) fail(k, "missing key");
    return get<T>(k, T{});
  }
};

std::vector<std::string> systems(const Section& s, const std::string& base) {
  std::vector<std::string> out;
  const json& v = s.j.at("systems");
  auto add = [&](const std::string& p) {
    std::filesystem::path q(p);
    out.push_back((q.is_relative() ? std::filesystem::path(base) / q : q).lexically_normal().string());
  };
  if (v.is_string()) add(v.get<std::string>());
  else if (v.is_array())
    for (const auto& x : v) add(x.get<std::string>());
  else s.fail("systems", "expected a path or a list of paths");
  return out;
}

int batch(const Section& s, const char* key, int fallback) {
  if (!s.has(key)) return fallback;
  const json& v = s.j.at(key);
  if (v.is_string()) {
    if (v.get<std::string>() != "auto") s.fail(key, "expected a number or \"auto\"");
    return 0;
  }
  if (!v.is_number_integer() || v.get<int>() < 1) s.fail(key, "expected a positive integer or \"auto\"");
  return v.get<int>();
}

}  // namespace

TrainInput parse_train_input(const json& root, const std::string& origin, const std::string& base) {
  TrainInput in;
  const Section top{root, "input", origin};
  top.allow({"model", "learning_rate", "loss", "training"});
  const Section model = top.sub("model");
  model.allow({"type_map", "descriptor", "fitting_net", "data_stat_nbatch", "type"});
  if (model.get<std::string>("type", "standard") != "standard") model.fail("type", "only standard energy models");
  in.type_map = model.need<std::vector<std::string>>("type_map");
  in.stat_frames = model.get<int>("data_stat_nbatch", 10);
  const Section d = model.sub("descriptor");
  d.allow({"type", "sel", "rcut", "rcut_smth", "neuron", "axis_neuron", "resnet_dt", "type_one_side", "precision", "seed",
           "activation_function", "exclude_types", "env_protection", "set_davg_zero", "trainable"});
  const std::string type = d.need<std::string>("type");
  if (type != "se_e2_a" && type != "se_a") d.fail("type", "descriptor '" + type + "' is not supported (se_e2_a)");
  if (d.has("sel") && d.j.at("sel").is_string()) d.fail("sel", "\"auto\" is not supported: give the numbers");
  in.sel = d.need<std::vector<int>>("sel");
  if (in.sel.size() != in.type_map.size()) d.fail("sel", "needs one entry per type in type_map");
  in.rcut = d.need<double>("rcut");
  in.rcut_smth = d.get<double>("rcut_smth", in.rcut_smth);
  in.embedding_neuron = d.get("neuron", in.embedding_neuron);
  in.axis_neuron = d.get<int>("axis_neuron", in.axis_neuron);
  in.embedding_resnet_dt = d.get<bool>("resnet_dt", false);
  in.type_one_side = d.get<bool>("type_one_side", false);
  in.precision = d.get<std::string>("precision", "float64");
  if (in.precision != "float64" && in.precision != "float32") d.fail("precision", "float64 or float32");
  in.descriptor_seed = d.get<unsigned>("seed", 1);
  in.activation = d.get<std::string>("activation_function", "tanh");
  in.env_protection = d.get<double>("env_protection", 0.0);
  if (d.get<bool>("set_davg_zero", false)) d.fail("set_davg_zero", "is not supported");
  if (!d.get<bool>("trainable", true)) d.fail("trainable", "a frozen descriptor is not supported");
  for (const auto& p : d.get<std::vector<std::vector<int>>>("exclude_types", {})) {
    if (p.size() != 2) d.fail("exclude_types", "expected pairs of type indices");
    in.exclude_types.push_back({p[0], p[1]});
  }
  const Section f = model.sub("fitting_net");
  f.allow({"type", "neuron", "resnet_dt", "precision", "seed", "activation_function", "numb_fparam", "numb_aparam",
           "trainable"});
  if (f.get<std::string>("type", "ener") != "ener") f.fail("type", "only energy fitting");
  if (f.get<int>("numb_fparam", 0) || f.get<int>("numb_aparam", 0))
    f.fail("numb_fparam", "frame and atomic parameters are not supported in training yet");
  in.fitting_neuron = f.get("neuron", in.fitting_neuron);
  in.fitting_resnet_dt = f.get<bool>("resnet_dt", true);
  in.fitting_seed = f.get<unsigned>("seed", 1);
  in.fitting_activation = f.get<std::string>("activation_function", "tanh");

  const Section lr = top.sub("learning_rate");
  lr.allow({"type", "start_lr", "stop_lr", "decay_steps", "scale_by_worker"});
  if (lr.get<std::string>("type", "exp") != "exp") lr.fail("type", "only exponential decay (exp)");
  in.start_lr = lr.get<double>("start_lr", in.start_lr);
  in.stop_lr = lr.get<double>("stop_lr", in.stop_lr);
  in.decay_steps = lr.get<long>("decay_steps", in.decay_steps);
  if (in.start_lr <= 0 || in.stop_lr <= 0 || in.decay_steps < 1) lr.fail("", "needs start_lr, stop_lr > 0, decay_steps >= 1");

  const Section loss = top.sub("loss");
  loss.allow({"type", "start_pref_e", "limit_pref_e", "start_pref_f", "limit_pref_f", "start_pref_v", "limit_pref_v"});
  if (loss.get<std::string>("type", "ener") != "ener") loss.fail("type", "only the energy loss (ener)");
  in.start_pref_e = loss.get<double>("start_pref_e", in.start_pref_e);
  in.limit_pref_e = loss.get<double>("limit_pref_e", in.limit_pref_e);
  in.start_pref_f = loss.get<double>("start_pref_f", in.start_pref_f);
  in.limit_pref_f = loss.get<double>("limit_pref_f", in.limit_pref_f);
  in.start_pref_v = loss.get<double>("start_pref_v", in.start_pref_v);
  in.limit_pref_v = loss.get<double>("limit_pref_v", in.limit_pref_v);

  const Section t = top.sub("training");
  t.allow({"training_data", "validation_data", "numb_steps", "seed", "disp_file", "disp_freq", "save_freq", "save_ckpt",
           "disp_training", "time_training", "profiling", "tensorboard", "numb_test"});
  const Section td = t.sub("training_data");
  td.allow({"systems", "batch_size", "set_prefix", "auto_prob"});
  in.training_systems = systems(td, base);
  in.batch_size = batch(td, "batch_size", 0);
  if (t.j.contains("validation_data")) {
    const Section vd = t.sub("validation_data");
    vd.allow({"systems", "batch_size", "numb_btch", "set_prefix", "auto_prob"});
    in.validation_systems = systems(vd, base);
    in.validation_batch_size = std::max(1, batch(vd, "batch_size", 1));
    in.validation_batches = vd.get<int>("numb_btch", 1);
  }
  in.numb_steps = t.need<long>("numb_steps");
  in.seed = t.get<unsigned>("seed", 1);
  in.disp_file = t.get<std::string>("disp_file", in.disp_file);
  in.disp_freq = std::max(1L, t.get<long>("disp_freq", in.disp_freq));
  in.save_freq = std::max(1L, t.get<long>("save_freq", in.save_freq));
  in.save_ckpt = t.get<std::string>("save_ckpt", in.save_ckpt);
  return in;
}

TrainInput read_train_input(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw InputError(path, 0, "cannot open training input");
  json root;
  try {
    root = json::parse(f);
  } catch (const json::parse_error& e) {
    throw InputError(path, 0, std::string("JSON error: ") + e.what());
  }
  return parse_train_input(root, path, std::filesystem::path(path).parent_path().string());
}

}  // namespace quasar::train
