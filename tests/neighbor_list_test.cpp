// The Verlet list against brute force over every periodic image, for cells of every shape, alone and
// as a batch of systems in one state.
#include <algorithm>
#include <random>
#include <set>
#include <tuple>

#include "quasar/neighbor/neighbor_list.hpp"
#include "support.hpp"

namespace quasar {
namespace {

using Entry = std::tuple<int, int, int>;  // i, j (input ids), packed image

Structure random_structure(const Mat3& h, std::array<bool, 3> pbc, int n, unsigned seed) {
  Structure s;
  s.box = Box::from_matrix(h, {0.5, -1.0, 2.0}, pbc);
  s.type_names = {"A"};
  s.type_masses = {1.0};
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int i = 0; i < n; ++i) {
    // A few atoms outside the cell, as between rebuilds and in non-periodic directions.
    Vec3 f{u(rng) * 1.2 - 0.1, u(rng) * 1.2 - 0.1, u(rng) * 1.2 - 0.1};
    s.positions.push_back(s.box.from_frac(f));
    s.types.push_back(0);
  }
  return s;
}

std::set<Entry> brute_force(const Structure& s, double r, bool half) {
  std::set<Entry> out;
  int reach[3];
  for (int k = 0; k < 3; ++k) reach[k] = s.box.periodic[k] ? static_cast<int>(r / s.box.plane_spacing(k)) + 2 : 0;
  // Images are defined relative to wrapped positions, as the list stores them.
  std::vector<Vec3> w;
  for (auto p : s.positions) w.push_back(s.box.wrap(p));
  const int n = static_cast<int>(w.size());
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int a = -reach[0]; a <= reach[0]; ++a)
        for (int b = -reach[1]; b <= reach[1]; ++b)
          for (int c = -reach[2]; c <= reach[2]; ++c) {
            if (i == j && a == 0 && b == 0 && c == 0) continue;
            if (half && !half_list_keeps(i, j, a, b, c)) continue;
            if (norm2(w[j] + s.box.shift(a, b, c) - w[i]) < r * r) out.insert({i, j, pack_image(a, b, c)});
          }
  return out;
}

// A half list holds each pair once, from either end; name it from the lower id.
std::set<Entry> canonical_half(const std::set<Entry>& in) {
  std::set<Entry> out;
  for (auto [i, j, code] : in) {
    int a, b, c;
    unpack_image(code, a, b, c);
    if (half_list_keeps(i, j, a, b, c)) out.insert({i, j, code});
    else out.insert({j, i, pack_image(-a, -b, -c)});
  }
  return out;
}

std::set<Entry> listed(const NeighborList& list, AtomState& atoms) {
  const auto ids = atoms.id.to_vector();
  NeighborRef ref = list.ref();
  std::vector<int> hcount(ref.n), hindex(static_cast<std::size_t>(ref.capacity) * ref.n),
      himage(static_cast<std::size_t>(ref.capacity) * ref.n);
  if (atoms.backend() == Backend::Cuda) {
    device::copy_to_host(hcount.data(), ref.count, hcount.size() * sizeof(int));
    device::copy_to_host(hindex.data(), ref.index, hindex.size() * sizeof(int));
    device::copy_to_host(himage.data(), ref.image, himage.size() * sizeof(int));
  } else {
    std::copy(ref.count, ref.count + ref.n, hcount.begin());
    std::copy(ref.index, ref.index + hindex.size(), hindex.begin());
    std::copy(ref.image, ref.image + himage.size(), himage.begin());
  }
  std::set<Entry> out;
  for (int i = 0; i < ref.n; ++i)
    for (int k = 0; k < hcount[i]; ++k) {
      const auto slot = static_cast<std::size_t>(ref.slot_of(i, k));
      const bool fresh = out.insert({static_cast<int>(ids[i]), static_cast<int>(ids[hindex[slot]]), himage[slot]}).second;
      EXPECT_TRUE(fresh) << "duplicate entry for atom " << i;
    }
  return out;
}

struct Case {
  const char* name;
  Mat3 h;
  std::array<bool, 3> pbc;
  int atoms;
  double cutoff;
};

class NeighborListTest : public testing::TestWithParam<Backend> {};

