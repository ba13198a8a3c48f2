#pragma once
// One evaluation of a force field (or of one potential) for a structure, results on the host in
// the structure's atom order: what `quasar eval`, the tests and the bindings use.
#include <span>
#include <string>
#include <vector>

#include "quasar/potential/force_field.hpp"

namespace quasar {

struct TermEnergy {
  std::string name;
  double energy = 0;  // eV
};

struct Evaluation {
  double energy = 0;
  std::vector<TermEnergy> terms;  // each term's energy, in the force field's order; they sum to energy
  std::vector<Vec3> forces;
  Mat3 virial{};
  std::vector<double> atom_energy;  // when per_atom
  std::vector<Mat3> atom_virial;    // when per_atom
};

// n_local >= 0: atoms from n_local on are ghosts (AtomState), for potentials that support them.
// deterministic: GPU sums in fixed point, bit-identical from run to run (ForceOutput).
Evaluation evaluate(ForceField& force_field, const Structure& s, Backend backend, bool per_atom = false,
                    int n_local = -1, bool deterministic = false);
// A force field of this one potential.
Evaluation evaluate(Potential& potential, const Structure& s, Backend backend, bool per_atom = false, int n_local = -1,
                    bool deterministic = false);

// Several force fields (or potentials) on one copy of the structure on the backend: one upload, one
// neighbour list per distinct request of them all. (A span, not a vector, for the force fields, so
// that a braced list of potential pointers picks the second form unambiguously.)
std::vector<Evaluation> evaluate_all(std::span<ForceField* const> force_fields, const Structure& s, Backend backend,
                                     bool per_atom = false, int n_local = -1, bool deterministic = false);
std::vector<Evaluation> evaluate_all(const std::vector<Potential*>& potentials, const Structure& s, Backend backend,
                                     bool per_atom = false, int n_local = -1, bool deterministic = false);

// Many structures at once: one AtomState holding them all as a batch of systems (one upload, one
// neighbour-list build, one evaluation per force field: the same launches for a thousand frames as
// for one), results per frame as evaluate() gives them, to rounding. The frames may differ in atom
// count, cell and periodicity; their type names are merged (each force field binds to the union),
// and either all have charges or none has. Results: [force field][frame].
std::vector<std::vector<Evaluation>> evaluate_batch_all(std::span<ForceField* const> force_fields,
                                                        std::span<const Structure> frames, Backend backend,
                                                        bool per_atom = false, bool deterministic = false);
std::vector<Evaluation> evaluate_batch(ForceField& force_field, std::span<const Structure> frames, Backend backend,
                                       bool per_atom = false, bool deterministic = false);

// Atoms per batch that the commands use (`quasar eval`, `quasar model-devi`, Python's compute_many).
constexpr long kBatchAtoms = 1L << 18;
// Consecutive runs of frames to evaluate as one batch each: at most max_atoms atoms (a larger
// frame alone), frames that all have charges or none, at most max_frames frames.
std::vector<std::span<const Structure>> split_batches(std::span<const Structure> frames, long max_atoms = kBatchAtoms,
                                                      long max_frames = 1L << 16);

}  // namespace quasar
