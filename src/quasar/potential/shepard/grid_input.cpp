// The TOML input of grid evaluation (grid_io.hpp): every key checked where it stands.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

#include "quasar/potential/shepard/grid_io.hpp"
#include "quasar/potential/shepard/text_reader.hpp"

namespace quasar::shepard {

namespace {

constexpr long kMaxValues = 1000000;  // over all coordinates

// A coordinate's values: a number, a list of numbers, or {start, stop, count, endpoint}; `budget`
// is what remains of kMaxValues.
std::vector<double> coordinate_values(const ConfigTable& row, const std::string& key, long& budget) {
  std::vector<double> v;
  const toml::node* node = row.table->get(key);
  if (node && node->is_table()) {
    const ConfigTable range{node->as_table(), row.file, row.key_path(key)};
    range.allow_only({"start", "stop", "count", "endpoint"});
    const double start = range.get_double("start"), stop = range.get_double("stop");
    const long count = range.get_int("count", std::nullopt, 1, kMaxValues);
    if (count > budget) range.fail("count", "the grid's coordinates take more than 1000000 values in all");
    const bool endpoint = range.get_bool("endpoint", true);
    const double steps = static_cast<double>(endpoint ? count - 1 : count);
    for (long k = 0; k < count; ++k)
      v.push_back(k == 0 ? start
                  : endpoint && k == count - 1 ? stop
                                               : start + (stop - start) * static_cast<double>(k) / steps);
  } else {
    v = row.get_doubles(key);
    if (v.empty()) row.fail(key, "expected at least one value");
  }
  budget -= static_cast<long>(v.size());
  if (budget < 0) row.fail(key, "the grid's coordinates take more than 1000000 values in all");
  for (double x : v) {
    if (!std::isfinite(x)) row.fail(key, "values must be finite");
    std::ostringstream found;
    found << ", found " << x;
    if (key == "r" && !(x > 0)) row.fail(key, "bond lengths must be > 0 Å" + found.str());
    if (key == "theta" && !(x >= 0 && x <= 180)) row.fail(key, "angles must lie in [0, 180] degrees" + found.str());
  }
  return v;
}

}  // namespace

GridSettings grid_settings_from_config(const ConfigTable& top) {
  top.allow_only({"dataset", "output", "device", "method", "gradients", "piece", "zmatrix"});
  GridSettings s;
  s.dataset = top.get_string("dataset");
  s.dataset_key = top.location("dataset");
  s.output = top.get_string("output", "");
  if (top.has("output") && s.output.empty()) top.fail("output", "expected a file name");
  s.device = top.get_string("device", "cpu");
  if (s.device != "cpu" && s.device != "cuda" && s.device != "gpu" && s.device != "auto")
    top.fail("device", "unknown device '" + s.device + "' (valid: auto, cpu, cuda)");
  const std::string method = top.get_string("method", "approximate");
  if (method != "approximate" && method != "exact")
    top.fail("method", "unknown method '" + method + "' (valid: approximate, exact)");
  s.exact = method == "exact";
  s.gradients = top.get_bool("gradients", false);
  s.piece = top.get_int("piece", 65536, 1, 10000000);
  const toml::node* z = top.table->get("zmatrix");
  if (!z) throw InputError(top.file, 0, "missing key 'zmatrix' (one [[zmatrix]] table per atom)");
  if (!z->is_array_of_tables() || z->as_array()->size() < 3)
    top.fail("zmatrix", "expected [[zmatrix]] tables, one per atom (at least 3)");
  if (z->as_array()->size() > static_cast<std::size_t>(kMaxAtoms))
    top.fail("zmatrix", "more than " + std::to_string(kMaxAtoms) + " atoms");
  s.grid.where = top.location("zmatrix");
  int k = 0;
  long budget = kMaxValues;
  for (const toml::node& e : *z->as_array()) {
    ++k;
    const ConfigTable row{e.as_table(), top.file, "zmatrix[" + std::to_string(k) + "]"};
    if (k == 1) row.allow_only({"element"});
    else if (k == 2) row.allow_only({"element", "bond", "r"});
    else if (k == 3) row.allow_only({"element", "bond", "r", "angle", "theta"});
    else row.allow_only({"element", "bond", "r", "angle", "theta", "dihedral", "phi"});
    ZMatrixRow r;
    r.element = row.get_string("element");
    if (r.element.empty() || std::any_of(r.element.begin(), r.element.end(), [](char c) {
          return c == '#' || c == '\0' || std::isspace(static_cast<unsigned char>(c));
        }))
      row.fail("element", "expected an element name (one word)");
    s.elements.push_back(row.location("element"));
    const long earlier = k - 1;
    if (k >= 2) r.bond = static_cast<int>(row.get_int("bond", std::nullopt, 1, earlier));
    if (k >= 3) {
      r.angle = static_cast<int>(row.get_int("angle", std::nullopt, 1, earlier));
      if (r.angle == r.bond) row.fail("angle", "must be another row than 'bond'");
    }
    if (k >= 4) {
      r.dihedral = static_cast<int>(row.get_int("dihedral", std::nullopt, 1, earlier));
      if (r.dihedral == r.bond || r.dihedral == r.angle) row.fail("dihedral", "must be another row than 'bond' and 'angle'");
    }
    s.grid.rows.push_back(r);
    if (k >= 2) s.grid.values.push_back(coordinate_values(row, "r", budget));
    if (k >= 3) s.grid.values.push_back(coordinate_values(row, "theta", budget));
    if (k >= 4) s.grid.values.push_back(coordinate_values(row, "phi", budget));
  }
  if (std::string p = s.grid.problem(); !p.empty()) top.fail("zmatrix", p);
  return s;
}

void check_grid_atoms(const GridSettings& settings, const DataSet& set) {
  const std::vector<ZMatrixRow>& rows = settings.grid.rows;
  if (static_cast<int>(rows.size()) != set.atoms())
    settings.grid.where.fail(std::to_string(rows.size()) + " rows; the data set has " + std::to_string(set.atoms()) +
                          " atoms (one row per atom, in the data set's order)");
  for (std::size_t a = 0; a < rows.size(); ++a)
    if (rows[a].element != set.elements[a])
      settings.elements[a].fail("'" + rows[a].element + "', but atom " + std::to_string(a + 1) + " of the data set is " +
                                set.elements[a] + " (one row per atom, in the data set's order)");
}

}  // namespace quasar::shepard
