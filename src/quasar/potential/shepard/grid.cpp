// Evaluation on direct-product grids (grid.hpp): slabs of whole groups, pieces of configurations.
#include "quasar/potential/shepard/grid.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <memory>
#include <ostream>
#include <sstream>

#include "quasar/core/error.hpp"
#include "quasar/device/parallel.hpp"
#include "quasar/potential/shepard/gpu_interpolant.hpp"

namespace quasar::shepard {

std::vector<long> Grid::shape() const {
  std::vector<long> n;
  for (const auto& v : values) n.push_back(static_cast<long>(v.size()));
  return n;
}

long Grid::points() const {
  long total = 1;
  for (const auto& v : values) total *= static_cast<long>(v.size());
  return total;
}

std::string Grid::problem() const {
  if (std::string z = zmatrix_problem(rows); !z.empty()) return z;
  const std::vector<ZCoordinate> coords = zmatrix_coordinates(atoms());
  if (values.size() != coords.size())
    return std::to_string(values.size()) + " coordinates' values for the Z-matrix's " + std::to_string(coords.size());
  double total = 1;
  for (std::size_t k = 0; k < coords.size(); ++k) {
    const std::string name = coords[k].name();
    if (values[k].empty()) return name + ": no values";
    for (double v : values[k]) {
      if (!std::isfinite(v)) return name + ": values must be finite";
      if (coords[k].kind == ZKind::Bond && !(v > 0)) return name + ": bond lengths must be > 0";
      if (coords[k].kind == ZKind::Angle && !(v >= 0 && v <= 180)) return name + ": angles must lie in [0, 180] degrees";
    }
    total *= static_cast<double>(values[k].size());
  }
  if (total > 1e15) return "the grid has more than 1e15 points";
  return "";
}

void Grid::coordinates(long index, double* q) const {
  for (std::size_t k = values.size(); k-- > 0;) {
    const long n = static_cast<long>(values[k].size());
    q[k] = values[k][static_cast<std::size_t>(index % n)];
    index /= n;
  }
}

void Grid::cartesians(long index, double* x) const {
  double on_stack[192];  // 3N - 6 for up to 66 atoms: no allocation per point
  std::vector<double> on_heap(values.size() > 192 ? values.size() : 0);
  double* q = on_heap.empty() ? on_stack : on_heap.data();
  coordinates(index, q);
  const std::string problem = zmatrix_cartesians(rows, q, x);
  if (problem.empty()) return;
  std::ostringstream at;
  at << "grid point " << index << " (";
  const std::vector<ZCoordinate> coords = zmatrix_coordinates(atoms());
  for (std::size_t k = 0; k < values.size(); ++k) at << (k ? ", " : "") << coords[k].name() << " = " << q[k];
  where.fail(at.str() + "): " + problem);
}

long group_centre(const Grid& grid, long index) {
  long centre = 0, stride = 1;
  for (std::size_t k = grid.values.size(); k-- > 0;) {
    const long n = static_cast<long>(grid.values[k].size()), i = index % n;
    centre += std::min(i / 3 * 3 + 1, n - 1) * stride;
    index /= n;
    stride *= n;
  }
  return centre;
}

namespace {

// Configurations evaluated together: groups [offsets[g], offsets[g + 1]) with their centres; each
// configuration's grid point (`source`) and where its result goes (`target`: the same, or -1 for a
// centre added to a part of a cut group). The Cartesians are made for the whole piece at once.
struct Piece {
  std::vector<double> configs;
  std::vector<int> offsets{0}, centres;
  std::vector<long> source, target;
  int size() const { return static_cast<int>(target.size()); }
  void add(long grid_point, bool result) {
    source.push_back(grid_point);
    target.push_back(result ? grid_point : -1);
  }
  void make_cartesians(const Grid& grid) {
    const std::size_t n3 = static_cast<std::size_t>(3 * grid.atoms());
    configs.resize(source.size() * n3);
    device::parallel_for(static_cast<long>(source.size()), [&](long k) {
      grid.cartesians(source[static_cast<std::size_t>(k)], configs.data() + static_cast<std::size_t>(k) * n3);
    }, 256);
  }
};

class PieceEvaluator {
 public:
  PieceEvaluator(const Interpolant& f, const GridEvaluation& how) : f_(f), how_(how) {
    if (how.backend == Backend::Cuda) gpu_ = std::make_unique<GpuInterpolant>(f);
  }
  // Energies (and gradients) of the piece's configurations.
  void run(const Piece& p, std::vector<double>& e, std::vector<double>& g) {
    e.assign(static_cast<std::size_t>(p.size()), 0.0);
    g.assign(how_.gradients ? p.configs.size() : 0, 0.0);
    if (how_.exact) {
      if (gpu_) gpu_->evaluate_batch(p.configs, e, g);
      else evaluate_batch(f_, p.configs, e, g);
    } else {
      if (gpu_) gpu_->evaluate_groups(p.configs, p.offsets, p.centres, e, g);
      else evaluate_groups(f_, p.configs, p.offsets, p.centres, e, g);
    }
  }

