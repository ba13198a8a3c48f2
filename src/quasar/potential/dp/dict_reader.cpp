#include "quasar/potential/dp/dict_reader.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "quasar/core/error.hpp"

namespace quasar::dp {

namespace {

using nlohmann::json;

std::string type_text(const json& j) {
  switch (j.type()) {
    case json::value_t::null: return "null";
    case json::value_t::object: return "a mapping";
    case json::value_t::array: return "a list";
    case json::value_t::string: return "the string \"" + j.get<std::string>().substr(0, 40) + "\"";
    case json::value_t::boolean: return j.get<bool>() ? "true" : "false";
    default: return "the number " + j.dump();
  }
}

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string indices_text(const std::vector<std::size_t>& at) {
  std::string s;
  for (std::size_t k : at) s += "[" + std::to_string(k) + "]";
  return s;
}

}  // namespace

std::string shape_text(const std::vector<std::size_t>& shape) {
  if (shape.empty()) return "scalar";
  if (shape.size() == 2) return std::to_string(shape[0]) + "x" + std::to_string(shape[1]);
  std::string s = "[";
  for (std::size_t k = 0; k < shape.size(); ++k) s += (k ? ", " : "") + std::to_string(shape[k]);
  return s + "]";
}

void DictReader::fail(const std::string& path, const std::string& msg) const {
  throw InputError(origin_, 0, (path.empty() ? std::string("top level") : path) + ": " + msg);
}

const json& DictReader::object(const json& j, const std::string& path) const {
  if (!j.is_object()) fail(path, "expected a mapping, found " + type_text(j));
  return j;
}

const json& DictReader::list(const json& j, const std::string& path) const {
  if (!j.is_array()) fail(path, "expected a list, found " + type_text(j));
  return j;
}

const json& DictReader::at(const json& j, const std::string& path, const std::string& key) const {
  const json* v = find(j, path, key);
  if (!v) fail(path, "missing key '" + key + "'");
  return *v;
}

const json* DictReader::find(const json& j, const std::string& path, const std::string& key) const {
  object(j, path);
  const auto it = j.find(key);
  return it == j.end() || it->is_null() ? nullptr : &*it;
}

double DictReader::number(const json& j, const std::string& path) const {
  if (!j.is_number()) fail(path, "expected a number, found " + type_text(j));
  const double v = j.get<double>();
  if (!std::isfinite(v)) fail(path, "expected a finite number, found " + number_text(v));
  return v;
}

long DictReader::integer(const json& j, const std::string& path, long lo, long hi) const {
  const std::string range = "an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
  if (j.is_number_unsigned()) {
    const auto u = j.get<unsigned long>();  // JSON's non-negative integers arrive as unsigned
    if (u > static_cast<unsigned long>(hi) || (lo > 0 && u < static_cast<unsigned long>(lo)))
      fail(path, "expected " + range + ", found " + std::to_string(u));
    return static_cast<long>(u);
  }
  if (j.is_number_integer()) {
    const long v = j.get<long>();
    if (v < lo || v > hi) fail(path, "expected " + range + ", found " + std::to_string(v));
    return v;
  }
  if (j.is_number_float()) {  // 46.0 is 46; anything else is not a count
    const double v = j.get<double>();
    if (!(v >= static_cast<double>(lo) && v <= static_cast<double>(hi)) || v != std::floor(v))
      fail(path, "expected " + range + ", found " + number_text(v));
    return static_cast<long>(v);
  }
  fail(path, "expected " + range + ", found " + type_text(j));
}

bool DictReader::boolean(const json& j, const std::string& path) const {
  if (!j.is_boolean()) fail(path, "expected true or false, found " + type_text(j));
  return j.get<bool>();
}

std::string DictReader::string(const json& j, const std::string& path) const {
  if (!j.is_string()) fail(path, "expected a string, found " + type_text(j));
  return j.get<std::string>();
}

std::vector<long> DictReader::integers(const json& j, const std::string& path, long lo, long hi) const {
  list(j, path);
  std::vector<long> out;
  for (std::size_t k = 0; k < j.size(); ++k) out.push_back(integer(j[k], index_path(path, k), lo, hi));
  return out;
}

std::vector<std::string> DictReader::strings(const json& j, const std::string& path) const {
  list(j, path);
  std::vector<std::string> out;
  for (std::size_t k = 0; k < j.size(); ++k) out.push_back(string(j[k], index_path(path, k)));
  return out;
}

bool DictReader::boolean_or(const json& j, const std::string& path, const std::string& key, bool fallback) const {
  const json* v = find(j, path, key);
  return v ? boolean(*v, key_path(path, key)) : fallback;
}

std::string DictReader::string_or(const json& j, const std::string& path, const std::string& key,
                                  const std::string& fallback) const {
  const json* v = find(j, path, key);
  return v ? string(*v, key_path(path, key)) : fallback;
}

void DictReader::check_header(const json& j, const std::string& path, int newest,
                              const std::vector<std::string>& classes) const {
  if (const json* v = find(j, path, "@version"); v && newest > 0) {
    const long version = integer(*v, key_path(path, "@version"), 0, 1L << 30);
    if (version > newest)
      fail(key_path(path, "@version"), "version " + std::to_string(version) + " is newer than this reader knows (" +
                                           std::to_string(newest) + ")");
  }
  if (const json* c = find(j, path, "@class"); c && !classes.empty()) {
    const std::string name = string(*c, key_path(path, "@class"));
    if (std::find(classes.begin(), classes.end(), name) == classes.end()) {
      std::string valid;
      for (const auto& x : classes) valid += (valid.empty() ? "" : " or ") + x;
      fail(key_path(path, "@class"), "expected " + valid + ", found '" + name + "'");
    }
  }
}

void DictReader::check_precision(const json& j, const std::string& path) const {
  static const std::vector<std::string> known = {"default", "float64", "float32", "float16", "bfloat16",
                                                 "double",  "single",  "half"};
  const std::string p = string_or(j, path, "precision", "default");
  if (std::find(known.begin(), known.end(), p) == known.end())
    fail(key_path(path, "precision"),
         "unknown precision '" + p + "' (DeePMD-kit's are default, float64, float32, float16, bfloat16)");
}

NdArray DictReader::array(const json& j, const std::string& path, std::size_t max_rank) const {
  const json* v = &j;
  std::string where = path;
  if (j.is_object()) {
    check_header(j, path, 0, {"np.ndarray"});  // the same arrays in every version so far
    const std::string dtype = string_or(j, path, "dtype", "float64");
    if (dtype != "float64" && dtype != "float32" && dtype != "float16")
      fail(key_path(path, "dtype"), "expected float64, float32 or float16, found '" + dtype + "'");
    v = &at(j, path, "value");
    where = key_path(path, "value");
  }
  NdArray out;
  // The shape is read down the first elements; every other row must then agree with it.
  for (const json* x = v; x->is_array(); x = &(*x)[0]) {
    out.shape.push_back(x->size());
    if (out.shape.size() > max_rank)
      fail(path, "expected at most " + std::to_string(max_rank) + " dimensions, found more");
    if (x->empty()) break;
  }
  std::size_t count = 1;
  for (std::size_t s : out.shape) count *= s;
  out.values.reserve(count);
  std::vector<std::size_t> at_index;
  // Iterative walk (a malformed file may nest deeply): a stack of (node, depth).
  struct Item {
    const json* node;
    std::size_t depth, index;
  };
  std::vector<Item> stack{{v, 0, 0}};
  while (!stack.empty()) {
    const Item item = stack.back();
    stack.pop_back();
    at_index.resize(item.depth);
    if (item.depth > 0) at_index[item.depth - 1] = item.index;
    const json& x = *item.node;
    if (item.depth < out.shape.size()) {
      if (!x.is_array())
        fail(where, "element " + indices_text(at_index) + " is " + type_text(x) + " where a list of " +
                        std::to_string(out.shape[item.depth]) + " was expected (shape " + shape_text(out.shape) + ")");
      if (x.size() != out.shape[item.depth])
        fail(where, "row " + indices_text(at_index) + " has " + std::to_string(x.size()) + " values, expected " +
                        std::to_string(out.shape[item.depth]) + " (shape " + shape_text(out.shape) +
                        "; a truncated or ragged array)");
      for (std::size_t k = x.size(); k-- > 0;) stack.push_back({&x[k], item.depth + 1, k});
    } else {
      if (!x.is_number())
        fail(where, "element " + indices_text(at_index) + " is " + type_text(x) + " where a number was expected (shape " +
                        shape_text(out.shape) + ")");
      const double d = x.get<double>();
      if (!std::isfinite(d)) fail(where, "element " + indices_text(at_index) + " is " + number_text(d) + ", not finite");
      out.values.push_back(d);
    }
  }
  return out;
}

NdArray DictReader::array_of_shape(const json& j, const std::string& path,
                                   const std::vector<std::vector<std::size_t>>& shapes, const std::string& why) const {
  std::size_t max_rank = 0;
  for (const auto& s : shapes) max_rank = std::max(max_rank, s.size());
  NdArray a = array(j, path, max_rank);
  if (std::find(shapes.begin(), shapes.end(), a.shape) == shapes.end()) {
    std::string want;
    for (const auto& s : shapes) want += (want.empty() ? "" : " or ") + shape_text(s);
    fail(path, "expected " + want + " (" + why + "), found " + shape_text(a.shape));
  }
  return a;
}

}  // namespace quasar::dp