TEST_P(NeighborListTest, MatchesBruteForceInEveryCell) {
  const Case cases[] = {
      {"cube", {{{12, 0, 0}, {0, 12, 0}, {0, 0, 12}}}, {true, true, true}, 300, 3.0},
      {"triclinic", {{{11, 0, 0}, {3.5, 10, 0}, {-2.5, 4, 9.5}}}, {true, true, true}, 300, 3.0},
      {"general cell", {{{9, 1, -0.5}, {2, 8.5, 1}, {1.5, -1, 9}}}, {true, true, true}, 200, 3.0},
      {"narrower than the cutoff", {{{3.1, 0, 0}, {1.2, 2.9, 0}, {0.7, -0.9, 3.3}}}, {true, true, true}, 6, 4.0},
      {"slab", {{{10, 0, 0}, {2, 9, 0}, {0, 0, 14}}}, {true, true, false}, 200, 3.0},
      {"wire", {{{4.2, 0, 0}, {0, 9, 0}, {0, 0, 9}}}, {true, false, false}, 60, 3.5},
      {"cluster", {{{8, 0, 0}, {0, 8, 0}, {0, 0, 8}}}, {false, false, false}, 80, 3.0},
  };
  for (const auto& c : cases) {
    for (ListKind kind : {ListKind::Half, ListKind::Full}) {
      SCOPED_TRACE(std::string(c.name) + (kind == ListKind::Half ? " half" : " full"));
      const Structure s = random_structure(c.h, c.pbc, c.atoms, 7);
      AtomState atoms(GetParam(), s);
      NeighborSettings settings;
      settings.cutoff = c.cutoff;
      settings.skin = 0.5;
      settings.kind = kind;
      NeighborList list(GetParam(), settings);
      list.build(atoms);
      const auto want = brute_force(s, c.cutoff + settings.skin, kind == ListKind::Half);
      const auto got = listed(list, atoms);
      EXPECT_EQ(got.size(), want.size());
      EXPECT_TRUE(got == want);
      for (const auto& e : want)
        if (!got.count(e)) {
          int a, b, cc;
          unpack_image(std::get<2>(e), a, b, cc);
          ADD_FAILURE() << "missing " << std::get<0>(e) << " " << std::get<1>(e) << " image " << a << " " << b << " " << cc;
          break;
        }
    }
  }
}

// A cutoff below every distance leaves every row empty (no memory behind the rows), and a vanishing
// one (a model file's 1e-300) still makes a grid: both gave undefined behaviour that the EAM fuzz target found.
TEST_P(NeighborListTest, CutoffBelowEveryDistanceGivesAnEmptyList) {
  const Structure s = random_structure({{{12, 0, 0}, {0, 12, 0}, {0, 0, 12}}}, {true, true, true}, 20, 11);
  for (double cutoff : {1e-3, 1e-300}) {
    AtomState atoms(GetParam(), s);
    NeighborList list(GetParam(), NeighborSettings{cutoff, 0.0, ListKind::Full, 0});
    list.build(atoms);
    EXPECT_TRUE(listed(list, atoms).empty()) << cutoff;
    EXPECT_EQ(listed(list, atoms), brute_force(s, cutoff, false));
  }
}

TEST_P(NeighborListTest, RebuildsOnlyWhenAnAtomMovedHalfTheSkin) {
  Structure s = random_structure({{{10, 0, 0}, {1, 10, 0}, {0, 2, 10}}}, {true, true, true}, 100, 3);
  AtomState atoms(GetParam(), s);
  NeighborSettings settings{2.5, 1.0, ListKind::Full, 0};
  NeighborList list(GetParam(), settings);
  list.build(atoms);
  EXPECT_EQ(list.builds(), 1);
  auto move_atom0 = [&](double dx) {
    auto x = atoms.x.to_vector();
    const auto ids = atoms.id.to_vector();
    for (std::size_t i = 0; i < x.size(); ++i)
      if (ids[i] == 0) x[i] += dx;
    atoms.x.assign(x);
  };
  move_atom0(0.45);
  list.update(atoms);
  EXPECT_EQ(list.builds(), 1) << "moved less than half the skin";
  move_atom0(0.1);
  list.update(atoms);
  EXPECT_EQ(list.builds(), 2) << "moved more than half the skin";
  // Shearing the cell by more than the skin allows must rebuild as well.
  Box b = atoms.box();
  Mat3 h = b.h;
  h.r[2].x += 0.6;
  b.set_matrix(h);
  atoms.set_box(b);
  list.update(atoms);
  EXPECT_EQ(list.builds(), 3) << "cell changed";
}

