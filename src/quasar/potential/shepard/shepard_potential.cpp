// The Shepard surface as a Potential: gather each molecule, evaluate the batch, scatter forces.
#include <memory>

#include "quasar/core/error.hpp"
#include "quasar/potential/shepard/gpu_interpolant.hpp"
#include "quasar/potential/shepard/shepard_potential.hpp"

namespace quasar::shepard {

ShepardPotential::ShepardPotential(const DataSet& set, std::string source)
    : interpolant_(Interpolant::from(set)), elements_(set.elements), source_(std::move(source)) {}

ShepardPotential::~ShepardPotential() = default;

std::unique_ptr<ShepardPotential> ShepardPotential::from_file(const std::string& path) {
  return std::make_unique<ShepardPotential>(read_dataset(path), path);
}

void ShepardPotential::bind(const SystemSetup&) {}  // the atoms are checked against the data set at compute

void ShepardPotential::compute(AtomState& atoms, NeighborRefs, const ComputeRequest& req, ForceOutput& out) {
  const int n = interpolant_.atoms, systems = atoms.num_systems();
  const std::vector<int>& offsets = atoms.system_offsets();
  // Host copies (the arrays themselves on the CPU backend).
  const auto x = atoms.x.to_vector(), y = atoms.y.to_vector(), z = atoms.z.to_vector();
  const auto type = atoms.type.to_vector();
  const auto index_of = atoms.index_of.to_vector();
  const auto& names = atoms.type_names();
  std::vector<double> configs(static_cast<std::size_t>(systems) * 3 * static_cast<std::size_t>(n));
  for (int s = 0; s < systems; ++s) {
    const int begin = offsets.empty() ? 0 : offsets[static_cast<std::size_t>(s)];
    const int count = (offsets.empty() ? atoms.size() : offsets[static_cast<std::size_t>(s) + 1]) - begin;
    if (count != n)
      throw Error("shepard (" + source_ + "): system " + std::to_string(s) + " has " + std::to_string(count) +
                  " atoms; the data set describes one molecule of " + std::to_string(n));
    const Box& box = atoms.box(s);
    Vec3 first{};
    for (int a = 0; a < n; ++a) {
      const int i = index_of[static_cast<std::size_t>(begin + a)];
      const std::string& element = names[static_cast<std::size_t>(type[static_cast<std::size_t>(i)])];
      if (element != elements_[static_cast<std::size_t>(a)])
        throw Error("shepard (" + source_ + "): atom " + std::to_string(a + 1) + " of system " + std::to_string(s) +
                    " is " + element + " where the data set has " + elements_[static_cast<std::size_t>(a)] +
                    " (atoms must come in the data set's order)");
      Vec3 r{x[static_cast<std::size_t>(i)], y[static_cast<std::size_t>(i)], z[static_cast<std::size_t>(i)]};
      if (a == 0) first = r;
      else r = first + box.minimum_image(r - first);
      double* c = &configs[(static_cast<std::size_t>(s) * static_cast<std::size_t>(n) + static_cast<std::size_t>(a)) * 3];
      c[0] = r.x;
      c[1] = r.y;
      c[2] = r.z;
    }
  }
  std::vector<double> energies(static_cast<std::size_t>(systems)), grads(configs.size());
  if (atoms.x.on_device()) {
    if (!gpu_) gpu_ = std::make_unique<GpuInterpolant>(interpolant_);
    gpu_->evaluate_batch(configs, energies, grads);
  } else {
    evaluate_batch(interpolant_, configs, energies, grads);
  }

  auto fx = atoms.fx.to_vector(), fy = atoms.fy.to_vector(), fz = atoms.fz.to_vector();
  const std::size_t total = static_cast<std::size_t>(atoms.size());
  std::vector<double> atom_energy, atom_virial;
  if (req.per_atom) {
    atom_energy = out.atom_energy.to_vector();
    atom_virial = out.atom_virial.to_vector();
  }
  double totals[ForceOutput::kTotals] = {};
  for (int s = 0; s < systems; ++s) {
    const int begin = offsets.empty() ? 0 : offsets[static_cast<std::size_t>(s)];
    totals[0] += energies[static_cast<std::size_t>(s)];
    for (int a = 0; a < n; ++a) {
      const std::size_t i = static_cast<std::size_t>(index_of[static_cast<std::size_t>(begin + a)]);
      const double* r = &configs[(static_cast<std::size_t>(s) * static_cast<std::size_t>(n) + static_cast<std::size_t>(a)) * 3];
      const double* g = &grads[(static_cast<std::size_t>(s) * static_cast<std::size_t>(n) + static_cast<std::size_t>(a)) * 3];
      const double f[3] = {-g[0], -g[1], -g[2]};
      fx[i] += f[0];
      fy[i] += f[1];
      fz[i] += f[2];
      // W = sum_i r_i (x) F_i: the forces sum to zero, so the molecule's position does not matter.
      for (int p = 0; p < 3; ++p)
        for (int q = 0; q < 3; ++q) {
          totals[1 + 3 * p + q] += r[p] * f[q];
          if (req.per_atom) atom_virial[static_cast<std::size_t>(3 * p + q) * total + i] += r[p] * f[q];
        }
      if (req.per_atom) atom_energy[i] += energies[static_cast<std::size_t>(s)] / n;  // an even share
    }
  }
  atoms.fx.assign(fx);
  atoms.fy.assign(fy);
  atoms.fz.assign(fz);
  if (req.per_atom) {
    out.atom_energy.assign(atom_energy);
    out.atom_virial.assign(atom_virial);
  }
  if (req.energy || req.virial) {
    std::vector<double> block(ForceOutput::kTotals);
    out.totals.download(block.data(), block.size(), static_cast<std::size_t>(out.term_totals() - out.totals.data()));
    for (int c = 0; c < ForceOutput::kTotals; ++c)
      if ((c == 0 && req.energy) || (c > 0 && req.virial)) block[static_cast<std::size_t>(c)] += totals[c];
    out.totals.upload(block.data(), block.size(), static_cast<std::size_t>(out.term_totals() - out.totals.data()));
  }
}

}  // namespace quasar::shepard
