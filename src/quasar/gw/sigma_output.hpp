#pragma once
// What Sigma writes: sigma_hp.log in BerkeleyGW's layout (per k-point a "k = ... ik = ... spin = ..."
// line, the column titles and one line per band; then the off-diagonal elements at E2 = E0), so that
// scripts that read that program's log read this one, and the same numbers as JSON.
#include <string>

#include "quasar/gw/sigma.hpp"

namespace quasar::gw {

std::string sigma_hp_log(const SigmaResult& r, bool exact_static_ch);
std::string sigma_json(const SigmaResult& r);

}  // namespace quasar::gw
