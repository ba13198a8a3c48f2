#pragma once
// Every number of a QCT study as JSON text (settings, normal modes, outcomes, estimates, P(b), each
// trajectory): what `quasar shepard qct` writes and what Python's quasar.shepard.qct returns.
#include <string>

#include "quasar/qct/qct.hpp"

namespace quasar::qct {

// `input` names where the settings came from (a file, or a description).
std::string report_json(const QctSettings& settings, const QctResult& result, const std::string& input);

}  // namespace quasar::qct
