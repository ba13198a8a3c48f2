#include "quasar/potential/amoeba/multipole_frame.hpp"

#include <cmath>

#include "quasar/potential/amoeba/dual.hpp"

namespace quasar::amoeba {

namespace {

inline double value(double x) { return x; }
template <int N>
double value(const Dual<N>& x) {
  return x.v;
}

template <class T>
Vec3Of<T> unit(const Vec3Of<T>& v) {
  using std::sqrt;
  const T r = sqrt(dot(v, v));
  return {v.x / r, v.y / r, v.z / r};
}

// Columns x, y, z of the rotation from the local frame to the lab (Tinker's rotmat).
template <class T>
std::array<Vec3Of<T>, 3> frame_axes(Frame f, const Vec3Of<T>& ri, const Vec3Of<T>& rz, const Vec3Of<T>& rx, const Vec3Of<T>& ry) {
  Vec3Of<T> z{T(0), T(0), T(1)}, x{T(1), T(0), T(0)};
  // The x axis: `toward` made orthogonal to z.
  auto orthogonal = [&](const Vec3Of<T>& toward) {
    const T c = dot(toward, z);
    return unit(toward - z * c);
  };
  switch (f) {
    case Frame::None:
      break;
    case Frame::ZOnly: {
      z = unit(rz - ri);
      // Any x orthogonal to z: the lab's x axis, or its y axis where z lies near x.
      Vec3Of<T> ref{T(1), T(0), T(0)};
      if (std::abs(value(z.x)) > 0.866) ref = {T(0), T(1), T(0)};
      x = orthogonal(ref);
      break;
    }
    case Frame::ZThenX:
      z = unit(rz - ri);
      x = orthogonal(rx - ri);
      break;
    case Frame::Bisector: {
      const Vec3Of<T> a = unit(rz - ri), b = unit(rx - ri);
      z = unit(a + b);
      x = orthogonal(b);
      break;
    }
    case Frame::ZBisect: {
      z = unit(rz - ri);
      x = orthogonal(unit(unit(rx - ri) + unit(ry - ri)));
      break;
    }
    case Frame::ThreeFold: {
      const Vec3Of<T> a = unit(rz - ri), b = unit(rx - ri), c = unit(ry - ri);
      z = unit(a + b + c);
      x = orthogonal(b);
      break;
    }
  }
  return {x, cross(z, x), z};
}

template <class T>
std::array<T, 13> rotate(const std::array<Vec3Of<T>, 3>& axes, const Moments& m) {
  // A[a][b]: lab component a of local axis b.
  T A[3][3];
  for (int b = 0; b < 3; ++b) {
    A[0][b] = axes[static_cast<std::size_t>(b)].x;
    A[1][b] = axes[static_cast<std::size_t>(b)].y;
    A[2][b] = axes[static_cast<std::size_t>(b)].z;
  }
  std::array<T, 13> out;
  out[0] = T(m[0]);
  for (int a = 0; a < 3; ++a) {
    T v(0);
    for (int b = 0; b < 3; ++b) v = v + A[a][b] * m[static_cast<std::size_t>(1 + b)];
    out[static_cast<std::size_t>(1 + a)] = v;
  }
  T AQ[3][3];
  for (int a = 0; a < 3; ++a)
    for (int d = 0; d < 3; ++d) {
      T v(0);
      for (int b = 0; b < 3; ++b) v = v + A[a][b] * m[static_cast<std::size_t>(4 + 3 * b + d)];
      AQ[a][d] = v;
    }
  for (int a = 0; a < 3; ++a)
    for (int c = 0; c < 3; ++c) {
      T v(0);
      for (int d = 0; d < 3; ++d) v = v + AQ[a][d] * A[c][d];
      out[static_cast<std::size_t>(4 + 3 * a + c)] = v;
    }
  return out;
}

// The local moments with the y components' signs Tinker's chkpole gives them: flipped where the
// chiral y atom lies on the other side (a negative signed volume of site, z, x about y).
Moments checked_local(const MultipoleSite& s, const PairGeometry& g, int self, const std::vector<Vec3>& r) {
  Moments m = s.local;
  if (s.frame != Frame::ZThenX || s.y < 0) return m;
  const Vec3 o = r[static_cast<std::size_t>(self)];
  const Vec3 d = g.nearest(r[static_cast<std::size_t>(s.y)] - o);
  const Vec3 a = -d, b = g.nearest(r[static_cast<std::size_t>(s.z)] - o) - d,
             c = g.nearest(r[static_cast<std::size_t>(s.x)] - o) - d;
  const double vol = a.x * (b.y * c.z - b.z * c.y) + b.x * (c.y * a.z - c.z * a.y) + c.x * (a.y * b.z - a.z * b.y);
  if (vol < 0)
    for (int k : {2, 5, 7, 9, 11}) m[static_cast<std::size_t>(k)] = -m[static_cast<std::size_t>(k)];
  return m;
}

}  // namespace

int frame_atoms(const MultipoleSite& s, int self, int atoms[4]) {
  int n = 0;
  atoms[n++] = self;
  if (s.frame == Frame::None) return n;
  atoms[n++] = s.z;
  if (s.frame == Frame::ZOnly) return n;
  atoms[n++] = s.x;
  if (s.frame == Frame::ZBisect || s.frame == Frame::ThreeFold) atoms[n++] = s.y;
  return n;
}

std::vector<Moments> lab_moments(const ElectrostaticSystem& e, const PairGeometry& g, const std::vector<Vec3>& r) {
  std::vector<Moments> out(e.sites.size());
  for (std::size_t i = 0; i < e.sites.size(); ++i) {
    const MultipoleSite& s = e.sites[i];
    auto at = [&](int k) {  // relative to the site, at the nearest image
      const Vec3 p = k >= 0 ? g.nearest(r[static_cast<std::size_t>(k)] - r[i]) : Vec3{};
      return Vec3Of<double>{p.x, p.y, p.z};
    };
    out[i] = rotate(frame_axes<double>(s.frame, Vec3Of<double>{0, 0, 0}, at(s.z), at(s.x), at(s.y)),
                    checked_local(s, g, static_cast<int>(i), r));
  }
  return out;
}

void add_frame_gradient(const ElectrostaticSystem& e, const PairGeometry& geometry, int self,
                        const std::vector<Vec3>& r, const double g[13], std::vector<Vec3>& grad, double* virial) {
  const MultipoleSite& s = e.sites[static_cast<std::size_t>(self)];
  int atoms[4];
  const int count = frame_atoms(s, self, atoms);
  if (count == 1) return;  // no frame: the moments do not turn
  using D = Dual<12>;
  Vec3Of<D> p[4];
  const Vec3 origin = r[static_cast<std::size_t>(self)];
  Vec3 rel[4];  // the frame atoms relative to the site, at their nearest images
  for (int k = 0; k < 4; ++k) {
    const Vec3 x = k < count ? geometry.nearest(r[static_cast<std::size_t>(atoms[k])] - origin) : Vec3{};
    rel[k] = x;
    p[k] = {D::variable(x.x, 3 * k), D::variable(x.y, 3 * k + 1), D::variable(x.z, 3 * k + 2)};
  }
  // frame_axes takes site, z, x, y; Z-then-X and Bisector have no y among their frame atoms.
  const std::array<D, 13> m =
      rotate(frame_axes<D>(s.frame, p[0], p[1], p[2], p[3]), checked_local(s, geometry, self, r));
  std::array<double, 12> dE{};
  for (int c = 0; c < 13; ++c)
    if (g[c] != 0)
      for (int k = 0; k < 12; ++k)
        dE[static_cast<std::size_t>(k)] += g[c] * m[static_cast<std::size_t>(c)].d[static_cast<std::size_t>(k)];
  for (int k = 0; k < count; ++k) {
    const Vec3 gk{dE[static_cast<std::size_t>(3 * k)], dE[static_cast<std::size_t>(3 * k + 1)],
                  dE[static_cast<std::size_t>(3 * k + 2)]};
    grad[static_cast<std::size_t>(atoms[k])] += gk;
    if (virial) {
      const Vec3 d = rel[k];
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) virial[3 * a + b] -= d[a] * gk[b];
    }
  }
}

}  // namespace quasar::amoeba
