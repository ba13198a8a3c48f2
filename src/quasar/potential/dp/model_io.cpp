#include "quasar/potential/dp/model_io.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>

#include "quasar/core/error.hpp"
#include "quasar/io/hdf5/hdf5.hpp"
#include "quasar/potential/dp/dict_reader.hpp"
#include "quasar/potential/dp/model.hpp"

namespace quasar::dp {

namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

bool is_ndarray(const nlohmann::json& j) {
  return j.is_object() && j.contains("@class") && j.at("@class") == "np.ndarray" && j.contains("value");
}

// Nested lists -> flat values and shape (a scalar has shape []); null stands for nan. Throws
// unless the lists are rectangular numbers, so that the dataset written holds what its shape says.
void flatten(const nlohmann::json& v, std::vector<double>& out, std::vector<hsize_t>& shape, std::size_t depth = 0) {
  if (depth == 0)
    for (const nlohmann::json* x = &v; x->is_array(); x = &(*x)[0]) {
      shape.push_back(x->size());
      if (x->empty() || shape.size() > 32) break;
    }
  if (depth < shape.size()) {
    if (!v.is_array() || v.size() != shape[depth]) throw Error("array to write is not rectangular");
    for (const auto& e : v) flatten(e, out, shape, depth + 1);
  } else if (v.is_number() || v.is_null()) {
    out.push_back(v.is_null() ? std::nan("") : v.get<double>());
  } else {
    throw Error("array to write holds " + std::string(v.type_name()) + " where numbers belong");
  }
}

nlohmann::json nest(const double* data, const std::vector<std::size_t>& shape, std::size_t depth = 0) {
  if (depth == shape.size()) return *data;
  nlohmann::json a = nlohmann::json::array();
  std::size_t stride = 1;
  for (std::size_t k = depth + 1; k < shape.size(); ++k) stride *= shape[k];
  for (std::size_t i = 0; i < shape[depth]; ++i) a.push_back(nest(data + i * stride, shape, depth + 1));
  return a;
}


// YAML that yaml-cpp and PyYAML (YAML 1.1, which DeePMD-kit uses) both read back as the dict:
// block mappings, arrays of numbers (and of such arrays) in flow style on one line, strings and
// keys double-quoted as JSON writes them, floats always with a '.' (YAML 1.1 reads 1e-05 as a
// string). Much faster than building a YAML::Node tree for a million weights.
std::string yaml_float(double v) {
  if (std::isnan(v)) return ".nan";
  if (std::isinf(v)) return v > 0 ? ".inf" : "-.inf";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string s(buf);
  if (s.find('.') == std::string::npos) {
    const auto e = s.find('e');
    s.insert(e == std::string::npos ? s.size() : e, ".0");
  }
  return s;
}

// Written on one line: scalars, empty mappings, and arrays holding only such values.
bool flow(const nlohmann::json& j) {
  if (j.is_object()) return j.empty();
  if (!j.is_array()) return true;
  for (const auto& v : j)
    if (!flow(v)) return false;
  return true;
}

void emit_flow(std::ostream& o, const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::array: {
      o << '[';
      for (std::size_t k = 0; k < j.size(); ++k) {
        if (k) o << ", ";
        emit_flow(o, j[k]);
      }
      o << ']';
      return;
    }
    case nlohmann::json::value_t::object: o << "{}"; return;
    case nlohmann::json::value_t::number_float: o << yaml_float(j.get<double>()); return;
    default: o << j.dump(); return;  // strings quoted, integers, true/false, null
  }
}

void emit_block(std::ostream& o, const nlohmann::json& j, int indent) {
  const std::string pad(indent, ' ');
  auto item = [&](const nlohmann::json& v) {
    if (flow(v)) {
      o << ' ';
      emit_flow(o, v);
      o << '\n';
    } else {
      o << '\n';
      emit_block(o, v, indent + 2);
    }
  };
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) {
      o << pad << nlohmann::json(k).dump() << ':';
      item(v);
    }
  } else {
    for (const auto& v : j) {  // a sequence holding mappings
      o << pad << '-';
      item(v);
    }
  }
}

void replace_file(const std::string& tmp, const std::string& path) {
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp);
    throw Error("cannot write " + path + ": " + ec.message());
  }
}

}  // namespace

nlohmann::json ndarray(const std::vector<double>& values, const std::vector<std::size_t>& shape, const std::string& dtype) {
  return {{"@class", "np.ndarray"}, {"@is_variable", true}, {"@version", 1}, {"dtype", dtype},
          {"value", values.empty() ? nlohmann::json::array() : nest(values.data(), shape)}};
}

namespace {

// A dataset as an np.ndarray entry (h5::Reader::array: numbers only, a shape whose element count
// the stored data can hold).
nlohmann::json read_dataset(const h5::Reader& in, const std::string& name) {
  const h5::Reader::Array a = in.array(name);
  return ndarray(a.values, std::vector<std::size_t>(a.shape.begin(), a.shape.end()),
                 !a.integer && a.element_size == 4 ? "float32" : "float64");
}

}  // namespace

