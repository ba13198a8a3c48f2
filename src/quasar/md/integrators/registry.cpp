#include "quasar/md/integrators/registry.hpp"

#include <algorithm>

#include "quasar/core/error.hpp"
#include "quasar/md/integrators/bussi.hpp"
#include "quasar/md/integrators/fire.hpp"
#include "quasar/md/integrators/langevin.hpp"
#include "quasar/md/integrators/npt.hpp"
#include "quasar/md/integrators/respa.hpp"
#include "quasar/md/integrators/verlet.hpp"

namespace quasar::md {

namespace {
struct Entry {
  const char* name;
  std::unique_ptr<Integrator> (*make)(const MdSettings& s, Backend b, int n);
  bool takes_respa;
};

const Entry kIntegrators[] = {
    {"nve", [](const MdSettings& s, Backend b, int n) -> std::unique_ptr<Integrator> {
       return std::make_unique<VelocityVerlet>(s.integrator, b, n);
     }, true},
    {"langevin", [](const MdSettings& s, Backend b, int n) -> std::unique_ptr<Integrator> {
       return std::make_unique<Langevin>(s.integrator, b, n);
     }, true},
    {"bussi", [](const MdSettings& s, Backend b, int n) -> std::unique_ptr<Integrator> {
       return std::make_unique<Bussi>(s.integrator, b, n);
     }, false},
    {"npt", [](const MdSettings& s, Backend b, int n) -> std::unique_ptr<Integrator> {
       return std::make_unique<CellRescalingNpt>(s.integrator, b, n);
     }, false},
    {"minimize", [](const MdSettings& s, Backend b, int n) -> std::unique_ptr<Integrator> {
       return std::make_unique<Fire>(s.minimize, s.integrator, b, n);
     }, false},
};

const Entry* find(const std::string& name) {
  for (const Entry& e : kIntegrators)
    if (name == e.name) return &e;
  return nullptr;
}
}  // namespace

std::vector<std::string> integrator_names() {
  std::vector<std::string> names;
  for (const Entry& e : kIntegrators) names.emplace_back(e.name);
  return names;
}

bool integrator_known(const std::string& name) { return find(name) != nullptr; }

bool integrator_takes_respa(const std::string& name) {
  const Entry* e = find(name);
  return e && e->takes_respa;
}

std::string respa_integrators_text() {
  std::vector<std::string> names;
  for (const Entry& e : kIntegrators)
    if (e.takes_respa) names.emplace_back(e.name);
  std::string t;
  for (std::size_t k = 0; k < names.size(); ++k)
    t += (k == 0 ? "" : k + 1 == names.size() ? " and " : ", ") + names[k];
  return t;
}

std::unique_ptr<Integrator> make_integrator(const MdSettings& settings, Backend backend, int num_atoms,
                                            const ForceField& force_field) {
  const std::string name = settings.mode == "minimize" ? "minimize" : settings.integrator.kind;
  const Entry* e = find(name);
  if (!e) {
    std::string valid;
    for (const auto& n : integrator_names()) valid += (valid.empty() ? "" : ", ") + n;
    throw Error("unknown integrator '" + name + "' (valid: " + valid + ")");
  }
  if (!settings.integrator.respa_every.empty())
    return std::make_unique<MultipleTimeStep>(settings.integrator, backend, num_atoms, force_field, name);
  return e->make(settings, backend, num_atoms);
}

}  // namespace quasar::md
