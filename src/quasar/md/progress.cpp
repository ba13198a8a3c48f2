#include "quasar/md/progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace quasar::md {

namespace {
bool g_line_open = false;
}

Progress::Progress(long first_step, long last_step, int atoms, double dt_ps, bool enabled)
    : first_(first_step), last_(last_step), atoms_(atoms), dt_(dt_ps), enabled_(enabled), tty_(isatty(2) != 0),
      start_(std::chrono::steady_clock::now()), last_print_(start_) {}

void Progress::update(long step) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  const double since = std::chrono::duration<double>(now - last_print_).count();
  if (since < (tty_ ? 0.5 : 10.0)) return;
  last_print_ = now;
  print(step, false);
}

void Progress::finish(long step) {
  if (!enabled_ || step == first_) return;
  print(step, true);
}

void Progress::print(long step, bool final) {
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double done = static_cast<double>(step - first_);
  if (secs <= 0 || done <= 0) return;
  const double steps_per_s = done / secs;
  const double ns_per_day = steps_per_s * dt_ * 1e-3 * 86400.0;
  const double eta = static_cast<double>(last_ - step) / steps_per_s;
  char line[200];
  std::snprintf(line, sizeof line, "step %ld/%ld  %.3g ns/day  %.3g atom-steps/s  %s %.0f s", step, last_,
                ns_per_day, steps_per_s * atoms_, final ? "elapsed" : "ETA", final ? secs : eta);
  if (tty_) {
    std::fprintf(stderr, "\r%-79s", line);
    g_line_open = !final;
    if (final) std::fprintf(stderr, "\n");
  } else {
    std::fprintf(stderr, "%s\n", line);
  }
  std::fflush(stderr);
}

void progress_clear_line() {
  if (!g_line_open) return;
  std::fprintf(stderr, "\r%79s\r", "");
  g_line_open = false;
}

}  // namespace quasar::md