nlohmann::json read_dp_h5(const std::string& path) {
  h5::quiet();
  if (!std::filesystem::is_regular_file(path)) throw InputError(path, 0, "cannot open model file");
  const h5::Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!file.valid()) throw InputError(path, 0, "not an HDF5 file");
  std::error_code ec;
  const h5::Reader in(file.id(), path, static_cast<std::size_t>(std::filesystem::file_size(path, ec)));
  if (!in.has_attribute("/", "json")) throw InputError(path, 0, "no root attribute 'json': not a DeePMD-kit .dp model");
  const std::string text = in.string_attribute("/", "json");
  nlohmann::json dict;
  try {
    dict = nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    throw InputError(path, 0, std::string("the 'json' attribute is not JSON: ") + e.what());
  }
  // Put every dataset back where its path ("/variable_<digits>") stands.
  auto is_dataset_path = [](const std::string& s) {
    const std::string prefix = "/variable_";
    return s.size() > prefix.size() && s.compare(0, prefix.size(), prefix) == 0 &&
           std::all_of(s.begin() + prefix.size(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
  };
  // Recursive over the dictionary, whose depth the reader bounds (DeePMD-kit's is about 10).
  constexpr int kMaxDepth = 64;
  std::function<void(nlohmann::json&, int)> fill = [&](nlohmann::json& j, int depth) {
    if (depth > kMaxDepth) throw InputError(path, 0, "the model dictionary nests more than 64 levels deep");
    if (j.is_string() && is_dataset_path(j.get<std::string>())) {
      j = read_dataset(in, j.get<std::string>());
    } else if (j.is_object() || j.is_array()) {
      for (auto& e : j) fill(e, depth + 1);
    }
  };
  fill(dict, 0);
  return dict;
}

void write_dp_h5(const std::string& path, const nlohmann::json& dict) {
  h5::quiet();
  const std::string tmp = path + ".tmp.h5";
  {
    h5::Handle file(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
    if (!file.valid()) throw Error("cannot create " + tmp);
    int counter = 0;
    std::function<nlohmann::json(const nlohmann::json&)> strip = [&](const nlohmann::json& j) -> nlohmann::json {
      if (is_ndarray(j)) {
        std::vector<double> values;
        std::vector<hsize_t> shape;
        flatten(j.at("value"), values, shape);
        char name[32];
        std::snprintf(name, sizeof name, "/variable_%04d", counter++);
        h5::Handle space(shape.empty() ? H5Screate(H5S_SCALAR) : H5Screate_simple(static_cast<int>(shape.size()), shape.data(), nullptr),
                 H5Sclose);
        const bool single = j.value("dtype", std::string("float64")) == "float32";
        h5::Handle ds(H5Dcreate2(file.id(), name, single ? H5T_IEEE_F32LE : H5T_IEEE_F64LE, space.id(), H5P_DEFAULT, H5P_DEFAULT,
                         H5P_DEFAULT),
              H5Dclose);
        if (!ds.valid() || (!values.empty() && H5Dwrite(ds.id(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0))
          throw Error("cannot write dataset " + std::string(name) + " to " + tmp);
        return name;
      }
      if (j.is_object()) {
        nlohmann::json o = nlohmann::json::object();
        for (const auto& [k, v] : j.items()) o[k] = strip(v);
        return o;
      }
      if (j.is_array()) {
        nlohmann::json a = nlohmann::json::array();
        for (const auto& v : j) a.push_back(strip(v));
        return a;
      }
      return j;
    };
    const std::string text = strip(dict).dump();
    h5::Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(type.id(), H5T_VARIABLE);
    H5Tset_cset(type.id(), H5T_CSET_UTF8);
    h5::Handle space(H5Screate(H5S_SCALAR), H5Sclose);
    h5::Handle attr(H5Acreate2(file.id(), "json", type.id(), space.id(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    const char* ptr = text.c_str();
    if (!attr.valid() || H5Awrite(attr.id(), type.id(), &ptr) < 0) throw Error("cannot write the json attribute to " + tmp);
  }
  replace_file(tmp, path);
}

void write_dp_yaml(const std::string& path, const nlohmann::json& dict) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp);
    if (flow(dict)) emit_flow(f, dict);
    else emit_block(f, dict, 0);
    f << "\n";
    if (!f) throw Error("cannot write " + tmp);
  }
  replace_file(tmp, path);
}

nlohmann::json read_model_dict(const std::string& path) {
  if (ends_with(path, ".dp")) return read_dp_h5(path);
  if (ends_with(path, ".yaml") || ends_with(path, ".yml")) return yaml_file_to_json(path);
  throw InputError(path, 0, "unknown model file type (expected .yaml or .dp)");
}

void write_model_dict(const std::string& path, const nlohmann::json& dict) {
  if (ends_with(path, ".dp")) return write_dp_h5(path, dict);
  if (ends_with(path, ".yaml") || ends_with(path, ".yml")) return write_dp_yaml(path, dict);
  throw Error("unknown model file type for " + path + " (expected .yaml or .dp)");
}

}  // namespace quasar::dp
