#include "quasar/potential/dp/model_io.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>

#include "quasar/core/error.hpp"
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

// RAII for HDF5 identifiers.
struct H5 {
  hid_t id;
  herr_t (*close)(hid_t);
  H5(hid_t i, herr_t (*c)(hid_t)) : id(i), close(c) {}
  ~H5() {
    if (id >= 0) close(id);
  }
  H5(const H5&) = delete;
  H5& operator=(const H5&) = delete;
};

void quiet_hdf5() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

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

// The root attribute "json" as text: one string (variable or fixed length), nothing else, since
// HDF5 would write as many strings as the attribute holds into the one buffer.
std::string json_attribute(hid_t file, const std::string& path) {
  if (H5Aexists(file, "json") <= 0) throw InputError(path, 0, "no root attribute 'json': not a DeePMD-kit .dp model");
  H5 attr(H5Aopen(file, "json", H5P_DEFAULT), H5Aclose);
  H5 type(H5Aget_type(attr.id), H5Tclose);
  H5 space(H5Aget_space(attr.id), H5Sclose);
  if (attr.id < 0 || type.id < 0 || space.id < 0 || H5Tget_class(type.id) != H5T_STRING ||
      H5Sget_simple_extent_npoints(space.id) != 1)
    throw InputError(path, 0, "the root attribute 'json' is not one string");
  std::string text;
  if (H5Tis_variable_str(type.id) > 0) {
    H5 mem(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(mem.id, H5T_VARIABLE);
    H5Tset_cset(mem.id, H5Tget_cset(type.id));
    char* buf = nullptr;
    if (H5Aread(attr.id, mem.id, &buf) < 0 || !buf) throw InputError(path, 0, "cannot read the 'json' attribute");
    text = buf;
    H5free_memory(buf);
  } else {
    const std::size_t size = H5Tget_size(type.id);
    std::error_code ec;
    if (size == 0 || size > std::filesystem::file_size(path, ec))
      throw InputError(path, 0, "the 'json' attribute claims " + std::to_string(size) + " bytes, more than the file holds");
    std::vector<char> buf(size + 1, '\0');
    if (H5Aread(attr.id, type.id, buf.data()) < 0) throw InputError(path, 0, "cannot read the 'json' attribute");
    text = buf.data();
  }
  return text;
}

// A dataset as an np.ndarray entry: numbers only (float or integer), a shape whose element count
// the stored data can hold (a dataset declared huge with nothing written reads as fill values).
nlohmann::json read_dataset(hid_t file, const std::string& name, const std::string& path) {
  H5 ds(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (ds.id < 0) throw InputError(path, 0, "dataset " + name + " named in the model is missing");
  H5 dtype(H5Dget_type(ds.id), H5Tclose);
  const H5T_class_t cls = H5Tget_class(dtype.id);
  if (cls != H5T_FLOAT && cls != H5T_INTEGER) throw InputError(path, 0, "dataset " + name + " does not hold numbers");
  H5 space(H5Dget_space(ds.id), H5Sclose);
  const int rank = H5Sget_simple_extent_ndims(space.id);
  if (rank < 0 || rank > 8) throw InputError(path, 0, "dataset " + name + " has an unreadable shape");
  std::vector<hsize_t> shape(static_cast<std::size_t>(rank));
  if (rank > 0) H5Sget_simple_extent_dims(space.id, shape.data(), nullptr);
  const double element = static_cast<double>(H5Tget_size(dtype.id));
  double count = 1;
  for (hsize_t s : shape) count *= static_cast<double>(s);
  H5 plist(H5Dget_create_plist(ds.id), H5Pclose);
  const bool filtered = plist.id >= 0 && H5Pget_nfilters(plist.id) > 0;
  const double stored = static_cast<double>(H5Dget_storage_size(ds.id));
  // Compressed data may hold up to 1000 values per stored byte; plain data exactly what it says.
  if (count > 0 && (filtered ? count > 1000 * stored : count * element > stored))
    throw InputError(path, 0, "dataset " + name + " declares shape " + shape_text({shape.begin(), shape.end()}) +
                                  " but stores only " + std::to_string(static_cast<long>(stored)) + " bytes");
  std::vector<double> values(static_cast<std::size_t>(count));
  if (count > 0 && H5Dread(ds.id, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0)
    throw InputError(path, 0, "cannot read dataset " + name + " as numbers");
  return ndarray(values, std::vector<std::size_t>(shape.begin(), shape.end()),
                 cls == H5T_FLOAT && element == 4 ? "float32" : "float64");
}

}  // namespace

nlohmann::json read_dp_h5(const std::string& path) {
  quiet_hdf5();
  if (!std::filesystem::is_regular_file(path)) throw InputError(path, 0, "cannot open model file");
  H5 file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (file.id < 0) throw InputError(path, 0, "not an HDF5 file");
  const std::string text = json_attribute(file.id, path);
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
      j = read_dataset(file.id, j.get<std::string>(), path);
    } else if (j.is_object() || j.is_array()) {
      for (auto& e : j) fill(e, depth + 1);
    }
  };
  fill(dict, 0);
  return dict;
}

void write_dp_h5(const std::string& path, const nlohmann::json& dict) {
  quiet_hdf5();
  const std::string tmp = path + ".tmp.h5";
  {
    H5 file(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
    if (file.id < 0) throw Error("cannot create " + tmp);
    int counter = 0;
    std::function<nlohmann::json(const nlohmann::json&)> strip = [&](const nlohmann::json& j) -> nlohmann::json {
      if (is_ndarray(j)) {
        std::vector<double> values;
        std::vector<hsize_t> shape;
        flatten(j.at("value"), values, shape);
        char name[32];
        std::snprintf(name, sizeof name, "/variable_%04d", counter++);
        H5 space(shape.empty() ? H5Screate(H5S_SCALAR) : H5Screate_simple(static_cast<int>(shape.size()), shape.data(), nullptr),
                 H5Sclose);
        const bool single = j.value("dtype", std::string("float64")) == "float32";
        H5 ds(H5Dcreate2(file.id, name, single ? H5T_IEEE_F32LE : H5T_IEEE_F64LE, space.id, H5P_DEFAULT, H5P_DEFAULT,
                         H5P_DEFAULT),
              H5Dclose);
        if (ds.id < 0 || (!values.empty() && H5Dwrite(ds.id, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0))
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
    H5 type(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(type.id, H5T_VARIABLE);
    H5Tset_cset(type.id, H5T_CSET_UTF8);
    H5 space(H5Screate(H5S_SCALAR), H5Sclose);
    H5 attr(H5Acreate2(file.id, "json", type.id, space.id, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    const char* ptr = text.c_str();
    if (attr.id < 0 || H5Awrite(attr.id, type.id, &ptr) < 0) throw Error("cannot write the json attribute to " + tmp);
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
