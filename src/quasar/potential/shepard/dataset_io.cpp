// The data set's text format (docs/formats/shepard.md): keyed lines in a fixed order, '#' comments;
// and the choice between it and HDF5 (dataset_hdf5.cpp) by the file's name or first bytes.
#include <fstream>
#include <iomanip>
#include <iterator>
#include <ostream>

#include "quasar/io/hdf5/hdf5.hpp"
#include "quasar/io/read.hpp"
#include "quasar/potential/shepard/dataset.hpp"
#include "quasar/potential/shepard/text_reader.hpp"

namespace quasar::shepard {

namespace {

DataPoint read_point(Reader& in, const DataSet& s, long index) {
  const int n = s.atoms(), nb = s.pairs(), ni = s.internal();
  const auto head = in.keyed("point", 1);
  if (head[0] != std::to_string(index)) in.fail("point", "expected point " + std::to_string(index) + ", found " + head[0]);
  DataPoint d;
  d.energy = in.number(in.keyed("energy", 1)[0], "energy");
  in.keyed("positions", 0);
  in.matrix("positions", n, 3, d.positions);
  in.numbers(in.keyed("confidence", nb), "confidence", d.confidence);
  for (double c : d.confidence)
    if (!(c > 0)) in.fail("confidence", "lengths must be > 0");
  in.keyed("u", 0);
  in.matrix("u", nb, ni, d.u);
  in.numbers(in.keyed("gradient", ni), "gradient", d.gradient);
  in.keyed("hessian", 0);
  // Row k holds the upper triangle's columns k..nint-1.
  d.hessian.assign(static_cast<std::size_t>(ni) * static_cast<std::size_t>(ni), 0.0);
  for (int k = 0; k < ni; ++k) {
    const auto words = in.line("hessian row");
    if (static_cast<int>(words.size()) != ni - k)
      in.fail("hessian", "row " + std::to_string(k + 1) + ": expected " + std::to_string(ni - k) +
                             " numbers (the upper triangle), found " + std::to_string(words.size()));
    for (int l = k; l < ni; ++l) {
      const double v = in.number(words[static_cast<std::size_t>(l - k)], "hessian");
      d.hessian[static_cast<std::size_t>(k * ni + l)] = d.hessian[static_cast<std::size_t>(l * ni + k)] = v;
    }
  }
  return d;
}

DataSet read_text(const std::string& path) {
  Reader in(path);
  DataSet s;
  const auto version = in.keyed("shepard-dataset", 1);
  if (version[0] != "1") in.fail("shepard-dataset", "unknown version '" + version[0] + "' (this reader knows 1)");
  const long n = in.reader().to_int(in.keyed("atoms", 1)[0], "'atoms'", 3, kMaxAtoms);
  s.elements = in.keyed("elements", static_cast<int>(n));
  in.numbers(in.keyed("masses", static_cast<int>(n)), "masses", s.masses);
  for (double m : s.masses)
    if (!(m > 0)) in.fail("masses", "masses must be > 0");
  const std::string kind = in.keyed("weight", 1)[0];
  if (kind == "one-part") s.parameters.weight = WeightKind::OnePart;
  else if (kind == "two-part") s.parameters.weight = WeightKind::TwoPart;
  else in.fail("weight", "unknown weight '" + kind + "' (valid: one-part, two-part)");
  s.parameters.p = in.number(in.keyed("p", 1)[0], "p");
  if (!(s.parameters.p >= 1)) in.fail("p", "must be >= 1");
  s.parameters.q = in.number(in.keyed("q", 1)[0], "q");
  if (s.parameters.weight == WeightKind::TwoPart && !(s.parameters.q > s.parameters.p))
    in.fail("q", "must be > p for the two-part weight");
  s.parameters.wtol = in.number(in.keyed("wtol", 1)[0], "wtol");
  if (!(s.parameters.wtol >= 0 && s.parameters.wtol < 1)) in.fail("wtol", "must be in [0, 1)");
  const long groups = in.count(in.keyed("permutations", 1)[0], "permutations", 2 * n);
  for (long g = 0; g < groups; ++g) {
    const auto words = in.line("permutation");
    if (static_cast<long>(words.size()) != n)
      in.fail("permutations", "expected " + std::to_string(n) + " atom indices, found " + std::to_string(words.size()));
    std::vector<int> p;
    for (const auto& w : words) p.push_back(static_cast<int>(in.reader().to_int(w, "an atom index", 0, n - 1)));
    if (std::string e = permutation_problem(p, s.elements); !e.empty())
      in.fail("permutations", "permutation " + std::to_string(g + 1) + ": " + e);
    s.permutations.push_back(std::move(p));
  }
  if (std::string g = permutation_group_problem(s.permutations, s.elements); !g.empty()) in.fail("permutations", g);
  const long points = in.count(in.keyed("points", 1)[0], "points", 2 * (s.pairs() + s.internal()));
  for (long i = 1; i <= points; ++i) {
    s.points.push_back(read_point(in, s, i));
    if (std::string p = point_problem(s, s.points.back()); !p.empty()) in.fail("point", p);
  }
  in.expect_end();
  if (std::string p = s.problem(); !p.empty()) throw InputError(path, 0, p);
  return s;
}

void write_text(const std::string& path, const DataSet& s) {
  if (std::string p = s.problem(); !p.empty()) throw Error("cannot write the Shepard data set " + path + ": " + p);
  io::write_file_atomically(path, [&](std::ostream& out) {
    out << std::setprecision(17);
    const int n = s.atoms(), nb = s.pairs(), ni = s.internal();
    out << "# modified Shepard data set: lengths Å, energies eV (docs/formats/shepard.md)\n"
        << "shepard-dataset 1\natoms " << n << "\nelements";
    for (const auto& e : s.elements) out << ' ' << e;
    out << "\nmasses";
    for (double m : s.masses) out << ' ' << m;
    out << "\nweight " << weight_kind_name(s.parameters.weight) << "\np " << s.parameters.p << "\nq " << s.parameters.q
        << "\nwtol " << s.parameters.wtol << "\npermutations " << s.permutations.size() << '\n';
    for (const auto& p : s.permutations) {
      for (int a = 0; a < n; ++a) out << (a ? " " : "") << p[static_cast<std::size_t>(a)];
      out << '\n';
    }
    out << "points " << s.points.size() << '\n';
    for (std::size_t i = 0; i < s.points.size(); ++i) {
      const DataPoint& d = s.points[i];
      out << "point " << i + 1 << "\nenergy " << d.energy << "\npositions\n";
      for (int a = 0; a < n; ++a)
        out << d.positions[3 * a] << ' ' << d.positions[3 * a + 1] << ' ' << d.positions[3 * a + 2] << '\n';
      out << "confidence";
      for (double c : d.confidence) out << ' ' << c;
      out << "\nu\n";
      for (int l = 0; l < nb; ++l) {
        for (int k = 0; k < ni; ++k) out << (k ? " " : "") << d.u[static_cast<std::size_t>(l * ni + k)];
        out << '\n';
      }
      out << "gradient";
      for (double g : d.gradient) out << ' ' << g;
      out << "\nhessian\n";
      for (int k = 0; k < ni; ++k) {
        for (int l = k; l < ni; ++l) out << (l > k ? " " : "") << d.hessian[static_cast<std::size_t>(k * ni + l)];
        out << '\n';
      }
    }
  });
}

std::vector<unsigned char> file_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw InputError(path, 0, "cannot open file");
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

bool begins_with_hdf5_signature(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  char head[8] = {};
  return f.read(head, 8) && h5::has_signature(head, 8);
}

}  // namespace

DataSet read_dataset(const std::string& path) {
  if (is_hdf5_name(path) || begins_with_hdf5_signature(path)) {
    const std::vector<unsigned char> bytes = file_bytes(path);
    return read_dataset_hdf5(bytes.data(), bytes.size(), path);
  }
  return read_text(path);
}

void write_dataset(const std::string& path, const DataSet& set) {
  if (!is_hdf5_name(path)) return write_text(path, set);
  if (std::string p = set.problem(); !p.empty()) throw Error("cannot write the Shepard data set " + path + ": " + p);
  const std::vector<unsigned char> bytes = dataset_hdf5_image(set);
  io::write_file_atomically(path, [&](std::ostream& out) {
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  });
}

}  // namespace quasar::shepard