TEST_P(NeighborListTest, SpatialSortKeepsIdsAndList) {
  Structure s = random_structure({{{14, 0, 0}, {0, 14, 0}, {0, 0, 14}}}, {true, true, true}, 400, 11);
  AtomState atoms(GetParam(), s);
  NeighborSettings settings{3.0, 0.5, ListKind::Half, 1};
  NeighborList list(GetParam(), settings);
  list.build(atoms);
  list.update(atoms, 1);  // sort_every = 1: re-sorts and rebuilds
  const auto ids = atoms.id.to_vector();
  std::vector<long> sorted = ids;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size(); ++i) ASSERT_EQ(sorted[i], static_cast<long>(i));
  EXPECT_NE(ids, sorted) << "atoms were not reordered";
  EXPECT_TRUE(canonical_half(listed(list, atoms)) == brute_force(s, 3.5, true));
  const Structure back = atoms.to_structure();
  test::MaxError moved(std::string("sorted positions - wrapped positions (Å) on ") + backend_name(GetParam()));
  for (std::size_t i = 0; i < s.size(); ++i)
    for (int k = 0; k < 3; ++k) moved.add(back.positions[i][k], s.box.wrap(s.positions[i])[k]);
  // Sorting moves no atom: measured 0 on the CPU and the H100. Equal by construction on both: sorting
  // copies positions, and both backends wrap with the same Box::wrap, which subtracts a lattice shift
  // that is exact in this orthogonal cell (whole multiples of its edges); nothing is summed.
  EXPECT_TRUE(moved.within(0.0));
}

// As the LAMMPS plugin does at each re-neighbouring: other atoms (more, denser, then fewer) loaded
// into the same AtomState and listed by the same NeighborList.
TEST_P(NeighborListTest, ReloadedAtomsGetTheirOwnList) {
  const Structure first = random_structure({{{12, 0, 0}, {0, 12, 0}, {0, 0, 12}}}, {true, true, true}, 200, 5);
  AtomState atoms(GetParam(), first);
  NeighborSettings settings{3.0, 0.5, ListKind::Full, 0};
  NeighborList list(GetParam(), settings);
  list.build(atoms);
  const Structure denser = random_structure({{{10, 0, 0}, {1, 10, 0}, {0, 1, 10}}}, {true, true, true}, 500, 6);
  const Structure fewer = random_structure({{{9, 0, 0}, {0, 9, 0}, {0, 0, 9}}}, {true, true, false}, 80, 7);
  for (const Structure* s : {&denser, &fewer}) {
    atoms.load(*s, static_cast<int>(s->size()) - 10);
    EXPECT_EQ(atoms.size(), static_cast<int>(s->size()));
    EXPECT_EQ(atoms.n_local(), static_cast<int>(s->size()) - 10);
    list.build(atoms);
    EXPECT_TRUE(listed(list, atoms) == brute_force(*s, 3.5, false));
    if (GetParam() == Backend::Cuda) {
      // The GPU list leaves a quarter of headroom for the steps before the next build.
      const NeighborRef ref = list.ref();
      std::vector<int> count(ref.n);
      device::copy_to_host(count.data(), ref.count, count.size() * sizeof(int));
      const int most = *std::max_element(count.begin(), count.end());
      EXPECT_GE(ref.capacity, most + most / 4);
    }
  }
}

// Every case above as one batch of systems: each system's atoms see only their own system, with the
// images of their own cell, exactly as the system's own list.
std::vector<Structure> batch_of_cases(int scale) {
  const Case cases[] = {
      {"cube", {{{12, 0, 0}, {0, 12, 0}, {0, 0, 12}}}, {true, true, true}, 150, 3.0},
      {"triclinic", {{{11, 0, 0}, {3.5, 10, 0}, {-2.5, 4, 9.5}}}, {true, true, true}, 120, 3.0},
      {"narrower than the cutoff", {{{3.1, 0, 0}, {1.2, 2.9, 0}, {0.7, -0.9, 3.3}}}, {true, true, true}, 6, 4.0},
      {"one atom", {{{4.5, 0, 0}, {0, 4.5, 0}, {0, 0, 4.5}}}, {true, true, true}, 1, 3.0},
      {"slab", {{{10, 0, 0}, {2, 9, 0}, {0, 0, 14}}}, {true, true, false}, 100, 3.0},
      {"wire", {{{4.2, 0, 0}, {0, 9, 0}, {0, 0, 9}}}, {true, false, false}, 40, 3.5},
      {"cluster", {{{8, 0, 0}, {0, 8, 0}, {0, 0, 8}}}, {false, false, false}, 6 * scale, 3.0},
  };
  std::vector<Structure> out;
  for (int r = 0; r < scale; ++r)
    for (const auto& c : cases) out.push_back(random_structure(c.h, c.pbc, c.atoms, 100 + static_cast<unsigned>(out.size())));
  return out;
}

