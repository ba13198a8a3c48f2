#pragma once
// Learning-rate schedules.

namespace quasar::nn {

// Staircase exponential decay from `start` that reaches `stop` at `steps` (DeePMD-kit's "exp"):
// lr(s) = max(start r^floor(s / decay_steps), stop), with r such that start r^(steps / decay_steps)
// = stop. A decay_steps as long as the run becomes 100 steps (or steps / 100 + 1 for short runs).
struct ExponentialDecay {
  double start = 1e-3, stop = 1e-8;
  long decay_steps = 5000, steps = 1000;
  double at(long step) const;
};

}  // namespace quasar::nn
