// The GPU's mixed mode on the host: the float instantiation of the valence forms (valence_forms.hpp)
// and of the buffered 14-7 pair (vdw_forms.hpp), summed in 64-bit fixed point as the kernels sum
// (mixed_sum.hpp), against the double instantiation (the CPU reference) and against Tinker's
// reference values, on Tinker's reference systems. The tolerances are 10x to 30x the largest
// deviations measured in each test (printed as "measured ..."), given at each check.
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "quasar/io/read.hpp"
#include "quasar/io/tinker_xyz.hpp"
#include "quasar/potential/amoeba/mixed_sum.hpp"
#include "quasar/potential/amoeba/parameters.hpp"
#include "quasar/potential/amoeba/valence_forms.hpp"
#include "quasar/potential/amoeba/valence_terms.hpp"
#include "quasar/potential/amoeba/vdw_forms.hpp"
#include "quasar/potential/amoeba/vdw_term.hpp"
#include "amoeba_support.hpp"

namespace quasar {
namespace {

using namespace amoeba;
using namespace amoeba_test;
namespace scale = device::fixed_scale;

// A structure's atoms as the forms read them (input order, its own cell), with its Tinker types and
// bonded neighbours.
struct HostAtoms {
  Structure s;
  std::vector<int> types;
  std::vector<std::vector<int>> neighbours;
  std::vector<double> x, y, z;
  std::vector<int> index;
  AtomsRef ref{};

