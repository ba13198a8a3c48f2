#include "quasar/io/deepmd_npy.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "quasar/core/error.hpp"
#include "quasar/io/extxyz.hpp"
#include "quasar/io/n2p2_data.hpp"
#include "quasar/io/text.hpp"

namespace quasar::io {

namespace {

// The header of a .npy file: a Python dict literal {'descr': '<f8', 'fortran_order': False,
// 'shape': (2, 9), } with exactly these keys (NumPy's format specification).
struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  std::vector<std::size_t> shape;
};

NpyHeader parse_npy_header(const std::string& path, const std::string& text) {
  std::size_t i = 0;
  auto fail = [&](const std::string& msg) -> void { throw InputError(path, 0, ".npy header " + msg + ": " + text); };
  auto skip = [&] {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  };
  auto expect = [&](char c, const char* what) {
    skip();
    if (i >= text.size() || text[i] != c) fail(std::string("expected ") + what);
    ++i;
  };
  auto quoted = [&] {
    skip();
    if (i >= text.size() || (text[i] != '\'' && text[i] != '"')) fail("expected a quoted string");
    const char q = text[i++];
    const auto end = text.find(q, i);
    if (end == std::string::npos) fail("has an unterminated string");
    std::string out = text.substr(i, end - i);
    i = end + 1;
    return out;
  };
  NpyHeader h;
  std::set<std::string> keys;
  expect('{', "'{'");
  while (true) {
    skip();
    if (i < text.size() && text[i] == '}') break;
    const std::string key = quoted();
    if (!keys.insert(key).second) fail("gives '" + key + "' twice");
    expect(':', "':'");
    skip();
    if (key == "descr") {
      h.descr = quoted();
    } else if (key == "fortran_order") {
      if (text.compare(i, 4, "True") == 0) h.fortran_order = true, i += 4;
      else if (text.compare(i, 5, "False") == 0) i += 5;
      else fail("key 'fortran_order': expected True or False");
    } else if (key == "shape") {
      expect('(', "'(' for key 'shape'");
      while (true) {
        skip();
        if (i < text.size() && text[i] == ')') break;
        std::size_t n = 0;
        const auto [end, ec] = std::from_chars(text.data() + i, text.data() + text.size(), n);
        if (ec != std::errc() || end == text.data() + i) fail("key 'shape': expected a tuple of non-negative integers");
        i = static_cast<std::size_t>(end - text.data());
        h.shape.push_back(n);
        skip();
        if (i < text.size() && text[i] == ',') ++i;
        else if (i >= text.size() || text[i] != ')') fail("key 'shape': expected ',' or ')'");
      }
      ++i;
    } else {
      fail("has the unknown key '" + key + "' (expected descr, fortran_order, shape)");
    }
    skip();
    if (i < text.size() && text[i] == ',') ++i;
    else if (i >= text.size() || text[i] != '}') fail("expected ',' or '}'");
  }
  ++i;
  skip();
  if (i != text.size()) fail("has text after the dict");
  for (const char* k : {"descr", "fortran_order", "shape"})
    if (!keys.count(k)) fail(std::string("lacks the key '") + k + "'");
  return h;
}

}  // namespace

