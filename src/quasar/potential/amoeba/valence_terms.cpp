#include "quasar/potential/amoeba/valence_terms.hpp"

#include "quasar/core/error.hpp"
#include "quasar/potential/amoeba/valence_forms.hpp"

namespace quasar::amoeba {

namespace {

// One entry (valence_forms.hpp's evaluate_entry, which the kernels share): its forces into the
// atoms, energy and virial into sums, and with per-atom outputs an equal share per atom.
template <class Form>
void add_entry(const Form& form, const typename Form::Entry& entry, const AtomsRef& a, const ComputeRequest& req,
               ForceOutput& out, double (&sums)[10]) {
  constexpr int A = Form::kAtoms;
  int idx[A];
  double energy, w[9];
  Vec3 f[A];
  evaluate_entry(form, entry, a, idx, energy, w, f);
  for (int m = 0; m < A; ++m) {
    a.fx[idx[m]] += f[m].x;
    a.fy[idx[m]] += f[m].y;
    a.fz[idx[m]] += f[m].z;
  }
  sums[0] += energy;
  for (int c = 0; c < 9; ++c) sums[1 + c] += w[c];
  if (!req.per_atom) return;
  const std::size_t n = static_cast<std::size_t>(a.n);
  for (int m = 0; m < A; ++m) {
    const std::size_t i = static_cast<std::size_t>(idx[m]);
    out.atom_energy[i] += energy / A;
    for (int c = 0; c < 9; ++c) out.atom_virial[static_cast<std::size_t>(c) * n + i] += w[c] / A;
  }
}

template <class Form, class List>
void add_all(const Form& form, const List& list, const AtomsRef& a, const ComputeRequest& req, ForceOutput& out,
             double (&sums)[10]) {
  for (const auto& e : list) add_entry(form, e, a, req, out, sums);
}

}  // namespace

bool is_valence_term(Term term) { return static_cast<int>(term) <= static_cast<int>(Term::StretchTorsion); }

bool is_in_plane(const AngleEntry& e) { return e.fold <= 0 && e.fourth >= 0; }

void add_valence_term(Term term, const ValenceEntries& v, const ForceFieldHeader& h, const AtomsRef& a,
                      const ComputeRequest& req, ForceOutput& out) {
  double s[10] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  const ValenceUnits u = valence_units(h);
  switch (term) {
    case Term::Bond: add_all(BondForm{u}, v.bonds, a, req, out, s); break;
    case Term::Angle:
      for (const AngleEntry& e : v.angles) {
        if (is_in_plane(e)) add_entry(InPlaneAngleForm{u}, e, a, req, out, s);
        else add_entry(AngleForm{u}, e, a, req, out, s);
      }
      break;
    case Term::StretchBend: add_all(StretchBendForm{u}, v.strbnds, a, req, out, s); break;
    case Term::Urey: add_all(UreyForm{u}, v.ureys, a, req, out, s); break;
    case Term::OutOfPlane: add_all(OutOfPlaneForm{u}, v.opbends, a, req, out, s); break;
    case Term::Torsion: add_all(TorsionForm{u}, v.torsions, a, req, out, s); break;
    case Term::PiTorsion: add_all(PiTorsionForm{u}, v.pitors, a, req, out, s); break;
    case Term::TorsionTorsion:
      for (const TorTorEntry& t : v.tortors)
        add_entry(TorsionTorsionForm{u}, tortor_term(t, grid_view(*t.grid)), a, req, out, s);
      break;
    case Term::AngleTorsion: add_all(AngleTorsionForm{u}, v.angtors, a, req, out, s); break;
    case Term::StretchTorsion: add_all(StretchTorsionForm{u}, v.strtors, a, req, out, s); break;
    default:
      throw Error(std::string("not a valence term: ") + term_name(term));
  }
  double* totals = out.term_totals();
  for (int c = 0; c < 10; ++c) totals[c] += s[c];
}

}  // namespace quasar::amoeba
