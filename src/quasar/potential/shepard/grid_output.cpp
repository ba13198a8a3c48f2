// The output of grid evaluation (grid_io.hpp): text with a header, or HDF5, written slab by slab
// into a temporary file renamed into place at the end.
#include <unistd.h>

#include <charconv>
#include <filesystem>
#include <fstream>

#include "quasar/core/error.hpp"
#include "quasar/io/hdf5/hdf5.hpp"
#include "quasar/potential/shepard/grid_io.hpp"

namespace quasar::shepard {

namespace {

// The shortest text that reads back as the same double.
std::string number(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string temporary_name(const std::string& path) { return path + ".tmp." + std::to_string(::getpid()); }

void move_into_place(const std::string& tmp, const std::string& path) {
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    throw Error("cannot write " + path + ": " + ec.message());
  }
}

const char* kind_name(ZKind k) { return k == ZKind::Bond ? "bond" : k == ZKind::Angle ? "angle" : "dihedral"; }

class TextGrid : public GridWriter {
 public:
  TextGrid(const std::string& path, const Grid& grid, const GridHeader& h)
      : path_(path), tmp_(temporary_name(path)), grid_(grid), out_(tmp_), q_(grid.values.size()) {
    if (!out_) throw Error("cannot write " + tmp_);
    const std::vector<ZCoordinate> coords = zmatrix_coordinates(grid.atoms());
    out_ << "# modified Shepard surface on a direct-product grid of Z-matrix coordinates (docs/formats/shepard.md)\n"
         << "# format shepard-grid 1\n# dataset " << h.dataset << "\n# method " << (h.exact ? "exact" : "approximate")
         << "\n# weight " << weight_kind_name(h.parameters.weight) << " p " << number(h.parameters.p) << " q "
         << number(h.parameters.q) << " wtol " << number(h.parameters.wtol)
         << "\n# units lengths Å, angles degree, energy eV, gradient eV/Å\n";
    for (std::size_t a = 0; a < grid.rows.size(); ++a) {
      const ZMatrixRow& r = grid.rows[a];
      out_ << "# zmatrix " << a + 1 << ' ' << r.element;
      for (int ref : {r.bond, r.angle, r.dihedral})
        if (ref > 0) out_ << ' ' << ref;
      out_ << '\n';
    }
    for (std::size_t k = 0; k < coords.size(); ++k) {
      out_ << "# coordinate " << coords[k].name() << ' ' << grid.values[k].size();
      for (double v : grid.values[k]) out_ << ' ' << number(v);
      out_ << '\n';
    }
    out_ << "# shape";
    for (long c : grid.shape()) out_ << ' ' << c;
    out_ << "\n# points " << grid.points() << " (row-major: the last coordinate varies fastest)\n# columns";
    for (const ZCoordinate& c : coords) out_ << ' ' << c.name();
    out_ << " energy";
    if (h.gradients)
      for (int a = 1; a <= grid.atoms(); ++a) out_ << " dx" << a << " dy" << a << " dz" << a;
    out_ << '\n';
  }
  ~TextGrid() override {
    if (!finished_) {
      out_.close();
      std::error_code ec;
      std::filesystem::remove(tmp_, ec);
    }
  }
  void write(const GridSlab& slab) override {
    const std::size_t n3 = static_cast<std::size_t>(3 * grid_.atoms());
    std::string line;
    for (long k = 0; k < slab.count; ++k) {
      grid_.coordinates(slab.first + k, q_.data());
      line.clear();
      for (double q : q_) line += number(q) + ' ';
      line += number(slab.energies[k]);
      if (slab.gradients)
        for (std::size_t i = 0; i < n3; ++i) line += ' ' + number(slab.gradients[static_cast<std::size_t>(k) * n3 + i]);
      line += '\n';
      out_ << line;
    }
    if (!out_) throw Error("error writing " + tmp_);
  }
  void finish() override {
    out_.close();
    if (!out_) throw Error("error writing " + tmp_);
    move_into_place(tmp_, path_);
    finished_ = true;
  }

