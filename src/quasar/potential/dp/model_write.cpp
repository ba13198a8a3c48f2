// A DpModel as DeePMD-kit v3's model dictionary (the layout of deeppot_sea.yaml: Model v2,
// Descriptor v2, Fitting v2, networks and layers as DeePMD-kit 3.0 writes them), so that models
// Quasar makes (training, compression) load in DeePMD-kit too.
#include <string>

#include "quasar/potential/dp/model.hpp"
#include "quasar/potential/dp/model_io.hpp"

namespace quasar::dp {

namespace {

using nlohmann::json;

json layer(const nn::Layer& L) {
  json vars = {{"w", ndarray(L.w, {static_cast<std::size_t>(L.in), static_cast<std::size_t>(L.out)})},
               {"b", ndarray(L.b, {static_cast<std::size_t>(L.out)})},
               {"idt", L.idt.empty() ? json(nullptr) : ndarray(L.idt, {static_cast<std::size_t>(L.out)})}};
  return {{"@class", "Layer"},           {"@version", 1},   {"@variables", vars}, {"activation_function", nn::activation_name(L.act)},
          {"bias", true},                {"precision", "float64"}, {"resnet", L.resnet}, {"use_timestep", !L.idt.empty()}};
}

// Hidden widths, activation and timestep use of a net (the last layer excluded when `hidden_only`).
void shape_of(const nn::Network& n, bool hidden_only, json& neuron, std::string& act, bool& resnet_dt) {
  neuron = json::array();
  resnet_dt = false;
  const std::size_t count = n.layers.size() - (hidden_only ? 1 : 0);
  for (std::size_t l = 0; l < count; ++l) {
    neuron.push_back(n.layers[l].out);
    resnet_dt = resnet_dt || !n.layers[l].idt.empty();
  }
  act = count ? nn::activation_name(n.layers[0].act) : "tanh";
}

json collection(const std::vector<json>& nets, int ndim, int ntypes, const char* type) {
  return {{"@class", "NetworkCollection"}, {"@version", 1}, {"ndim", ndim}, {"ntypes", ntypes}, {"network_type", type},
          {"networks", nets}};
}

json pairs_of(const std::vector<char>& mask, int nt) {
  json out = json::array();
  for (int a = 0; a < nt; ++a)
    for (int b = a; b < nt; ++b)
      if (mask[a * nt + b]) out.push_back({a, b});
  return out;
}

}  // namespace

json model_to_dict(const DpModel& m) {
  const SeE2A& de = m.descriptor;
  const int nt = m.ntypes();
  const std::size_t nnei = static_cast<std::size_t>(de.nnei());
  json emb_neuron, fit_neuron;
  std::string emb_act, fit_act;
  bool emb_dt = false, fit_dt = false;
  shape_of(de.embeddings.front(), false, emb_neuron, emb_act, emb_dt);
  shape_of(m.fitting.front(), true, fit_neuron, fit_act, fit_dt);
  std::vector<json> embs, fits;
  for (const nn::Network& n : de.embeddings) {
    json layers = json::array();
    for (const nn::Layer& L : n.layers) layers.push_back(layer(L));
    embs.push_back({{"@class", "EmbeddingNetwork"}, {"@version", 2}, {"activation_function", emb_act}, {"bias", true},
                    {"in_dim", 1}, {"layers", layers}, {"neuron", emb_neuron}, {"precision", "float64"},
                    {"resnet_dt", emb_dt}});
  }
  for (const nn::Network& n : m.fitting) {
    json layers = json::array();
    for (const nn::Layer& L : n.layers) layers.push_back(layer(L));
    fits.push_back({{"@class", "FittingNetwork"}, {"@version", 1}, {"activation_function", fit_act}, {"bias_out", true},
                    {"in_dim", n.in_dim()}, {"layers", layers}, {"neuron", fit_neuron}, {"out_dim", 1},
                    {"precision", "float64"}, {"resnet_dt", fit_dt}});
  }
  const std::vector<std::size_t> stat_shape = {static_cast<std::size_t>(nt), nnei, 4};
  json descriptor = {{"@class", "Descriptor"},
                     {"@version", 2},
                     {"type", "se_e2_a"},
                     {"@variables", {{"davg", ndarray(de.davg, stat_shape)}, {"dstd", ndarray(de.dstd, stat_shape)}}},
                     {"activation_function", emb_act},
                     {"axis_neuron", de.axis_neuron},
                     {"embeddings", collection(embs, de.type_one_side ? 1 : 2, nt, "embedding_network")},
                     {"env_mat", {{"rcut", de.rcut}, {"rcut_smth", de.rcut_smth}}},
                     {"env_protection", de.env_protection},
                     {"exclude_types", pairs_of(de.excluded, nt)},
                     {"neuron", emb_neuron},
                     {"precision", "float64"},
                     {"rcut", de.rcut},
                     {"rcut_smth", de.rcut_smth},
                     {"resnet_dt", emb_dt},
                     {"sel", de.sel},
                     {"set_davg_zero", false},
                     {"spin", nullptr},
                     {"trainable", true},
                     {"type_map", m.type_map},
                     {"type_one_side", de.type_one_side}};
  auto optional = [](const std::vector<double>& v) { return v.empty() ? json(nullptr) : ndarray(v, {v.size()}); };
  json fitting = {{"@class", "Fitting"},
                  {"@version", 2},
                  {"type", "ener"},
                  {"@variables",
                   {{"bias_atom_e", ndarray(m.bias_atom_e, {static_cast<std::size_t>(nt), 1})},
                    {"fparam_avg", optional(m.fparam_avg)},
                    {"fparam_inv_std", optional(m.fparam_inv_std)},
                    {"aparam_avg", optional(m.aparam_avg)},
                    {"aparam_inv_std", optional(m.aparam_inv_std)}}},
                  {"activation_function", fit_act},
                  {"atom_ener", nullptr},
                  {"dim_descrpt", de.m() * de.axis_neuron},
                  {"dim_out", 1},
                  {"exclude_types", json::array()},
                  {"layer_name", nullptr},
                  {"mixed_types", false},
                  {"nets", collection(fits, 1, nt, "fitting_network")},
                  {"neuron", fit_neuron},
                  {"ntypes", nt},
                  {"numb_aparam", m.numb_aparam},
                  {"numb_fparam", m.numb_fparam},
                  {"precision", "float64"},
                  {"rcond", nullptr},
                  {"resnet_dt", fit_dt},
                  {"spin", nullptr},
                  {"tot_ener_zero", false},
                  {"trainable", std::vector<bool>(fit_neuron.size() + 1, true)},
                  {"type_map", m.type_map},
                  {"use_aparam_as_mask", false},
                  {"var_name", "energy"}};
  json atom_excl = json::array();
  for (int t = 0; t < nt; ++t)
    if (m.atom_excluded[t]) atom_excl.push_back(t);
  const std::vector<std::size_t> bias_shape = {1, static_cast<std::size_t>(nt), 1};
  json model = {{"@class", "Model"},
                {"@version", 2},
                {"type", "standard"},
                {"@variables",
                 {{"out_bias", ndarray(m.out_bias, bias_shape)},
                  {"out_std", ndarray(std::vector<double>(nt, 1.0), bias_shape)}}},
                {"atom_exclude_types", atom_excl},
                {"pair_exclude_types", pairs_of(m.pair_excluded, nt)},
                {"descriptor", descriptor},
                {"fitting", fitting},
                {"preset_out_bias", nullptr},
                {"rcond", nullptr},
                {"type_map", m.type_map}};
  if (m.compressed)
    model["quasar_compress"] = {{"min_nbor_dist", m.compression.min_nbor_dist},
                                {"step", m.compression.step},
                                {"extrapolate", m.compression.extrapolate}};
  json script = {{"type_map", m.type_map},
                 {"descriptor",
                  {{"type", "se_e2_a"}, {"sel", de.sel}, {"rcut", de.rcut}, {"rcut_smth", de.rcut_smth},
                   {"neuron", emb_neuron}, {"axis_neuron", de.axis_neuron}, {"resnet_dt", emb_dt},
                   {"type_one_side", de.type_one_side}, {"activation_function", emb_act}, {"precision", "float64"}}},
                 {"fitting_net",
                  {{"type", "ener"}, {"neuron", fit_neuron}, {"resnet_dt", fit_dt}, {"activation_function", fit_act},
                   {"precision", "float64"}}}};
  return {{"backend", "DP"}, {"software", "quasar"}, {"version", QUASAR_VERSION}, {"model", model},
          {"model_def_script", script}};
}

}  // namespace quasar::dp
