#pragma once
// Embedded-atom method with DYNAMO tables (funcfl and setfl files), as LAMMPS's pair_style eam and
// eam/alloy.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "quasar/potential/pair/eam_file.hpp"
#include "quasar/potential/pair/eam_kernel.hpp"
#include "quasar/device/parallel.hpp"
#include "quasar/potential/packed_atom.hpp"
#include "quasar/potential/potential.hpp"

namespace quasar {

struct ConfigTable;  // core/config.hpp: kept out of headers that kernels include

class Eam : public Potential {
 public:
  // funcfl files by element name ("*" maps every type to one file, like pair_coeff * * file).
  static Eam from_funcfl(const std::map<std::string, std::string>& files);
  static Eam from_setfl(const std::string& file);
  // [potential] with type = "eam": file = "X.eam.alloy" | "X.eam" (format from the extension or
  // format = "setfl" | "funcfl"), or files = { Cu = "Cu_u3.eam", Ni = "Ni_u3.eam" } for several funcfl.
  static Eam from_config(const ConfigTable& t, const std::filesystem::path& base_dir);

  std::string name() const override { return "eam"; }
  double cutoff() const override { return cut_; }
  void bind(const SystemSetup& setup) override { bind_types(setup.type_names); }
  void compute(AtomState& atoms, NeighborRefs lists, const ComputeRequest& req, ForceOutput& out) override;
  bool overwrites_outputs(Backend b) const override { return b == Backend::Cuda; }  // one thread per atom
  // Element names the file knows (setfl), or "*" / the funcfl map keys.
  const std::vector<std::string>& elements() const { return elements_; }

 private:
  Eam() = default;
  void bind_types(const std::vector<std::string>& type_names);
  void upload(Backend b);
  EamEval eval() const;

  std::vector<std::string> elements_;  // element of each table set
  double cut_ = 0, dr_ = 0, drho_ = 0;
  int nr_ = 0, nrho_ = 0, nelem_ = 0;
  std::vector<double> frho_, rhor_, z2r_;  // splines, per element (z2r per pair, i >= j)
  std::vector<int> type2frho_, type2rhor_, type2z2r_;
  int ntypes_ = 0;
  Array<double> d_frho_, d_rhor_, d_z2r_;
  Array<int> d_type2frho_, d_type2rhor_, d_type2z2r_;
  Array<double> rho_, fp_;  // per atom, on the atoms' backend
  Array<PackedAtom> packed_;  // GPU: positions and types gathered per evaluation
  device::ThreadBuffers thread_buffers_;   // CPU: the threads' arrays of forces and per-atom parts
  device::ThreadBuffers density_buffers_;  // CPU: the threads' densities
};

struct EamArgs {
  EamEval eval;
  double* rho;
  double* fp;
  const PackedAtom* packed;  // filled by eam_compute_cuda
};
void eam_compute_cuda(EamArgs e, AtomState& atoms, const NeighborRef& list, const ComputeRequest& req,
                      ForceOutput& out, Array<PackedAtom>& packed);

}  // namespace quasar
