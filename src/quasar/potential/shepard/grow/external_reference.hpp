#pragma once
// A reference method run as a child process: the growth loop writes the configurations to compute
// as a multi-frame XYZ file and runs
//     COMMAND... GEOMETRIES.xyz POINTS --failures FAILURES
// which writes their energies, gradients and analytic Hessians as Cartesian points (every frame
// it computed, in order) and one line "FRAME REASON" (FRAME from 1) in FAILURES per frame it could
// not compute (an SCF that never converged, say); docs/formats/shepard.md, "A reference program".
// The PySCF reference (python/quasar/shepard/pyscf_reference.py) is one such program.
#include <filesystem>
#include <string>
#include <vector>

#include "quasar/core/config.hpp"
#include "quasar/potential/shepard/coordinates.hpp"

namespace quasar::shepard {

struct ExternalReference {
  std::vector<std::string> command;  // the program and its first arguments; empty: none
  std::string description;           // "PySCF UHF/6-31G**", or the command
};

// [reference]: type = "pyscf" (method, basis, charge, spin, threads, python, script, conv_tol) or
// type = "command" (command = [...]). Relative script and command paths that exist beside the input
// file (`base`) resolve there. Errors name the file and key.
ExternalReference external_reference_from_config(const ConfigTable& t, const std::filesystem::path& base);

// The points the reference computed, one per configuration: where it could not compute one,
// failures[k] gives its reason and points[k] is empty.
struct ReferenceBatch {
  std::vector<CartesianPoint> points;
  std::vector<std::string> failures;
};

// Runs the reference on configurations (3N each, Å) of atoms `elements`. An Error naming the
// command, its exit status and the end of its standard error when it fails or writes a file that
// does not match the configurations; its files are then kept (the error names the folder).
ReferenceBatch run_external_reference(const ExternalReference& reference, const std::vector<std::string>& elements,
                                      const std::vector<std::vector<double>>& configs);

}  // namespace quasar::shepard