 private:
  std::string path_, tmp_;
  const Grid& grid_;
  std::ofstream out_;
  std::vector<double> q_;
  bool finished_ = false;
};

class Hdf5Grid : public GridWriter {
 public:
  Hdf5Grid(const std::string& path, const Grid& grid, const GridHeader& h)
      : path_(path), tmp_(temporary_name(path)), grid_(grid), file_(h5::create_file(tmp_)) {
    const hid_t f = file_.id();
    const std::vector<ZCoordinate> coords = zmatrix_coordinates(grid.atoms());
    h5::set_attribute(f, "/", "format", std::string("shepard-grid"));
    h5::set_attribute(f, "/", "version", 1L);
    h5::set_attribute(f, "/", "dataset", h.dataset);
    h5::set_attribute(f, "/", "method", std::string(h.exact ? "exact" : "approximate"));
    h5::set_attribute(f, "/", "weight", std::string(weight_kind_name(h.parameters.weight)));
    h5::set_attribute(f, "/", "p", h.parameters.p);
    h5::set_attribute(f, "/", "q", h.parameters.q);
    h5::set_attribute(f, "/", "wtol", h.parameters.wtol);
    h5::write_strings(f, "/elements", h.elements);
    std::vector<int> bond, angle, dihedral;
    for (const ZMatrixRow& r : grid.rows) {
      bond.push_back(r.bond);
      angle.push_back(r.angle);
      dihedral.push_back(r.dihedral);
    }
    const hsize_t n = grid.rows.size();
    h5::write_integers(f, "/zmatrix/bond", {n}, bond.data());
    h5::write_integers(f, "/zmatrix/angle", {n}, angle.data());
    h5::write_integers(f, "/zmatrix/dihedral", {n}, dihedral.data());
    std::vector<std::string> names;
    for (std::size_t k = 0; k < coords.size(); ++k) {
      const std::string name = "/coordinates/" + coords[k].name();
      names.push_back(coords[k].name());
      h5::write_doubles(f, name, {grid.values[k].size()}, grid.values[k].data());
      h5::set_attribute(f, name, "units", std::string(coords[k].units()));
      h5::set_attribute(f, name, "kind", std::string(kind_name(coords[k].kind)));
      h5::set_attribute(f, name, "row", static_cast<long>(coords[k].row));
    }
    h5::write_strings(f, "/axes", names);
    for (long c : grid.shape()) shape_.push_back(static_cast<hsize_t>(c));
    energy_ = h5::create_doubles(f, "/energy", shape_);
    h5::set_attribute(f, "/energy", "units", std::string("eV"));
    if (h.gradients) {
      std::vector<hsize_t> g = shape_;
      g.push_back(n);
      g.push_back(3);
      gradient_ = h5::create_doubles(f, "/gradient", g);
      h5::set_attribute(f, "/gradient", "units", std::string("eV/Å"));
    }
  }
  ~Hdf5Grid() override {
    if (!finished_) {
      energy_.reset();
      gradient_.reset();
      file_.reset();
      std::error_code ec;
      std::filesystem::remove(tmp_, ec);
    }
  }
  void write(const GridSlab& slab) override {
    // A slab: the values [a, b) of the first coordinate with more than one value, every value of the
    // later ones (grid.hpp).
    const std::size_t dims = shape_.size();
    std::vector<hsize_t> start(dims, 0), count(dims, 1);
    std::size_t s = 0;
    while (s < dims && shape_[s] == 1) ++s;
    if (s < dims) {
      hsize_t stride = 1;
      for (std::size_t d = s + 1; d < dims; ++d) stride *= shape_[d];
      start[s] = static_cast<hsize_t>(slab.first) / stride;
      count[s] = static_cast<hsize_t>(slab.count) / stride;
      for (std::size_t d = s + 1; d < dims; ++d) count[d] = shape_[d];
    }
    h5::write_block(energy_.id(), start, count, slab.energies);
    if (slab.gradients) {
      start.insert(start.end(), {0, 0});
      count.insert(count.end(), {static_cast<hsize_t>(grid_.atoms()), 3});
      h5::write_block(gradient_.id(), start, count, slab.gradients);
    }
  }
  void finish() override {
    energy_.reset();
    gradient_.reset();
    if (H5Fflush(file_.id(), H5F_SCOPE_GLOBAL) < 0) throw Error("error writing " + tmp_);
    file_.reset();
    move_into_place(tmp_, path_);
    finished_ = true;
  }

 private:
  std::string path_, tmp_;
  const Grid& grid_;
  h5::Handle file_, energy_, gradient_;
  std::vector<hsize_t> shape_;
  bool finished_ = false;
};

}  // namespace

std::unique_ptr<GridWriter> open_grid_output(const std::string& path, const Grid& grid, const GridHeader& header) {
  if (is_hdf5_name(path)) return std::make_unique<Hdf5Grid>(path, grid, header);
  return std::make_unique<TextGrid>(path, grid, header);
}

std::string run_grid(const GridSettings& s, const std::string& base_dir, Backend backend,
                     const std::function<void(const GridSlab&)>& sink, std::ostream* progress) {
  auto resolve = [&base_dir](const std::string& name) {
    const std::filesystem::path p(name);
    return (p.is_absolute() ? p : std::filesystem::path(base_dir) / p).string();
  };
  const std::string dataset = resolve(s.dataset), output = s.output.empty() ? "" : resolve(s.output);
  if (!std::filesystem::is_regular_file(dataset)) s.dataset_key.fail("Shepard data set '" + dataset + "' not found");
  const DataSet set = read_dataset(dataset);
  check_grid_atoms(s, set);
  const Interpolant f = Interpolant::from(set);
  GridEvaluation how;
  how.backend = backend;
  how.exact = s.exact;
  how.gradients = s.gradients;
  how.piece = s.piece;
  std::unique_ptr<GridWriter> out;
  if (!output.empty()) out = open_grid_output(output, s.grid, {s.dataset, set.elements, set.parameters, s.exact, s.gradients});
  evaluate_grid(f, s.grid, how, [&](const GridSlab& slab) {
    if (out) out->write(slab);
    if (sink) sink(slab);
  }, progress);
  if (out) out->finish();
  return output;
}

}  // namespace quasar::shepard
