#include "quasar/io/deepmd_npy.hpp"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

#include "quasar/core/error.hpp"

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

Structure read_deepmd_frame(const std::string& dir, int set, int frame) {
  char name[32];
  std::snprintf(name, sizeof name, "/set.%03d/", set);
  const std::string sd = dir + name;
  const NpyArray box = read_npy(sd + "box.npy"), coord = read_npy(sd + "coord.npy");
  const std::vector<std::string> type_words = words(dir + "/type.raw"), type_map = words(dir + "/type_map.raw");
  const std::size_t n = type_words.size();
  const std::size_t frames = box.shape.empty() ? 0 : box.shape[0];
  if (frame < 0 || static_cast<std::size_t>(frame) >= frames) throw InputError(sd + "box.npy", 0, "no frame " + std::to_string(frame));
  if (box.values.size() != 9 * frames) throw InputError(sd + "box.npy", 0, "expected 9 values per frame");
  if (coord.values.size() != 3 * n * frames)
    throw InputError(sd + "coord.npy", 0, "expected 3 x " + std::to_string(n) + " values per frame (type.raw)");
  Structure s;
  for (const auto& t : type_map) s.type_index(t);
  const double* h = &box.values[9 * static_cast<std::size_t>(frame)];
  s.box = Box::from_matrix({{{h[0], h[1], h[2]}, {h[3], h[4], h[5]}, {h[6], h[7], h[8]}}});
  const double* x = &coord.values[3 * n * static_cast<std::size_t>(frame)];
  for (std::size_t i = 0; i < n; ++i) {
    const int t = std::stoi(type_words[i]);
    if (t < 0 || t >= static_cast<int>(type_map.size()))
      throw InputError(dir + "/type.raw", static_cast<long>(i) + 1, "type index out of type_map.raw's range");
    s.types.push_back(t);
    s.positions.push_back({x[3 * i], x[3 * i + 1], x[3 * i + 2]});
  }
  return s;
}

}  // namespace quasar::io
