#pragma once
// Runs Debian's LAMMPS on a structure and reads back what it computed, for side-by-side checks.
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "quasar/core/units.hpp"
#include "quasar/io/lammps_data.hpp"
#include "support.hpp"

namespace quasar::test {

struct LammpsResult {
  std::vector<double> thermo;              // the values of the thermo columns asked for, last line
  std::vector<std::vector<double>> dump;   // per atom (sorted by id): the dump columns asked for
};

// Writes the structure as a data file, runs `commands` (pair style, coefficients, run) after
// reading it, and returns the last thermo line and the last dump frame (columns after the id).
// `thermo` are thermo_style custom keywords and must start with "step"; `dump_columns` are dump
// custom keywords. `setup` comes before the thermo and dump lines (computes that they name). A
// structure with a topology is written as atom style molecular; `before_read` comes before read_data
// (the bond and angle styles that the file's Coeffs sections need).
inline LammpsResult run_lammps(const Structure& s, const std::string& commands, const std::string& thermo,
                               const std::string& dump_columns, const std::string& boundary = "p p p",
                               const std::string& name = "lammps", const std::string& setup = "",
                               const std::string& before_read = "") {
  const auto dir = scratch_dir(name);
  const std::string style = s.topology.empty() ? "atomic" : "molecular";
  io::write_lammps_data((dir / "data.lmp").string(), s, style);
  std::ofstream in(dir / "in.lmp");
  in << "units metal\natom_style " << style << "\natom_modify map array sort 0 0.0\nboundary " << boundary
     << "\n" << before_read << "read_data data.lmp\n"
     << setup << "thermo_style custom " << thermo << "\nthermo_modify format float %.17g norm no\n"
     << "dump d all custom 1 out.dump id " << dump_columns << "\ndump_modify d format float %.17g sort id\n"
     << commands << "\n";
  if (commands.find("\nrun") == std::string::npos && commands.rfind("run", 0) != 0) in << "run 0\n";
  in.close();
  const std::string cmd = "cd " + dir.string() + " && OMP_NUM_THREADS=1 " + lammps_executable() +
                          " -in in.lmp -log log.lammps -screen none > stdout.txt 2>&1";
  if (std::system(cmd.c_str()) != 0) {
    std::ifstream log(dir / "log.lammps");
    std::stringstream ss;
    ss << log.rdbuf();
    ADD_FAILURE() << "LAMMPS failed; log:\n" << ss.str();
    return {};
  }
  LammpsResult r;
  {
    // Thermo output: a header line starting with "Step", value lines, then "Loop time". Keep the last.
    std::ifstream log(dir / "log.lammps");
    std::string line;
    bool in_table = false;
    while (std::getline(log, line)) {
      std::istringstream ws(line);
      std::string w;
      ws >> w;
      if (w == "Step") in_table = true;
      else if (w == "Loop") in_table = false;
      else if (in_table) {
        std::istringstream vs(line);
        std::vector<double> v;
        double x;
        while (vs >> x) v.push_back(x);
        if (!v.empty()) r.thermo = v;
      }
    }
  }
  {
    std::ifstream dump(dir / "out.dump");
    std::string line;
    std::vector<std::vector<double>> frame;
    bool atoms = false;
    while (std::getline(dump, line)) {
      if (line.rfind("ITEM: ATOMS", 0) == 0) {
        atoms = true;
        frame.clear();
        continue;
      }
      if (line.rfind("ITEM:", 0) == 0) {
        atoms = false;
        continue;
      }
      if (!atoms) continue;
      std::istringstream vs(line);
      double id, x;
      vs >> id;
      std::vector<double> v;
      while (vs >> x) v.push_back(x);
      frame.push_back(v);
    }
    r.dump = frame;
  }
  std::filesystem::remove_all(dir);
  return r;
}

}  // namespace quasar::test
