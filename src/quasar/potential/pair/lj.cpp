#include "quasar/potential/pair/lj.hpp"

#include "quasar/core/config.hpp"

#include <algorithm>
#include <cmath>

#include "quasar/potential/pair/pair_loop.hpp"

namespace quasar {

LennardJones::LennardJones(std::map<std::string, LjSpecies> species, double cutoff, bool shift,
                           bool arithmetic_mixing, std::vector<LjPairOverride> pairs)
    : species_(std::move(species)), cutoff_(cutoff), shift_(shift), arithmetic_(arithmetic_mixing),
      pairs_(std::move(pairs)) {
  if (!(cutoff_ > 0)) throw Error("lj: cutoff must be positive");
  max_cutoff_ = cutoff_;
  for (const auto& p : pairs_) max_cutoff_ = std::max(max_cutoff_, p.cutoff);
  for (const auto& [name, sp] : species_) max_cutoff_ = std::max(max_cutoff_, sp.cutoff);
}

namespace {
LennardJones from_config(const ConfigTable& t) {
  t.allow_only({"type", "name", "group", "cutoff", "shift", "mixing", "species", "pair", "special"});
  const std::string mixing = t.get_string("mixing", "geometric");
  if (mixing != "geometric" && mixing != "arithmetic")
    t.fail("mixing", "expected \"geometric\" or \"arithmetic\", got \"" + mixing + "\"");
  // Cutoffs within (0, kMaxCutoff] (0 for a species: the global one), sigma a positive length.
  auto cutoff_of = [](const ConfigTable& c, std::optional<double> fallback, bool zero_ok) {
    const double rc = c.get_double("cutoff", fallback);
    if (!((rc > 0 || (zero_ok && rc == 0)) && rc <= kMaxCutoff))
      c.fail("cutoff", std::string("expected ") + (zero_ok ? "0 (the global cutoff) or " : "") + "a cutoff in (0, " +
                           std::to_string(static_cast<int>(kMaxCutoff)) + "] Å");
    return rc;
  };
  auto sigma_of = [](const ConfigTable& c) {
    const double s = c.get_double("sigma");
    if (!(s > 0)) c.fail("sigma", "expected a positive length");
    return s;
  };
  const double cutoff = cutoff_of(t, std::nullopt, false);
  std::map<std::string, LjSpecies> species;
  const ConfigTable sp = t.require_sub("species");
  for (const auto& [name, node] : *sp.table) {
    auto s = sp.sub(name.str());
    s->allow_only({"epsilon", "sigma", "cutoff"});
    species[std::string(name.str())] = {s->get_double("epsilon"), sigma_of(*s), cutoff_of(*s, 0.0, true)};
  }
  std::vector<LjPairOverride> pairs;
  if (const toml::node* n = t.table->get("pair")) {
    if (!n->is_array_of_tables()) t.fail("pair", "expected [[potential.pair]] tables");
    int k = 0;
    for (const auto& e : *n->as_array()) {
      ConfigTable p{e.as_table(), t.file, t.key_path("pair") + "[" + std::to_string(k++) + "]"};
      p.allow_only({"types", "epsilon", "sigma", "cutoff"});
      const auto types = p.get_strings("types");
      if (types.size() != 2) p.fail("types", "expected two type names");
      pairs.push_back({types[0], types[1], p.get_double("epsilon"), sigma_of(p), cutoff_of(p, cutoff, false)});
    }
  }
  LennardJones lj(std::move(species), cutoff, t.get_bool("shift", false), mixing == "arithmetic", std::move(pairs));
  if (t.has("special")) {
    const std::vector<double> w = t.get_doubles("special");
    if (w.size() != 3) t.fail("special", "expected three weights [w12, w13, w14] (LAMMPS's special_bonds lj)");
    for (double x : w)
      if (!(x >= 0 && x <= 1)) t.fail("special", "expected weights from 0 to 1, found " + std::to_string(x));
    lj.set_special({w[0], w[1], w[2]}, t.location("special"));
  }
  return lj;
}
}  // namespace

LennardJones::LennardJones(const ConfigTable& t) : LennardJones(from_config(t)) {}

void LennardJones::set_special(std::array<double, 3> weights, KeyLocation where) {
  special_ = weights;
  special_key_ = std::move(where);
  exclusions_.reset();
}

void LennardJones::bind(const SystemSetup& setup) {
  bind_types(setup.type_names);
  if (!special_) return;
  if (setup.topology.bonds.empty())
    special_key_.fail("lj: special weights need the system's bonds, and it has none (they come from the Bonds section "
                      "of a LAMMPS data file)");
  if (const std::string p = setup.topology.problem(setup.atom_count); !p.empty()) throw Error("lj: " + p);
  exclusions_.emplace(setup.topology, setup.atom_count);
}

void LennardJones::bind_types(const std::vector<std::string>& names) {
  table_ = Array<LjCoeff>();  // re-uploaded by the next compute
  ntypes_ = static_cast<int>(names.size());
  host_table_.assign(static_cast<std::size_t>(ntypes_) * ntypes_, LjCoeff{});
  for (int a = 0; a < ntypes_; ++a) {
    for (int b = 0; b < ntypes_; ++b) {
      auto find = [&](const std::string& n) {
        auto it = species_.find(n);
        if (it == species_.end()) throw Error("lj: no parameters for atom type '" + n + "' (add [potential.species." + n + "])");
        return it->second;
      };
      const LjSpecies si = find(names[a]), sj = find(names[b]);
      auto mix = [&](double p, double q) { return arithmetic_ ? 0.5 * (p + q) : std::sqrt(p * q); };
      const double ci = si.cutoff > 0 ? si.cutoff : cutoff_, cj = sj.cutoff > 0 ? sj.cutoff : cutoff_;
      double eps = a == b ? si.epsilon : std::sqrt(si.epsilon * sj.epsilon);
      double sig = a == b ? si.sigma : mix(si.sigma, sj.sigma);
      double rc = a == b ? ci : mix(ci, cj);
      for (const auto& p : pairs_)
        if ((p.a == names[a] && p.b == names[b]) || (p.a == names[b] && p.b == names[a])) {
          eps = p.epsilon;
          sig = p.sigma;
          rc = p.cutoff;
        }
      LjCoeff& c = host_table_[a * ntypes_ + b];
      const double s6 = std::pow(sig, 6);
      c.lj1 = 48 * eps * s6 * s6;
      c.lj2 = 24 * eps * s6;
      c.lj3 = 4 * eps * s6 * s6;
      c.lj4 = 4 * eps * s6;
      c.cut2 = rc * rc;
      const double rc6i = 1.0 / std::pow(rc, 6);
      c.offset = shift_ ? rc6i * (c.lj3 * rc6i - c.lj4) : 0.0;
    }
  }
}

void LennardJones::compute(AtomState& atoms, NeighborRefs lists, const ComputeRequest& req, ForceOutput& out) {
  const NeighborRef& list = lists[0];
  if (ntypes_ != atoms.num_types()) bind_types(atoms.type_names());
  if (table_.backend() != atoms.backend() || table_.size() != host_table_.size()) {
    table_ = Array<LjCoeff>(atoms.backend());
    table_.assign(host_table_);
  }
  const LjEval eval{table_.data(), ntypes_};
  std::optional<SpecialWeights> special;
  if (special_) {
    if (!exclusions_) throw Error("lj: special weights need bind() with the system's topology first");
    if (atoms.n_local() < atoms.size())
      throw Error("lj: special weights need Quasar's own topology; ghost atoms (a LAMMPS pair style) have none");
    if (exclusions_->atoms() != static_cast<std::size_t>(atoms.size()))
      throw Error("lj: bound to a system of " + std::to_string(exclusions_->atoms()) + " atoms, given " +
                  std::to_string(atoms.size()));
    special = SpecialWeights{exclusions_->ref(atoms.backend()), {(*special_)[0], (*special_)[1], (*special_)[2]}};
  }
  if (atoms.backend() == Backend::Cpu) {
    if (special) pair_loop_cpu(eval, atoms, list, req, out, thread_buffers_, *special);
    else pair_loop_cpu(eval, atoms, list, req, out, thread_buffers_);
    return;
  }
#ifdef QUASAR_HAVE_CUDA
  lj_compute_cuda(eval, atoms, list, req, out, packed_, special ? &*special : nullptr);
#else
  throw_no_cuda("lj on the GPU");
#endif
}

}  // namespace quasar
