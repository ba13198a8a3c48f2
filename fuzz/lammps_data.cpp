// Fuzz target: LAMMPS data files, with the atom style from the Atoms line's comment and, as a
// second reading, forced to full (the style argument's path). What reads is written back in a style
// that holds it and read again: the topology, ids, types, positions, velocities and charges must
// come back unchanged (a difference aborts, which libFuzzer reports).
#include <cstdlib>

#include "fuzz_input.hpp"
#include "quasar/io/lammps_data.hpp"

namespace {

bool same_topology(const quasar::Topology& a, const quasar::Topology& b, std::size_t atoms) {
  for (int k = 0; k < 4; ++k) {
    const quasar::BondedSet &x = a.set(k), &y = b.set(k);
    if (x.num_types != y.num_types || x.atoms != y.atoms || x.types != y.types || x.coeffs != y.coeffs) return false;
    if (!x.coeffs.empty() && x.style != y.style) return false;  // a style without coefficients is not written
  }
  auto molecules = [atoms](const quasar::Topology& t) {  // written as 0 where the file had none
    return t.molecules.empty() ? std::vector<long>(atoms, 0) : t.molecules;
  };
  return molecules(a) == molecules(b);
}

void round_trip(const quasar::Structure& s) {
  const bool topology = !s.topology.empty(), charges = !s.charges.empty();
  const char* style = topology ? (charges ? "full" : "molecular") : (charges ? "charge" : "atomic");
  const auto path = quasar::fuzz::input_file(nullptr, 0, "written.data");
  quasar::io::write_lammps_data(path, s, style);
  const quasar::Structure back = quasar::io::read_lammps_data(path);
  bool same = same_topology(s.topology, back.topology, s.size()) && back.types == s.types && back.ids == s.ids &&
              back.charges == s.charges && back.velocities.size() == s.velocities.size();
  for (std::size_t i = 0; same && i < s.size(); ++i)
    for (int k = 0; k < 3; ++k) {
      same = same && back.positions[i][k] == s.positions[i][k];
      if (!s.velocities.empty()) same = same && back.velocities[i][k] == s.velocities[i][k];
    }
  if (!same) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const auto path = quasar::fuzz::input_file(data, size, "input.data");
  quasar::fuzz::expect_input_error([&] { round_trip(quasar::io::read_lammps_data(path)); });
  return quasar::fuzz::expect_input_error([&] { round_trip(quasar::io::read_lammps_data(path, "full")); });
}
