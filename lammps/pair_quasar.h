/* Pair style quasar/dp: Deep Potential models (DeePMD-kit .dp/.yaml) evaluated by Quasar, on the
   GPU when one is usable. Loaded with `plugin load quasarplugin.so`, or built into LAMMPS by
   copying this file and pair_quasar_dp.cpp into its src/ folder and linking libquasar (the only
   Quasar header they include, quasar/potential/ghost_evaluator.hpp, is C++11). */
#ifdef PAIR_CLASS
// clang-format off
PairStyle(quasar/dp,PairQuasarDP);
// clang-format on
#else

#ifndef LMP_PAIR_QUASAR_DP_H
#define LMP_PAIR_QUASAR_DP_H

#include <memory>

#include "pair.h"

namespace quasar {
class GhostEvaluator;
}

namespace LAMMPS_NS {

class PairQuasarDP : public Pair {
 public:
  explicit PairQuasarDP(class LAMMPS *);
  ~PairQuasarDP() override;
  void compute(int, int) override;
  void settings(int, char **) override;
  void coeff(int, char **) override;
  void init_style() override;
  double init_one(int, int) override;

 private:
  std::unique_ptr<quasar::GhostEvaluator> engine;
  void allocate();
};

}  // namespace LAMMPS_NS

#endif
#endif
