#pragma once
// Progress of a long run: rewritten in place on a terminal, plain lines every 10 s otherwise.
#include <chrono>

namespace quasar::md {

class Progress {
 public:
  Progress(long first_step, long last_step, int atoms, double dt_ps, bool enabled);
  void update(long step);
  void finish(long step);

 private:
  void print(long step, bool final);
  long first_, last_;
  int atoms_;
  double dt_;
  bool enabled_, tty_;
  std::chrono::steady_clock::time_point start_, last_print_;
};

// Clears a progress line in place before other output (no-op off a terminal).
void progress_clear_line();

}  // namespace quasar::md
