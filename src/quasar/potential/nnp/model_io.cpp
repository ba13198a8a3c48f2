// scaling.data and weights.ZZZ.data, and the folder of a potential as a whole.
#include "quasar/potential/nnp/model_io.hpp"

#include <cstdio>
#include <ostream>

#include "quasar/io/read.hpp"
#include "quasar/io/text.hpp"
#include "quasar/potential/nnp/input_nn_keywords.hpp"

namespace quasar::nnp {

namespace {

// A data line of scaling.data or a weights file: n2p2 skips empty lines and lines that begin with '#'.
bool comment_or_empty(const std::string& line) { return line.empty() || line[0] == '#'; }

std::string shape_text(const ElementModel& x) {
  std::string s;
  for (std::size_t n : x.layer_sizes()) s += (s.empty() ? "" : "-") + std::to_string(n);
  return s;
}

std::string format(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

}  // namespace

std::string weights_file_name(int atomic_number) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "weights.%03d.data", atomic_number);
  return buf;
}

void read_scaling(const std::filesystem::path& file, Model& model) {
  io::LineReader in(file.string());
  std::size_t e = 0, k = 0;  // the row expected next: element e, function k
  auto skip_done = [&] {
    while (e < model.elements.size() && k == model.elements[e].functions.size()) ++e, k = 0;
  };
  for (ElementModel& x : model.elements) x.scaling.clear();
  skip_done();
  bool legacy_line = false;
  std::string line;
  while (in.next(line)) {
    if (comment_or_empty(line)) continue;
    const auto w = io::split_words(line);
    if (w.empty()) continue;
    if (e == model.elements.size()) {
      // Older n2p2 versions ended the file with a line of two numbers, which n2p2 ignores.
      if (w.size() == 2 && !legacy_line) {
        in.to_double(w[0], "the first value of the closing line");
        in.to_double(w[1], "the second value of the closing line");
        legacy_line = true;
        continue;
      }
      in.fail("a row beyond the functions of input.nn (every element's rows are complete)");
    }
    if (legacy_line) in.fail("a row after the closing line of two numbers");
    if (w.size() != 5 && w.size() != 6)
      in.fail("expected 6 columns (element_index function_index min max mean sigma), found " + std::to_string(w.size()));
    ElementModel& x = model.elements[e];
    const long ei = in.to_long(w[0], "the element index");
    const long fi = in.to_long(w[1], "the function index");
    if (ei != static_cast<long>(e) + 1 || fi != static_cast<long>(k) + 1)
      in.fail("expected the row of element " + std::to_string(e + 1) + " (" + x.symbol + "), function " +
              std::to_string(k + 1) + ", found " + w[0] + " " + w[1] + " (rows follow the elements by atomic number, "
              "each element's functions in n2p2's order)");
    Scaling s;
    s.min = in.to_double(w[2], "the minimum");
    s.max = in.to_double(w[3], "the maximum");
    s.mean = in.to_double(w[4], "the mean");
    s.sigma = w.size() == 6 ? in.to_double(w[5], "sigma") : 0.0;  // n2p2's older files have no sigma
    if (const std::string p = detail::scaling_problem(s, model.scaling); !p.empty()) in.fail(p);
    x.scaling.push_back(s);
    ++k;
    skip_done();
  }
  if (e < model.elements.size()) {
    std::size_t want = 0, have = 0;
    for (const ElementModel& x : model.elements) want += x.functions.size(), have += x.scaling.size();
    throw InputError(in.path(), in.line_number(),
                     "the file ends after " + std::to_string(have) + " rows; input.nn's functions need " +
                         std::to_string(want) + " (the next: element " + std::to_string(e + 1) + " (" +
                         model.elements[e].symbol + "), function " + std::to_string(k + 1) + ")");
  }
}

