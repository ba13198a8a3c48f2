// HDF5 handles, in-memory files and checked reads (hdf5.hpp).
#include "quasar/io/hdf5/hdf5.hpp"

#include <unistd.h>

#include <atomic>
#include <cstring>
#include <sstream>

#include "quasar/core/error.hpp"

namespace quasar::h5 {

namespace {

// The core driver keeps a file's bytes in memory; the name only tells open files apart.
std::string memory_name() {
  static std::atomic<unsigned long> counter{0};
  return "quasar-memory-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".h5";
}

Handle core_access() {
  Handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  if (!fapl.valid() || H5Pset_fapl_core(fapl.id(), std::size_t{1} << 16, 0) < 0)
    throw Error("HDF5: cannot set up a file in memory");
  return fapl;
}

// Creation properties shared by every object written: intermediate groups made as needed, and no
// modification times, so that the same content gives the same bytes.
Handle link_creation() {
  Handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
  H5Pset_create_intermediate_group(lcpl.id(), 1);
  return lcpl;
}

Handle object_creation(hid_t cls) {
  Handle plist(H5Pcreate(cls), H5Pclose);
  H5Pset_obj_track_times(plist.id(), 0);
  return plist;
}

Handle dataspace(const std::vector<hsize_t>& shape) {
  return Handle(shape.empty() ? H5Screate(H5S_SCALAR)
                              : H5Screate_simple(static_cast<int>(shape.size()), shape.data(), nullptr),
                H5Sclose);
}

Handle create_dataset(hid_t file, const std::string& name, hid_t type, const std::vector<hsize_t>& shape) {
  const Handle space = dataspace(shape), lcpl = link_creation(), dcpl = object_creation(H5P_DATASET_CREATE);
  Handle ds(H5Dcreate2(file, name.c_str(), type, space.id(), lcpl.id(), dcpl.id(), H5P_DEFAULT), H5Dclose);
  if (!ds.valid()) throw Error("HDF5: cannot create dataset " + name);
  return ds;
}

hsize_t count_of(const std::vector<hsize_t>& shape) {
  hsize_t n = 1;
  for (hsize_t s : shape) n *= s;
  return n;
}

// A string type in memory: variable length (size H5T_VARIABLE) or fixed, padded with NULs, in the
// character set of the file's type (HDF5 does not convert between character sets).
Handle string_type(std::size_t size, H5T_cset_t cset = H5T_CSET_UTF8) {
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.id(), size);
  H5Tset_cset(type.id(), cset);
  if (size != H5T_VARIABLE) H5Tset_strpad(type.id(), H5T_STR_NULLPAD);
  return type;
}

void write_attribute(hid_t file, const std::string& object, const std::string& name, hid_t type,
                     const std::vector<hsize_t>& shape, hid_t memory_type, const void* value) {
  const Handle obj(H5Oopen(file, object.c_str(), H5P_DEFAULT), H5Oclose), space = dataspace(shape);
  const Handle attr(obj.valid() ? H5Acreate2(obj.id(), name.c_str(), type, space.id(), H5P_DEFAULT, H5P_DEFAULT) : -1,
                    H5Aclose);
  if (!attr.valid() || H5Awrite(attr.id(), memory_type, value) < 0)
    throw Error("HDF5: cannot write attribute '" + name + "' of " + object);
}

}  // namespace

void quiet() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