NpyArray read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "cannot open .npy file");
  std::error_code ec;
  const std::uintmax_t file_size = std::filesystem::file_size(path, ec);
  if (ec) throw InputError(path, 0, "not a regular file");
  char magic[8];
  if (!in.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0) throw InputError(path, 0, "not a .npy file");
  const int major = static_cast<unsigned char>(magic[6]);
  if (major < 1 || major > 3) throw InputError(path, 0, ".npy format version " + std::to_string(major) + " (1, 2 or 3 expected)");
  const std::size_t len_bytes = major == 1 ? 2 : 4;
  unsigned char b[4] = {0, 0, 0, 0};
  if (!in.read(reinterpret_cast<char*>(b), static_cast<std::streamsize>(len_bytes))) throw InputError(path, 0, "truncated .npy header");
  const std::uint64_t hlen = b[0] | (b[1] << 8) | (static_cast<std::uint64_t>(b[2]) << 16) | (static_cast<std::uint64_t>(b[3]) << 24);
  const std::uint64_t data_start = 8 + len_bytes + hlen;
  if (data_start > file_size)
    throw InputError(path, 0, ".npy header length " + std::to_string(hlen) + " runs past the end of the file (" +
                                  std::to_string(file_size) + " bytes)");
  std::string text(hlen, ' ');
  in.read(text.data(), static_cast<std::streamsize>(hlen));
  const NpyHeader h = parse_npy_header(path, text);
  const auto& d = h.descr;
  const bool known = d.size() == 3 && (d[0] == '<' || d[0] == '=' || d[0] == '|') && (d[1] == 'f' || d[1] == 'i') &&
                     (d[2] == '4' || d[2] == '8');
  if (!known) throw InputError(path, 0, ".npy dtype '" + d + "' is not supported (little-endian float32/64 or int32/64 only)");
  const char kind = d[1];
  const std::size_t size = static_cast<std::size_t>(d[2] - '0');
  NpyArray a;
  a.shape = h.shape;
  std::size_t count = 1, longer_than_one = 0;
  for (std::size_t n : h.shape) {
    if (n > 1) ++longer_than_one;
    if (n != 0 && count > (file_size / size) / n)
      throw InputError(path, 0, ".npy shape needs more values than the file's " + std::to_string(file_size) + " bytes hold");
    count *= n;
  }
  if (h.fortran_order && longer_than_one > 1) throw InputError(path, 0, "Fortran-ordered .npy arrays are not supported");
  if (count * size != file_size - data_start)
    throw InputError(path, 0, "the .npy shape announces " + std::to_string(count) + " values (" + std::to_string(count * size) +
                                  " bytes) but the file has " + std::to_string(file_size - data_start) + " bytes of data");
  std::vector<char> raw(count * size);
  if (!in.read(raw.data(), static_cast<std::streamsize>(raw.size())))
    throw InputError(path, 0, "file ends before the " + std::to_string(count) + " values its header announces");
  a.values.resize(count);
  for (std::size_t k = 0; k < count; ++k) {
    const char* p = raw.data() + k * size;
    if (kind == 'f' && size == 4) { float v; std::memcpy(&v, p, 4); a.values[k] = v; }
    else if (kind == 'f') { double v; std::memcpy(&v, p, 8); a.values[k] = v; }
    else if (size == 4) { std::int32_t v; std::memcpy(&v, p, 4); a.values[k] = v; }
    else { std::int64_t v; std::memcpy(&v, p, 8); a.values[k] = static_cast<double>(v); }
  }
  return a;
}

