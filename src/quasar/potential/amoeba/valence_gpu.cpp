#include "quasar/potential/amoeba/valence_gpu.hpp"

#include <map>
#include <type_traits>

#include "quasar/core/error.hpp"
#include "quasar/potential/amoeba/valence_terms.hpp"

namespace quasar::amoeba {

namespace {

// The entries as bytes on the device, and each atom's (entry, slot) pairs in entry order.
template <class Form>
void add_batch(ValenceGpu& gpu, ValenceForm form, const std::vector<typename Form::Entry>& list, std::size_t n) {
  using Entry = typename Form::Entry;
  static_assert(std::is_trivially_copyable_v<Entry>, "entries are copied to the device as bytes");
  if (list.empty()) return;
  constexpr int A = Form::kAtoms;
  ValenceBatch b;
  b.form = form;
  b.atoms_per_entry = A;
  b.count = static_cast<long>(list.size());
  b.entries.resize(list.size() * sizeof(Entry));
  b.entries.upload(reinterpret_cast<const unsigned char*>(list.data()), list.size() * sizeof(Entry));
  std::vector<int> offset(n + 1, 0);
  for (const Entry& e : list) {
    int atoms[A];
    Form::atoms(e, atoms);
    for (int m = 0; m < A; ++m) {
      if (atoms[m] < 0 || static_cast<std::size_t>(atoms[m]) >= n) throw Error("amoeba: an entry names an atom outside the system");
      ++offset[static_cast<std::size_t>(atoms[m]) + 1];
    }
  }
  for (std::size_t i = 0; i < n; ++i) offset[i + 1] += offset[i];
  std::vector<int> incidence(static_cast<std::size_t>(offset[n])), at(offset.begin(), offset.end() - 1);
  for (std::size_t k = 0; k < list.size(); ++k) {
    int atoms[A];
    Form::atoms(list[k], atoms);
    for (int m = 0; m < A; ++m)
      incidence[static_cast<std::size_t>(at[static_cast<std::size_t>(atoms[m])]++)] = static_cast<int>(k) * A + m;
  }
  b.incidence_offset.assign(offset);
  b.incidence.assign(incidence);
  b.results.resize(list.size() * static_cast<std::size_t>(10 + 3 * A));
  gpu.batches.push_back(std::move(b));
}

}  // namespace

void prepare_valence_gpu(ValenceGpu& gpu, Term term, const ValenceEntries& v, const ForceFieldHeader& h, std::size_t n) {
  gpu.batches.clear();
  gpu.units = valence_units(h);
  switch (term) {
    case Term::Bond: add_batch<BondForm>(gpu, ValenceForm::Bond, v.bonds, n); break;
    case Term::Angle: {
      std::vector<AngleEntry> three, four;
      for (const AngleEntry& e : v.angles) (is_in_plane(e) ? four : three).push_back(e);
      add_batch<AngleForm>(gpu, ValenceForm::Angle, three, n);
      add_batch<InPlaneAngleForm>(gpu, ValenceForm::InPlaneAngle, four, n);
      break;
    }
    case Term::StretchBend: add_batch<StretchBendForm>(gpu, ValenceForm::StretchBend, v.strbnds, n); break;
    case Term::Urey: add_batch<UreyForm>(gpu, ValenceForm::Urey, v.ureys, n); break;
    case Term::OutOfPlane: add_batch<OutOfPlaneForm>(gpu, ValenceForm::OutOfPlane, v.opbends, n); break;
    case Term::Torsion: add_batch<TorsionForm>(gpu, ValenceForm::Torsion, v.torsions, n); break;
    case Term::PiTorsion: add_batch<PiTorsionForm>(gpu, ValenceForm::PiTorsion, v.pitors, n); break;
    case Term::TorsionTorsion: {
      // Every grid the entries use, one after another on the device; the entries point into them.
      std::map<const TorTorGrid*, std::size_t> at;
      std::vector<double> data;
      for (const TorTorEntry& t : v.tortors) {
        if (at.count(t.grid)) continue;
        at[t.grid] = data.size();
        for (const std::vector<double>* part : {&t.grid->x, &t.grid->y, &t.grid->f, &t.grid->fx, &t.grid->fy, &t.grid->fxy})
          data.insert(data.end(), part->begin(), part->end());
      }
      gpu.grids.assign(data);
      std::vector<TorTorTerm> terms;
      for (const TorTorEntry& t : v.tortors) {
        const TorTorGrid& g = *t.grid;
        const double* base = gpu.grids.data() + at[t.grid];
        const std::size_t nx = g.x.size(), ny = g.y.size(), nodes = g.f.size();
        TorTorGridView view{g.nx, g.ny, base, base + nx, base + nx + ny, base + nx + ny + nodes,
                            base + nx + ny + 2 * nodes, base + nx + ny + 3 * nodes};
        terms.push_back(tortor_term(t, view));
      }
      add_batch<TorsionTorsionForm>(gpu, ValenceForm::TorsionTorsion, terms, n);
      break;
    }
    case Term::AngleTorsion: add_batch<AngleTorsionForm>(gpu, ValenceForm::AngleTorsion, v.angtors, n); break;
    case Term::StretchTorsion: add_batch<StretchTorsionForm>(gpu, ValenceForm::StretchTorsion, v.strtors, n); break;
    default: throw Error(std::string("not a valence term: ") + term_name(term));
  }
  gpu.ready = true;
}

}  // namespace quasar::amoeba
