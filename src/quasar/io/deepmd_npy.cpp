#include "quasar/io/deepmd_npy.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "quasar/core/error.hpp"
#include "quasar/io/extxyz.hpp"
#include "quasar/io/n2p2_data.hpp"

namespace quasar::io {

NpyArray read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "cannot open .npy file");
  char magic[8];
  if (!in.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0) throw InputError(path, 0, "not a .npy file");
  const int major = static_cast<unsigned char>(magic[6]);
  std::uint32_t hlen = 0;
  unsigned char b[4] = {0, 0, 0, 0};
  if (!in.read(reinterpret_cast<char*>(b), major == 1 ? 2 : 4)) throw InputError(path, 0, "truncated .npy header");
  hlen = b[0] | (b[1] << 8) | (major == 1 ? 0u : (static_cast<std::uint32_t>(b[2]) << 16 | static_cast<std::uint32_t>(b[3]) << 24));
  std::string header(hlen, ' ');
  if (!in.read(header.data(), hlen)) throw InputError(path, 0, "truncated .npy header");
  std::smatch m;
  if (!std::regex_search(header, m, std::regex("'descr':\\s*'([<|=])([fi])([48])'")))
    throw InputError(path, 0, "unsupported dtype in .npy header (little-endian float32/64 or int32/64 only): " + header);
  const char kind = m[2].str()[0];
  const int size = m[3].str()[0] - '0';
  if (std::regex_search(header, std::regex("'fortran_order':\\s*True")))
    throw InputError(path, 0, "Fortran-ordered .npy arrays are not supported");
  if (!std::regex_search(header, m, std::regex("'shape':\\s*\\(([0-9, ]*)\\)")))
    throw InputError(path, 0, "no shape in .npy header");
  NpyArray a;
  std::size_t count = 1;
  std::stringstream ss(m[1].str());
  for (std::string tok; std::getline(ss, tok, ',');)
    if (tok.find_first_not_of(' ') != std::string::npos) {
      a.shape.push_back(std::stoul(tok));
      count *= a.shape.back();
    }
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
std::vector<std::string> words(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, 0, "cannot open");
  std::vector<std::string> w;
  for (std::string s; in >> s;) w.push_back(s);
  return w;
}
}  // namespace

namespace {

// One set folder's frames (all, or only `only` when >= 0).
std::vector<Structure> read_set(const std::string& dir, const std::string& sd, int only) {
  const NpyArray box = read_npy(sd + "box.npy"), coord = read_npy(sd + "coord.npy");
  const std::vector<std::string> type_words = words(dir + "/type.raw"), type_map = words(dir + "/type_map.raw");
  const std::size_t n = type_words.size();
  const std::size_t frames = box.shape.empty() ? 0 : box.shape[0];
  if (only >= 0 && static_cast<std::size_t>(only) >= frames) throw InputError(sd + "box.npy", 0, "no frame " + std::to_string(only));
  if (box.values.size() != 9 * frames) throw InputError(sd + "box.npy", 0, "expected 9 values per frame");
  if (coord.values.size() != 3 * n * frames)
    throw InputError(sd + "coord.npy", 0, "expected 3 x " + std::to_string(n) + " values per frame (type.raw)");
  // Optional labels, checked against the frame count.
  auto label = [&](const char* name, std::size_t per_frame) {
    NpyArray a;
    if (std::filesystem::exists(sd + name)) {
      a = read_npy(sd + name);
      if (a.values.size() != per_frame * frames)
        throw InputError(sd + name, 0, "expected " + std::to_string(per_frame) + " values per frame");
    }
    return a;
  };
  const NpyArray energy = label("energy.npy", 1), force = label("force.npy", 3 * n), virial = label("virial.npy", 9);
  std::vector<Structure> out;
  for (std::size_t f = only >= 0 ? only : 0; f < (only >= 0 ? only + 1 : frames); ++f) {
    Structure s;
    for (const auto& t : type_map) s.type_index(t);
    const double* h = &box.values[9 * f];
    s.box = Box::from_matrix({{{h[0], h[1], h[2]}, {h[3], h[4], h[5]}, {h[6], h[7], h[8]}}});
    const double* x = &coord.values[3 * n * f];
    for (std::size_t i = 0; i < n; ++i) {
      const int t = std::stoi(type_words[i]);
      if (t < 0 || t >= static_cast<int>(type_map.size()))
        throw InputError(dir + "/type.raw", static_cast<long>(i) + 1, "type index out of type_map.raw's range");
      s.types.push_back(t);
      s.positions.push_back({x[3 * i], x[3 * i + 1], x[3 * i + 2]});
      if (!force.values.empty()) s.forces.push_back({force.values[3 * n * f + 3 * i], force.values[3 * n * f + 3 * i + 1],
                                                     force.values[3 * n * f + 3 * i + 2]});
    }
    if (!energy.values.empty()) s.energy = energy.values[f];
    if (!virial.values.empty()) {
      const double* w = &virial.values[9 * f];
      s.virial = Mat3{{{w[0], w[1], w[2]}, {w[3], w[4], w[5]}, {w[6], w[7], w[8]}}};
    }
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
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.is_directory() && e.path().filename().string().rfind("set.", 0) == 0) sets.push_back(e.path());
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