namespace {

// The words of a .raw file with their line numbers.
std::vector<std::pair<std::string, long>> raw_words(const std::string& path) {
  LineReader in(path);
  std::vector<std::pair<std::string, long>> out;
  std::string line;
  while (in.next(line))
    for (auto& w : split_words(line)) out.emplace_back(std::move(w), in.line_number());
  return out;
}

// Checks that an array of a set holds `per_frame` finite values per frame for `frames` frames.
void check_array(const std::string& path, const NpyArray& a, std::size_t per_frame, std::size_t frames, const char* what) {
  if (a.values.size() % per_frame != 0 || a.values.size() / per_frame != frames)
    throw InputError(path, 0, "expected " + std::to_string(per_frame) + " values per frame (" + what + ") for " +
                                  std::to_string(frames) + " frames, found " + std::to_string(a.values.size()) + " values");
  for (std::size_t k = 0; k < a.values.size(); ++k)
    if (!std::isfinite(a.values[k]))
      throw InputError(path, 0, "value " + std::to_string(k) + " (frame " + std::to_string(k / per_frame) + ") is not finite");
}

// One set folder's frames (all, or only `only` when >= 0).
std::vector<Structure> read_set(const std::string& dir, const std::string& sd, int only) {
  const std::string type_path = dir + "/type.raw", map_path = dir + "/type_map.raw";
  std::vector<std::string> type_map;
  for (const auto& [w, line] : raw_words(map_path)) {
    if (std::find(type_map.begin(), type_map.end(), w) != type_map.end()) throw InputError(map_path, line, "type " + w + " is given twice");
    type_map.push_back(w);
  }
  if (type_map.empty()) throw InputError(map_path, 0, "no type names");
  std::vector<int> types;
  for (const auto& [w, line] : raw_words(type_path)) {
    long t = -1;
    const auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), t);
    if (ec != std::errc() || end != w.data() + w.size() || t < 0 || t >= static_cast<long>(type_map.size()))
      throw InputError(type_path, line, "expected a type index between 0 and " + std::to_string(type_map.size() - 1) +
                                            " (type_map.raw), found '" + w + "'");
    types.push_back(static_cast<int>(t));
  }
  const std::size_t n = types.size();
  if (n == 0) throw InputError(type_path, 0, "no atoms");
  const NpyArray box = read_npy(sd + "box.npy"), coord = read_npy(sd + "coord.npy");
  const std::size_t frames = box.values.size() / 9;
  if (frames == 0) throw InputError(sd + "box.npy", 0, "no frames");
  check_array(sd + "box.npy", box, 9, frames, "the cell");
  check_array(sd + "coord.npy", coord, 3 * n, frames, "3 x the atoms of type.raw");
  if (only >= 0 && static_cast<std::size_t>(only) >= frames) throw InputError(sd + "box.npy", 0, "no frame " + std::to_string(only));
  // Optional labels, checked against the frame count.
  auto label = [&](const char* name, std::size_t per_frame, const char* what) {
    NpyArray a;
    if (std::filesystem::exists(sd + name)) {
      a = read_npy(sd + name);
      check_array(sd + name, a, per_frame, frames, what);
    }
    return a;
  };
  const NpyArray energy = label("energy.npy", 1, "the energy"), force = label("force.npy", 3 * n, "3 x the atoms of type.raw"),
                 virial = label("virial.npy", 9, "the virial");
  std::vector<Structure> out;
  for (std::size_t f = only >= 0 ? only : 0; f < (only >= 0 ? only + 1 : frames); ++f) {
    Structure s;
    for (const auto& t : type_map) s.type_index(t);
    const double* h = &box.values[9 * f];
    try {
      s.box = Box::from_matrix({{{h[0], h[1], h[2]}, {h[3], h[4], h[5]}, {h[6], h[7], h[8]}}});
    } catch (const Error& e) {
      throw InputError(sd + "box.npy", 0, "frame " + std::to_string(f) + ": " + e.what());
    }
    const double* x = &coord.values[3 * n * f];
    for (std::size_t i = 0; i < n; ++i) {
      s.types.push_back(types[i]);
      s.positions.push_back({x[3 * i], x[3 * i + 1], x[3 * i + 2]});
      if (!force.values.empty()) s.forces.push_back({force.values[3 * n * f + 3 * i], force.values[3 * n * f + 3 * i + 1],
                                                     force.values[3 * n * f + 3 * i + 2]});
    }
    if (!energy.values.empty()) s.energy = energy.values[f];
    if (!virial.values.empty()) {
      const double* w = &virial.values[9 * f];
      s.virial = Mat3{{{w[0], w[1], w[2]}, {w[3], w[4], w[5]}, {w[6], w[7], w[8]}}};
    }
    if (const std::string p = s.problem(); !p.empty()) throw InputError(sd, 0, "frame " + std::to_string(f) + ": " + p);
    out.push_back(std::move(s));
  }
  return out;
}

bool is_system(const std::filesystem::path& p) { return std::filesystem::exists(p / "type.raw"); }

}  // namespace

Structure read_deepmd_frame(const std::string& dir, int set, int frame) {
  char name[32];
  std::snprintf(name, sizeof name, "/set.%03d/", set);
  return read_set(dir, dir + name, frame).front();
}

std::vector<Structure> read_deepmd_system(const std::string& dir) {
  std::vector<std::filesystem::path> sets;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_directory(ec) && it->path().filename().string().rfind("set.", 0) == 0) sets.push_back(it->path());
  if (ec) throw InputError(dir, 0, "cannot list the folder: " + ec.message());
  if (sets.empty()) throw InputError(dir, 0, "a deepmd/npy system needs set.* folders");
  std::sort(sets.begin(), sets.end());
  std::vector<Structure> out;
  for (const auto& sd : sets) {
    auto frames = read_set(dir, sd.string() + "/", -1);
    for (auto& f : frames) out.push_back(std::move(f));
  }
  return out;
}

std::vector<Structure> read_labelled_frames(const std::string& path) {
  namespace fs = std::filesystem;
  if (!fs::exists(path)) throw InputError(path, 0, "data not found");
  if (!fs::is_directory(path)) return is_n2p2_data(path) ? read_n2p2_data(path) : read_extxyz(path);
  if (is_system(path)) return read_deepmd_system(path);
  std::vector<fs::path> systems;
  for (const auto& e : fs::recursive_directory_iterator(path))
    if (e.is_directory() && is_system(e.path())) systems.push_back(e.path());
  if (systems.empty()) throw InputError(path, 0, "no deepmd/npy system (a folder with type.raw) below this folder");
  std::sort(systems.begin(), systems.end());
  std::vector<Structure> out;
  for (const auto& s : systems) {
    auto frames = read_deepmd_system(s.string());
    for (auto& f : frames) out.push_back(std::move(f));
  }
  return out;
}

}  // namespace quasar::io