  explicit HostAtoms(Structure structure) : s(std::move(structure)) {
    const std::size_t n = s.size();
    neighbours.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      types.push_back(std::stoi(s.type_names[static_cast<std::size_t>(s.types[i])]));
      x.push_back(s.positions[i].x);
      y.push_back(s.positions[i].y);
      z.push_back(s.positions[i].z);
      index.push_back(static_cast<int>(i));
    }
    for (std::size_t k = 0; k < s.topology.bonds.size(); ++k) {
      const int* e = s.topology.bonds.entry(k);
      neighbours[static_cast<std::size_t>(e[0])].push_back(e[1]);
      neighbours[static_cast<std::size_t>(e[1])].push_back(e[0]);
    }
    ref.n = static_cast<int>(n);
    ref.box = s.box;
    ref.x = x.data();
    ref.y = y.data();
    ref.z = z.data();
    ref.index_of = index.data();
  }
};

// Energy (kcal/mol), gradient (kcal/mol/Å, per atom) and Tinker's virial (sum r g, kcal/mol).
struct Outputs {
  double energy = 0;
  std::vector<Vec3> gradient;
  std::vector<double> virial;
};

// The sums of one evaluation, plain in double, in fixed point in mixed mode (eV, as the kernels).
template <bool kMixed>
struct Sums {
  std::vector<MixedSum<kMixed>> force, totals;
  explicit Sums(std::size_t n) : force(3 * n, MixedSum<kMixed>(scale::kForce)), totals(10, MixedSum<kMixed>(scale::kTotal)) {}
  Outputs outputs() const {
    Outputs o;
    o.energy = totals[0].value() / kKcal;
    for (std::size_t i = 0; i < force.size() / 3; ++i)
      o.gradient.push_back(Vec3{force[3 * i].value(), force[3 * i + 1].value(), force[3 * i + 2].value()} * (-1 / kKcal));
    for (int c = 0; c < 9; ++c) o.virial.push_back(-totals[1 + static_cast<std::size_t>(c)].value() / kKcal);
    return o;
  }
};

template <bool kMixed, class Form, class List>
void add_entries(const Form& form, const List& list, const AtomsRef& a, Sums<kMixed>& sums) {
  constexpr int A = Form::kAtoms;
  for (const auto& entry : list) {
    int idx[A];
    double energy, w[9];
    Vec3 f[A];
    evaluate_entry<MixedScalar<kMixed>>(form, entry, a, idx, energy, w, f);
    for (int m = 0; m < A; ++m)
      for (int c = 0; c < 3; ++c) sums.force[3 * static_cast<std::size_t>(idx[m]) + static_cast<std::size_t>(c)].add(f[m][c]);
    sums.totals[0].add(energy);
    for (int c = 0; c < 9; ++c) sums.totals[1 + static_cast<std::size_t>(c)].add(w[c]);
  }
}

// One valence term in either mode (as add_valence_term dispatches).
template <bool kMixed>
Outputs valence(Term term, const ValenceEntries& v, const ForceFieldHeader& h, const AtomsRef& a) {
  Sums<kMixed> s(static_cast<std::size_t>(a.n));
  const ValenceUnits u = valence_units(h);
  switch (term) {
    case Term::Bond: add_entries(BondForm{u}, v.bonds, a, s); break;
    case Term::Angle: {
      std::vector<AngleEntry> three, four;
      for (const AngleEntry& e : v.angles) (is_in_plane(e) ? four : three).push_back(e);
      add_entries(AngleForm{u}, three, a, s);
      add_entries(InPlaneAngleForm{u}, four, a, s);
      break;
    }
    case Term::StretchBend: add_entries(StretchBendForm{u}, v.strbnds, a, s); break;
    case Term::Urey: add_entries(UreyForm{u}, v.ureys, a, s); break;
    case Term::OutOfPlane: add_entries(OutOfPlaneForm{u}, v.opbends, a, s); break;
    case Term::Torsion: add_entries(TorsionForm{u}, v.torsions, a, s); break;
    case Term::PiTorsion: add_entries(PiTorsionForm{u}, v.pitors, a, s); break;
    case Term::TorsionTorsion: {
      std::vector<TorTorTerm> terms;
      for (const TorTorEntry& t : v.tortors) terms.push_back(tortor_term(t, grid_view(*t.grid)));
      add_entries(TorsionTorsionForm{u}, terms, a, s);
      break;
    }
    case Term::AngleTorsion: add_entries(AngleTorsionForm{u}, v.angtors, a, s); break;
    case Term::StretchTorsion: add_entries(StretchTorsionForm{u}, v.strtors, a, s); break;
    default: ADD_FAILURE() << "not a valence term";
  }
  return s.outputs();
}

// Van der Waals over the pairs of sites (every pair in the gas phase; in a cell the nearest image
// within the cutoff, tested in double), each pair by vdw_pair in either arithmetic; the site
// gradients back to the atoms in double.
template <bool kMixed>
Outputs vdw(const VdwSystem& v, const AtomsRef& a) {
  using T = MixedScalar<kMixed>;
  const std::size_t n = static_cast<std::size_t>(a.n);
  const bool periodic = a.box.periodic[0] || a.box.periodic[1] || a.box.periodic[2];
  std::vector<Vec3> site(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t p = static_cast<std::size_t>(v.parent[i]);
    site[i] = vdw_site(a.box, periodic, {a.x[i], a.y[i], a.z[i]}, {a.x[p], a.y[p], a.z[p]}, v.reduction[i]);
  }
  Sums<kMixed> s(n);  // `force` holds the site gradients (kcal/mol/Å) here
  std::vector<double> scale(n, 1.0);
  for (std::size_t i = 0; i < n; ++i) {
    for (int k = v.special_offset[i]; k < v.special_offset[i + 1]; ++k)
      scale[static_cast<std::size_t>(v.special_partner[static_cast<std::size_t>(k)])] = v.special_scale[static_cast<std::size_t>(k)];
    for (std::size_t k = i + 1; k < n; ++k) {
      if (scale[k] == 0) continue;
      const Vec3 d = vdw_nearest(a.box, periodic, site[k] - site[i]);
      const double r2 = dot(d, d);
      if (periodic && r2 > v.cutoff * v.cutoff) continue;
      const std::size_t pk = static_cast<std::size_t>(v.cls[i] * v.classes + v.cls[k]);
      T e;
      Vec3Of<T> g;
      vdw_pair<T>(d, r2, v.r0[pk], v.eps[pk] * scale[k], periodic, v.taper, v.cutoff, e, g);
      const T gv[3] = {g.x, g.y, g.z}, dv[3] = {static_cast<T>(d.x), static_cast<T>(d.y), static_cast<T>(d.z)};
      for (int c = 0; c < 3; ++c) {
        s.force[3 * k + static_cast<std::size_t>(c)].add(gv[c]);
        s.force[3 * i + static_cast<std::size_t>(c)].add(-gv[c]);
      }
      s.totals[0].add(kKcal * e);
      for (int al = 0; al < 3; ++al)
        for (int be = 0; be < 3; ++be) s.totals[1 + static_cast<std::size_t>(3 * al + be)].add(-kKcal * dv[al] * gv[be]);
    }
    for (int k = v.special_offset[i]; k < v.special_offset[i + 1]; ++k)
      scale[static_cast<std::size_t>(v.special_partner[static_cast<std::size_t>(k)])] = 1.0;
  }
  Outputs o = s.outputs();
  std::vector<Vec3> atom(n);
  for (std::size_t i = 0; i < n; ++i) {
    const Vec3 g = o.gradient[i] * (-kKcal);  // undo the conversion: a site gradient in kcal/mol/Å
    const double own = v.reduction[i] == 0 ? 1.0 : v.reduction[i];
    atom[i] += g * own;
    if (v.reduction[i] != 0) atom[static_cast<std::size_t>(v.parent[i])] += g * (1 - v.reduction[i]);
  }
  o.gradient = atom;
  return o;
}

// The mixed evaluation against the double one: |energy difference| over max(|energy|, 1 kcal/mol),
// the worst gradient and virial element over the largest (all printed).
struct Deviation {
  double energy, gradient, virial;
};
Deviation deviation(const Outputs& d, const Outputs& m, const std::string& what) {
  Deviation r;
  r.energy = std::abs(m.energy - d.energy) / std::max(std::abs(d.energy), 1.0);
  test::print_measured(what + " energy, relative deviation of mixed from double", r.energy);
  std::vector<double> dg, mg;
  for (std::size_t i = 0; i < d.gradient.size(); ++i)
    for (int c = 0; c < 3; ++c) {
      dg.push_back(d.gradient[i][c]);
      mg.push_back(m.gradient[i][c]);
    }
  r.gradient = relative_worst(dg, mg, what + " gradient, mixed against double");
  r.virial = relative_worst(d.virial, m.virial, what + " virial, mixed against double");
  return r;
}

// Tolerances of mixed against double, each relative as `Deviation` has it.
struct Bounds {
  double energy, gradient, virial;
};
void expect_within(const Deviation& dev, const Bounds& b, const std::string& what) {
  EXPECT_LT(dev.energy, b.energy) << what;
  EXPECT_LT(dev.gradient, b.gradient) << what;
  EXPECT_LT(dev.virial, b.virial) << what;
}

// Against Tinker's printed values (4 decimals, kcal/mol and kcal/mol/Å): within the printing's half
// unit plus `slack` for the float arithmetic.
void expect_energy_near_tinker(double got, double want, double slack, const std::string& what) {
  EXPECT_NEAR(got, want, 0.6e-4 + slack) << what;
  test::print_measured(what + " mixed energy against Tinker's (kcal/mol)", std::abs(got - want));
}
void expect_near_tinker(const Outputs& m, const TinkerReference& want, double slack, const std::string& what) {
  expect_energy_near_tinker(m.energy, want.energy, slack, what);
  ASSERT_EQ(m.gradient.size(), want.gradient.size()) << what;
  double worst = 0;
  for (std::size_t i = 0; i < want.gradient.size(); ++i)
    for (int c = 0; c < 3; ++c) worst = std::max(worst, std::abs(m.gradient[i][c] - want.gradient[i][c]));
  EXPECT_LT(worst, 0.6e-4 + slack) << what;
  test::print_measured(what + " mixed gradient against Tinker's, worst (kcal/mol/Å)", worst);
}

struct Case {
  Term term;
  const char* folder;
  const char* key;
  const char* xyz;
  const char* ref;
  const char* prm;  // "" or the parameter file to use in place of the key's
};

class MixedValence : public testing::TestWithParam<Case> {};

// Each valence term of Tinker's unit tests (trp-cage, AMOEBA-pro-2013; ten waters for
// Urey-Bradley): mixed against double, and mixed against Tinker.
TEST_P(MixedValence, FloatFormsMatchDoubleAndTinker) {
  const Case c = GetParam();
  const std::string dir = reference(std::string("tinker-test-file/") + c.folder);
  const std::string ref = reference(std::string("tinker-test-ref/") + c.ref);
  if (dir.empty() || ref.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  const Parameters p = read_parameters(dir + "/" + c.key, *c.prm ? reference(c.prm) : "");
  HostAtoms h(io::read_tinker_xyz(dir + "/" + c.xyz));
  const ValenceEntries entries = valence_entries(p, h.types, h.neighbours);
  const std::string what = c.folder;
  const Outputs d = valence<false>(c.term, entries, p.header, h.ref), m = valence<true>(c.term, entries, p.header, h.ref);
  // Measured at most (of the eight cases): energy 3.5e-7 relative, gradient 9.1e-6 (the stiff
  // bonds: float's 6e-8 relative in a bond length is 1e-7 Å), virial 3.6e-6 of the largest.
  expect_within(deviation(d, m, what), {1e-5, 2e-4, 1e-4}, what);
  // Measured: the mixed gradients within 2.1e-4 kcal/mol/Å of Tinker's (bonds), energies within
  // 4.5e-5 kcal/mol (within Tinker's own rounding).
  expect_near_tinker(m, read_reference(ref), 1e-3, what);
}

INSTANTIATE_TEST_SUITE_P(
    Amoeba, MixedValence,
    testing::Values(Case{Term::Bond, "bond", "trpcage.key", "trpcage.xyz", "bond/bond.txt", ""},
                    Case{Term::Angle, "angle", "trpcage.key", "trpcage.xyz", "angle/angle.1.txt",
                         "tinker-test-file/commit_6fe8e913/amoebapro13.prm"},
                    Case{Term::StretchBend, "strbnd", "trpcage.key", "trpcage.xyz", "strbnd/strbnd.txt", ""},
                    Case{Term::OutOfPlane, "opbend", "trpcage.key", "trpcage.xyz", "opbend/opbend.txt", ""},
                    Case{Term::Torsion, "torsion", "trpcage.key", "trpcage.xyz", "torsion/torsion.txt", ""},
                    Case{Term::PiTorsion, "pitors", "trpcage.key", "trpcage.xyz", "pitors/pitors.txt", ""},
                    Case{Term::TorsionTorsion, "tortor", "trpcage.key", "trpcage.xyz", "tortor/tortor.txt", ""},
                    Case{Term::Urey, "urey", "h2o10.key", "h2o10.xyz", "urey/urey.txt", ""}),
    [](const testing::TestParamInfo<Case>& p) { return std::string(p.param.folder); });

// Vasopressin (AMOEBA-bio-2018) in the gas phase: every valence term and van der Waals over all
// pairs with reduced hydrogen sites, mixed against double and against Tinker's breakdown.
TEST(AmoebaMixed, VasopressinTermsMatchDoubleAndTinker) {
  const std::string dir = reference("tinker-test-file/vasopressin");
  if (dir.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  const Parameters p = read_parameters(dir + "/vasopressin.key");
  HostAtoms h(io::read_tinker_xyz(dir + "/vasopressin.xyz"));
  const ValenceEntries entries = valence_entries(p, h.types, h.neighbours);
  const std::vector<std::pair<Term, double>> tinker = {
      {Term::Bond, 15.2728},        {Term::Angle, 30.6582},     {Term::StretchBend, -0.3091},
      {Term::OutOfPlane, 6.1337},   {Term::Torsion, -1.7975},   {Term::PiTorsion, 3.1646},
      {Term::TorsionTorsion, -4.0656}};
  for (const auto& [term, want] : tinker) {
    const std::string what = std::string("vasopressin ") + term_name(term);
    const Outputs d = valence<false>(term, entries, p.header, h.ref), m = valence<true>(term, entries, p.header, h.ref);
    // Measured at most (the valence terms and vdW): energy 1.6e-6 relative (stretch-bend, -0.31
    // kcal/mol of cancelling entries), gradient 4.6e-6, virial 4.0e-6 of the largest.
    expect_within(deviation(d, m, what), {3e-5, 1e-4, 1e-4}, what);
    expect_energy_near_tinker(m.energy, want, 1e-4, what);  // measured: 6.4e-5 kcal/mol at most
  }
  const VdwSystem v = vdw_system(p, h.types, h.neighbours);
  const Outputs d = vdw<false>(v, h.ref), m = vdw<true>(v, h.ref);
  expect_within(deviation(d, m, "vasopressin vdW"), {3e-5, 1e-4, 1e-4}, "vasopressin vdW");
  EXPECT_NEAR(d.energy, 112.6135, 0.6e-4);  // the double loop is the reference's
  expect_energy_near_tinker(m.energy, 112.6135, 1e-4, "vasopressin vdW");
}

// The 648-water box (water03, the key's 18.643 Å cell, vdW cutoff 9 Å with its taper): bond, angle,
// Urey-Bradley and van der Waals, mixed against double and against Tinker's log.
TEST(AmoebaMixed, LiquidWaterMatchesDoubleAndTinker) {
  const std::string xyz = reference("liquid-water/liquid.amoeba");
  const std::string prm = reference("params/water03.prm");
  if (xyz.empty() || prm.empty()) return test::missing(test::Dependency::SharedData, "../shared/reference/amoeba is not here");
  const std::string key = key_file(test::scratch_dir("amoeba-mixed-liquid"), "liquid.key",
                                   "parameters " + prm + "\na-axis 18.643\nvdw-cutoff 9.0\nmpoleterm none\npolarizeterm none\n");
  const Parameters p = read_parameters(key);
  Structure s = io::read_frames(xyz).front();
  s.box = Box::orthorhombic(18.643, 18.643, 18.643);
  HostAtoms h(std::move(s));
  const ValenceEntries entries = valence_entries(p, h.types, h.neighbours);
  for (const auto& [term, want] : std::vector<std::pair<Term, double>>{
           {Term::Bond, 166.8264}, {Term::Angle, 88.3871}, {Term::Urey, -4.6546}}) {
    const std::string what = std::string("liquid water ") + term_name(term);
    const Outputs d = valence<false>(term, entries, p.header, h.ref), m = valence<true>(term, entries, p.header, h.ref);
    // Measured at most (with vdW): energy 7.3e-7 relative, gradient 1.5e-6, virial 4.4e-6 (Urey-Bradley).
    expect_within(deviation(d, m, what), {2e-5, 3e-5, 1e-4}, what);
    expect_energy_near_tinker(m.energy, want, 1e-3, what);  // measured: 3.8e-5 kcal/mol at most
  }
  const VdwSystem v = vdw_system(p, h.types, h.neighbours);
  const Outputs d = vdw<false>(v, h.ref), m = vdw<true>(v, h.ref);
  expect_within(deviation(d, m, "liquid water vdW"), {2e-5, 3e-5, 1e-4}, "liquid water vdW");
  EXPECT_NEAR(d.energy, 961.4154, 0.6e-4);
  // Measured: 7.4e-4 kcal/mol from Tinker's (98,000 pairs, each rounded in float).
  expect_energy_near_tinker(m.energy, 961.4154, 1e-2, "liquid water vdW");
}

// Angle- and stretch-torsions (no Tinker system has them): the chain of amoeba_support.hpp with its
// own records, mixed against double.
TEST(AmoebaMixed, CrossTermsMatchDouble) {
  const auto dir = test::scratch_dir("amoeba-mixed-chain");
  const std::string prm = write_chain(dir, "angtors 1 2 3 4 0.802 0.3 -3.323 0.5 -0.2 -0.630\n"
                                           "strtors 1 2 3 4 1.1 0.0 1.5 -0.4 0.7 -4.0 0.9 0.25 5.2\n");
  const Parameters p = read_parameters(key_file(dir, "chain.key", "parameters " + prm + "\n"));
  HostAtoms h(io::read_tinker_xyz((dir / "chain.xyz").string()));
  const ValenceEntries entries = valence_entries(p, h.types, h.neighbours);
  ASSERT_EQ(entries.angtors.size(), 1u);
  ASSERT_EQ(entries.strtors.size(), 1u);
  for (const Term term : {Term::AngleTorsion, Term::StretchTorsion}) {
    const std::string what = std::string("chain ") + term_name(term);
    const Outputs d = valence<false>(term, entries, p.header, h.ref), m = valence<true>(term, entries, p.header, h.ref);
    // Measured at most: energy 4.8e-7 relative, gradient 1.1e-7, virial 1.7e-7 of the largest.
    expect_within(deviation(d, m, what), {1e-5, 3e-6, 3e-6}, what);
  }
}

}  // namespace
}  // namespace quasar
