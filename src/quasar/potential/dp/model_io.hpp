#pragma once
// DeePMD-kit's backend-independent model files: .yaml (one YAML document) and .dp (HDF5: the model
// dictionary as JSON in the root attribute "json", every array replaced by the path of a root
// dataset). Both read into and write from the same JSON dictionary.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace quasar::dp {

// Reads a .yaml or .dp file (by extension) into the model dictionary, arrays as
// {"@class": "np.ndarray", "dtype": ..., "value": nested lists}.
nlohmann::json read_model_dict(const std::string& path);
// Writes the dictionary as .yaml or .dp (by extension), atomically.
void write_model_dict(const std::string& path, const nlohmann::json& dict);

// An array as the dictionary holds it: {"@class": "np.ndarray", ..., "value": nested lists}.
nlohmann::json ndarray(const std::vector<double>& values, const std::vector<std::size_t>& shape,
                       const std::string& dtype = "float64");

nlohmann::json read_dp_h5(const std::string& path);
void write_dp_h5(const std::string& path, const nlohmann::json& dict);
void write_dp_yaml(const std::string& path, const nlohmann::json& dict);

}  // namespace quasar::dp