// The batch's list split by system, in each system's own numbering; fails on an entry across systems.
std::vector<std::set<Entry>> listed_by_system(const NeighborList& list, AtomState& atoms) {
  const std::vector<int>& offsets = atoms.system_offsets();
  std::vector<std::set<Entry>> out(static_cast<std::size_t>(atoms.num_systems()));
  for (auto [i, j, code] : listed(list, atoms)) {
    const auto s = std::upper_bound(offsets.begin(), offsets.end(), i) - offsets.begin() - 1;
    if (j < offsets[s] || j >= offsets[s + 1]) {
      ADD_FAILURE() << "atom " << i << " of system " << s << " lists atom " << j << " of another system";
      continue;
    }
    out[static_cast<std::size_t>(s)].insert({i - offsets[s], j - offsets[s], code});
  }
  return out;
}

TEST_P(NeighborListTest, BatchListsEachSystemAsItsOwn) {
  const std::vector<Structure> systems = batch_of_cases(2);
  AtomState atoms(GetParam(), systems);
  ASSERT_EQ(atoms.num_systems(), static_cast<int>(systems.size()));
  for (ListKind kind : {ListKind::Half, ListKind::Full}) {
    NeighborSettings settings{3.0, 0.5, kind, 0};
    NeighborList list(GetParam(), settings);
    list.build(atoms);
    const auto got = listed_by_system(list, atoms);
    for (std::size_t k = 0; k < systems.size(); ++k)
      EXPECT_TRUE(got[k] == brute_force(systems[k], 3.5, kind == ListKind::Half))
          << "system " << k << (kind == ListKind::Half ? " half" : " full");
  }
}

TEST_P(NeighborListTest, BatchRebuildsWhenAnyAtomOrCellMoves) {
  const std::vector<Structure> systems = batch_of_cases(1);
  AtomState atoms(GetParam(), systems);
  NeighborSettings settings{3.0, 1.0, ListKind::Full, 0};
  NeighborList list(GetParam(), settings);
  list.build(atoms);
  EXPECT_EQ(list.builds(), 1);
  const int moved = atoms.system_offsets()[4] + 3;  // an atom of the slab, by input index
  auto move = [&](double dx) {
    auto x = atoms.x.to_vector();
    const auto ids = atoms.id.to_vector();
    for (std::size_t i = 0; i < x.size(); ++i)
      if (ids[i] == moved) x[i] += dx;
    atoms.x.assign(x);
  };
  move(0.45);
  list.update(atoms);
  EXPECT_EQ(list.builds(), 1) << "moved less than half the skin";
  move(0.1);
  list.update(atoms);
  EXPECT_EQ(list.builds(), 2) << "moved more than half the skin";
  // One system's cell sheared by more than the skin allows: rebuilt, with that system's new images.
  Box b = atoms.box(1);
  Mat3 h = b.h;
  h.r[2].x += 0.6;
  b.set_matrix(h);
  atoms.set_box(1, b);
  list.update(atoms);
  EXPECT_EQ(list.builds(), 3) << "a cell changed";
  const Structure sheared = atoms.to_structures()[1];  // the positions as wrapped into the new cell
  EXPECT_TRUE(listed_by_system(list, atoms)[1] == brute_force(sheared, 4.0, false));
}

