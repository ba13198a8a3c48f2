#pragma once
// What input.nn's reader and writer share: n2p2's element symbols and keywords, the check of one
// symmetry function, and number formatting (model_io.cpp and input_nn.cpp only).
#include <string>
#include <vector>

#include "quasar/potential/nnp/model.hpp"

namespace quasar::nnp::detail {

// n2p2's atomic number of an element symbol (its list ends at No, 102); 0 when it has none.
int atomic_number(const std::string& symbol);

// How input.nn's reader treats a keyword of n2p2 (Settings.cpp's list of known keywords).
enum class KeywordUse {
  Unknown,     // not n2p2's: an error
  Prediction,  // read into the model
  Training,    // kept in Model::training_keywords
  Refused,     // n2p2's 4G-HDNNP (charges and electrostatics): an error naming it
};

struct KeywordInfo {
  std::string name;  // the main name (n2p2's alternatives map to it: symfunction -> symfunction_short)
  KeywordUse use = KeywordUse::Unknown;
  bool repeatable = false;  // may appear on several lines (n2p2 refuses other repeated keywords)
};

KeywordInfo keyword_info(const std::string& word);

// The prediction keywords, for the message about an unknown one.
std::string prediction_keyword_list();

// What is wrong with one function of a model with `element_count` elements ("" when nothing): the
// parameters its type takes checked as n2p2 does (and more: finite, rc > 0, eta >= 0, zeta >= 1,
// rlow < rc, a known subtype, angles as n2p2 allows them), e1 <= e2 for angular types, and the
// parameters the type does not take left at their defaults (input.nn could not write them).
std::string function_problem(const SymmetryFunction& f, int element_count);

// What is wrong with one row of scaling.data under the model's scaling mode ("" when nothing): finite
// numbers, min <= max, sigma >= 0, and no division by zero where the mode divides (max > min for the
// modes that scale by max - min, sigma > 0 for scale_symmetry_functions_sigma).
std::string scaling_problem(const Scaling& s, ScalingMode mode);

// How input.nn states the networks: global_nodes_short and global_activation_short, and the elements
// that need element_nodes_short or element_activation_short. n2p2 takes the last hidden width and
// the output activation from the global keywords only and allows one element_activation_short line.
struct NetworkKeywords {
  std::vector<int> widths;           // global widths: the first element's
  std::string activations;           // global activations: those most elements share
  std::vector<int> own_widths;       // element indices whose widths differ from the global ones
  std::vector<int> own_activations;  // element indices whose activations differ
  std::string problem;               // why input.nn cannot state the networks ("" when it can)
};
NetworkKeywords network_keywords(const Model& model);

// The shortest text that reads back as the same double (n2p2 reads numbers with atof).
std::string number_text(double v);

}  // namespace quasar::nnp::detail
