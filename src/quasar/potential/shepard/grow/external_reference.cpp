// The reference program of a growth loop (external_reference.hpp).
#include "quasar/potential/shepard/grow/external_reference.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "quasar/core/error.hpp"
#include "quasar/potential/shepard/cartesian_points.hpp"

extern char** environ;

namespace quasar::shepard {

namespace {

// A path written relative to the input file's folder, when a file of that name is there.
std::string beside_input(const std::string& path, const std::filesystem::path& base) {
  const std::filesystem::path p(path);
  if (p.is_absolute() || path.find('/') == std::string::npos) return path;
  const std::filesystem::path there = base / p;
  return std::filesystem::exists(there) ? there.lexically_normal().string() : path;
}

std::string quoted(const std::vector<std::string>& words) {
  std::string s;
  for (const std::string& w : words) s += (s.empty() ? "" : " ") + (w.find(' ') == std::string::npos ? w : "'" + w + "'");
  return s;
}

std::string last_lines(const std::filesystem::path& path, int count) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::string s;
  for (std::size_t k = lines.size() > static_cast<std::size_t>(count) ? lines.size() - static_cast<std::size_t>(count) : 0;
       k < lines.size(); ++k)
    s += "\n  " + lines[k];
  return s.empty() ? " (nothing on standard error)" : s;
}

// The command's exit status (a signal as 128 + its number), its output to `log`.
int run_command(const std::vector<std::string>& argv, const std::filesystem::path& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int started = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (started != 0) return -started;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -errno;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
}

}  // namespace