// A batch rebuilds only the systems whose atoms moved too far: an atom of another system that
// crossed its periodic boundary by less than half the skin stays unwrapped (its system was not
// rebuilt) until its own system needs a build.
TEST_P(NeighborListTest, BatchRebuildsOnlyTheSystemsThatMoved) {
  std::vector<Structure> systems = batch_of_cases(1);
  const std::size_t nearest = 5;  // an atom of the cube (system 0) next to its face at the origin
  systems[0].positions[nearest] = systems[0].box.from_frac({0.02 / 12, 0.5, 0.5});
  AtomState atoms(GetParam(), systems);
  NeighborSettings settings{3.0, 1.0, ListKind::Full, 0};
  NeighborList list(GetParam(), settings);
  list.build(atoms);
  const std::vector<Structure> built = atoms.to_structures();  // wrapped at the build
  const double x0 = built[0].positions[nearest].x - built[0].box.origin.x;
  const long slab_atom = atoms.system_offsets()[4] + 3;
  auto move = [&](long input, double dx) {
    auto x = atoms.x.to_vector();
    const auto ids = atoms.id.to_vector();
    for (std::size_t i = 0; i < x.size(); ++i)
      if (ids[i] == input) x[i] += dx;
    atoms.x.assign(x);
  };
  auto x_of = [&](long input) {
    const auto x = atoms.x.to_vector();
    const auto ids = atoms.id.to_vector();
    for (std::size_t i = 0; i < x.size(); ++i)
      if (ids[i] == input) return x[i];
    return 0.0;
  };
  move(static_cast<long>(nearest), -(x0 + 0.05));  // outside the cube, 0.4 Å at most: no build
  move(slab_atom, 0.55);                           // more than half the skin: the slab is rebuilt
  list.update(atoms);
  EXPECT_EQ(list.builds(), 2);
  EXPECT_LT(x_of(static_cast<long>(nearest)), built[0].box.origin.x) << "the cube was rebuilt (its atom wrapped)";
  const std::vector<Structure> now = atoms.to_structures();
  EXPECT_TRUE(listed_by_system(list, atoms)[4] == brute_force(now[4], 4.0, false)) << "the slab's list";
  EXPECT_TRUE(listed_by_system(list, atoms)[0] == brute_force(built[0], 4.0, false)) << "the cube kept its list";
  move(static_cast<long>(nearest), -0.5);  // now the cube needs a build
  list.update(atoms);
  EXPECT_EQ(list.builds(), 3);
  EXPECT_GT(x_of(static_cast<long>(nearest)), built[0].box.origin.x) << "the cube's atom was not wrapped at its build";
  EXPECT_TRUE(listed_by_system(list, atoms)[0] == brute_force(atoms.to_structures()[0], 4.0, false));
}

TEST_P(NeighborListTest, BatchSpatialSortKeepsEverySystemTogether) {
  const std::vector<Structure> systems = batch_of_cases(2);
  AtomState atoms(GetParam(), systems);
  NeighborSettings settings{3.0, 0.5, ListKind::Half, 1};
  NeighborList list(GetParam(), settings);
  list.build(atoms);
  list.update(atoms, 1);  // re-sorts and rebuilds
  const auto ids = atoms.id.to_vector();
  const auto system = atoms.system.to_vector();
  const std::vector<int>& offsets = atoms.system_offsets();
  bool reordered = false;
  for (int s = 0; s < atoms.num_systems(); ++s)
    for (int i = offsets[s]; i < offsets[s + 1]; ++i) {
      ASSERT_EQ(system[i], s) << "position " << i;
      ASSERT_TRUE(ids[i] >= offsets[s] && ids[i] < offsets[s + 1]) << "atom " << ids[i] << " left system " << s;
      reordered = reordered || ids[i] != i;
    }
  EXPECT_TRUE(reordered) << "atoms were not reordered";
  const auto got = listed_by_system(list, atoms);
  for (std::size_t k = 0; k < systems.size(); ++k)
    EXPECT_TRUE(canonical_half(got[k]) == brute_force(systems[k], 3.5, true)) << "system " << k;
  const std::vector<Structure> back = atoms.to_structures();
  ASSERT_EQ(back.size(), systems.size());
  for (std::size_t k = 0; k < systems.size(); ++k)
    for (std::size_t i = 0; i < systems[k].size(); ++i)
      for (int c = 0; c < 3; ++c)
        ASSERT_EQ(back[k].positions[i][c], systems[k].box.wrap(systems[k].positions[i])[c]) << "system " << k << " atom " << i;
}

QUASAR_INSTANTIATE_BACKENDS(NeighborListTest);

}  // namespace
}  // namespace quasar
