#include "quasar/potential/shepard/surfaces/surface_potential.hpp"

#include <array>

#include "quasar/core/config.hpp"
#include "quasar/core/error.hpp"

namespace quasar {

namespace {
constexpr const char* kCh5Cbg2009 = "ch5-cbg2009";
}

std::vector<std::string> AnalyticSurfacePotential::surfaces() { return {kCh5Cbg2009}; }

AnalyticSurfacePotential::AnalyticSurfacePotential(std::string surface, std::string carbon_type,
                                                   std::string hydrogen_type)
    : surface_(std::move(surface)), carbon_type_(std::move(carbon_type)), hydrogen_type_(std::move(hydrogen_type)) {
  if (surface_ != kCh5Cbg2009) throw Error("analytic-surface: unknown surface '" + surface_ + "' (known: " + kCh5Cbg2009 + ")");
  parameters_ = surfaces::ch5_cbg2009_parameters();
}

namespace {
AnalyticSurfacePotential from_config(const ConfigTable& t) {
  t.allow_only({"type", "name", "group", "surface", "carbon", "hydrogen"});
  const std::string surface = t.get_string("surface");
  bool known = false;
  for (const auto& s : AnalyticSurfacePotential::surfaces()) known = known || s == surface;
  if (!known) t.fail("surface", "unknown surface \"" + surface + "\" (known: " + kCh5Cbg2009 + ")");
  return AnalyticSurfacePotential(surface, t.get_string("carbon", "C"), t.get_string("hydrogen", "H"));
}
}  // namespace

AnalyticSurfacePotential::AnalyticSurfacePotential(const ConfigTable& t) : AnalyticSurfacePotential(from_config(t)) {}

void AnalyticSurfacePotential::bind(const SystemSetup& setup) { bind_types(setup.type_names); }

void AnalyticSurfacePotential::bind_types(const std::vector<std::string>& names) {
  carbon_ = hydrogen_ = -1;
  for (int k = 0; k < static_cast<int>(names.size()); ++k) {
    if (names[k] == carbon_type_) carbon_ = k;
    else if (names[k] == hydrogen_type_) hydrogen_ = k;
    else
      throw Error("analytic-surface " + surface_ + ": atom type '" + names[k] + "' is neither the carbon ('" +
                  carbon_type_ + "') nor the hydrogen ('" + hydrogen_type_ + "'; keys carbon and hydrogen)");
  }
  bound_names_ = names;
}

void AnalyticSurfacePotential::compute(AtomState& atoms, NeighborRefs, const ComputeRequest& req, ForceOutput& out) {
  if (atoms.backend() != Backend::Cpu)
    throw Error("analytic-surface " + surface_ + ": evaluated on the CPU only (run with --backend cpu)");
  if (bound_names_ != atoms.type_names()) bind_types(atoms.type_names());
  const AtomsRef a = atoms.ref();
  const std::vector<int>& offsets = atoms.system_offsets();
  const std::size_t n = static_cast<std::size_t>(a.n);
  double* totals = out.term_totals();
  for (int s = 0; s + 1 < static_cast<int>(offsets.size()); ++s) {
    // Roles by input order: the carbon, then the hydrogens; the last hydrogen is H'.
    std::array<int, 6> idx{};
    int carbons = 0, hydrogens = 0;
    for (int k = offsets[s]; k < offsets[s + 1]; ++k) {
      const int i = a.index_of[k];
      if (a.type[i] == carbon_) {
        if (carbons++ == 0) idx[0] = i;
      } else if (a.type[i] == hydrogen_) {
        if (hydrogens < 5) idx[1 + hydrogens] = i;
        ++hydrogens;
      }
    }
    if (carbons != 1 || hydrogens != 5)
      throw Error("analytic-surface " + surface_ + ": system " + std::to_string(s) + " has " + std::to_string(carbons) +
                  " carbon and " + std::to_string(hydrogens) + " hydrogen atoms; the surface is CH5 (1 and 5)");
    // Positions relative to the carbon, through the nearest image in a periodic cell.
    const Box& box = a.box_of(idx[0]);
    std::array<double, surfaces::kCh5Coordinates> x{};
    std::array<Vec3, 6> r{};
    for (int m = 1; m < 6; ++m) {
      const int i = idx[m];
      r[m] = box.minimum_image(Vec3{a.x[i] - a.x[idx[0]], a.y[i] - a.y[idx[0]], a.z[i] - a.z[idx[0]]});
      x[3 * m] = r[m].x, x[3 * m + 1] = r[m].y, x[3 * m + 2] = r[m].z;
    }
    std::array<double, surfaces::kCh5Coordinates> grad{};
    const double e = surfaces::ch5_jg_energy_gradient(parameters_, x, grad);
    // W_ab = sum r_a f_b; with the forces summing to zero, relative positions give the same sum.
    double w[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
    for (int m = 0; m < 6; ++m) {
      const int i = idx[m];
      const double f[3] = {-grad[3 * m], -grad[3 * m + 1], -grad[3 * m + 2]};
      a.fx[i] += f[0], a.fy[i] += f[1], a.fz[i] += f[2];
      const double rr[3] = {r[m].x, r[m].y, r[m].z};
      double wi[9];
      for (int p = 0; p < 3; ++p)
        for (int q = 0; q < 3; ++q) wi[3 * p + q] = rr[p] * f[q];
      for (int c = 0; c < 9; ++c) w[c] += wi[c];
      // Per-atom parts: an equal share of the molecule's energy, each atom's own virial.
      if (req.per_atom) {
        out.atom_energy[static_cast<std::size_t>(i)] += e / 6;
        for (int c = 0; c < 9; ++c) out.atom_virial[static_cast<std::size_t>(c) * n + i] += wi[c];
      }
    }
    totals[0] += e;
    for (int c = 0; c < 9; ++c) totals[1 + c] += w[c];
  }
}

}  // namespace quasar