ExternalReference external_reference_from_config(const ConfigTable& t, const std::filesystem::path& base) {
  const std::string type = t.get_string("type", "pyscf");
  ExternalReference r;
  if (type == "command") {
    t.allow_only({"type", "command"});
    r.command = t.get_strings("command");
    if (r.command.empty() || r.command[0].empty()) t.fail("command", "needs the program to run");
    for (std::string& w : r.command) w = beside_input(w, base);
    r.description = quoted(r.command);
    return r;
  }
  if (type != "pyscf") t.fail("type", "takes \"pyscf\" or \"command\", not \"" + type + "\"");
  t.allow_only({"type", "method", "basis", "charge", "spin", "threads", "python", "script", "conv_tol"});
  const std::string method = t.get_string("method", "hf"), basis = t.get_string("basis", "6-31g**");
  if (method.empty() || method.find_first_of(" \t") != std::string::npos)
    t.fail("method", "expected \"hf\" or a functional PySCF knows (\"b3lyp\", ...)");
  if (basis.empty() || basis.find_first_of(" \t") != std::string::npos) t.fail("basis", "expected a basis set name");
  const long charge = t.get_int("charge", 0, -100, 100);
  const long spin = t.get_int("spin", 1, 0, 100);
  const long threads = t.get_int("threads", 0, 0, 4096);
  const double conv_tol = t.get_double("conv_tol", 1e-10);
  if (!(conv_tol > 0 && conv_tol < 1)) t.fail("conv_tol", "must lie in (0, 1) hartree");
  const std::string python = t.get_string("python", "python3");
  if (python.empty()) t.fail("python", "needs the Python interpreter to run");
  r.command = {python};
  if (t.has("script")) {
    const std::string script = beside_input(t.get_string("script"), base);
    if (!std::filesystem::is_regular_file(script)) t.fail("script", "no file '" + script + "'");
    r.command.push_back(script);
  } else {
    r.command.insert(r.command.end(), {"-m", "quasar.shepard.pyscf_reference"});
  }
  std::ostringstream tol;
  tol << std::setprecision(17) << conv_tol;
  r.command.insert(r.command.end(), {"--method", method, "--basis", basis, "--charge", std::to_string(charge), "--spin",
                                     std::to_string(spin), "--conv-tol", tol.str(), "--quiet"});
  if (threads > 0) r.command.insert(r.command.end(), {"--threads", std::to_string(threads)});
  std::string level = method == "hf" ? "HF" : method;
  for (char& c : level) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::string basis_name = basis;
  for (char& c : basis_name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  r.description = "PySCF " + std::string(spin ? "U" : "R") + level + "/" + basis_name + " (charge " +
                  std::to_string(charge) + ", 2S = " + std::to_string(spin) + ")";
  return r;
}

ReferenceBatch run_external_reference(const ExternalReference& reference, const std::vector<std::string>& elements,
                                      const std::vector<std::vector<double>>& configs) {
  ReferenceBatch batch;
  batch.points.resize(configs.size());
  batch.failures.resize(configs.size());
  if (configs.empty()) return batch;
  std::string pattern = (std::filesystem::temp_directory_path() / "quasar-reference-XXXXXX").string();
  if (!mkdtemp(pattern.data())) throw Error("grow: cannot make a folder for the reference program under " +
                                            std::filesystem::temp_directory_path().string());
  const std::filesystem::path folder(pattern);
  const auto geometries = folder / "geometries.xyz", points = folder / "points.txt", failed = folder / "failures.txt",
             log = folder / "stderr.txt";
  {
    std::ofstream out(geometries);
    out << std::setprecision(17);
    for (std::size_t c = 0; c < configs.size(); ++c) {
      out << elements.size() << "\nconfiguration " << c + 1 << " (Å)\n";
      for (std::size_t a = 0; a < elements.size(); ++a)
        out << elements[a] << ' ' << configs[c][3 * a] << ' ' << configs[c][3 * a + 1] << ' ' << configs[c][3 * a + 2] << '\n';
    }
    if (!out) throw Error("grow: cannot write " + geometries.string());
  }
  std::vector<std::string> argv = reference.command;
  argv.insert(argv.end(), {geometries.string(), points.string(), "--failures", failed.string()});
  const int status = run_command(argv, log);
  auto fail = [&](const std::string& why) -> void {
    throw Error("grow: the reference command `" + quoted(argv) + "` " + why + "; its output (kept in " + folder.string() +
                "):" + last_lines(log, 20));
  };
  if (status < 0) fail("could not start (" + std::string(std::strerror(-status)) + ")");
  if (status != 0) fail("failed (exit status " + std::to_string(status) + ")");
  long failures = 0;
  if (std::filesystem::exists(failed)) {
    std::ifstream in(failed);
    for (std::string line; std::getline(in, line);) {
      std::istringstream words(line);
      long frame = 0;
      std::string reason;
      if (!(words >> frame)) continue;  // a blank line
      std::getline(words, reason);
      if (frame < 1 || frame > static_cast<long>(configs.size()) || !batch.failures[static_cast<std::size_t>(frame - 1)].empty())
        fail("listed frame " + std::to_string(frame) + " as failed in " + failed.string() + " (of " +
             std::to_string(configs.size()) + " frames, each once)");
      const std::size_t start = reason.find_first_not_of(" \t");
      batch.failures[static_cast<std::size_t>(frame - 1)] = start == std::string::npos ? "no reason given" : reason.substr(start);
      ++failures;
    }
  }
  std::vector<CartesianPoint> got;
  if (failures < static_cast<long>(configs.size())) {
    CartesianPoints c;
    try {
      c = read_cartesian_points(points.string());
    } catch (const Error& e) {  // a missing file as well as a malformed one
      fail(std::string("wrote a points file that does not read: ") + e.what());
    }
    if (c.elements != elements) fail("wrote points of other elements than the configurations'");
    got = std::move(c.points);
  }
  if (static_cast<long>(got.size()) + failures != static_cast<long>(configs.size()))
    fail("wrote " + std::to_string(got.size()) + " points and " + std::to_string(failures) + " failures for " +
         std::to_string(configs.size()) + " configurations");
  std::size_t next = 0;
  for (std::size_t c = 0; c < configs.size(); ++c) {
    if (!batch.failures[c].empty()) continue;
    CartesianPoint& p = got[next++];
    for (std::size_t i = 0; i < configs[c].size(); ++i)
      if (!(std::abs(p.positions[i] - configs[c][i]) <= 1e-8))
        fail("wrote a point whose positions are not configuration " + std::to_string(c + 1) + "'s");
    p.positions = configs[c];
    batch.points[c] = std::move(p);
  }
  std::error_code ignored;
  std::filesystem::remove_all(folder, ignored);
  return batch;
}

}  // namespace quasar::shepard
