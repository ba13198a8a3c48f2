#pragma once
// Helpers of the AMOEBA tests: Tinker's analyze/testgrad reference outputs, a key's force field
// evaluated in Tinker's units, and forces and virial against finite differences of the energy.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "quasar/core/units.hpp"
#include "quasar/io/tinker_xyz.hpp"
#include "quasar/potential/amoeba/amoeba_term.hpp"
#include "quasar/potential/evaluate.hpp"
#include "support.hpp"

// The GPU tests: skipped without a GPU (their names carry Gpu, so that bench/gpu-check.sh runs them and
// fails a skip there).
#define QUASAR_REQUIRE_GPU()                                                       \
  if (!cuda_available()) GTEST_SKIP() << "no GPU: this build or machine has none"; \
  QUASAR_REQUIRE_FAMILY("amoeba")

namespace quasar::amoeba_test {

inline constexpr double kKcal = units::kcal_mol;

// The largest |got - want| over the largest |want| (1e-300 at least), printed and returned.
inline double relative_worst(const std::vector<double>& want, const std::vector<double>& got, const std::string& what) {
  EXPECT_EQ(got.size(), want.size()) << what;
  double scale = 1e-300, worst = 0;
  for (double w : want) scale = std::max(scale, std::abs(w));
  for (std::size_t k = 0; k < std::min(want.size(), got.size()); ++k)
    if (!(std::abs(got[k] - want[k]) <= worst)) worst = std::abs(got[k] - want[k]);  // NaN sticks
  test::print_measured(what + ", worst relative deviation", worst / scale);
  return worst / scale;
}

// The doubles of records made of doubles alone (Vec3, Moments, 3 x 3 arrays), one record after another.
template <class T>
std::vector<double> flat(const std::vector<T>& v) {
  std::vector<double> out;
  out.reserve(v.size() * sizeof(T) / sizeof(double));
  for (const T& x : v)
    for (std::size_t k = 0; k < sizeof(T) / sizeof(double); ++k) out.push_back(reinterpret_cast<const double*>(&x)[k]);
  return out;
}

// Forces, virial, per-atom energies and per-atom virials of two evaluations, each within `tolerance` of
// its largest value.
inline void expect_outputs_agree(const Evaluation& want, const Evaluation& got, const std::string& what,
                                 double tolerance) {
  std::vector<double> wv, gv, wav, gav;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) {
      wv.push_back(want.virial(a, b));
      gv.push_back(got.virial(a, b));
      for (std::size_t i = 0; i < want.atom_virial.size() && i < got.atom_virial.size(); ++i) {
        wav.push_back(want.atom_virial[i](a, b));
        gav.push_back(got.atom_virial[i](a, b));
      }
    }
  EXPECT_LE(relative_worst(flat(want.forces), flat(got.forces), what + " forces"), tolerance);
  EXPECT_LE(relative_worst(wv, gv, what + " virial"), tolerance);
  EXPECT_LE(relative_worst(want.atom_energy, got.atom_energy, what + " per-atom energies"), tolerance);
  EXPECT_LE(relative_worst(wav, gav, what + " per-atom virials"), tolerance);
}


// Tinker's analyze/testgrad output: the total, the internal virial and the gradient of each atom.
struct TinkerReference {
  double energy = 0;
  long count = -1;  // the interactions of the one term (EngCnt)
  double virial[9] = {};
  std::vector<Vec3> gradient;  // kcal/mol/Å
};
inline TinkerReference read_reference(const std::string& path) {
  std::ifstream in(path);
  TinkerReference r;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream w(line);
    std::string first;
    w >> first;
    if (line.find("Total Potential Energy") != std::string::npos) {
      r.energy = std::stod(line.substr(line.find(':') + 1));
    } else if (line.find("Internal Virial Tensor") != std::string::npos) {
      std::istringstream row(line.substr(line.find(':') + 1));
      row >> r.virial[0] >> r.virial[1] >> r.virial[2];
      for (int k = 1; k < 3; ++k) {
        std::getline(in, line);
        std::istringstream next(line);
        next >> r.virial[3 * k] >> r.virial[3 * k + 1] >> r.virial[3 * k + 2];
      }
    } else if (first == "EngCnt") {
      r.count = std::stol(line.substr(line.find_last_of(' ') + 1));
    } else if (first == "Anlyt") {
      long atom = 0;
      Vec3 g;
      w >> atom >> g.x >> g.y >> g.z;
      r.gradient.push_back(g);
    }
  }
  return r;
}

inline std::string reference(const std::string& rel) { return test::shared_path("reference/amoeba/" + rel); }

