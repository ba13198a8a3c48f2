// Mean fields for Epsilon: EPM inputs unfolded and solved, or wavefunction files of the whole zone.
#include "quasar/gw/mean_field.hpp"

#include <cmath>
#include <fstream>

#include "quasar/core/error.hpp"
#include "quasar/gw/epm.hpp"
#include "quasar/gw/epm_input.hpp"
#include "quasar/gw/sigma.hpp"
#include "quasar/gw/symmetry.hpp"
#include "quasar/io/hdf5/hdf5.hpp"

namespace quasar::gw {

std::string unequal_weights(const Wavefunctions& w) {
  const double each = 1.0 / static_cast<double>(w.kpoint_count());
  for (std::size_t k = 0; k < w.kpoint_count(); ++k)
    if (std::abs(w.weights[k] - each) > 1e-9 * each)
      return "k-point " + std::to_string(k + 1) + " has weight " + std::to_string(w.weights[k]) + ", not 1/" +
             std::to_string(w.kpoint_count()) + ": a symmetry-reduced list, where Epsilon needs the whole zone";
  return "";
}

Wavefunctions load_mean_field(const std::string& path, device::Context& ctx, const Vec3d* shift) {
  char head[8] = {};
  {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw InputError(path, 0, "cannot open the mean field (an EPM input or a wavefunction file)");
    f.read(head, sizeof head);
  }
  if (!h5::has_signature(head, sizeof head)) return solve_epm(unfolded_input(read_epm_input(path), shift), ctx);
  Wavefunctions w = read_wavefunctions(path);
  if (const std::string p = unequal_weights(w); !p.empty())
    throw InputError(path, 0, p + " (give the EPM input instead: its list is unfolded)");
  return w;
}

std::vector<Vec3d> listed_kpoints(const std::string& path) {
  char head[8] = {};
  {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw InputError(path, 0, "cannot open the mean field (an EPM input or a wavefunction file)");
    f.read(head, sizeof head);
  }
  if (h5::has_signature(head, sizeof head)) return {};
  return read_epm_input(path).kpoints;
}

std::vector<double> mean_field_density(const std::string& path, device::Context& ctx) {
  char head[8] = {};
  {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw InputError(path, 0, "cannot open the mean field (an EPM input or a wavefunction file)");
    f.read(head, sizeof head);
  }
  if (!h5::has_signature(head, sizeof head)) return valence_density(solve_epm(read_epm_input(path), ctx));
  return valence_density(read_wavefunctions(path));
}

}  // namespace quasar::gw
