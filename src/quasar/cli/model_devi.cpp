#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "quasar/cli/args.hpp"
#include "quasar/cli/commands.hpp"
#include "quasar/cli/file_units.hpp"
#include "quasar/io/read.hpp"
#include "quasar/potential/evaluate.hpp"
#include "quasar/potential/model_devi.hpp"
#include "quasar/potential/registry.hpp"

namespace quasar::cli {

namespace {
const char* kHelp = R"(usage: quasar model-devi --models M1 M2 [M3 ...] --structure FILE [--format F] [--type-map A,B,...] [--units LENGTH,ENERGY] [--output FILE] [--device cpu|cuda|auto] [--precision double|mixed32|mixed16]

Model deviation of every frame of FILE (extended XYZ, LAMMPS data, a LAMMPS text dump, whose
--type-map names the numbered types 1, 2, ..., a deepmd/npy system or an n2p2 input.data; the
frames are evaluated many at a time, as one batch) for active learning, in the layout of DeePMD-kit's
`dp model-devi`: one line per frame with
  step max_devi_v min_devi_v avg_devi_v max_devi_f min_devi_f avg_devi_f
(virial deviations in eV per atom, force deviations in eV/Å). The step is the frame's `step` key
when it has one (a dump's timestep), else its index. Written to --output (atomically) or printed.
--units bohr,Ha (lengths angstrom or bohr, energies eV or Ha), as for quasar eval: the units of the
models' files where they do not state them (n2p2's) and of FILE's numbers; the deviations are then
in those units too (Ha per atom, Ha/bohr).
)";
}  // namespace

int model_devi_command(const std::vector<std::string>& argv) {
  // --models takes several values: gather them before the generic parser sees the rest.
  std::vector<std::string> rest, models;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    if (argv[i] == "--models") {
      while (i + 1 < argv.size() && argv[i + 1].rfind("--", 0) != 0) models.push_back(argv[++i]);
    } else {
      rest.push_back(argv[i]);
    }
  }
  const Args a = Args::parse(rest, {"--help"},
                             {"--structure", "--output", "--device", "--precision", "--format", "--type-map", "--units"});
  if (a.has("--help")) {
    std::cout << kHelp;
    return 0;
  }
  if (models.size() < 2) throw UsageError("model-devi needs at least two --models");
  if (!a.has("--structure")) throw UsageError("model-devi needs --structure");
  const Backend backend = parse_backend(a.get("--device", "auto"));
  const FileUnitsOption u = file_units_option(a);
  std::vector<ForceField> fields;  // a model may be a TOML force field of several terms
  for (const auto& m : models) {
    fields.push_back(load_force_field(m, u.model_options()));
    set_model_precision(fields.back(), a.get("--precision", "double"));
  }
  std::vector<ForceField*> pots;
  for (ForceField& f : fields) pots.push_back(&f);
  const std::string path = a.get("--structure");
  std::vector<Structure> frames = io::read_frames(path, a.get("--format", "auto"), type_map(a.get("--type-map")));
  to_engine_units(frames, u.units.length);
  std::ostringstream out;
  out << "#" << std::setw(11) << "step" << std::setw(19) << "max_devi_v" << std::setw(19) << "min_devi_v" << std::setw(19)
      << "avg_devi_v" << std::setw(19) << "max_devi_f" << std::setw(19) << "min_devi_f" << std::setw(19) << "avg_devi_f"
      << "\n";
  std::vector<ModelDeviation> deviations;  // the frames go in batches: one set of launches per batch and model
  for (const std::span<const Structure> batch : split_batches(frames))
    for (ModelDeviation d : model_deviations(pots, batch, backend)) {
      // eV/Å and eV per atom to the file's units
      for (double* f : {&d.max_f, &d.min_f, &d.avg_f}) *f *= u.units.length / u.units.energy;
      for (double* v : {&d.max_v, &d.min_v, &d.avg_v}) *v /= u.units.energy;
      deviations.push_back(d);
    }
  for (std::size_t k = 0; k < frames.size(); ++k) {
    const ModelDeviation& d = deviations[k];
    const auto it = frames[k].info.find("step");
    out << std::setw(12) << (it != frames[k].info.end() ? it->second : std::to_string(k)) << std::scientific
        << std::setprecision(10);
    for (double v : {d.max_v, d.min_v, d.avg_v, d.max_f, d.min_f, d.avg_f}) out << std::setw(19) << v;
    out << std::defaultfloat << "\n";
  }
  if (a.has("--output")) io::write_file_atomically(a.get("--output"), [&](std::ostream& o) { o << out.str(); });
  else std::cout << out.str();
  return 0;
}

}  // namespace quasar::cli
