#pragma once
// Reading DeePMD-kit's model dictionary (what .yaml and .dp files decode to) with every value
// checked. Each error is an InputError naming the file, the key path in the dictionary
// ("model.descriptor.embeddings.networks[1].layers[2].@variables.w") and what was expected.
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace quasar::dp {

// A numeric array as the dictionary holds it (np.ndarray or nested lists), rectangular and finite.
struct NdArray {
  std::vector<double> values;      // row-major
  std::vector<std::size_t> shape;  // [] for a scalar
};

// "6x12", "[1, 2, 1]"-style text of a shape for messages ("scalar" for rank 0).
std::string shape_text(const std::vector<std::size_t>& shape);

class DictReader {
 public:
  explicit DictReader(std::string origin) : origin_(std::move(origin)) {}
  const std::string& origin() const { return origin_; }
  [[noreturn]] void fail(const std::string& path, const std::string& msg) const;

  // `path` is always the path of `j` itself; children are named path.key and path[k].
  const nlohmann::json& object(const nlohmann::json& j, const std::string& path) const;
  const nlohmann::json& list(const nlohmann::json& j, const std::string& path) const;
  // A required key (present and not null) of the mapping j.
  const nlohmann::json& at(const nlohmann::json& j, const std::string& path, const std::string& key) const;
  // An optional key: nullptr when absent or null.
  const nlohmann::json* find(const nlohmann::json& j, const std::string& path, const std::string& key) const;

  double number(const nlohmann::json& j, const std::string& path) const;  // finite
  long integer(const nlohmann::json& j, const std::string& path, long lo, long hi) const;
  bool boolean(const nlohmann::json& j, const std::string& path) const;
  std::string string(const nlohmann::json& j, const std::string& path) const;
  std::vector<long> integers(const nlohmann::json& j, const std::string& path, long lo, long hi) const;
  std::vector<std::string> strings(const nlohmann::json& j, const std::string& path) const;
  // Optional scalars with a default.
  bool boolean_or(const nlohmann::json& j, const std::string& path, const std::string& key, bool fallback) const;
  std::string string_or(const nlohmann::json& j, const std::string& path, const std::string& key,
                        const std::string& fallback) const;

  // "@version" (when present) no newer than `newest` (0: not checked); "@class" (when present) one of
  // `classes`.
  void check_header(const nlohmann::json& j, const std::string& path, int newest,
                    const std::vector<std::string>& classes = {}) const;
  // "precision" (when present) one of DeePMD-kit's names.
  void check_precision(const nlohmann::json& j, const std::string& path) const;

  // An np.ndarray entry (or plain nested lists) of rank at most max_rank: rectangular (a
  // truncated row is an error), numbers only, every one finite.
  NdArray array(const nlohmann::json& j, const std::string& path, std::size_t max_rank) const;
  // The same with the shape required to be one of `shapes` (what is said after "expected").
  NdArray array_of_shape(const nlohmann::json& j, const std::string& path,
                         const std::vector<std::vector<std::size_t>>& shapes, const std::string& why) const;

 private:
  std::string origin_;
};

inline std::string key_path(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}
inline std::string index_path(const std::string& path, std::size_t k) { return path + "[" + std::to_string(k) + "]"; }

}  // namespace quasar::dp
