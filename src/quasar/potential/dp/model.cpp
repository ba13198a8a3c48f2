#include "quasar/potential/dp/model.hpp"

#include <yaml-cpp/yaml.h>

#include <charconv>

#include "quasar/core/error.hpp"
#include "quasar/potential/dp/model_io.hpp"

namespace quasar::dp {

namespace {

nlohmann::json to_json(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Map: {
      nlohmann::json j = nlohmann::json::object();
      for (const auto& kv : n) j[kv.first.as<std::string>()] = to_json(kv.second);
      return j;
    }
    case YAML::NodeType::Sequence: {
      nlohmann::json j = nlohmann::json::array();
      for (const auto& e : n) j.push_back(to_json(e));
      return j;
    }
    case YAML::NodeType::Scalar: {
      const std::string& s = n.Scalar();
      if (n.Tag() == "!") return s;  // quoted
      if (s == "true" || s == "True") return true;
      if (s == "false" || s == "False") return false;
      if (s == "null" || s == "~" || s == "None") return nullptr;
      double v = 0;
      auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      if (ec == std::errc() && end == s.data() + s.size()) {
        long iv = 0;
        auto [iend, iec] = std::from_chars(s.data(), s.data() + s.size(), iv);
        if (iec == std::errc() && iend == s.data() + s.size()) return iv;
        return v;
      }
      if (s == ".inf") return std::numeric_limits<double>::infinity();
      if (s == "-.inf") return -std::numeric_limits<double>::infinity();
      if (s == ".nan") return std::numeric_limits<double>::quiet_NaN();
      return s;
    }
    default: return nullptr;
  }
}

// Reading the dictionary with the path of every key in errors.
struct Reader {
  std::string origin;
  [[noreturn]] void fail(const std::string& where, const std::string& msg) const {
    throw InputError(origin, 0, where + ": " + msg);
  }
  const nlohmann::json& at(const nlohmann::json& j, const std::string& key, const std::string& where) const {
    if (!j.is_object() || !j.contains(key)) fail(where, "missing key '" + key + "'");
    return j.at(key);
  }
  void check_version(const nlohmann::json& j, int newest, const std::string& where) const {
    if (!j.contains("@version")) return;
    const int v = j.at("@version").get<int>();
    if (v > newest)
      fail(where, "@version " + std::to_string(v) + " is newer than this reader knows (" + std::to_string(newest) + ")");
  }
  // An np.ndarray entry (or a plain nested list) flattened, with its shape.
  std::vector<double> array(const nlohmann::json& j, const std::string& where, std::vector<std::size_t>* shape = nullptr) const {
    const nlohmann::json& v = j.is_object() ? at(j, "value", where) : j;
    std::vector<double> out;
    std::vector<std::size_t> dims;
    std::function<void(const nlohmann::json&, std::size_t)> walk = [&](const nlohmann::json& x, std::size_t depth) {
      if (x.is_array()) {
        if (dims.size() <= depth) dims.push_back(x.size());
        for (const auto& e : x) walk(e, depth + 1);
      } else if (x.is_number()) {
        out.push_back(x.get<double>());
      } else {
        fail(where, "expected numbers in the array");
      }
    };
    walk(v, 0);
    if (shape) *shape = dims;
    return out;
  }
  Network network(const nlohmann::json& j, const std::string& where) const {
    check_version(j, 2, where);
    Network net;
    const auto& layers = at(j, "layers", where);
    for (std::size_t l = 0; l < layers.size(); ++l) {
      const std::string lw = where + ".layers[" + std::to_string(l) + "]";
      const auto& L = layers[l];
      check_version(L, 2, lw);  // v2 adds "trainable"
      const auto& vars = at(L, "@variables", lw);
      Layer layer;
      std::vector<std::size_t> shape;
      layer.w = array(at(vars, "w", lw), lw + ".w", &shape);
      if (shape.size() != 2) fail(lw, "w must be a matrix");
      layer.in = static_cast<int>(shape[0]);
      layer.out = static_cast<int>(shape[1]);
      if (vars.contains("b") && !vars.at("b").is_null()) layer.b = array(vars.at("b"), lw + ".b");  // [out] or [1,out]
      else layer.b.assign(layer.out, 0.0);
      if (vars.contains("idt") && !vars.at("idt").is_null()) layer.idt = array(vars.at("idt"), lw + ".idt");
      if (static_cast<int>(layer.b.size()) != layer.out || (!layer.idt.empty() && static_cast<int>(layer.idt.size()) != layer.out))
        fail(lw, "bias or idt size differs from the layer width " + std::to_string(layer.out));
      layer.resnet = L.value("resnet", false);
      try {
        layer.act = parse_activation(L.value("activation_function", std::string("tanh")));
      } catch (const Error& e) {
        fail(lw, e.what());
      }
      if (!net.layers.empty() && net.layers.back().out != layer.in)
        fail(lw, "input width " + std::to_string(layer.in) + " does not match the previous layer");
      net.layers.push_back(std::move(layer));
    }
    if (net.layers.empty()) fail(where, "network has no layers");
    return net;
  }
};

}  // namespace

