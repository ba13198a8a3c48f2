// The amoeba family in the registry: a Tinker .key file is a force field of one term per energy
// term (amoeba_term.hpp); a [potential] table of type "amoeba" names one of them (key, term).
#include <cstdio>
#include <ostream>

#include "quasar/core/units.hpp"
#include "quasar/potential/amoeba/amoeba_term.hpp"
#include "quasar/potential/registry.hpp"

namespace quasar::amoeba {

namespace {
// Tinker's analyze: the total and each term in kcal/mol with its number of interactions (terms with
// none are left out, as Tinker leaves them).
// The key's `digits` (4, 6 or 8 decimals) as Tinker honours it.
void report(const ForceField& ff, const Evaluation& e, std::ostream& out) {
  int digits = 4;
  if (const auto* first = dynamic_cast<const AmoebaTerm*>(ff.terms().front().potential.get())) {
    const auto& settings = first->parameters().header.settings;
    if (const auto it = settings.find("digits"); it != settings.end()) {
      if (it->second == "6") digits = 6;
      if (it->second == "8") digits = 8;
    }
  }
  char line[160];
  std::snprintf(line, sizeof line, " Total Potential Energy :%*.*f Kcal/mole\n\n", 20 + digits, digits,
                e.energy / units::kcal_mol);
  out << line << " Energy Component Breakdown :           Kcal/mole        Interactions\n\n";
  for (std::size_t k = 0; k < e.terms.size(); ++k) {
    const auto* term = dynamic_cast<const AmoebaTerm*>(ff.terms()[k].potential.get());
    const std::string name = tinker_term_name(e.terms[k].name);
    const long count = term ? term->entries() : -1;
    if (count == 0 && e.terms[k].energy == 0) continue;  // as Tinker, which lists only terms that interact
    std::snprintf(line, sizeof line, " %-33s%*.*f", (name.empty() ? e.terms[k].name : name).c_str(), 10 + digits,
                  digits, e.terms[k].energy / units::kcal_mol);
    out << line;
    if (count >= 0) {
      std::snprintf(line, sizeof line, "%17ld", count);
      out << line;
    }
    out << "\n";
  }
}

std::unique_ptr<Potential> from_config(const ConfigTable& t, const std::filesystem::path& base_dir) {
  t.allow_only({"type", "name", "group", "key", "term", "precision"});
  std::filesystem::path key(t.get_string("key"));
  if (key.is_relative()) key = base_dir / key;
  const std::string term = t.get_string("term");
  auto p = std::make_shared<const Parameters>(read_parameters(key.string()));
  for (int k = 0; k < kTerms; ++k) {
    const std::string keyword = term_keyword(static_cast<Term>(k));
    if (keyword.substr(0, keyword.size() - 4) != term) continue;
    std::unique_ptr<AmoebaTerm> potential;
    try {
      potential = std::make_unique<AmoebaTerm>(p, static_cast<Term>(k));
    } catch (const Error& e) {
      t.fail("term", e.what());
    }
    try {
      potential->set_precision(parse_precision(t.get_string("precision", "double")));
    } catch (const Error& e) {
      t.fail("precision", e.what());
    }
    return potential;
  }
  t.fail("term", "expected bond, angle, strbnd, urey, opbend, torsion, pitors, tortor, angtor, strtor, vdw, mpole or polarize, found '" + term + "'");
}
}  // namespace

void register_family(PotentialRegistry& registry) {
  PotentialFamily f;
  f.name = "amoeba";
  f.description = "AMOEBA from Tinker files (.key with its .prm; .xyz structures): every term of AMOEBA (valence and cross terms, vdW with its long-range correction, multipoles and polarization in the gas phase, with a cutoff or PME); on the GPU in double or mixed32: every term's pairs and entries as kernels, the electrostatics' lists, frames and totals on the host";
  f.capabilities.gpu = true;
  f.capabilities.per_atom = true;
  f.capabilities.precisions = {Precision::Double, Precision::Mixed32};
  f.from_config = from_config;
  f.model_extensions = {".key"};
  f.force_field_from_file = [](const std::string& path, const ModelOptions&) { return load_tinker_force_field(path); };
  f.report = report;
  registry.add(std::move(f));
}

}  // namespace quasar::amoeba
