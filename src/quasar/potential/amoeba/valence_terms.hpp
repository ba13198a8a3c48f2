#pragma once
// The CPU reference of AMOEBA's valence terms, in double: Tinker's functional forms (kcal/mol,
// lengths in Å, angles in degrees), each written once as its energy on forward-mode duals
// (valence_forms.hpp, which the CUDA kernels of valence_gpu.hpp share), which give its exact
// gradient; forces and virials in the engine's units (eV, Å).
#include "quasar/core/atoms.hpp"
#include "quasar/potential/amoeba/valence_setup.hpp"
#include "quasar/potential/force_output.hpp"

namespace quasar::amoeba {

// Adds one valence term's forces to the atoms, its energy and virial (W_ab = sum r_a f_b) to
// out.term_totals() and, with req.per_atom, an equal share of both to each atom of an entry.
// Entries hold input indices; atoms may be spatially sorted and periodic (nearest images).
// `a` is the atoms' view, whose cell may be the key's (amoeba_term.cpp).
void add_valence_term(Term term, const ValenceEntries& entries, const ForceFieldHeader& header, const AtomsRef& a,
                      const ComputeRequest& req, ForceOutput& out);

// Whether this reference computes the term.
bool is_valence_term(Term term);

// Whether an angle entry is in-plane (four atoms: InPlaneAngleForm), else three (AngleForm).
bool is_in_plane(const AngleEntry& e);

}  // namespace quasar::amoeba
