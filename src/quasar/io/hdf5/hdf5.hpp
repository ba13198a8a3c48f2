#pragma once
// What the families that keep HDF5 files share (module hdf5: DeePMD-kit's .dp models, Shepard data
// sets and grids): identifiers closed on scope exit, files held in memory (the core driver: a file
// written to memory and then to disk in one piece, a file read from bytes already in memory, as
// fuzz targets give them), and checked reads whose errors name the file and the object.
#include <hdf5.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace quasar::h5 {

// An HDF5 identifier, closed by `close` when it goes out of scope (nothing when it is invalid, < 0).
class Handle {
 public:
  Handle() = default;
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~Handle() { reset(); }
  Handle(Handle&& o) noexcept : id_(o.id_), close_(o.close_) { o.id_ = -1; }
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = o.id_;
      close_ = o.close_;
      o.id_ = -1;
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  hid_t id() const { return id_; }
  bool valid() const { return id_ >= 0; }
  void reset() {
    if (id_ >= 0 && close_) close_(id_);
    id_ = -1;
  }

 private:
  hid_t id_ = -1;
  herr_t (*close_)(hid_t) = nullptr;
};

// HDF5 prints its error stack unless told not to; every failure here becomes an Error instead.
void quiet();

// True when the bytes begin with HDF5's signature (a file without a user block).
bool has_signature(const void* data, std::size_t size);

// A new, empty file in memory (nothing is written to disk); an Error when HDF5 cannot make one.
Handle create_memory_file();
// A new file on disk, replacing any of that name; an Error when HDF5 cannot make it.
Handle create_file(const std::string& path);
// The bytes of a file made by create_memory_file, as a file on disk would hold them.
std::vector<unsigned char> file_image(hid_t file);
// The file whose bytes these are, read-only (HDF5 copies them); invalid when they are not HDF5.
Handle open_image(const void* data, std::size_t size);

// The file whose bytes these are, checked as every reader of a file of ours begins: HDF5's signature,
// that HDF5 opens it, the root attribute 'format' equal to `format` (else "... not <what>") and
// 'version' equal to `version`. Failures are InputErrors naming `origin`.
Handle open_checked(const void* data, std::size_t size, const std::string& origin, const std::string& format,
                    long version, const std::string& what);

// "[3, 6, 6]", "[]" for a scalar.
std::string shape_text(const std::vector<hsize_t>& shape);

// The checked reads of one open file: every failure is an InputError naming `origin` (the file),
// and the object ("dataset /points/u ...", "attribute 'p' of /parameters ...").
class Reader {
 public:
  // `bytes`: the file's size, which no declared size may exceed.
  Reader(hid_t file, std::string origin, std::size_t bytes) : file_(file), origin_(std::move(origin)), bytes_(bytes) {}

  [[noreturn]] void fail(const std::string& msg) const;
  hid_t file() const { return file_; }
  bool exists(const std::string& name) const;  // a link of that name (its groups too) leads somewhere

  // A dataset of numbers: shape, values (converted to double from any float or integer type),
  // whether its type is an integer and its element size.
  struct Array {
    std::vector<hsize_t> shape;
    std::vector<double> values;
    bool integer = false;
    std::size_t element_size = 8;
  };
  // Fails when the dataset is missing, holds no numbers, has more than 8 dimensions, or declares
  // more elements than it stores (a dataset declared huge with nothing written reads as fill
  // values; compressed data may hold up to 1000 values per stored byte).
  Array array(const std::string& name) const;
  // The same, with the shape required (a message naming what was expected and found).
  std::vector<double> doubles(const std::string& name, const std::vector<hsize_t>& shape) const;
  // Integers of the given shape: the type must be an integer one.
  std::vector<long> integers(const std::string& name, const std::vector<hsize_t>& shape) const;
  // A one-dimensional dataset of `count` strings (fixed or variable length).
  std::vector<std::string> strings(const std::string& name, hsize_t count) const;

  // Attributes of the object `object` ("/" for the file): one number (any float or integer type)
  // or one string; fail when missing or of another kind.
  bool has_attribute(const std::string& object, const std::string& name) const;
  double number_attribute(const std::string& object, const std::string& name) const;
  std::string string_attribute(const std::string& object, const std::string& name) const;

 private:
  Handle open_dataset(const std::string& name) const;
  hid_t file_;
  std::string origin_;
  std::size_t bytes_;
};

// Writing (an Error naming the object when HDF5 refuses): groups made as paths need them.
void write_doubles(hid_t file, const std::string& name, const std::vector<hsize_t>& shape, const double* values);
void write_integers(hid_t file, const std::string& name, const std::vector<hsize_t>& shape, const int* values);
void write_strings(hid_t file, const std::string& name, const std::vector<std::string>& values);  // variable length, UTF-8
Handle create_group(hid_t file, const std::string& name);
// A float64 dataset of this shape to be filled block by block (write_block: start and count per
// dimension, values in row-major order).
Handle create_doubles(hid_t file, const std::string& name, const std::vector<hsize_t>& shape);
void write_block(hid_t dataset, const std::vector<hsize_t>& start, const std::vector<hsize_t>& count, const double* values);
void set_attribute(hid_t file, const std::string& object, const std::string& name, double value);
void set_attribute(hid_t file, const std::string& object, const std::string& name, long value);
void set_attribute(hid_t file, const std::string& object, const std::string& name, const std::string& value);
void set_attribute(hid_t file, const std::string& object, const std::string& name, const std::vector<long>& values);

}  // namespace quasar::h5
