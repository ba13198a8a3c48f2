#pragma once
// What the structure-aware HDF5 fuzz targets share. HDF5's own decoder is not robust to arbitrary
// bytes (it is not Quasar's code to fix), so their bytes are not the file but what it holds, as JSON:
// one entry per object path,
//   {"/": {"attributes": {...}}, "/masses": {"type": "f64", "shape": [4], "values": [...],
//    "attributes": {"units": "amu"}}, "/parameters": {"attributes": {...}}, ...}
// with types f64, f32, i32, i64, u8, string (variable length) and fixed-string; an entry without a
// type is a group; "hollow": true declares a dataset and writes nothing (fill values); values are
// padded with 0.5 or cut to the shape; attributes are numbers (integers as i64), strings or arrays
// of numbers. image_of makes the description a file image in memory (HDF5's core driver, nothing
// on disk); descriptions that HDF5 will not write (paths that clash, sizes over a million values)
// throw Skip: only the readers are under test.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz_input.hpp"
#include "quasar/io/hdf5/hdf5.hpp"

namespace quasar::fuzz {

using h5::Handle;
using nlohmann::json;

struct Skip : std::runtime_error {
  Skip() : std::runtime_error("skip") {}
};

inline void check(bool ok) {
  if (!ok) throw Skip();
}

inline hid_t file_type(const std::string& t) {
  if (t == "f64") return H5T_IEEE_F64LE;
  if (t == "f32") return H5T_IEEE_F32LE;
  if (t == "i32") return H5T_STD_I32LE;
  if (t == "i64") return H5T_STD_I64LE;
  if (t == "u8") return H5T_STD_U8LE;
  throw Skip();
}

inline Handle space(const std::vector<hsize_t>& shape) {
  return Handle(shape.empty() ? H5Screate(H5S_SCALAR) : H5Screate_simple(static_cast<int>(shape.size()), shape.data(), nullptr),
                H5Sclose);
}

inline Handle string_type(std::size_t size) {
  Handle t(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(t.id(), size);
  H5Tset_cset(t.id(), H5T_CSET_UTF8);
  return t;
}

inline void add_attribute(hid_t file, const std::string& object, const std::string& name, const json& v) {
  const Handle obj(H5Oopen(file, object.c_str(), H5P_DEFAULT), H5Oclose);
  check(obj.valid());
  if (v.is_string()) {
    const Handle t = string_type(H5T_VARIABLE), s = space({});
    const Handle a(H5Acreate2(obj.id(), name.c_str(), t.id(), s.id(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    const std::string text = v.get<std::string>();
    const char* p = text.c_str();
    check(a.valid() && H5Awrite(a.id(), t.id(), &p) >= 0);
  } else if (v.is_number_integer()) {
    const long x = v.get<long>();
    const Handle s = space({});
    const Handle a(H5Acreate2(obj.id(), name.c_str(), H5T_STD_I64LE, s.id(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    check(a.valid() && H5Awrite(a.id(), H5T_NATIVE_LONG, &x) >= 0);
  } else if (v.is_number() || v.is_array()) {
    std::vector<double> x;
    for (const json& e : v.is_array() ? v : json::array({v})) {
      check(e.is_number());
      x.push_back(e.get<double>());
    }
    const Handle s = space(v.is_array() ? std::vector<hsize_t>{x.size()} : std::vector<hsize_t>{});
    const Handle a(H5Acreate2(obj.id(), name.c_str(), H5T_IEEE_F64LE, s.id(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    check(a.valid() && (x.empty() || H5Awrite(a.id(), H5T_NATIVE_DOUBLE, x.data()) >= 0));
  } else {
    throw Skip();
  }
}

inline void add_dataset(hid_t file, const std::string& path, const json& d, long& budget) {
  const std::string type = d.at("type").get<std::string>();
  const json values = d.value("values", json::array());
  check(values.is_array());
  std::vector<hsize_t> shape;
  if (d.contains("shape"))
    for (const json& s : d.at("shape")) {
      check(s.is_number_unsigned());
      shape.push_back(s.get<hsize_t>());
    }
  else
    shape.push_back(values.size());
  check(shape.size() <= 8);
  double count = 1;
  for (hsize_t s : shape) count *= static_cast<double>(s);
  const bool hollow = d.value("hollow", false);
  check(hollow || count <= static_cast<double>(budget));
  if (!hollow) budget -= static_cast<long>(count);
  const Handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
  H5Pset_create_intermediate_group(lcpl.id(), 1);
  const Handle sp = space(shape);
  check(sp.valid());
  const std::size_t n = static_cast<std::size_t>(count);
  if (type == "string" || type == "fixed-string") {
    std::vector<std::string> text;
    for (std::size_t k = 0; k < n; ++k) text.push_back(k < values.size() && values[k].is_string() ? values[k].get<std::string>() : "H");
    std::size_t longest = 1;
    for (const auto& t : text) longest = std::max(longest, t.size() + 1);
    const Handle t = string_type(type == "string" ? H5T_VARIABLE : longest);
    const Handle ds(H5Dcreate2(file, path.c_str(), t.id(), sp.id(), lcpl.id(), H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
    check(ds.valid());
    if (hollow || n == 0) return;
    if (type == "string") {
      std::vector<const char*> p;
      for (const auto& s : text) p.push_back(s.c_str());
      check(H5Dwrite(ds.id(), t.id(), H5S_ALL, H5S_ALL, H5P_DEFAULT, p.data()) >= 0);
    } else {
      std::vector<char> buf(n * longest, '\0');
      for (std::size_t k = 0; k < n; ++k) text[k].copy(buf.data() + k * longest, text[k].size());
      check(H5Dwrite(ds.id(), t.id(), H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()) >= 0);
    }
    return;
  }
  const Handle ds(H5Dcreate2(file, path.c_str(), file_type(type), sp.id(), lcpl.id(), H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
  check(ds.valid());
  if (hollow || n == 0) return;
  std::vector<double> x(n, 0.5);
  for (std::size_t k = 0; k < n && k < values.size(); ++k)
    if (values[k].is_number()) x[k] = values[k].get<double>();
  check(H5Dwrite(ds.id(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x.data()) >= 0);
}

// The description as a file image; Skip when HDF5 will not write it.
inline std::vector<unsigned char> image_of(const json& description) {
  check(description.is_object());
  const Handle file = h5::create_memory_file();
  long budget = 1000000;
  for (const auto& [path, entry] : description.items()) {
    check(entry.is_object() && !path.empty() && path[0] == '/');
    if (entry.contains("type")) {
      add_dataset(file.id(), path, entry, budget);
    } else if (path != "/") {
      const Handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
      H5Pset_create_intermediate_group(lcpl.id(), 1);
      const Handle g(H5Gcreate2(file.id(), path.c_str(), lcpl.id(), H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
      check(g.valid());
    }
    if (entry.contains("attributes")) {
      check(entry.at("attributes").is_object());
      for (const auto& [name, value] : entry.at("attributes").items()) add_attribute(file.id(), path, name, value);
    }
  }
  return h5::file_image(file.id());
}

// The image of the JSON description in [data, data + size), or an empty vector when the bytes are
// no description HDF5 writes.
inline std::vector<unsigned char> description_image(const uint8_t* data, std::size_t size) {
  try {
    const auto limit_depth = [](int depth, json::parse_event_t, json&) {
      if (depth > 16) throw Skip();
      return true;
    };
    return image_of(json::parse(data, data + size, limit_depth));
  } catch (const std::exception&) {
    return {};
  }
}

// What both HDF5 targets do with the bytes: the description's image read by `read` (a
// quasar::Error is the expected answer to bad input); what reads is written again by `write` and
// read back, and `difference` (empty when equal to the last bit) must find nothing, else abort.
template <class Read, class Write, class Difference>
int read_write_read(const uint8_t* data, std::size_t size, Read read, Write write, Difference difference) {
  const std::vector<unsigned char> image = description_image(data, size);
  if (image.empty()) return 0;  // not a description HDF5 writes
  decltype(read(image.data(), image.size(), std::string())) first{};
  bool ok = false;
  expect_input_error([&] {
    first = read(image.data(), image.size(), "fuzz.h5");
    ok = true;
  });
  if (!ok) return 0;
  const std::vector<unsigned char> again = write(first);
  const std::string d = difference(first, read(again.data(), again.size(), "again.h5"));
  if (!d.empty()) {
    std::fprintf(stderr, "what was read differs after writing and reading again: %s\n", d.c_str());
    std::abort();
  }
  return 0;
}

}  // namespace quasar::fuzz
