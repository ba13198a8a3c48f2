#pragma once
// The environment of one atom on the CPU, shared by the reference evaluator and training: the
// nearest sel[t] neighbours of each type within rcut, nearest first (ties in list order), with
// their displacements, environment rows R and dR/dd.
#include <vector>

#include "quasar/core/atoms.hpp"
#include "quasar/neighbor/neighbor_list.hpp"
#include "quasar/potential/dp/model.hpp"

namespace quasar::dp {

// One neighbour slot of an atom: displacement d = r_j - r_i, environment row R and dR/dd.
struct Slot {
  int j = -1;  // -1: padding
  Vec3 d{};
  double R[4] = {0, 0, 0, 0};
  double dR[4][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
};

// Slots of atom i (sum(sel) of them); mtype maps structure types to model types.
void environment(const DpModel& model, const AtomsRef& a, const NeighborRef& list, const std::vector<int>& mtype, int i,
                 std::vector<Slot>& slots);

}  // namespace quasar::dp
