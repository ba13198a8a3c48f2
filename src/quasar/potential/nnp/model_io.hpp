#pragma once
// n2p2's potential files, read into and written from `Model`:
// - input.nn: keywords, one per line, `#` and `!` start comments, any order (input_nn.cpp). Every keyword
//   that shapes a 2G-HDNNP's prediction is read and checked; keywords of n2p2's 4G-HDNNP (charges,
//   electrostatics, screening) are refused, naming the keyword; n2p2's training keywords are kept in
//   Model::training_keywords; a keyword n2p2 does not know is an error.
// - scaling.data: per element (in atomic-number order) and per function (in n2p2's sorted order) a row
//   `element_index function_index min max mean sigma`, 1-based; `#` lines are comments.
// - weights.ZZZ.data (ZZZ the zero-padded atomic number): one value per line in the first column, in
//   n2p2's order (for each layer the weights, source neuron outer and target neuron inner, then the
//   layer's biases); further columns and `#` lines are ignored, as n2p2 does.
// Every error is an InputError naming the file and line. Units are not part of the files: the model's
// length_unit and energy_unit stay 1 (whoever loads the potential sets them).
#include <filesystem>
#include <string>

#include "quasar/potential/nnp/model.hpp"

namespace quasar::nnp {

// Which files read_model reads besides input.nn (a folder for training may have no weights yet).
struct ModelFiles {
  bool scaling = true;  // scaling.data
  bool weights = true;  // weights.ZZZ.data of every element
};

// The folder's input.nn, then scaling.data and the weights files as `files` asks.
Model read_model(const std::filesystem::path& dir, ModelFiles files = {});

// input.nn alone: elements, functions in n2p2's order, networks, normalisation, training keywords;
// no scaling rows and no weights.
Model read_input_nn(const std::filesystem::path& file);
// scaling.data into a model read from input.nn: one row per function of every element.
void read_scaling(const std::filesystem::path& file, Model& model);
// One element's weights file: exactly element.parameter_count() values.
void read_weights(const std::filesystem::path& file, ElementModel& element);

// n2p2's name of an element's weights file: weights.008.data for oxygen.
std::string weights_file_name(int atomic_number);

// Writes input.nn, scaling.data (when the elements have scaling rows) and the weights files (when they
// have weights) into `dir` (created if missing), each file atomically, so that n2p2 reads them and
// read_model reads back a model identical to `model` (model_difference: ""), numbers bit for bit.
// Throws Error (model_problem) when n2p2 could not read the model as it is.
void write_model(const Model& model, const std::filesystem::path& dir);
void write_input_nn(const Model& model, const std::filesystem::path& file);
void write_scaling(const Model& model, const std::filesystem::path& file);
void write_weights(const ElementModel& element, const std::filesystem::path& file);

// Why n2p2's files could not hold `model` as it is ("" when they can): elements not in atomic-number
// order, a parameter out of range, functions out of n2p2's order, scaling rows or weights in the
// wrong number (none at all is allowed), network shapes that n2p2's keywords cannot express, an
// unknown training keyword.
std::string model_problem(const Model& model);

}  // namespace quasar::nnp
