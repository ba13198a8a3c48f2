// sigma_hp.log (BerkeleyGW's columns and widths: i4 then f15.9 per value) and the JSON summary.
#include "quasar/gw/sigma_output.hpp"

#include <cstdio>
#include <nlohmann/json.hpp>

namespace quasar::gw {

namespace {

std::string format(const char* f, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, f, args...);
  return buf;
}

std::string values(const std::vector<double>& v) {
  std::string s;
  for (double x : v) s += format("%15.9f", x);
  return s;
}

}  // namespace

std::string sigma_hp_log(const SigmaResult& r, bool exact_static_ch) {
  // The primed columns (without the static remainder) appear for GPP with the remainder, as there.
  const bool primed = r.model == SigmaModel::Gpp && exact_static_ch;
  const char* titles[] = {"  Emf", "   Eo", "    X", " SX-X", "   CH", "  Sig", "  Vxc", " Eqp0", " Eqp1"};
  std::string out;
  for (std::size_t ik = 0; ik < r.k.size(); ++ik) {
    const SigmaOfK& k = r.k[ik];
    out += format("       k =%10.6f%10.6f%10.6f ik =%4zu spin =%2d\n", k.k[0], k.k[1], k.k[2], ik + 1, 1);
    out += "\n   n";
    for (const char* t : titles) out += std::string(10, ' ') + t;
    if (primed)
      for (const char* t : {"  CH`", " Sig`", "Eqp0`", "Eqp1`"}) out += std::string(10, ' ') + t;
    out += std::string(10, ' ') + "  Znk\n";
    for (const SigmaElement& e : k.diagonal) {
      std::vector<double> v{e.emf, e.emf, e.x, e.sx, e.ch, e.sig, e.vxc, e.eqp0, e.eqp1};
      if (primed) v.insert(v.end(), {e.ch_partial, e.sig_partial, e.eqp0_partial, e.eqp1_partial});
      v.push_back(e.znk);
      out += format("%4d", e.n) + values(v) + "\n";
    }
    if (!k.offdiagonal.empty()) {
      out += "\n   E2 = E0\n";
      out += "   n   m   l                        X       SX(E2)-X         CH(E2)        Sig(E2)            Vxc";
      out += primed ? "        CH`(E2)       Sig`(E2)\n" : "\n";
      for (const SigmaElement& e : k.offdiagonal) {
        std::vector<double> v{e.x, e.sx, e.ch, e.sig, e.vxc};
        if (primed) v.insert(v.end(), {e.ch_partial, e.sig_partial});
        out += format("%4d%4d%4d   real   ", e.n, e.m, e.l) + values(v) + "\n";
      }
    }
    out += "\n";
  }
  return out;
}

std::string sigma_json(const SigmaResult& r) {
  using nlohmann::json;
  const char* model = r.model == SigmaModel::Gpp ? "gpp" : r.model == SigmaModel::Cohsex ? "cohsex" : "hartree-fock";
  json out = {{"format", "quasar-gw-sigma"},
              {"model", model},
              {"energy_units", "eV"},
              {"qpoints", r.qpoints},
              {"coulomb_head_ry_bohr3", r.coulomb_head},
              {"plasma_frequency_squared_ry2", r.plasma_frequency2}};
  auto element = [](const SigmaElement& e) {
    return json{{"n", e.n}, {"m", e.m}, {"l", e.l}, {"emf", e.emf}, {"x", e.x}, {"sx_minus_x", e.sx}, {"ch", e.ch},
                {"ch_without_remainder", e.ch_partial}, {"sig", e.sig}, {"sig_without_remainder", e.sig_partial},
                {"vxc", e.vxc}, {"eqp0", e.eqp0}, {"eqp1", e.eqp1}, {"znk", e.znk}};
  };
  json ks = json::array();
  for (const SigmaOfK& k : r.k) {
    json d = json::array(), o = json::array();
    for (const auto& e : k.diagonal) d.push_back(element(e));
    for (const auto& e : k.offdiagonal) o.push_back(element(e));
    ks.push_back({{"k", k.k}, {"diagonal", d}, {"offdiagonal", o}});
  }
  out["kpoints"] = ks;
  return out.dump(2) + "\n";
}

}  // namespace quasar::gw