// Energy (kcal/mol), gradient (kcal/mol/Å) and Tinker's virial (sum r g, kcal/mol) of a key's
// force field on a Tinker .xyz structure.
struct Result {
  double energy;
  std::vector<Vec3> gradient;
  double virial[9];
  long count;  // the entries of the force field's one term (-1 for several)
};
inline Result evaluate_key(const std::string& key, const std::string& xyz, const std::string& prm = "") {
  ForceField ff = amoeba::load_tinker_force_field(key, prm);
  const Structure s = io::read_tinker_xyz(xyz);
  const Evaluation e = evaluate(ff, s, Backend::Cpu);
  const auto* term = dynamic_cast<const amoeba::AmoebaTerm*>(ff.terms().front().potential.get());
  Result r{e.energy / kKcal, {}, {}, ff.size() == 1 && term ? term->entries() : -1};
  for (const Vec3& f : e.forces) r.gradient.push_back(f * (-1.0 / kKcal));
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) r.virial[3 * a + b] = -e.virial(a, b) / kKcal;
  return r;
}

inline void expect_matches(const Result& got, const TinkerReference& want, double energy_tol, double grad_tol,
                           double virial_tol, bool virial_diagonal_only) {
  EXPECT_NEAR(got.energy, want.energy, energy_tol);
  if (!want.gradient.empty()) {
    ASSERT_EQ(got.gradient.size(), want.gradient.size());
    double worst = 0;
    for (std::size_t i = 0; i < want.gradient.size(); ++i)
      for (int c = 0; c < 3; ++c) worst = std::max(worst, std::abs(got.gradient[i][c] - want.gradient[i][c]));
    EXPECT_LT(worst, grad_tol);
    std::cout << "energy " << got.energy - want.energy << " kcal/mol from Tinker's, worst gradient " << worst << "\n";
    for (int c = 0; c < 9; ++c) {
      if (virial_diagonal_only && c % 4 != 0) continue;
      EXPECT_NEAR(got.virial[c], want.virial[c], virial_tol) << "virial component " << c;
    }
  }
}

// A key's force field bound to a structure (evaluated once) and its last term, for its fields and dipoles.
inline const amoeba::AmoebaTerm* bound_term(ForceField& ff, const Structure& s) {
  evaluate(ff, s, Backend::Cpu);
  return dynamic_cast<const amoeba::AmoebaTerm*>(ff.terms().back().potential.get());
}

// The per-atom energies and virials of an evaluation with per-atom outputs add up to the totals.
inline void expect_atom_sums(const Evaluation& per_atom, double energy, const Mat3& virial) {
  double atom_sum = 0;
  Mat3 virial_sum{};
  for (std::size_t i = 0; i < per_atom.atom_energy.size(); ++i) {
    atom_sum += per_atom.atom_energy[i];
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) virial_sum(a, b) += per_atom.atom_virial[i](a, b);
  }
  EXPECT_NEAR(atom_sum, energy, 1e-10 * std::abs(energy));
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) EXPECT_NEAR(virial_sum(a, b), virial(a, b), 1e-10);
}

// The terms of Tinker's breakdown in `want` (name, kcal/mol, to its 4 decimals) against the
// evaluation's, each with `entries` interactions; every one of them is compared.
inline void expect_terms_match(const ForceField& ff, const Evaluation& e, const std::map<std::string, double>& want,
                               long entries) {
  std::size_t compared = 0;
  for (std::size_t k = 0; k < e.terms.size(); ++k) {
    const std::string name = amoeba::tinker_term_name(e.terms[k].name);
    if (!want.count(name)) continue;
    ++compared;
    EXPECT_NEAR(e.terms[k].energy / kKcal, want.at(name), 0.6e-4) << name;
    EXPECT_EQ(dynamic_cast<const amoeba::AmoebaTerm*>(ff.terms()[k].potential.get())->entries(), entries) << name;
  }
  EXPECT_EQ(compared, want.size());
}

