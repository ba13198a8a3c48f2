// BerkeleyGW's epsilon.inp: keyword lines and the q-point block, read in one pass.
#include "quasar/gw/epsilon_input.hpp"

#include <cmath>
#include <map>

#include "quasar/core/error.hpp"
#include "quasar/gw/keyword_lines.hpp"

namespace quasar::gw {

namespace {

// Keywords of BerkeleyGW's Epsilon that select what this implementation does not provide: refused
// with that reason rather than as unknown.
const std::map<std::string, std::string>& unsupported() {
  static const std::map<std::string, std::string> m = {
      {"skip_chi", "restarts from a chi file are not provided"},
      {"skip_epsilon", "chi alone is not written: epsilon and its inverse always follow"},
      {"restart", "restarts are not provided"},
      {"stop_after_qpt", "restarts are not provided"},
      {"read_chi_maxmem_per_block", "chi files are not read"},
      {"cell_slab_truncation", "Coulomb truncation is not provided"},
      {"cell_wire_truncation", "Coulomb truncation is not provided"},
      {"cell_box_truncation", "Coulomb truncation is not provided"},
      {"spherical_truncation", "Coulomb truncation is not provided"},
      {"use_wfn_hdf5", "the mean fields come from EPM inputs"},
      {"degeneracy_check_override", "band counts that split degenerate states are refused"},
  };
  return m;
}

constexpr const char* kValid = "epsilon_cutoff, number_bands, frequency_dependence, begin qpoints ... end";

}  // namespace

EpsilonInput read_epsilon_input(const std::string& path) {
  KeywordLines in(path);
  EpsilonInput out;
  out.path = path;
  std::vector<std::string> words;
  std::string key;
  bool in_block = false, block_done = false;
  auto number = [&](const std::string& k, const std::string& w) { return in.number(k, w); };
  while (in.next(words, key)) {
    if (in_block) {
      if (key == "end") {
        if (words.size() != 1) in.fail("'end' takes no value");
        in_block = false;
        block_done = true;
        continue;
      }
      if (words.size() != 5)
        in.fail("'qpoints': expected 5 values on the line (qx qy qz divisor flag), found " + std::to_string(words.size()));
      EpsilonQPoint q;
      q.line = in.line_number();
      double divisor = number("qpoints", words[3]);
      if (!(divisor > 0)) in.fail("'qpoints': the divisor '" + words[3] + "' must be > 0");
      for (int d = 0; d < 3; ++d) q.q[d] = number("qpoints", words[d]) / divisor;
      const double flag = number("qpoints", words[4]);
      if (flag == 2) in.fail("'qpoints': flag 2 (q -> 0 of a metal) is not provided: insulators only");
      if (flag != 0 && flag != 1) in.fail("'qpoints': the flag '" + words[4] + "' must be 0 (regular) or 1 (q -> 0)");
      q.q0 = flag == 1;
      for (double x : q.q)
        if (std::abs(x) > 1e6) in.fail("'qpoints': coordinates beyond 10^6");
      if (q.q0 && q.q[0] == 0 && q.q[1] == 0 && q.q[2] == 0)
        in.fail("'qpoints': the q -> 0 point needs a small non-zero q (the shift of WFNq)");
      if (!q.q0 && q.q[0] == 0 && q.q[1] == 0 && q.q[2] == 0)
        in.fail("'qpoints': q = 0 needs the flag 1 (q -> 0) and a small q");
      out.qpoints.push_back(q);
      continue;
    }
    if (key == "begin") {
      if (words.size() != 2 || lower_case(words[1]) != "qpoints") in.fail("'begin' is followed by 'qpoints' alone");
      if (block_done) in.fail("a second 'begin qpoints' block");
      in_block = true;
      continue;
    }
    in.accept_keyword(words, key, unsupported(), {"epsilon_cutoff", "number_bands", "frequency_dependence"}, kValid);
    in.expect_values(words[0], words, 1);
    const std::string& w = words[1];
    if (key == "epsilon_cutoff") {
      out.cutoff_ry = number(words[0], w);
      if (!(out.cutoff_ry > 0) || out.cutoff_ry > 1e5) in.fail("'epsilon_cutoff': must be in (0, 1e5] Ry");
    } else if (key == "number_bands") {
      const double v = number(words[0], w);
      if (v != std::floor(v) || w.find_first_of(".eE") != std::string::npos || v < 2 || v > 1e6)
        in.fail("'number_bands': '" + w + "' is not an integer in [2, 10^6]");
      out.bands = static_cast<int>(v);
    } else if (number(words[0], w) != 0 || w.find_first_of(".eE") != std::string::npos) {
      in.fail("'frequency_dependence': only 0 (the static dielectric matrix) is provided");
    }
  }
  if (in_block) throw InputError(path, in.line_number(), "'begin qpoints' without its 'end'");
  if (!in.seen("epsilon_cutoff")) throw InputError(path, 0, "keyword 'epsilon_cutoff' is missing");
  if (!in.seen("number_bands")) throw InputError(path, 0, "keyword 'number_bands' is missing");
  if (out.qpoints.empty()) throw InputError(path, 0, "no q-points: give a 'begin qpoints ... end' block");
  int q0 = 0;
  for (const EpsilonQPoint& q : out.qpoints) q0 += q.q0;
  if (q0 > 1) throw InputError(path, 0, "'qpoints': more than one q -> 0 point (flag 1)");
  return out;
}

}  // namespace quasar::gw
