#include <iomanip>
#include <iostream>

#include <nlohmann/json.hpp>

#include "quasar/cli/args.hpp"
#include "quasar/cli/commands.hpp"
#include "quasar/cli/file_units.hpp"
#include "quasar/io/read.hpp"
#include "quasar/potential/evaluate.hpp"
#include "quasar/potential/registry.hpp"

namespace quasar::cli {

namespace {
const char* kEvalHelp = R"(usage: quasar eval --model MODEL --structure FILE [--format F] [--type-map A,B,...] [--units LENGTH,ENERGY] [--device cpu|cuda|auto] [--precision double|mixed32|mixed16] [--json] [--per-atom] [--deterministic]

Energy (eV), forces (eV/Å) and virial (eV, LAMMPS convention) of every structure in FILE (extended
XYZ frames, a LAMMPS data file, the frames of a LAMMPS text dump, a deepmd/npy system or an n2p2
input.data; --format extxyz, lammps-data, lammps-dump, deepmd or n2p2 when the name does not tell).
The frames are evaluated together, many at a time, as one batch of independent systems. --type-map names LAMMPS's numbered types 1, 2, ... MODEL: an EAM file (.eam, .eam.alloy), a Tinker key (.key: AMOEBA, with a Tinker .xyz structure;
the text output is then Tinker's analyze: the total and each term in kcal/mol), a DeePMD-kit model (.dp,
.yaml), an n2p2 model folder (holding input.nn) or a TOML file with a [potential] table or several
[[potential]] tables (a force field whose terms add). --units bohr,Ha (lengths angstrom or bohr,
energies eV or Ha) says the units of the model's files where they do not state them (n2p2's) and of
FILE's numbers; the results are then reported in those units too (energy Ha, forces Ha/bohr). --json prints one object per structure with keys energy (the total), terms (the energy
of each named term), forces, virial (and atom_energy, atom_virial with --per-atom); an array of them
when FILE has several frames. The text output lists the terms when there are several.
--deterministic: GPU sums in 64-bit fixed point, so that repeated evaluations give the same bits.
)";

nlohmann::json to_json(const Evaluation& e, bool per_atom) {
  nlohmann::json j;
  j["energy"] = e.energy;
  auto& terms = j["terms"] = nlohmann::json::object();
  for (const TermEnergy& t : e.terms) terms[t.name] = t.energy;
  auto& f = j["forces"] = nlohmann::json::array();
  for (const auto& v : e.forces) f.push_back({v.x, v.y, v.z});
  j["virial"] = {{e.virial(0, 0), e.virial(0, 1), e.virial(0, 2)},
                 {e.virial(1, 0), e.virial(1, 1), e.virial(1, 2)},
                 {e.virial(2, 0), e.virial(2, 1), e.virial(2, 2)}};
  if (per_atom) {
    j["atom_energy"] = e.atom_energy;
    auto& w = j["atom_virial"] = nlohmann::json::array();
    for (const auto& m : e.atom_virial)
      w.push_back({m(0, 0), m(0, 1), m(0, 2), m(1, 0), m(1, 1), m(1, 2), m(2, 0), m(2, 1), m(2, 2)});
  }
  return j;
}
}  // namespace

int eval_command(const std::vector<std::string>& argv) {
  const Args a = Args::parse(argv, {"--help", "--json", "--per-atom", "--deterministic"},
                             {"--model", "--structure", "--device", "--precision", "--format", "--type-map", "--units"});
  if (a.has("--help")) {
    std::cout << kEvalHelp;
    return 0;
  }
  if (!a.positional.empty()) throw UsageError("eval takes no positional arguments");
  if (!a.has("--model") || !a.has("--structure")) throw UsageError("eval needs --model and --structure");
  const Backend backend = parse_backend(a.get("--device", "auto"));
  const FileUnitsOption u = file_units_option(a);
  ForceField ff = load_force_field(a.get("--model"), u.model_options());
  set_model_precision(ff, a.get("--precision", "double"));
  const std::string path = a.get("--structure");
  std::vector<Structure> frames = io::read_frames(path, a.get("--format", "auto"), type_map(a.get("--type-map")));
  to_engine_units(frames, u.units.length);
  const std::string& energy_name = u.energy_name;
  const std::string& length_name = u.length_name;
  const bool per_atom = a.has("--per-atom");
  nlohmann::json all = nlohmann::json::array();
  // A family's own text report, when every term is of one family that has one.
  const PotentialFamily* family = ff.empty() ? nullptr : potential_registry().family_of(ff.potential(0));
  for (const ForceField::Term& t : ff.terms())
    if (potential_registry().family_of(*t.potential) != family) family = nullptr;
  const auto report = family ? family->report : nullptr;
  // The frames go to the device in batches (potential/evaluate.hpp): one set of launches per batch.
  std::vector<Evaluation> results;
  for (const std::span<const Structure> batch : split_batches(frames)) {
    std::vector<Evaluation> got = evaluate_batch(ff, batch, backend, per_atom, a.has("--deterministic"));
    for (Evaluation& e : got) {
      to_file_units(e, u.units);
      results.push_back(std::move(e));
    }
  }
  for (std::size_t k = 0; k < frames.size(); ++k) {
    const Evaluation& e = results[k];
    if (a.has("--json")) {
      all.push_back(to_json(e, per_atom));
      continue;
    }
    if (report && !u.given) {  // the family's own report (Tinker's analyze for a .key)
      std::cout << (frames.size() > 1 ? "structure " + std::to_string(k) + "\n" : std::string());
      report(ff, e, std::cout);
      continue;
    }
    std::cout << std::setprecision(12) << "structure " << k << ": " << frames[k].size() << " atoms\n"
              << "energy " << e.energy << " " << energy_name << "\n";
    if (e.terms.size() > 1)
      for (const TermEnergy& t : e.terms) std::cout << "  " << t.name << " " << t.energy << " " << energy_name << "\n";
    std::cout << "virial (" << energy_name << ")\n";
    for (int r = 0; r < 3; ++r) std::cout << "  " << e.virial(r, 0) << " " << e.virial(r, 1) << " " << e.virial(r, 2) << "\n";
    std::cout << "forces (" << energy_name << "/" << length_name << ")\n";
    for (std::size_t i = 0; i < e.forces.size(); ++i)
      std::cout << "  " << i << " " << frames[k].type_names[frames[k].types[i]] << " " << e.forces[i].x << " "
                << e.forces[i].y << " " << e.forces[i].z << (per_atom ? " energy " + std::to_string(e.atom_energy[i]) : "")
                << "\n";
  }
  if (a.has("--json")) std::cout << std::setprecision(17) << (all.size() == 1 ? all[0] : all).dump(1) << "\n";
  return 0;
}

}  // namespace quasar::cli