void read_weights(const std::filesystem::path& file, ElementModel& x) {
  if (!std::filesystem::exists(file))
    throw InputError(file.string(), 0, "missing: the weights of element " + x.symbol + " (" + shape_text(x) + " network)");
  io::LineReader in(file.string());
  const std::size_t want = x.parameter_count();
  x.weights.clear();
  std::string line;
  while (in.next(line)) {
    if (comment_or_empty(line)) continue;
    const auto w = io::split_words(line);
    if (w.empty()) in.fail("a line of blanks (n2p2 would read it as a missing value)");
    if (x.weights.size() == want)
      in.fail("more values than the " + shape_text(x) + " network of " + x.symbol + " takes (" + std::to_string(want) + ")");
    x.weights.push_back(in.to_double(w[0], "a weight"));
  }
  if (x.weights.size() != want)
    throw InputError(in.path(), in.line_number(),
                     "the file ends after " + std::to_string(x.weights.size()) + " values; the " + shape_text(x) +
                         " network of " + x.symbol + " takes " + std::to_string(want));
}

Model read_model(const std::filesystem::path& dir, ModelFiles files) {
  Model m = read_input_nn(dir / "input.nn");
  if (files.scaling) read_scaling(dir / "scaling.data", m);
  if (files.weights)
    for (ElementModel& x : m.elements) read_weights(dir / weights_file_name(x.atomic_number), x);
  return m;
}

void write_scaling(const Model& m, const std::filesystem::path& file) {
  for (const ElementModel& x : m.elements)
    if (x.scaling.size() != x.functions.size())
      throw Error("cannot write " + file.string() + ": element " + x.symbol + " has " + std::to_string(x.scaling.size()) +
                  " scaling rows for " + std::to_string(x.functions.size()) + " functions");
  io::write_file_atomically(file.string(), [&](std::ostream& o) {
    o << "# Symmetry function statistics in n2p2's format (scaling.data), written by Quasar.\n"
      << "# element_index function_index min max mean sigma\n";
    for (std::size_t e = 0; e < m.elements.size(); ++e) {
      const ElementModel& x = m.elements[e];
      for (std::size_t k = 0; k < x.scaling.size(); ++k) {
        char idx[64];
        std::snprintf(idx, sizeof idx, "%10zu %10zu", e + 1, k + 1);
        const Scaling& s = x.scaling[k];
        o << idx << format(" %24.16E", s.min) << format(" %24.16E", s.max) << format(" %24.16E", s.mean)
          << format(" %24.16E", s.sigma) << '\n';
      }
    }
  });
}

void write_weights(const ElementModel& x, const std::filesystem::path& file) {
  if (x.weights.size() != x.parameter_count())
    throw Error("cannot write " + file.string() + ": " + std::to_string(x.weights.size()) + " weights for the " +
                shape_text(x) + " network of " + x.symbol + ", which takes " + std::to_string(x.parameter_count()));
  const auto sizes = x.layer_sizes();
  io::write_file_atomically(file.string(), [&](std::ostream& o) {
    // n2p2's columns: the value, a (weight) or b (bias), the running index, then for a weight its source
    // layer and neuron and target layer and neuron, for a bias its layer and neuron (1-based neurons).
    o << "# Weights of the " << shape_text(x) << " network of " << x.symbol << " in n2p2's format, written by Quasar.\n"
      << "# value type index source_layer source_neuron target_layer target_neuron (for a bias: layer neuron)\n";
    std::size_t i = 0;
    char buf[192];
    for (std::size_t l = 1; l < sizes.size(); ++l) {
      for (std::size_t j = 0; j < sizes[l - 1]; ++j)
        for (std::size_t k = 0; k < sizes[l]; ++k, ++i) {
          std::snprintf(buf, sizeof buf, "%24.16E a %9zu %5zu %5zu %5zu %5zu\n", x.weights[i], i + 1, l - 1, j + 1, l, k + 1);
          o << buf;
        }
      for (std::size_t k = 0; k < sizes[l]; ++k, ++i) {
        std::snprintf(buf, sizeof buf, "%24.16E b %9zu %5zu %5zu\n", x.weights[i], i + 1, l, k + 1);
        o << buf;
      }
    }
  });
}

void write_model(const Model& m, const std::filesystem::path& dir) {
  if (const std::string p = model_problem(m); !p.empty()) throw Error("cannot write the potential to " + dir.string() + ": " + p);
  std::filesystem::create_directories(dir);
  write_input_nn(m, dir / "input.nn");
  if (!m.elements.empty() && !m.elements.front().scaling.empty()) write_scaling(m, dir / "scaling.data");
  for (const ElementModel& x : m.elements)
    if (!x.weights.empty()) write_weights(x, dir / weights_file_name(x.atomic_number));
}

}  // namespace quasar::nnp