bool has_signature(const void* data, std::size_t size) {
  static const unsigned char kSignature[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  return size >= 8 && std::memcmp(data, kSignature, 8) == 0;
}

Handle create_memory_file() {
  quiet();
  const Handle fapl = core_access();
  Handle file(H5Fcreate(memory_name().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.id()), H5Fclose);
  if (!file.valid()) throw Error("HDF5: cannot create a file in memory");
  return file;
}

Handle create_file(const std::string& path) {
  quiet();
  Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
  if (!file.valid()) throw Error("cannot create " + path + " (HDF5)");
  return file;
}

std::vector<unsigned char> file_image(hid_t file) {
  if (H5Fflush(file, H5F_SCOPE_GLOBAL) < 0) throw Error("HDF5: cannot flush a file in memory");
  const ssize_t size = H5Fget_file_image(file, nullptr, 0);
  if (size < 0) throw Error("HDF5: cannot take the image of a file in memory");
  std::vector<unsigned char> bytes(static_cast<std::size_t>(size));
  if (H5Fget_file_image(file, bytes.data(), bytes.size()) != size) throw Error("HDF5: cannot copy a file image");
  return bytes;
}

Handle open_image(const void* data, std::size_t size) {
  quiet();
  if (size == 0) return {};
  const Handle fapl = core_access();
  if (H5Pset_file_image(fapl.id(), const_cast<void*>(data), size) < 0) return {};
  return Handle(H5Fopen(memory_name().c_str(), H5F_ACC_RDONLY, fapl.id()), H5Fclose);
}

Handle open_checked(const void* data, std::size_t size, const std::string& origin, const std::string& format,
                    long version, const std::string& what) {
  if (!has_signature(data, size)) throw InputError(origin, 0, "not an HDF5 file (no HDF5 signature at its start)");
  Handle file = open_image(data, size);
  if (!file.valid()) throw InputError(origin, 0, "not an HDF5 file (HDF5 cannot open it)");
  const Reader in(file.id(), origin, size);
  if (!in.has_attribute("/", "format") || in.string_attribute("/", "format") != format)
    in.fail("the root attribute 'format' is not \"" + format + "\": not " + what);
  if (const double v = in.number_attribute("/", "version"); v != static_cast<double>(version)) {
    std::ostringstream text;
    text << v;
    in.fail("attribute 'version' of /: unknown version " + text.str() + " (this reader knows " + std::to_string(version) + ")");
  }
  return file;
}

std::string shape_text(const std::vector<hsize_t>& shape) {
  std::string s = "[";
  for (std::size_t k = 0; k < shape.size(); ++k) s += (k ? ", " : "") + std::to_string(shape[k]);
  return s + "]";
}

void Reader::fail(const std::string& msg) const { throw InputError(origin_, 0, msg); }

bool Reader::exists(const std::string& name) const {
  // H5Lexists looks at the last link only: every group on the way must exist first.
  for (std::size_t at = name.find('/', 1); ; at = name.find('/', at + 1)) {
    const std::string part = name.substr(0, at);
    if (part.empty() || part == "/") return false;
    if (H5Lexists(file_, part.c_str(), H5P_DEFAULT) <= 0) return false;
    if (at == std::string::npos) return true;
  }
}

Handle Reader::open_dataset(const std::string& name) const {
  if (!exists(name)) fail("dataset " + name + " is missing");
  Handle ds(H5Dopen2(file_, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (!ds.valid()) fail(name + " is not a dataset");
  // Data kept outside the file (external files, virtual datasets) is not read.
  const Handle dcpl(H5Dget_create_plist(ds.id()), H5Pclose);
  const H5D_layout_t layout = dcpl.valid() ? H5Pget_layout(dcpl.id()) : H5D_LAYOUT_ERROR;
  if ((layout != H5D_COMPACT && layout != H5D_CONTIGUOUS && layout != H5D_CHUNKED) ||
      H5Pget_external_count(dcpl.id()) != 0)
    fail("dataset " + name + " keeps its data outside the file");
  return ds;
}

Reader::Array Reader::array(const std::string& name) const {
  const Handle ds = open_dataset(name);
  const Handle type(H5Dget_type(ds.id()), H5Tclose), space(H5Dget_space(ds.id()), H5Sclose);
  const H5T_class_t cls = type.valid() ? H5Tget_class(type.id()) : H5T_NO_CLASS;
  if (cls != H5T_FLOAT && cls != H5T_INTEGER) fail("dataset " + name + " does not hold numbers");
  const int rank = space.valid() && H5Sget_simple_extent_type(space.id()) != H5S_NULL
                       ? H5Sget_simple_extent_ndims(space.id())
                       : -1;
  if (rank < 0 || rank > 8) fail("dataset " + name + " has an unreadable shape");
  Array out;
  out.shape.resize(static_cast<std::size_t>(rank));
  if (rank > 0) H5Sget_simple_extent_dims(space.id(), out.shape.data(), nullptr);
  out.integer = cls == H5T_INTEGER;
  out.element_size = H5Tget_size(type.id());
  double count = 1;
  for (hsize_t s : out.shape) count *= static_cast<double>(s);
  const Handle dcpl(H5Dget_create_plist(ds.id()), H5Pclose);
  const bool filtered = dcpl.valid() && H5Pget_nfilters(dcpl.id()) > 0;
  const double stored = static_cast<double>(H5Dget_storage_size(ds.id()));
  if (count > 0 && (filtered ? count > 1000 * stored : count * static_cast<double>(out.element_size) > stored))
    fail("dataset " + name + " declares shape " + shape_text(out.shape) + " but stores only " +
         std::to_string(static_cast<long>(stored)) + " bytes");
  if (count * 8 > 1000.0 * static_cast<double>(bytes_) + 1e6)
    fail("dataset " + name + " declares shape " + shape_text(out.shape) + ", more than the file can hold");
  out.values.resize(static_cast<std::size_t>(count));
  if (count > 0 && H5Dread(ds.id(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.values.data()) < 0)
    fail("cannot read dataset " + name + " as numbers");
  return out;
}

std::vector<double> Reader::doubles(const std::string& name, const std::vector<hsize_t>& shape) const {
  Array a = array(name);
  if (a.shape != shape)
    fail("dataset " + name + " has shape " + shape_text(a.shape) + ", expected " + shape_text(shape));
  return std::move(a.values);
}

std::vector<long> Reader::integers(const std::string& name, const std::vector<hsize_t>& shape) const {
  Array a = array(name);
  if (!a.integer) fail("dataset " + name + " holds floating-point numbers; integers were expected");
  if (a.shape != shape)
    fail("dataset " + name + " has shape " + shape_text(a.shape) + ", expected " + shape_text(shape));
  std::vector<long> out;
  out.reserve(a.values.size());
  for (double v : a.values) {
    if (!(v > -1e15 && v < 1e15)) fail("dataset " + name + " holds an integer out of range");
    out.push_back(static_cast<long>(v));
  }
  return out;
}

std::vector<std::string> Reader::strings(const std::string& name, hsize_t count) const {
  const Handle ds = open_dataset(name);
  const Handle type(H5Dget_type(ds.id()), H5Tclose), space(H5Dget_space(ds.id()), H5Sclose);
  if (!type.valid() || H5Tget_class(type.id()) != H5T_STRING) fail("dataset " + name + " does not hold strings");
  std::vector<hsize_t> shape(1);
  if (!space.valid() || H5Sget_simple_extent_type(space.id()) != H5S_SIMPLE || H5Sget_simple_extent_ndims(space.id()) != 1 ||
      H5Sget_simple_extent_dims(space.id(), shape.data(), nullptr) != 1 || shape[0] != count)
    fail("dataset " + name + " must hold " + std::to_string(count) + " strings in one dimension");
  std::vector<std::string> out;
  if (count == 0) return out;
  if (H5Tis_variable_str(type.id()) > 0) {
    const Handle memory = string_type(H5T_VARIABLE, H5Tget_cset(type.id()));
    std::vector<char*> buf(count, nullptr);
    if (H5Dread(ds.id(), memory.id(), H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()) < 0)
      fail("cannot read dataset " + name + " as strings");
    for (char* c : buf) out.emplace_back(c ? c : "");
    H5Dvlen_reclaim(memory.id(), space.id(), H5P_DEFAULT, buf.data());
    return out;
  }
  const std::size_t size = H5Tget_size(type.id());
  const double stored = static_cast<double>(H5Dget_storage_size(ds.id()));
  if (size == 0 || static_cast<double>(size) * static_cast<double>(count) > stored)
    fail("dataset " + name + " declares strings of " + std::to_string(size) + " bytes but stores only " +
         std::to_string(static_cast<long>(stored)) + " bytes");
  const Handle memory = string_type(size, H5Tget_cset(type.id()));
  std::vector<char> buf(size * count, '\0');
  if (H5Dread(ds.id(), memory.id(), H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()) < 0)
    fail("cannot read dataset " + name + " as strings");
  for (hsize_t k = 0; k < count; ++k) {
    const char* at = buf.data() + k * size;
    out.emplace_back(at, strnlen(at, size));
  }
  return out;
}

bool Reader::has_attribute(const std::string& object, const std::string& name) const {
  return (object == "/" || exists(object)) && H5Aexists_by_name(file_, object.c_str(), name.c_str(), H5P_DEFAULT) > 0;
}

double Reader::number_attribute(const std::string& object, const std::string& name) const {
  const std::string what = "attribute '" + name + "' of " + object;
  if (!has_attribute(object, name)) fail(what + " is missing");
  const Handle attr(H5Aopen_by_name(file_, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  const Handle type(H5Aget_type(attr.id()), H5Tclose), space(H5Aget_space(attr.id()), H5Sclose);
  const H5T_class_t cls = type.valid() ? H5Tget_class(type.id()) : H5T_NO_CLASS;
  if ((cls != H5T_FLOAT && cls != H5T_INTEGER) || !space.valid() || H5Sget_simple_extent_npoints(space.id()) != 1)
    fail(what + " is not one number");
  double v = 0;
  if (H5Aread(attr.id(), H5T_NATIVE_DOUBLE, &v) < 0) fail("cannot read " + what);
  return v;
}

std::string Reader::string_attribute(const std::string& object, const std::string& name) const {
  const std::string what = "attribute '" + name + "' of " + object;
  if (!has_attribute(object, name)) fail(what + " is missing");
  const Handle attr(H5Aopen_by_name(file_, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  const Handle type(H5Aget_type(attr.id()), H5Tclose), space(H5Aget_space(attr.id()), H5Sclose);
  if (!type.valid() || H5Tget_class(type.id()) != H5T_STRING || !space.valid() ||
      H5Sget_simple_extent_npoints(space.id()) != 1)
    fail(what + " is not one string");
  if (H5Tis_variable_str(type.id()) > 0) {
    const Handle memory = string_type(H5T_VARIABLE, H5Tget_cset(type.id()));
    char* buf = nullptr;
    if (H5Aread(attr.id(), memory.id(), &buf) < 0 || !buf) fail("cannot read " + what);
    std::string text = buf;
    H5free_memory(buf);
    return text;
  }
  const std::size_t size = H5Tget_size(type.id());
  if (size == 0 || size > bytes_) fail(what + " claims " + std::to_string(size) + " bytes, more than the file holds");
  const Handle memory = string_type(size, H5Tget_cset(type.id()));
  std::vector<char> buf(size, '\0');
  if (H5Aread(attr.id(), memory.id(), buf.data()) < 0) fail("cannot read " + what);
  return std::string(buf.data(), strnlen(buf.data(), size));
}

void write_doubles(hid_t file, const std::string& name, const std::vector<hsize_t>& shape, const double* values) {
  const Handle ds = create_dataset(file, name, H5T_IEEE_F64LE, shape);
  if (count_of(shape) > 0 && H5Dwrite(ds.id(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) < 0)
    throw Error("HDF5: cannot write dataset " + name);
}

void write_integers(hid_t file, const std::string& name, const std::vector<hsize_t>& shape, const int* values) {
  const Handle ds = create_dataset(file, name, H5T_STD_I32LE, shape);
  if (count_of(shape) > 0 && H5Dwrite(ds.id(), H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) < 0)
    throw Error("HDF5: cannot write dataset " + name);
}

void write_strings(hid_t file, const std::string& name, const std::vector<std::string>& values) {
  const Handle type = string_type(H5T_VARIABLE);
  const Handle ds = create_dataset(file, name, type.id(), {values.size()});
  std::vector<const char*> pointers;
  for (const auto& v : values) pointers.push_back(v.c_str());
  if (!values.empty() && H5Dwrite(ds.id(), type.id(), H5S_ALL, H5S_ALL, H5P_DEFAULT, pointers.data()) < 0)
    throw Error("HDF5: cannot write dataset " + name);
}

Handle create_group(hid_t file, const std::string& name) {
  const Handle lcpl = link_creation(), gcpl = object_creation(H5P_GROUP_CREATE);
  Handle g(H5Gcreate2(file, name.c_str(), lcpl.id(), gcpl.id(), H5P_DEFAULT), H5Gclose);
  if (!g.valid()) throw Error("HDF5: cannot create group " + name);
  return g;
}

Handle create_doubles(hid_t file, const std::string& name, const std::vector<hsize_t>& shape) {
  return create_dataset(file, name, H5T_IEEE_F64LE, shape);
}

void write_block(hid_t dataset, const std::vector<hsize_t>& start, const std::vector<hsize_t>& count, const double* values) {
  if (count_of(count) == 0) return;
  const Handle file_space(H5Dget_space(dataset), H5Sclose), memory = dataspace({count_of(count)});
  if (!file_space.valid() ||
      H5Sselect_hyperslab(file_space.id(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr) < 0 ||
      H5Dwrite(dataset, H5T_NATIVE_DOUBLE, memory.id(), file_space.id(), H5P_DEFAULT, values) < 0)
    throw Error("HDF5: cannot write a block of a dataset");
}

void set_attribute(hid_t file, const std::string& object, const std::string& name, double value) {
  write_attribute(file, object, name, H5T_IEEE_F64LE, {}, H5T_NATIVE_DOUBLE, &value);
}

void set_attribute(hid_t file, const std::string& object, const std::string& name, long value) {
  write_attribute(file, object, name, H5T_STD_I64LE, {}, H5T_NATIVE_LONG, &value);
}

void set_attribute(hid_t file, const std::string& object, const std::string& name, const std::string& value) {
  const Handle type = string_type(H5T_VARIABLE);
  const char* text = value.c_str();
  write_attribute(file, object, name, type.id(), {}, type.id(), &text);
}

void set_attribute(hid_t file, const std::string& object, const std::string& name, const std::vector<long>& values) {
  write_attribute(file, object, name, H5T_STD_I64LE, {values.size()}, H5T_NATIVE_LONG, values.data());
}

}  // namespace quasar::h5
