/* Pair style quasar: any model Quasar reads (a Deep Potential's .dp/.yaml, an EAM file, an n2p2
   potential's folder, a TOML file of several terms) evaluated by Quasar, on the GPU when one is
   usable; quasar/dp is the same style under the name it had when it took Deep Potentials only.
   Loaded with `plugin load quasarplugin.so`, or built into LAMMPS by copying this file and
   pair_quasar.cpp into its src/ folder and linking libquasar (the only Quasar header they include,
   quasar/potential/ghost_evaluator.hpp, is C++11). */
#ifdef PAIR_CLASS
// clang-format off
PairStyle(quasar,PairQuasar);
PairStyle(quasar/dp,PairQuasarDP);
// clang-format on
#else

#ifndef LMP_PAIR_QUASAR_H
#define LMP_PAIR_QUASAR_H

#include <memory>
#include <string>

#include "pair.h"

namespace quasar {
class GhostEvaluator;
}

namespace LAMMPS_NS {

class PairQuasar : public Pair {
 public:
  explicit PairQuasar(class LAMMPS *, const char *style = "quasar");
  ~PairQuasar() override;
  void compute(int, int) override;
  void settings(int, char **) override;
  void coeff(int, char **) override;
  void init_style() override;
  double init_one(int, int) override;

 private:
  std::string style;  // the name it was created under, for messages
  std::unique_ptr<quasar::GhostEvaluator> engine;
  void allocate();
};

// The alias quasar/dp.
class PairQuasarDP : public PairQuasar {
 public:
  explicit PairQuasarDP(class LAMMPS *lmp) : PairQuasar(lmp, "quasar/dp") {}
};

}  // namespace LAMMPS_NS

#endif
#endif
