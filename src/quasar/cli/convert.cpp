// `quasar convert`: labelled frames from other codes into extended XYZ or n2p2's input.data.
#include <iostream>

#include "quasar/cli/args.hpp"
#include "quasar/cli/commands.hpp"
#include "quasar/io/deepmd_npy.hpp"
#include "quasar/io/espresso.hpp"
#include "quasar/io/extxyz.hpp"
#include "quasar/io/n2p2_data.hpp"

namespace quasar::cli {

namespace {
const char* kHelp = R"(usage: quasar convert --output OUTPUT [--output-format extxyz|n2p2] [--units LENGTH,ENERGY]
                      INPUT [INPUT ...]

Writes the labelled frames of every INPUT (Quantum ESPRESSO pw.x scf outputs with forces and
stress; deepmd/npy systems or folders of them; n2p2 input.data; extended XYZ) to one extended XYZ
file with energy (eV), forces (eV/Å) and virial (eV), which `quasar train` and `quasar test` read.

  --output-format n2p2  write n2p2's input.data instead (energies and forces, no virial; every
                frame needs both), in the units of --units
  --units L,E   the units of n2p2 input.data files, read and written, which do not say: angstrom
                or bohr, eV or Ha (default angstrom,eV; n2p2's water example is bohr,Ha)
)";
}  // namespace

int convert_command(const std::vector<std::string>& argv) {
  const Args a = Args::parse(argv, {"--help"}, {"--output", "--output-format", "--units"});
  if (a.has("--help")) {
    std::cout << kHelp;
    return 0;
  }
  const std::string out = a.get("--output");
  if (out.empty() || a.positional.empty()) throw UsageError("convert needs --output and at least one input");
  const std::string format = a.get("--output-format", "extxyz");
  if (format != "extxyz" && format != "n2p2")
    throw UsageError("--output-format must be extxyz or n2p2, not '" + format + "'");
  const units::FileUnits units = units::parse_file_units(a.get("--units", "angstrom,eV"));
  std::vector<Structure> frames;
  for (const auto& p : a.positional) {
    if (io::is_pw_output(p)) frames.push_back(io::read_pw_output(p));
    else if (io::is_n2p2_data(p))
      for (auto& f : io::read_n2p2_data(p, units)) frames.push_back(std::move(f));
    else
      for (auto& f : io::read_labelled_frames(p)) frames.push_back(std::move(f));
  }
  if (format == "n2p2") io::write_n2p2_data(out, frames, units);
  else io::write_extxyz(out, frames);
  std::cout << "wrote " << frames.size() << " frames to " << out << "\n";
  return 0;
}

}  // namespace quasar::cli
