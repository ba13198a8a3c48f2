#include "quasar/potential/nnp/train/data.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "quasar/core/error.hpp"
#include "quasar/device/parallel.hpp"
#include "quasar/io/n2p2_data.hpp"

namespace quasar::nnp {

std::vector<TrainingStructure> read_training_data(const std::filesystem::path& input_data, const Model& model,
                                                  bool need_forces) {
  const std::vector<Structure> frames = io::read_n2p2_data(input_data.string());
  std::vector<TrainingStructure> out;
  out.reserve(frames.size());
  const int ne = static_cast<int>(model.elements.size());
  for (std::size_t f = 0; f < frames.size(); ++f) {
    const Structure& s = frames[f];
    auto fail = [&](const std::string& msg) {
      throw InputError(input_data.string(), 0, "structure " + std::to_string(f + 1) + ": " + msg);
    };
    std::vector<int> element_of(s.type_names.size(), -1);
    for (std::size_t t = 0; t < s.type_names.size(); ++t) {
      for (int e = 0; e < ne; ++e)
        if (model.elements[e].symbol == s.type_names[t]) element_of[t] = e;
      if (element_of[t] < 0) fail("element " + s.type_names[t] + " is not among the elements of input.nn");
    }
    if (need_forces && s.forces.size() != s.size()) fail("no forces (use_short_forces trains on them)");
    TrainingStructure t;
    t.index = static_cast<long>(f);
    t.box = s.box;
    t.positions = s.positions;
    t.forces = s.forces;
    t.per_element.assign(ne, 0);
    // n2p2 subtracts the offsets element by element: N_e atom_energy_e for each e in turn.
    t.energy = *s.energy;
    for (int type : s.types) {
      t.element.push_back(element_of[type]);
      ++t.per_element[element_of[type]];
    }
    for (int e = 0; e < ne; ++e) t.energy -= t.per_element[e] * model.elements[e].atom_energy;
    out.push_back(std::move(t));
  }
  return out;
}

Neighborhood neighborhood(const TrainingStructure& s, double cutoff) {
  const int n = static_cast<int>(s.size());
  const Box& box = s.box;
  // Displacements reduced to the cell around zero, then every image within reach: along a
  // periodic direction k the images up to rc / spacing + 1/2 cells away.
  int reach[3] = {0, 0, 0};
  for (int k = 0; k < 3; ++k)
    if (box.periodic[k]) reach[k] = static_cast<int>(std::ceil(cutoff / box.plane_spacing(k) + 0.5));
  Neighborhood h;
  h.entries.resize(n);
  h.atoms.resize(n);
  const double rc2 = cutoff * cutoff;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      Vec3 frac = (s.positions[j] - s.positions[i]) * box.hinv;
      for (int k = 0; k < 3; ++k)
        if (box.periodic[k]) frac[k] -= std::rint(frac[k]);
      const Vec3 d0 = frac * box.h;
      for (int a = -reach[0]; a <= reach[0]; ++a)
        for (int b = -reach[1]; b <= reach[1]; ++b)
          for (int c = -reach[2]; c <= reach[2]; ++c) {
            const Vec3 d = d0 + box.shift(a, b, c);
            const double r2 = norm2(d);
            if (r2 >= rc2 || r2 == 0) continue;
            h.entries[i].push_back({d.x, d.y, d.z, std::sqrt(r2), s.element[j]});
            h.atoms[i].push_back(j);
          }
    }
  }
  return h;
}

std::vector<std::vector<Scaling>> symmetry_function_statistics(const Model& model,
                                                               const std::vector<TrainingStructure>& structures) {
  const Descriptor descriptor(model, 1.0);
  const int ne = descriptor.element_count();
  struct Sums {
    long count = 0;
    double min = std::numeric_limits<double>::max(), max = -std::numeric_limits<double>::max(), sum = 0, sum2 = 0;
  };
  std::vector<std::vector<Sums>> sums(ne);
  for (int e = 0; e < ne; ++e) sums[e].resize(descriptor.count(e));
  // The functions of a chunk of structures in parallel, then added in n2p2's order.
  constexpr long kChunk = 64;
  const long ns = static_cast<long>(structures.size());
  std::vector<std::vector<std::vector<double>>> values;
  for (long begin = 0; begin < ns; begin += kChunk) {
    const long end = std::min(ns, begin + kChunk);
    values.assign(end - begin, {});
    device::parallel_for(
        end - begin,
        [&](long k) {
          const TrainingStructure& s = structures[begin + k];
          const Neighborhood h = neighborhood(s, descriptor.cutoff());
          auto& v = values[k];
          v.resize(s.size());
          for (std::size_t i = 0; i < s.size(); ++i) {
            v[i].resize(descriptor.count(s.element[i]));
            descriptor.values(s.element[i], h.entries[i], v[i].data());
          }
        },
        1);
    for (long k = 0; k < end - begin; ++k) {
      const TrainingStructure& s = structures[begin + k];
      for (std::size_t i = 0; i < s.size(); ++i) {
        std::vector<Sums>& row = sums[s.element[i]];
        for (std::size_t f = 0; f < row.size(); ++f) {
          const double g = values[k][i][f];
          Sums& x = row[f];
          ++x.count;
          x.sum += g;
          x.sum2 += g * g;
          x.min = std::min(x.min, g);
          x.max = std::max(x.max, g);
        }
      }
    }
  }
  std::vector<std::vector<Scaling>> out(ne);
  for (int e = 0; e < ne; ++e) {
    for (const Sums& x : sums[e]) {
      if (x.count < 2)
        throw Error("nnp: the training data hold " + std::to_string(x.count) + " atoms of element " +
                    model.elements[e].symbol + "; its symmetry-function statistics need at least two");
      const double n = static_cast<double>(x.count);
      out[e].push_back({x.min, x.max, x.sum / n, std::sqrt((x.sum2 - x.sum * x.sum / n) / (n - 1))});
    }
  }
  return out;
}

Normalization data_normalization(const std::vector<TrainingStructure>& structures) {
  if (structures.size() < 2) throw Error("nnp: the normalisation of the data needs at least two structures");
  double mean_e = 0, mean_f = 0;
  long atoms = 0;
  for (const TrainingStructure& s : structures) {
    atoms += static_cast<long>(s.size());
    mean_e += s.energy / static_cast<double>(s.size());
    for (const Vec3& f : s.forces) mean_f += f.x + f.y + f.z;
  }
  const double n = static_cast<double>(structures.size());
  mean_e /= n;
  mean_f /= 3.0 * static_cast<double>(atoms);
  double var_e = 0, var_f = 0;
  for (const TrainingStructure& s : structures) {
    const double de = s.energy / static_cast<double>(s.size()) - mean_e;
    var_e += de * de;
    for (const Vec3& f : s.forces)
      for (int k = 0; k < 3; ++k) var_f += (f[k] - mean_f) * (f[k] - mean_f);
  }
  const double sigma_e = std::sqrt(var_e / (n - 1)),
               sigma_f = std::sqrt(var_f / (3.0 * static_cast<double>(atoms) - 1));
  if (!(sigma_e > 0) || !(sigma_f > 0))
    throw Error("nnp: the energies per atom or the forces of the training data do not vary; no normalisation");
  return {mean_e, 1.0 / sigma_e, sigma_f / sigma_e};
}

}  // namespace quasar::nnp