nlohmann::json yaml_file_to_json(const std::string& path) {
  try {
    return to_json(YAML::LoadFile(path));
  } catch (const YAML::BadFile&) {
    throw InputError(path, 0, "cannot open model file");
  } catch (const YAML::Exception& e) {
    throw InputError(path, e.mark.line + 1, std::string("YAML error: ") + e.msg);
  }
}

DpModel model_from_json(const nlohmann::json& root, const std::string& origin) {
  const Reader r{origin};
  const nlohmann::json& m = root.contains("model") ? root.at("model") : root;
  r.check_version(m, 2, "model");
  const std::string type = m.value("type", std::string("standard"));
  if (type != "standard") r.fail("model.type", "model type '" + type + "' is not supported (standard energy models only)");
  DpModel model;
  for (const auto& t : r.at(m, "type_map", "model")) model.type_map.push_back(t.get<std::string>());
  const int nt = model.ntypes();
  // Excluded type pairs as DeePMD-kit stores them: [[a, b], ...], meaning both orders.
  auto pairs = [&](const nlohmann::json& list, const std::string& where) {
    std::vector<char> mask(static_cast<std::size_t>(nt) * nt, 0);
    for (const auto& p : list) {
      if (!p.is_array() || p.size() != 2) r.fail(where, "expected pairs of type indices");
      const int a = p[0].get<int>(), b = p[1].get<int>();
      if (a < 0 || b < 0 || a >= nt || b >= nt) r.fail(where, "type index out of range");
      mask[a * nt + b] = mask[b * nt + a] = 1;
    }
    return mask;
  };
  model.atom_excluded.assign(nt, 0);
  if (m.contains("atom_exclude_types"))
    for (const auto& t : m.at("atom_exclude_types")) {
      const int a = t.get<int>();
      if (a < 0 || a >= nt) r.fail("model.atom_exclude_types", "type index out of range");
      model.atom_excluded[a] = 1;
    }
  model.pair_excluded = pairs(m.value("pair_exclude_types", nlohmann::json::array()), "model.pair_exclude_types");

  const auto& d = r.at(m, "descriptor", "model");
  r.check_version(d, 3, "model.descriptor");  // v3 adds optional compression data
  const std::string dtype = d.value("type", std::string());
  if (dtype != "se_e2_a" && dtype != "se_a")
    r.fail("model.descriptor.type", "descriptor '" + dtype + "' is not supported (se_e2_a only)");
  SeE2A& de = model.descriptor;
  de.rcut = r.at(d, "rcut", "model.descriptor").get<double>();
  de.rcut_smth = r.at(d, "rcut_smth", "model.descriptor").get<double>();
  de.env_protection = d.value("env_protection", 0.0);
  for (const auto& s : r.at(d, "sel", "model.descriptor")) de.sel.push_back(s.get<int>());
  if (static_cast<int>(de.sel.size()) != nt) r.fail("model.descriptor.sel", "needs one entry per type");
  de.axis_neuron = r.at(d, "axis_neuron", "model.descriptor").get<int>();
  de.type_one_side = d.value("type_one_side", true);
  de.excluded = pairs(d.value("exclude_types", nlohmann::json::array()), "model.descriptor.exclude_types");
  const auto& emb = r.at(d, "embeddings", "model.descriptor");
  const int ndim = r.at(emb, "ndim", "model.descriptor.embeddings").get<int>();
  if (ndim != (de.type_one_side ? 1 : 2)) r.fail("model.descriptor.embeddings.ndim", "does not match type_one_side");
  const auto& nets = r.at(emb, "networks", "model.descriptor.embeddings");
  for (std::size_t k = 0; k < nets.size(); ++k) {
    if (nets[k].is_null()) r.fail("model.descriptor.embeddings.networks", "missing networks are not supported");
    de.embeddings.push_back(r.network(nets[k], "model.descriptor.embeddings.networks[" + std::to_string(k) + "]"));
  }
  if (static_cast<int>(de.embeddings.size()) != (de.type_one_side ? nt : nt * nt))
    r.fail("model.descriptor.embeddings", "wrong number of networks for " + std::to_string(nt) + " types");
  const auto& dv = r.at(d, "@variables", "model.descriptor");
  de.davg = r.array(r.at(dv, "davg", "model.descriptor.@variables"), "davg");
  de.dstd = r.array(r.at(dv, "dstd", "model.descriptor.@variables"), "dstd");
  const std::size_t want = static_cast<std::size_t>(nt) * de.nnei() * 4;
  if (de.davg.size() != want || de.dstd.size() != want)
    r.fail("model.descriptor.@variables", "davg/dstd must be [ntypes, sum(sel), 4]");

  const auto& f = r.at(m, "fitting", "model");
  r.check_version(f, 4, "model.fitting");  // v4 adds default_fparam
  if (f.value("type", std::string("ener")) != "ener") r.fail("model.fitting.type", "only energy fitting is supported");
  model.numb_fparam = f.value("numb_fparam", 0);
  model.numb_aparam = f.value("numb_aparam", 0);
  if (f.value("use_aparam_as_mask", false)) r.fail("model.fitting.use_aparam_as_mask", "is not supported");
  if (f.value("mixed_types", false)) r.fail("model.fitting.mixed_types", "mixed-type fitting is not supported");
  const auto& fnets = r.at(r.at(f, "nets", "model.fitting"), "networks", "model.fitting.nets");
  for (std::size_t k = 0; k < fnets.size(); ++k)
    model.fitting.push_back(r.network(fnets[k], "model.fitting.nets.networks[" + std::to_string(k) + "]"));
  if (static_cast<int>(model.fitting.size()) != nt) r.fail("model.fitting.nets", "needs one network per type");
  const int dim = de.m() * de.axis_neuron + model.numb_fparam + model.numb_aparam;
  for (const auto& net : model.fitting)
    if (net.in_dim() != dim || net.out_dim() != 1)
      r.fail("model.fitting.nets", "fitting input must be " + std::to_string(dim) + " wide with one output");
  const auto& fv = r.at(f, "@variables", "model.fitting");
  model.bias_atom_e = r.array(r.at(fv, "bias_atom_e", "model.fitting.@variables"), "bias_atom_e");
  auto stats = [&](const char* key, int n, double fallback) {
    std::vector<double> v(n, fallback);
    if (n > 0 && fv.contains(key) && !fv.at(key).is_null()) v = r.array(fv.at(key), key);
    if (static_cast<int>(v.size()) != n) r.fail(std::string("model.fitting.@variables.") + key, "wrong size");
    return v;
  };
  model.fparam_avg = stats("fparam_avg", model.numb_fparam, 0.0);
  model.fparam_inv_std = stats("fparam_inv_std", model.numb_fparam, 1.0);
  model.aparam_avg = stats("aparam_avg", model.numb_aparam, 0.0);
  model.aparam_inv_std = stats("aparam_inv_std", model.numb_aparam, 1.0);
  if (static_cast<int>(model.bias_atom_e.size()) != nt) r.fail("model.fitting.bias_atom_e", "needs one value per type");
  model.out_bias.assign(nt, 0.0);
  if (m.contains("@variables") && m.at("@variables").contains("out_bias")) {
    const auto ob = r.array(m.at("@variables").at("out_bias"), "out_bias");
    if (static_cast<int>(ob.size()) < nt) r.fail("model.@variables.out_bias", "needs one value per type");
    for (int t = 0; t < nt; ++t) model.out_bias[t] = ob[t];
  }
  if (m.contains("quasar_compress")) {
    const auto& c = m.at("quasar_compress");
    model.compressed = true;
    model.compression.min_nbor_dist = r.at(c, "min_nbor_dist", "model.quasar_compress").get<double>();
    model.compression.step = r.at(c, "step", "model.quasar_compress").get<double>();
    model.compression.extrapolate = r.at(c, "extrapolate", "model.quasar_compress").get<int>();
    if (model.compression.min_nbor_dist <= 0 || model.compression.step <= 0 || model.compression.extrapolate < 1)
      r.fail("model.quasar_compress", "needs min_nbor_dist > 0, step > 0 and extrapolate >= 1");
  }
  return model;
}

DpModel read_dp_model(const std::string& path) { return model_from_json(read_model_dict(path), path); }

}  // namespace quasar::dp
