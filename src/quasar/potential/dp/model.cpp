// The Deep Potential model from DeePMD-kit's model dictionary, every value checked against the
// architecture the dictionary declares: type_map against every per-type list, sel and cutoffs,
// each layer's matrix, bias and timestep against the neuron lists and the previous layer, the
// statistics against [ntypes, sum(sel), 4], every number finite. A model that loads is one the
// evaluators can run without reading past a vector.
#include "quasar/potential/dp/model.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <limits>

#include "quasar/core/error.hpp"
#include "quasar/potential/dp/compress.hpp"
#include "quasar/potential/dp/dict_reader.hpp"
#include "quasar/potential/dp/model_io.hpp"
#include "quasar/potential/potential.hpp"

namespace quasar::dp {

namespace {

using nlohmann::json;

// Bounds that no se_e2_a model comes near; they keep every size the reader computes far from
// overflow before the arrays that must hold them are checked.
constexpr long kMaxTypes = 1024;
constexpr long kMaxSel = 100000;        // slots per neighbour type
constexpr long kMaxWidth = 1L << 20;    // neurons of a layer, axis_neuron, fparam, aparam

// YAML -> JSON. `budget` counts the values produced: aliases can make a small file expand
// exponentially ("billion laughs"), so the expansion may not exceed what the file could hold.
struct AliasBudgetSpent {};
json to_json(const YAML::Node& n, long& budget) {
  if (--budget < 0) throw AliasBudgetSpent{};
  switch (n.Type()) {
    case YAML::NodeType::Map: {
      json j = json::object();
      for (const auto& kv : n) j[kv.first.as<std::string>()] = to_json(kv.second, budget);
      return j;
    }
    case YAML::NodeType::Sequence: {
      json j = json::array();
      for (const auto& e : n) j.push_back(to_json(e, budget));
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

// What a network must look like, from the declared architecture.
struct NetSpec {
  long in = 0;
  std::string in_why;            // where the input width comes from
  const json* neuron = nullptr;  // the declared hidden widths (the net's own or its owner's)
  std::string neuron_path;
  bool energy_output = false;    // fitting: one more, linear layer with a single output
};

nn::Layer read_layer(const DictReader& r, const json& L, const std::string& path, long in, const std::string& in_why,
                 long out, const std::string& out_why) {
  r.object(L, path);
  r.check_header(L, path, 2, {"Layer"});  // v2 adds "trainable"
  r.check_precision(L, path);
  const std::string vpath = key_path(path, "@variables");
  const json& vars = r.object(r.at(L, path, "@variables"), vpath);
  nn::Layer layer;
  const std::string wpath = key_path(vpath, "w");
  NdArray w = r.array(r.at(vars, vpath, "w"), wpath, 2);
  const std::string want = std::to_string(in) + "x" + (out > 0 ? std::to_string(out) : std::string("N"));
  const std::string why = "input " + std::to_string(in) + ": " + in_why +
                          (out > 0 ? "; output " + std::to_string(out) + ": " + out_why : std::string());
  if (w.shape.size() != 2 || static_cast<long>(w.shape[0]) != in || (out > 0 && static_cast<long>(w.shape[1]) != out) ||
      w.shape[1] == 0)
    r.fail(wpath, "expected a " + want + " matrix (" + why + "), found " + shape_text(w.shape));
  layer.in = static_cast<int>(in);
  layer.out = static_cast<int>(w.shape[1]);
  layer.w = std::move(w.values);
  const std::vector<std::vector<std::size_t>> vec = {{static_cast<std::size_t>(layer.out)},
                                                     {1, static_cast<std::size_t>(layer.out)}};
  const std::string vec_why = "one per output of the " + shape_text({static_cast<std::size_t>(in), vec[0][0]}) + " matrix";
  if (const json* b = r.find(vars, vpath, "b")) layer.b = r.array_of_shape(*b, key_path(vpath, "b"), vec, vec_why).values;
  else if (r.boolean_or(L, path, "bias", false)) r.fail(vpath, "missing key 'b' (the layer says bias: true)");
  else layer.b.assign(layer.out, 0.0);
  if (const json* idt = r.find(vars, vpath, "idt"))
    layer.idt = r.array_of_shape(*idt, key_path(vpath, "idt"), vec, vec_why).values;
  else if (r.boolean_or(L, path, "use_timestep", false)) r.fail(vpath, "missing key 'idt' (the layer says use_timestep: true)");
  layer.resnet = r.boolean_or(L, path, "resnet", false);
  const std::string act = r.string_or(L, path, "activation_function", "tanh");
  try {
    layer.act = nn::parse_activation(act);
  } catch (const Error& e) {
    r.fail(key_path(path, "activation_function"), e.what());
  }
  return layer;
}

nn::Network read_network(const DictReader& r, const json& j, const std::string& path, const NetSpec& spec) {
  r.object(j, path);
  r.check_header(j, path, 2);
  r.check_precision(j, path);
  const std::string act = r.string_or(j, path, "activation_function", "tanh");
  try {
    nn::parse_activation(act);
  } catch (const Error& e) {
    r.fail(key_path(path, "activation_function"), e.what());
  }
  if (const json* in_dim = r.find(j, path, "in_dim"); in_dim && r.integer(*in_dim, key_path(path, "in_dim"), 0, kMaxWidth) != spec.in)
    r.fail(key_path(path, "in_dim"), "expected " + std::to_string(spec.in) + " (" + spec.in_why + ")");
  if (const json* out_dim = r.find(j, path, "out_dim");
      out_dim && spec.energy_output && r.integer(*out_dim, key_path(path, "out_dim"), 0, kMaxWidth) != 1)
    r.fail(key_path(path, "out_dim"), "expected 1 (the atomic energy)");
  // Hidden widths: the network's own list, which must agree with its owner's.
  const json* neuron = spec.neuron;
  std::string neuron_path = spec.neuron_path;
  std::vector<long> widths;
  if (const json* own = r.find(j, path, "neuron")) {
    widths = r.integers(*own, key_path(path, "neuron"), 1, kMaxWidth);
    if (neuron && r.integers(*neuron, neuron_path, 1, kMaxWidth) != widths)
      r.fail(key_path(path, "neuron"), "differs from " + neuron_path);
    neuron_path = key_path(path, "neuron");
  } else if (neuron) {
    widths = r.integers(*neuron, neuron_path, 1, kMaxWidth);
  }
  const bool declared = neuron || r.find(j, path, "neuron");
  const std::string lpath = key_path(path, "layers");
  const json& layers = r.list(r.at(j, path, "layers"), lpath);
  const std::size_t want_layers = widths.size() + (spec.energy_output ? 1 : 0);
  if (layers.empty()) r.fail(lpath, "the network has no layers");
  if (declared && layers.size() != want_layers)
    r.fail(lpath, "expected " + std::to_string(want_layers) + " layers (" + neuron_path + " has " +
                      std::to_string(widths.size()) + (spec.energy_output ? " hidden widths, plus the output layer" : " widths") +
                      "), found " + std::to_string(layers.size()));
  nn::Network net;
  long in = spec.in;
  std::string in_why = spec.in_why;
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const bool last = l + 1 == layers.size();
    long out = 0;
    std::string out_why;
    if (last && spec.energy_output) {
      out = 1;
      out_why = "the atomic energy";
    } else if (declared) {
      out = widths[l];
      out_why = neuron_path + "[" + std::to_string(l) + "]";
    }
    net.layers.push_back(read_layer(r, layers[l], index_path(lpath, l), in, in_why, out, out_why));
    in = net.layers.back().out;
    in_why = "the output of layer " + std::to_string(l);
  }
  return net;
}

// A NetworkCollection of ntypes^ndim networks, none missing.
std::vector<nn::Network> read_collection(const DictReader& r, const json& j, const std::string& path, int ndim, int nt,
                                     const std::vector<NetSpec>& specs) {
  r.object(j, path);
  r.check_header(j, path, 0, {"NetworkCollection"});  // its version is not checked: the layout has stayed
  const long got_ndim = r.integer(r.at(j, path, "ndim"), key_path(path, "ndim"), 0, 2);
  if (got_ndim != ndim)
    r.fail(key_path(path, "ndim"), "expected " + std::to_string(ndim) +
                                       (ndim == 1 ? " (one net per type)" : " (one net per pair of types: type_one_side false)"));
  if (const json* n = r.find(j, path, "ntypes"); n && r.integer(*n, key_path(path, "ntypes"), 0, kMaxTypes) != nt)
    r.fail(key_path(path, "ntypes"), "expected " + std::to_string(nt) + " (the length of type_map)");
  const std::string npath = key_path(path, "networks");
  const json& nets = r.list(r.at(j, path, "networks"), npath);
  const std::size_t want = ndim == 1 ? nt : static_cast<std::size_t>(nt) * nt;
  if (nets.size() != want)
    r.fail(npath, "expected " + std::to_string(want) + " networks for " + std::to_string(nt) + " types, found " +
                      std::to_string(nets.size()));
  std::vector<nn::Network> out;
  for (std::size_t k = 0; k < nets.size(); ++k) {
    if (nets[k].is_null()) r.fail(index_path(npath, k), "missing networks are not supported");
    out.push_back(read_network(r, nets[k], index_path(npath, k), specs[specs.size() == 1 ? 0 : k]));
  }
  return out;
}

// Excluded type pairs as DeePMD-kit stores them: [[a, b], ...], meaning both orders.
std::vector<char> pair_mask(const DictReader& r, const json* list, const std::string& path, int nt) {
  std::vector<char> mask(static_cast<std::size_t>(nt) * nt, 0);
  if (!list) return mask;
  r.list(*list, path);
  for (std::size_t k = 0; k < list->size(); ++k) {
    const auto p = r.integers((*list)[k], index_path(path, k), 0, nt - 1);
    if (p.size() != 2) r.fail(index_path(path, k), "expected a pair of type indices");
    mask[p[0] * nt + p[1]] = mask[p[1] * nt + p[0]] = 1;
  }
  return mask;
}

// Keys that repeat the model's type_map or ntypes must agree with it.
void check_types(const DictReader& r, const json& j, const std::string& path, const DpModel& model) {
  if (const json* tm = r.find(j, path, "type_map"); tm && r.strings(*tm, key_path(path, "type_map")) != model.type_map)
    r.fail(key_path(path, "type_map"), "differs from model.type_map");
  if (const json* n = r.find(j, path, "ntypes"); n && r.integer(*n, key_path(path, "ntypes"), 0, kMaxTypes) != model.ntypes())
    r.fail(key_path(path, "ntypes"), "expected " + std::to_string(model.ntypes()) + " (the length of type_map)");
}

void read_descriptor(const DictReader& r, const json& d, const std::string& path, DpModel& model) {
  const int nt = model.ntypes();
  r.object(d, path);
  r.check_header(d, path, 3);  // v3 adds optional compression data
  r.check_precision(d, path);
  const std::string type = r.string(r.at(d, path, "type"), key_path(path, "type"));
  if (type != "se_e2_a" && type != "se_a")
    r.fail(key_path(path, "type"), "descriptor '" + type + "' is not supported (se_e2_a only)");
  check_types(r, d, path, model);
  if (r.find(d, path, "spin")) r.fail(key_path(path, "spin"), "spin models are not supported");
  SeE2A& de = model.descriptor;
  de.rcut = r.number(r.at(d, path, "rcut"), key_path(path, "rcut"));
  if (!(de.rcut > 0 && de.rcut <= kMaxCutoff))
    r.fail(key_path(path, "rcut"), "expected a cutoff in (0, " + std::to_string(static_cast<int>(kMaxCutoff)) + "] Å");
  de.rcut_smth = r.number(r.at(d, path, "rcut_smth"), key_path(path, "rcut_smth"));
  if (!(de.rcut_smth < de.rcut)) r.fail(key_path(path, "rcut_smth"), "expected less than rcut");
  const json* prot = r.find(d, path, "env_protection");
  de.env_protection = prot ? r.number(*prot, key_path(path, "env_protection")) : 0.0;
  if (de.env_protection < 0) r.fail(key_path(path, "env_protection"), "expected a non-negative number");
  const auto sel = r.integers(r.at(d, path, "sel"), key_path(path, "sel"), 0, kMaxSel);
  if (static_cast<int>(sel.size()) != nt)
    r.fail(key_path(path, "sel"), "expected one entry per type (" + std::to_string(nt) + "), found " + std::to_string(sel.size()));
  de.sel.assign(sel.begin(), sel.end());
  if (de.nnei() < 1) r.fail(key_path(path, "sel"), "expected at least one neighbour slot in total");
  de.type_one_side = r.boolean_or(d, path, "type_one_side", true);
  // Embedding nets: input s_hat, hidden widths from `neuron`; all end in the same width M.
  NetSpec spec;
  spec.in = 1;
  spec.in_why = "the embedding takes s_hat";
  spec.neuron = r.find(d, path, "neuron");
  spec.neuron_path = key_path(path, "neuron");
  const std::string epath = key_path(path, "embeddings");
  de.embeddings = read_collection(r, r.at(d, path, "embeddings"), epath, de.type_one_side ? 1 : 2, nt, {spec});
  for (std::size_t k = 1; k < de.embeddings.size(); ++k)
    if (de.embeddings[k].out_dim() != de.m())
      r.fail(index_path(key_path(epath, "networks"), k),
             "ends in " + std::to_string(de.embeddings[k].out_dim()) + " outputs where networks[0] ends in " +
                 std::to_string(de.m()) + " (every embedding net must give the same width)");
  de.axis_neuron = static_cast<int>(r.integer(r.at(d, path, "axis_neuron"), key_path(path, "axis_neuron"), 1, kMaxWidth));
  if (de.axis_neuron > de.m())
    r.fail(key_path(path, "axis_neuron"), "expected at most the embedding width " + std::to_string(de.m()));
  de.excluded = pair_mask(r, r.find(d, path, "exclude_types"), key_path(path, "exclude_types"), nt);
  const std::string vpath = key_path(path, "@variables");
  const json& vars = r.object(r.at(d, path, "@variables"), vpath);
  const std::vector<std::size_t> stat = {static_cast<std::size_t>(nt), static_cast<std::size_t>(de.nnei()), 4};
  const std::string why = "ntypes, sum(sel), 4";
  de.davg = r.array_of_shape(r.at(vars, vpath, "davg"), key_path(vpath, "davg"), {stat}, why).values;
  de.dstd = r.array_of_shape(r.at(vars, vpath, "dstd"), key_path(vpath, "dstd"), {stat}, why).values;
  for (std::size_t k = 0; k < de.dstd.size(); ++k)
    if (!(de.dstd[k] > 0))
      r.fail(key_path(vpath, "dstd"), "element [" + std::to_string(k / 4 / de.nnei()) + "][" +
                                         std::to_string(k / 4 % de.nnei()) + "][" + std::to_string(k % 4) +
                                         "] is " + std::to_string(de.dstd[k]) + "; standard deviations must be positive");
}

void read_fitting(const DictReader& r, const json& f, const std::string& path, DpModel& model) {
  const int nt = model.ntypes();
  r.object(f, path);
  r.check_header(f, path, 4);  // v4 adds default_fparam
  r.check_precision(f, path);
  if (r.string_or(f, path, "type", "ener") != "ener") r.fail(key_path(path, "type"), "only energy fitting is supported");
  check_types(r, f, path, model);
  if (r.find(f, path, "spin")) r.fail(key_path(path, "spin"), "spin models are not supported");
  if (r.boolean_or(f, path, "use_aparam_as_mask", false)) r.fail(key_path(path, "use_aparam_as_mask"), "is not supported");
  if (r.boolean_or(f, path, "mixed_types", false)) r.fail(key_path(path, "mixed_types"), "mixed-type fitting is not supported");
  if (const json* ex = r.find(f, path, "exclude_types"); ex && !r.list(*ex, key_path(path, "exclude_types")).empty())
    r.fail(key_path(path, "exclude_types"), "is not supported (model.atom_exclude_types is)");
  if (const json* ae = r.find(f, path, "atom_ener"))
    for (std::size_t k = 0; k < r.list(*ae, key_path(path, "atom_ener")).size(); ++k)
      if (!(*ae)[k].is_null()) r.fail(key_path(path, "atom_ener"), "energies of isolated atoms are not supported");
  const json* nf = r.find(f, path, "numb_fparam");
  const json* na = r.find(f, path, "numb_aparam");
  model.numb_fparam = nf ? static_cast<int>(r.integer(*nf, key_path(path, "numb_fparam"), 0, kMaxWidth)) : 0;
  model.numb_aparam = na ? static_cast<int>(r.integer(*na, key_path(path, "numb_aparam"), 0, kMaxWidth)) : 0;
  const SeE2A& de = model.descriptor;
  const long dim_descrpt = static_cast<long>(de.m()) * de.axis_neuron;
  if (const json* dd = r.find(f, path, "dim_descrpt"); dd && r.integer(*dd, key_path(path, "dim_descrpt"), 0, 1L << 40) != dim_descrpt)
    r.fail(key_path(path, "dim_descrpt"), "expected " + std::to_string(dim_descrpt) + " (embedding width x axis_neuron)");
  if (const json* out = r.find(f, path, "dim_out"); out && r.integer(*out, key_path(path, "dim_out"), 0, kMaxWidth) != 1)
    r.fail(key_path(path, "dim_out"), "expected 1 (the atomic energy)");
  NetSpec spec;
  spec.in = dim_descrpt + model.numb_fparam + model.numb_aparam;
  spec.in_why = "embedding width " + std::to_string(de.m()) + " x axis_neuron " + std::to_string(de.axis_neuron) +
                " + numb_fparam " + std::to_string(model.numb_fparam) + " + numb_aparam " + std::to_string(model.numb_aparam);
  spec.neuron = r.find(f, path, "neuron");
  spec.neuron_path = key_path(path, "neuron");
  spec.energy_output = true;
  model.fitting = read_collection(r, r.at(f, path, "nets"), key_path(path, "nets"), 1, nt, {spec});
  const std::string vpath = key_path(path, "@variables");
  const json& vars = r.object(r.at(f, path, "@variables"), vpath);
  const std::size_t n = static_cast<std::size_t>(nt);
  model.bias_atom_e =
      r.array_of_shape(r.at(vars, vpath, "bias_atom_e"), key_path(vpath, "bias_atom_e"), {{n, 1}, {n}}, "one per type").values;
  auto stats = [&](const char* key, int count, double fallback) {
    const json* v = r.find(vars, vpath, key);
    if (count == 0 || !v) return std::vector<double>(count, fallback);
    const std::size_t c = static_cast<std::size_t>(count);
    return r.array_of_shape(*v, key_path(vpath, key), {{c}, {1, c}}, std::string("one per parameter")).values;
  };
  model.fparam_avg = stats("fparam_avg", model.numb_fparam, 0.0);
  model.fparam_inv_std = stats("fparam_inv_std", model.numb_fparam, 1.0);
  model.aparam_avg = stats("aparam_avg", model.numb_aparam, 0.0);
  model.aparam_inv_std = stats("aparam_inv_std", model.numb_aparam, 1.0);
}

void read_compression(const DictReader& r, const json& c, const std::string& path, DpModel& model) {
  r.object(c, path);
  Compression& s = model.compression;
  s.min_nbor_dist = r.number(r.at(c, path, "min_nbor_dist"), key_path(path, "min_nbor_dist"));
  if (!(s.min_nbor_dist > 0)) r.fail(key_path(path, "min_nbor_dist"), "expected a positive distance");
  s.step = r.number(r.at(c, path, "step"), key_path(path, "step"));
  if (!(s.step > 0)) r.fail(key_path(path, "step"), "expected a positive stride");
  s.extrapolate = static_cast<int>(r.integer(r.at(c, path, "extrapolate"), key_path(path, "extrapolate"), 1, 1000));
  model.compressed = true;
  try {
    table_grid(model.descriptor, s);  // the tables' size, before build_tables allocates them
  } catch (const Error& e) {
    r.fail(path, e.what());
  }
}

}  // namespace

nlohmann::json yaml_file_to_json(const std::string& path) {
  try {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    long budget = 2 * static_cast<long>(ec ? 0 : size) + 65536;
    try {
      return to_json(YAML::LoadFile(path), budget);
    } catch (const AliasBudgetSpent&) {
      throw InputError(path, 0, "YAML aliases expand to more values than the file could hold");
    }
  } catch (const YAML::BadFile&) {
    throw InputError(path, 0, "cannot open model file");
  } catch (const YAML::Exception& e) {
    throw InputError(path, e.mark.line + 1, std::string("YAML error: ") + e.msg);
  }
}

DpModel model_from_json(const nlohmann::json& root, const std::string& origin) {
  const DictReader r{origin};
  r.object(root, "");
  const bool nested = root.contains("model");
  const std::string path = nested ? "model" : "";
  const json& m = nested ? r.object(root.at("model"), "model") : root;
  r.check_header(m, path, 2);
  const std::string type = r.string_or(m, path, "type", "standard");
  if (type != "standard")
    r.fail(key_path(path, "type"), "model type '" + type + "' is not supported (standard energy models only)");
  DpModel model;
  const std::string tpath = key_path(path, "type_map");
  model.type_map = r.strings(r.at(m, path, "type_map"), tpath);
  const int nt = model.ntypes();
  if (nt < 1 || nt > kMaxTypes) r.fail(tpath, "expected 1 to " + std::to_string(kMaxTypes) + " type names");
  for (int t = 0; t < nt; ++t) {
    if (model.type_map[t].empty()) r.fail(index_path(tpath, t), "empty type name");
    if (std::find(model.type_map.begin(), model.type_map.begin() + t, model.type_map[t]) != model.type_map.begin() + t)
      r.fail(index_path(tpath, t), "type '" + model.type_map[t] + "' appears twice");
  }
  read_descriptor(r, r.at(m, path, "descriptor"), key_path(path, "descriptor"), model);
  read_fitting(r, r.at(m, path, "fitting"), key_path(path, "fitting"), model);
  model.atom_excluded.assign(nt, 0);
  if (const json* ex = r.find(m, path, "atom_exclude_types"))
    for (long t : r.integers(*ex, key_path(path, "atom_exclude_types"), 0, nt - 1)) model.atom_excluded[t] = 1;
  model.pair_excluded = pair_mask(r, r.find(m, path, "pair_exclude_types"), key_path(path, "pair_exclude_types"), nt);
  model.out_bias.assign(nt, 0.0);
  if (const json* vars = r.find(m, path, "@variables")) {
    const std::string vpath = key_path(path, "@variables");
    const std::size_t n = static_cast<std::size_t>(nt);
    const std::vector<std::vector<std::size_t>> shapes = {{1, n, 1}, {n, 1}, {n}};
    if (const json* ob = r.find(*vars, vpath, "out_bias"))
      model.out_bias = r.array_of_shape(*ob, key_path(vpath, "out_bias"), shapes, "[1, ntypes, 1]: one energy per type").values;
    if (const json* os = r.find(*vars, vpath, "out_std"))
      r.array_of_shape(*os, key_path(vpath, "out_std"), shapes, "[1, ntypes, 1]: one per type");
  }
  if (const json* c = r.find(m, path, "quasar_compress")) read_compression(r, *c, key_path(path, "quasar_compress"), model);
  return model;
}

DpModel read_dp_model(const std::string& path) { return model_from_json(read_model_dict(path), path); }

}  // namespace quasar::dp