 private:
  const Interpolant& f_;
  const GridEvaluation& how_;
  std::unique_ptr<GpuInterpolant> gpu_;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

void evaluate_grid(const Interpolant& f, const Grid& grid, const GridEvaluation& how,
                   const std::function<void(const GridSlab&)>& sink, std::ostream* progress) {
  if (std::string p = grid.problem(); !p.empty()) throw Error("shepard grid: " + p);
  if (grid.atoms() != f.atoms)
    throw Error("shepard grid: a Z-matrix of " + std::to_string(grid.atoms()) + " atoms for a data set of " +
                std::to_string(f.atoms));
  const std::vector<long> n = grid.shape();
  const std::size_t dims = n.size(), n3 = static_cast<std::size_t>(3 * f.atoms);
  std::vector<long> stride(dims, 1);
  for (std::size_t d = dims - 1; d-- > 0;) stride[d] = stride[d + 1] * n[d + 1];
  // The slab coordinate: the first with more than one value (none: the grid is one point).
  std::size_t s = 0;
  while (s < dims && n[s] == 1) ++s;
  const long total = grid.points(), piece_limit = std::max(1L, how.piece);
  long groups = 1;
  for (long c : n) groups *= (c + 2) / 3;
  const auto t0 = std::chrono::steady_clock::now();
  auto last_line = t0;
  if (progress)
    *progress << "grid: " << total << " points, " << groups << " groups, " << (how.exact ? "exact" : "approximate")
              << " method on " << backend_name(how.backend) << std::endl;
  PieceEvaluator evaluator(f, how);
  Piece piece;
  std::vector<double> e, g, slab_e, slab_g;
  long done = 0;
  const long slabs = s < dims ? (n[s] + 2) / 3 : 1;
  for (long ts = 0; ts < slabs; ++ts) {
    const long lo = s < dims ? 3 * ts * stride[s] : 0;
    const long hi = s < dims ? std::min(3 * ts + 3, n[s]) * stride[s] : 1;
    slab_e.assign(static_cast<std::size_t>(hi - lo), 0.0);
    slab_g.assign(how.gradients ? static_cast<std::size_t>(hi - lo) * n3 : 0, 0.0);
    auto flush = [&] {
      if (piece.target.empty()) return;
      piece.make_cartesians(grid);
      evaluator.run(piece, e, g);
      for (std::size_t k = 0; k < piece.target.size(); ++k) {
        const long at = piece.target[k];
        if (at < 0) continue;
        const std::size_t local = static_cast<std::size_t>(at - lo);
        slab_e[local] = e[k];
        if (how.gradients)
          std::copy_n(g.begin() + static_cast<std::ptrdiff_t>(k * n3), n3,
                      slab_g.begin() + static_cast<std::ptrdiff_t>(local * n3));
        ++done;
      }
      piece = Piece{};
      if (progress && seconds_since(last_line) >= 2) {
        last_line = std::chrono::steady_clock::now();
        const double t = seconds_since(t0);
        *progress << "grid: " << done << "/" << total << " points (" << std::fixed << std::setprecision(1)
                  << 100.0 * static_cast<double>(done) / static_cast<double>(total) << "%), "
                  << std::setprecision(0) << static_cast<double>(done) / t << " points/s" << std::defaultfloat
                  << std::setprecision(6) << std::endl;
      }
    };
    // The groups of this slab: group indices t[d] over the coordinates after s, in row-major order.
    std::vector<long> t(dims, 0), begin(dims), end(dims), i(dims);
    for (;;) {
      long centre = 0;
      for (std::size_t d = 0; d < dims; ++d) {
        const long td = d < s ? 0 : d == s ? ts : t[d];
        begin[d] = 3 * td;
        end[d] = std::min(3 * td + 3, n[d]);
        centre += std::min(begin[d] + 1, end[d] - 1) * stride[d];
      }
      // Its points in row-major order; a part of a group cut by the piece's end keeps its centre.
      int part_start = piece.size(), centre_at = -1;
      auto close_part = [&] {
        if (piece.size() == part_start) return;
        if (!how.exact) {
          if (centre_at < 0) {
            centre_at = piece.size();
            piece.add(centre, false);
          }
          piece.centres.push_back(centre_at);
        }
        piece.offsets.push_back(piece.size());
      };
      i = begin;
      for (bool more = true; more;) {
        if (piece.size() >= piece_limit) {
          close_part();
          flush();
          part_start = piece.size();
          centre_at = -1;
        }
        long index = 0;
        for (std::size_t d = 0; d < dims; ++d) index += i[d] * stride[d];
        if (index == centre) centre_at = piece.size();
        piece.add(index, true);
        more = false;
        for (std::size_t d = dims; d-- > 0;) {
          if (++i[d] < end[d]) {
            more = true;
            break;
          }
          i[d] = begin[d];
        }
      }
      close_part();
      // The next group of the slab (the last coordinate's group index fastest).
      bool next = false;
      for (std::size_t d = dims; !next && d-- > s + 1;) {
        next = ++t[d] < (n[d] + 2) / 3;
        if (!next) t[d] = 0;
      }
      if (!next) break;
    }
    flush();
    sink(GridSlab{lo, hi - lo, slab_e.data(), how.gradients ? slab_g.data() : nullptr});
  }
  if (progress) {
    const double t = seconds_since(t0);
    *progress << "grid: done, " << total << " points in " << std::setprecision(3) << t << " s ("
              << std::setprecision(0) << std::fixed << static_cast<double>(total) / std::max(t, 1e-9)
              << " points/s)" << std::defaultfloat << std::setprecision(6) << std::endl;
  }
}

}  // namespace quasar::shepard
