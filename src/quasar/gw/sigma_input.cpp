// BerkeleyGW's sigma.inp: keyword lines and the kpoints, offdiag and qpoints blocks, read in one pass.
#include "quasar/gw/sigma_input.hpp"

#include <cmath>
#include <map>

#include "quasar/core/error.hpp"
#include "quasar/gw/keyword_lines.hpp"

namespace quasar::gw {

namespace {

// Keywords of BerkeleyGW's Sigma that select what this implementation does not provide.
const std::map<std::string, std::string>& unsupported() {
  static const std::map<std::string, std::string> m = {
      {"screening_metal", "insulators only (semiconductor screening)"},
      {"screening_graphene", "insulators only (semiconductor screening)"},
      {"number_partial_occup", "insulators only"},
      {"band_occupations", "insulators only"},
      {"cell_slab_truncation", "Coulomb truncation is not provided"},
      {"cell_wire_truncation", "Coulomb truncation is not provided"},
      {"cell_box_truncation", "Coulomb truncation is not provided"},
      {"spherical_truncation", "Coulomb truncation is not provided"},
      {"cell_average_cutoff", "every v(q+G) is averaged over the mini zone, as BerkeleyGW's default for insulators"},
      {"screened_coulomb_cutoff", "the screened sums use every G-vector of the dielectric matrices"},
      {"finite_difference_form", "the forward difference (BerkeleyGW's default) alone is provided"},
      {"sigma_matrix", "give the elements in an offdiag block"},
      {"eqp_corrections", "quasiparticle corrections of the mean field are not read"},
      {"eqp_outer_corrections", "quasiparticle corrections of the mean field are not read"},
      {"spin_index_min", "one spin only"},
      {"spin_index_max", "one spin only"},
      {"use_wfn_hdf5", "the mean field comes from an EPM input or a wavefunction file"},
      {"use_xdat", "exchange matrix elements are always computed"},
      {"use_kihdat", "Vxc is the mean field's (zero for the EPM)"},
      {"skip_averagew", "W at q -> 0 is always averaged"},
      {"degeneracy_check_override", "degenerate states are always averaged"},
      {"dont_symmetrize", "not provided"},
      {"do_sigma_subspace", "not provided"},
  };
  return m;
}

const std::vector<std::string> kKnown = {
    "number_bands", "band_index_min", "band_index_max", "frequency_dependence", "exact_static_ch",
    "screening_semiconductor", "dont_use_vxcdat", "no_symmetries_q_grid", "use_symmetries_q_grid", "qgrid",
    "number_offdiag", "invalid_gpp_mode", "bare_coulomb_cutoff", "finite_difference_spacing",
    "no_symmetries_offdiagonals"};

constexpr const char* kValid =
    "number_bands, band_index_min, band_index_max, frequency_dependence, exact_static_ch, screening_semiconductor, "
    "dont_use_vxcdat, no_symmetries_q_grid, use_symmetries_q_grid, no_symmetries_offdiagonals, qgrid, number_offdiag, invalid_gpp_mode, "
    "bare_coulomb_cutoff, finite_difference_spacing, begin kpoints/offdiag/qpoints/berkeleygw_symmetries ... end";

}  // namespace

SigmaInput read_sigma_input(const std::string& path) {
  KeywordLines in(path);
  SigmaInput out;
  out.path = path;
  SigmaSettings& s = out.settings;
  s.band_min = s.band_max = 0;
  std::vector<std::string> words;
  std::string key, block;
  std::map<std::string, bool> block_done;
  int number_offdiag = -1;
  auto number = [&](const std::string& k, const std::string& w) { return in.number(k, w); };
  auto integer = [&](const std::string& k, const std::string& w, double lo, double hi) { return in.integer(k, w, lo, hi); };
  auto values = [&](const std::string& k, const std::vector<std::string>& ws, std::size_t n) { in.expect_values(k, ws, n); };
  while (in.next(words, key)) {
    if (!block.empty()) {
      if (key == "end") {
        if (words.size() != 1) in.fail("'end' takes no value");
        block_done[block] = true;
        block.clear();
        continue;
      }
      if (block == "kpoints") {
        if (words.size() != 4) in.fail("'kpoints': expected 4 values on the line (kx ky kz divisor), found " + std::to_string(words.size()));
        const double divisor = number("kpoints", words[3]);
        if (!(divisor > 0)) in.fail("'kpoints': the divisor '" + words[3] + "' must be > 0");
        Vec3d k{};
        for (int d = 0; d < 3; ++d) {
          k[d] = number("kpoints", words[d]) / divisor;
          if (std::abs(k[d]) > 1e6) in.fail("'kpoints': coordinates beyond 10^6");
        }
        s.kpoints.push_back(k);
        out.kpoint_lines.push_back(in.line_number());
      } else if (block == "offdiag") {
        if (words.size() != 3) in.fail("'offdiag': expected 3 band indices on the line (n m l), found " + std::to_string(words.size()));
        s.offdiagonal.push_back({integer("offdiag", words[0], 1, 1e6), integer("offdiag", words[1], 1, 1e6),
                                 integer("offdiag", words[2], 1, 1e6)});
      } else if (block == "berkeleygw_symmetries") {
        if (words.size() != 9) in.fail("'berkeleygw_symmetries': expected 9 integers on the line (an mtrx line of sigma_hp.log), found " + std::to_string(words.size()));
        IntMatrix3 m{};
        for (int i = 0; i < 9; ++i) m[i % 3][i / 3] = integer("berkeleygw_symmetries", words[static_cast<std::size_t>(i)], -1, 1);  // column by column
        s.operations.push_back(m);
      } else {
        if (words.size() != 5) in.fail("'qpoints': expected 5 values on the line (qx qy qz divisor flag), found " + std::to_string(words.size()));
        const double divisor = number("qpoints", words[3]);
        if (!(divisor > 0)) in.fail("'qpoints': the divisor '" + words[3] + "' must be > 0");
        Vec3d q{};
        for (int d = 0; d < 3; ++d) {
          q[d] = number("qpoints", words[d]) / divisor;
          if (std::abs(q[d]) > 1e6) in.fail("'qpoints': coordinates beyond 10^6");
        }
        const int flag = integer("qpoints", words[4], 0, 1);
        if (flag == 1 && (q[0] != 0 || q[1] != 0 || q[2] != 0)) in.fail("'qpoints': the q -> 0 point (flag 1) of Sigma is q = 0");
        out.qpoints.push_back(q);
      }
      continue;
    }
    if (key == "begin") {
      const std::string what = words.size() == 2 ? lower_case(words[1]) : "";
      if (what != "kpoints" && what != "offdiag" && what != "qpoints" && what != "berkeleygw_symmetries")
        in.fail("'begin' is followed by kpoints, offdiag, qpoints or berkeleygw_symmetries");
      if (block_done[what]) in.fail("a second 'begin " + what + "' block");
      block = what;
      continue;
    }
    in.accept_keyword(words, key, unsupported(), kKnown, kValid);
    if (key == "screening_semiconductor" || key == "dont_use_vxcdat" || key == "no_symmetries_q_grid" ||
        key == "use_symmetries_q_grid" || key == "no_symmetries_offdiagonals") {
      values(words[0], words, 0);
      if (key == "no_symmetries_offdiagonals") s.offdiagonal_symmetry = false;
      if (key == "no_symmetries_q_grid") out.symmetric_q_grid = false;
      if (key == "use_symmetries_q_grid") out.symmetric_q_grid = true;
      if (in.seen("no_symmetries_q_grid") && in.seen("use_symmetries_q_grid"))
        in.fail("'no_symmetries_q_grid' and 'use_symmetries_q_grid' contradict each other");
    } else if (key == "qgrid") {
      values(words[0], words, 3);
      for (int d = 0; d < 3; ++d) s.qgrid[d] = integer(words[0], words[1 + d], 1, 1000);
    } else {
      values(words[0], words, 1);
      const std::string& w = words[1];
      if (key == "number_bands") s.bands = integer(words[0], w, 1, 1e6);
      else if (key == "band_index_min") s.band_min = integer(words[0], w, 1, 1e6);
      else if (key == "band_index_max") s.band_max = integer(words[0], w, 1, 1e6);
      else if (key == "exact_static_ch") s.exact_static_ch = integer(words[0], w, 0, 1) == 1;
      else if (key == "number_offdiag") number_offdiag = integer(words[0], w, 0, 1e6);
      else if (key == "bare_coulomb_cutoff") {
        s.bare_cutoff_ry = number(words[0], w);
        if (!(s.bare_cutoff_ry > 0) || s.bare_cutoff_ry > 1e5) in.fail("'bare_coulomb_cutoff': must be in (0, 1e5] Ry");
      } else if (key == "finite_difference_spacing") {
        s.finite_difference_ev = number(words[0], w);
        if (!(s.finite_difference_ev > 0) || s.finite_difference_ev > 100) in.fail("'finite_difference_spacing': must be in (0, 100] eV");
      } else if (key == "invalid_gpp_mode") {
        const int mode = integer(words[0], w, -1, 3);
        if (mode == 1) in.fail("'invalid_gpp_mode': 1 (imaginary mode frequencies) needs complex arithmetic: not provided");
        s.invalid_gpp_mode = mode < 0 ? 3 : mode;
      } else {
        const int f = integer(words[0], w, -1, 3);
        if (f == 2 || f == 3) in.fail("'frequency_dependence': " + w + " (full frequency, Godby-Needs) is not provided: -1 (Hartree-Fock), 0 (COHSEX), 1 (GPP)");
        s.model = static_cast<SigmaModel>(f);
      }
    }
  }
  if (!block.empty()) throw InputError(path, in.line_number(), "'begin " + block + "' without its 'end'");
  if (s.kpoints.empty()) throw InputError(path, 0, "no k-points: give a 'begin kpoints ... end' block");
  if (!in.seen("band_index_min") || !in.seen("band_index_max"))
    throw InputError(path, 0, "keywords 'band_index_min' and 'band_index_max' are required");
  if (s.band_max < s.band_min) throw InputError(path, in.seen_line("band_index_max"), "'band_index_max' is below 'band_index_min'");
  if (s.model != SigmaModel::HartreeFock && !in.seen("number_bands"))
    throw InputError(path, 0, "keyword 'number_bands' is missing");
  if (s.model == SigmaModel::HartreeFock && out.qpoints.empty())
    throw InputError(path, 0, "Hartree-Fock needs a 'begin qpoints ... end' block (BerkeleyGW's rule)");
  if (s.model == SigmaModel::HartreeFock && !in.seen("qgrid")) throw InputError(path, 0, "Hartree-Fock needs 'qgrid'");
  if (number_offdiag >= 0 && static_cast<std::size_t>(number_offdiag) > s.offdiagonal.size())
    throw InputError(path, in.seen_line("number_offdiag"), "'number_offdiag' " + std::to_string(number_offdiag) +
                                                       " exceeds the offdiag block's " + std::to_string(s.offdiagonal.size()) + " lines");
  if (number_offdiag >= 0) s.offdiagonal.resize(static_cast<std::size_t>(number_offdiag));
  else if (!s.offdiagonal.empty()) throw InputError(path, 0, "an offdiag block needs 'number_offdiag'");
  for (const SigmaOffDiagonal& o : s.offdiagonal)
    for (int b : {o.n, o.m, o.l})
      if (b < s.band_min || b > s.band_max)
        throw InputError(path, 0, "'offdiag': band " + std::to_string(b) + " is outside band_index_min..band_index_max");
  // The static remainder (GPP) and the exact static CH (COHSEX): BerkeleyGW's defaults.
  if (!in.seen("exact_static_ch")) s.exact_static_ch = s.model == SigmaModel::Cohsex;
  if (!s.operations.empty() && s.operations.front() != IntMatrix3{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}})
    throw InputError(path, 0, "'berkeleygw_symmetries': the first operation must be the identity, as in BerkeleyGW's files");
  s.symmetric_q_grid = out.symmetric_q_grid;
  return out;
}

}  // namespace quasar::gw