// Forces against central differences of the energy (every `stride`-th atom) and the virial against
// the energy's change under a homogeneous strain (W_ab = -dE/d eps_ba with r -> (1 + eps) r; the
// cell strained with the atoms), each within `tol` relative to max(1, |value|). Returns the worst
// relative deviation seen.
inline double check_derivatives(ForceField& ff, const Structure& s, std::size_t stride, double tol) {
  const Evaluation e = evaluate(ff, s, Backend::Cpu);
  auto energy = [&](const Structure& t) { return evaluate(ff, t, Backend::Cpu).energy; };
  const double h = 1e-5;
  double worst = 0;
  auto compare = [&](double got, double fd, const std::string& what) {
    const double dev = std::abs(got - fd) / std::max(1.0, std::abs(fd));
    worst = std::max(worst, dev);
    EXPECT_LT(dev, tol) << what << ": " << got << " against " << fd;
  };
  for (std::size_t i = 0; i < s.size(); i += stride)
    for (int c = 0; c < 3; ++c) {
      Structure plus = s, minus = s;
      plus.positions[i][c] += h;
      minus.positions[i][c] -= h;
      compare(e.forces[i][c], -(energy(plus) - energy(minus)) / (2 * h), "force " + std::to_string(i));
    }
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) {
      Structure plus = s, minus = s;
      for (std::size_t i = 0; i < s.size(); ++i) {
        plus.positions[i][b] += h * s.positions[i][a];
        minus.positions[i][b] -= h * s.positions[i][a];
      }
      Mat3 hp = s.box.h, hm = s.box.h;
      for (int row = 0; row < 3; ++row) {
        hp(row, b) += h * s.box.h(row, a);
        hm(row, b) -= h * s.box.h(row, a);
      }
      plus.box.set_matrix(hp);
      minus.box.set_matrix(hm);
      compare(e.virial(a, b), -(energy(plus) - energy(minus)) / (2 * h),
              "virial " + std::to_string(a) + std::to_string(b));
    }
  return worst;
}

// A four-atom chain of four classes with one torsion, its bonds and angles: a parameter file of its
// own, so that the records (and their reversed forms) are known exactly. Writes chain.prm (the
// parameters, then `records`) and chain.xyz into dir and returns the parameter file's path.
inline const std::array<Vec3, 4> kChain = {Vec3{0.1, -0.2, 0.05}, Vec3{1.45, 0.1, -0.1}, Vec3{2.1, 1.3, 0.2},
                                    Vec3{3.35, 1.5, 1.05}};

inline std::string write_chain(const std::filesystem::path& dir, const std::string& records) {
  const std::string prm = (dir / "chain.prm").string();
  std::ofstream(prm) << "forcefield TEST\n"
                        "atom 1 1 C \"a\" 6 12.0 1\natom 2 2 C \"b\" 6 12.0 2\n"
                        "atom 3 3 C \"c\" 6 12.0 2\natom 4 4 C \"d\" 6 12.0 1\n"
                        "bond 1 2 300 1.50\nbond 2 3 300 1.40\nbond 3 4 300 1.45\n"
                        "angle 1 2 3 40 112.0\nangle 2 3 4 40 108.5\n"
                        "torsion 1 2 3 4 0.5 10.0 1 -0.7 170.0 2 0.3 -20.0 3\n"
                     << records;
  const std::string xyz = (dir / "chain.xyz").string();
  std::ofstream out(xyz);
  out << "4 chain\n";
  for (int i = 0; i < 4; ++i) {
    out << i + 1 << " C " << kChain[i].x << " " << kChain[i].y << " " << kChain[i].z << " " << i + 1;
    if (i > 0) out << " " << i;
    if (i < 3) out << " " << i + 2;
    out << "\n";
  }
  return prm;
}

// A key file NAME in DIR holding TEXT; its path.
inline std::string key_file(const std::filesystem::path& dir, const std::string& name, const std::string& text) {
  const std::string key = (dir / name).string();
  std::ofstream(key) << text;
  return key;
}

// Trp-cage's valence terms (AMOEBA-pro-2013) in a periodic cell that cuts the molecule, half of its
// atoms moved by lattice vectors, so that every entry must take its atoms' nearest images: the key
// (written in a scratch folder named `scratch`) and the structure; false where the reference is absent.
inline bool trp_cage_valence_in_a_cell(const std::string& scratch, std::string& key, Structure& s) {
  const std::string prm = reference("tinker-test-file/commit_6fe8e913/amoebapro13.prm");
  const std::string xyz = reference("tinker-test-file/torsion/trpcage.xyz");
  if (prm.empty() || xyz.empty()) return false;
  key = key_file(test::scratch_dir(scratch), "trpcage.key", "parameters " + prm + "\nvdwterm none\nmpoleterm none\npolarizeterm none\n");
  s = io::read_tinker_xyz(xyz);
  s.box = Box::orthorhombic(30, 31, 32);
  for (std::size_t i = 0; i < s.size(); i += 2) s.positions[i] = s.positions[i] + Vec3{30, -31, 64};
  return true;
}

}  // namespace quasar::amoeba_test
