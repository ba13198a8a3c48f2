#include "quasar/cli/file_units.hpp"

#include "quasar/cli/args.hpp"

namespace quasar::cli {

ModelOptions FileUnitsOption::model_options() const {
  if (!given) return {};
  return {{"units", text}};
}

FileUnitsOption file_units_option(const Args& a) {
  FileUnitsOption o;
  if (!a.has("--units")) return o;
  o.given = true;
  o.text = a.get("--units");
  try {
    o.units = units::parse_file_units(o.text);
  } catch (const Error& e) {
    throw UsageError(std::string("--units: ") + e.what());
  }
  o.length_name = o.text.substr(0, o.text.find(','));
  o.energy_name = o.text.substr(o.text.find(',') + 1);
  return o;
}

void to_engine_units(std::vector<Structure>& frames, double length) {
  if (length == 1.0) return;
  for (Structure& s : frames) {
    for (Vec3& r : s.positions) r = r * length;
    Box b = s.box;
    b.origin = b.origin * length;
    Mat3 h = b.h;
    for (auto& row : h.r) row = row * length;
    b.set_matrix(h);
    s.box = b;
  }
}

void to_file_units(Evaluation& e, const units::FileUnits& u) {
  e.energy /= u.energy;
  for (TermEnergy& t : e.terms) t.energy /= u.energy;
  for (Vec3& f : e.forces) f = f * (u.length / u.energy);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) e.virial(r, c) /= u.energy;
  for (double& v : e.atom_energy) v /= u.energy;
  for (Mat3& m : e.atom_virial)
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) m(r, c) /= u.energy;
}

}  // namespace quasar::cli
