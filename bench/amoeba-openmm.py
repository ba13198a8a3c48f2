#!/usr/bin/env python3
"""OpenMM's AMOEBA beside Quasar's on the same Tinker files: every term, the forces, the time per evaluation.

    python bench/amoeba-openmm.py KEY XYZ [--platform CPU|CUDA|Reference] [--repeats N] [--per-term]
                                  [--tinker ANALYZE.txt] [--polar-eps EPS] [--json-out FILE]

OpenMM builds its System with openmm.app.TinkerFiles (OpenMM 8.4 and later), each force in its own force group,
with the key's cell, cutoffs, Ewald coefficient, PME grid and polarization settings. Quasar is the binary $QUASAR
(default build/quasar), run as `quasar eval --json`. With --tinker, Tinker's analyze/testgrad output is a third
column (its energies and, where printed, its gradients). Energies in kcal/mol, forces in kcal/mol/Å.

How OpenMM's forces map onto Tinker's terms (each OpenMM force is one force group):
  AmoebaBondForce -> bond; AmoebaAngleForce + AmoebaInPlaneAngleForce -> angle (Tinker's "Angle Bending" holds both);
  AmoebaStretchBendForce -> strbnd; HarmonicBondForce -> urey; AmoebaOutOfPlaneBendForce -> opbend;
  PeriodicTorsionForce -> torsion; AmoebaPiTorsionForce -> pitors; AmoebaStretchTorsionForce -> strtor;
  AmoebaAngleTorsionForce -> angtor; AmoebaTorsionTorsionForce -> tortor; AmoebaVdwForce -> vdw (with the
  long-range correction when the key asks for it); AmoebaMultipoleForce -> mpole + polarize together. OpenMM has
  no switch that leaves polarization out of that force, so mpole is a copy of the force with every polarizability
  0 (no induced dipoles: the permanent multipoles alone) in a second context, and polarize is the difference.
  OpenMM's time for the multipole force is therefore mpole and polarize together; the copy times mpole alone.

What TinkerFiles does not do, and how this script works around it (the forces themselves are OpenMM's):
  - it reads each file given with every header keyword at its default, so that a key read after the parameter
    file sets torsionunit (and the other units) back to 1: the parameter file and the key are handed over as one
    file, the key's lines after the parameter file's (its multipole records first: Tinker prefers them);
  - it ignores `parameters`, the cell keywords, cutoffs, Ewald settings, polar-eps/polar-iter and term switches:
    they are read here and set on the forces;
  - its residue perception (peptide templates) drops atoms of vasopressin (a disulfide ring and an amidated C
    terminus) and may reorder atoms: the topology is replaced by one residue with the atoms in file order (the
    force builders use only elements and bonds from it).
Not available in OpenMM: a periodic cell without Ewald sums for the multipoles (OpenMM's AmoebaMultipoleForce is
NoCutoff or PME), a vdW taper other than 0.9 of the cutoff, a PME order other than 5, anglef and polpair records.
Where the two codes differ and why (OpenMM's forces at nearly planar out-of-plane bends and at Z-Bisect and 3-Fold
sites, its vdW correction and pair selection, the net-charge background with PME): docs/formats/tinker.md.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time

KCAL_IN_EV = 0.0433641043   # Quasar's kcal/mol in eV (src/quasar/core/units.hpp)
KJ_PER_KCAL = 4.184

# Tinker's terms in analyze's order: (Quasar's name, Tinker's label, switch keyword)
TERMS = [("bond", "Bond Stretching", "bondterm"), ("angle", "Angle Bending", "angleterm"),
         ("strbnd", "Stretch-Bend", "strbndterm"), ("urey", "Urey-Bradley", "ureyterm"),
         ("opbend", "Out-of-Plane Bend", "opbendterm"), ("torsion", "Torsional Angle", "torsionterm"),
         ("pitors", "Pi-Orbital Torsion", "pitorsterm"), ("strtor", "Stretch-Torsion", "strtorterm"),
         ("angtor", "Angle-Torsion", "angtorterm"), ("tortor", "Torsion-Torsion", "tortorterm"),
         ("vdw", "Van der Waals", "vdwterm"), ("mpole", "Atomic Multipoles", "mpoleterm"),
         ("polarize", "Polarization", "polarizeterm")]
SWITCHES = {sw: name for name, _, sw in TERMS}
SWITCHES.update({"ureybradterm": "urey", "multipoleterm": "mpole"})

FORCE_TERM = {"AmoebaBondForce": "bond", "AmoebaAngleForce": "angle", "AmoebaInPlaneAngleForce": "angle",
              "AmoebaStretchBendForce": "strbnd", "HarmonicBondForce": "urey",
              "AmoebaOutOfPlaneBendForce": "opbend", "PeriodicTorsionForce": "torsion",
              "AmoebaPiTorsionForce": "pitors", "AmoebaStretchTorsionForce": "strtor",
              "AmoebaAngleTorsionForce": "angtor", "AmoebaTorsionTorsionForce": "tortor",
              "AmoebaVdwForce": "vdw", "AmoebaMultipoleForce": "mpole+polarize"}


# ---- Tinker's keyword files ----------------------------------------------------------------------------------

def records(path):
    """(keyword in lower case, values, raw line) of each non-comment line of a .key or .prm."""
    out = []
    with open(path) as f:
        for line in f:
            fields = line.split()
            if fields and not fields[0].startswith("#"):
                out.append((fields[0].lower(), fields[1:], line))
    return out


def parameter_file(key):
    """The file `parameters NAME` names, as Tinker finds it: relative to the key's folder, `.prm` added."""
    for kw, vals, _ in records(key):
        if kw == "parameters" and vals:
            path = os.path.join(os.path.dirname(os.path.abspath(key)), vals[0])
            return path if os.path.isfile(path) else path + ".prm"
    return None


def settings(key, prm):
    """The settings this comparison needs, the key's last record winning over the parameter file's."""
    s, on = {}, {name: True for name, _, _ in TERMS}
    for kw, vals, _ in (records(prm) if prm else []) + records(key):
        if kw in SWITCHES:
            word = vals[0].lower() if vals else ""
            if word == "only":
                on = {name: False for name in on}
            on[SWITCHES[kw]] = word != "none"
        else:
            s[kw] = vals
    return s, on


def number(s, *names, default=None):
    for name in names:
        if name in s and s[name]:
            return float(s[name][0])
    return default


def merged_parameters(key, prm, folder):
    """The parameter file and the key as one file for TinkerFiles (see the module's notes)."""
    key_lines = [r for r in records(key) if r[0] != "parameters"]
    first, rest, skip = [], [], 0
    for kw, vals, line in key_lines:
        if skip:
            first.append(line)
            skip -= 1
        elif kw == "multipole":
            first.append(line.replace(line.split()[0], kw, 1))
            skip = 4
        else:
            rest.append(line.replace(line.split()[0], kw, 1))
    path = os.path.join(folder, "merged.prm")
    with open(path, "w") as out:
        out.writelines(first)
        if prm:
            with open(prm) as f:
                out.write(f.read())
            out.write("\n")
        out.writelines(rest)
    return path


def ewald_alpha(cutoff):
    """Tinker's ewaldcof: alpha with erfc(alpha rc)/rc = 1e-8, by bisection (1/Å)."""
    lo, hi = 0.0, 1.0
    while math.erfc(hi * cutoff) / cutoff >= 1e-8:
        hi *= 2
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if math.erfc(mid * cutoff) / cutoff >= 1e-8 else (lo, mid)
    return 0.5 * (lo + hi)


def pme_size(length):
    """Tinker's default grid: the smallest 2/3/5-smooth size of at least 1.2 times the cell length (Å)."""
    n = max(1, math.ceil(1.2 * length - 1e-8))
    while True:
        m = n
        for p in (2, 3, 5):
            while m % p == 0:
                m //= p
        if m == 1:
            return n
        n += 1


# ---- OpenMM ---------------------------------------------------------------------------------------------------

def ordered_topology(atoms):
    """A Topology with the atoms in file order, one residue (replaces TinkerFiles' residue perception)."""
    from openmm.app import element, topology
    top = topology.Topology()
    residue = top.addResidue("UNK", top.addChain())
    made = [top.addAtom(a.nameShort, element.Element.getByAtomicNumber(a.atomicNumber), residue, str(a.index + 1))
            for a in atoms]
    for a in atoms:
        for b in a.bonds:
            if b > a.index:
                top.addBond(made[a.index], made[b])
    return top


def build_openmm(key, xyz, prm, s, on, folder, notes):
    import openmm as mm
    from openmm import app
    from openmm.app.internal.unitcell import computePeriodicBoxVectors
    app.TinkerFiles._createTopology = staticmethod(ordered_topology)
    merged = merged_parameters(key, prm, folder)
    box = None
    a = number(s, "a-axis")
    with open(xyz) as f:
        f.readline()
        second = f.readline().split()
    has_box_line = len(second) == 6 and second[0] != "1"
    if a and not has_box_line:
        cell = [a, number(s, "b-axis", default=a), number(s, "c-axis", default=a),
                number(s, "alpha", default=90.0), number(s, "beta", default=90.0), number(s, "gamma", default=90.0)]
        box = computePeriodicBoxVectors(*[x * 0.1 for x in cell[:3]], *[math.radians(x) for x in cell[3:]])
    try:
        tf = app.TinkerFiles(xyz, [merged], periodicBoxVectors=box)
    except Exception as e:
        sys.exit(f"amoeba-openmm: openmm.app.TinkerFiles cannot read {xyz} with {prm}: {type(e).__name__}: {e}")
    periodic = tf.topology.getPeriodicBoxVectors() is not None
    ewald = "ewald" in s
    vdw_cut = number(s, "vdw-cutoff", "cutoff", default=9.0)
    real_cut = number(s, "ewald-cutoff", "cutoff", default=7.0) if ewald else number(s, "mpole-cutoff", "cutoff",
                                                                                      default=9.0)
    polarization = (s.get("polarization") or ["MUTUAL"])[0].lower()
    eps = number(s, "polar-eps", default=1e-6)
    try:
        system = tf.createSystem(nonbondedMethod=app.PME if periodic else app.NoCutoff,
                                 nonbondedCutoff=real_cut * 0.1, vdwCutoff=vdw_cut * 0.1, removeCMMotion=False,
                                 polarization=polarization, mutualInducedTargetEpsilon=eps)
    except Exception as e:  # e.g. a record TinkerFiles does not read (anglef) leaves a term without parameters
        sys.exit(f"amoeba-openmm: openmm.app.TinkerFiles.createSystem failed for {xyz}: {type(e).__name__}: {e}")
    unsupported = set()
    if not periodic and any(k in s for k in ("cutoff", "vdw-cutoff", "mpole-cutoff")):
        notes.append("the key's cutoffs are not applied without a cell: OpenMM's gas phase (NoCutoff) takes every "
                     "pair")
    if periodic and abs(number(s, "vdw-taper", "taper", default=0.9) - 0.9) > 1e-12:
        notes.append("OpenMM's vdW taper starts at 0.9 of the cutoff, the key's elsewhere")
    for f in system.getForces():
        if isinstance(f, mm.AmoebaVdwForce):
            f.setUseDispersionCorrection(periodic and "vdw-correction" in s)
        if isinstance(f, mm.AmoebaMultipoleForce):
            f.setMutualInducedMaxIterations(int(number(s, "polar-iter", default=100)))
            if periodic and not ewald:
                unsupported |= {"mpole", "polarize"}
                if on["mpole"] or on["polarize"]:
                    notes.append("a periodic cell without `ewald`: OpenMM's AmoebaMultipoleForce has no cutoff "
                                 "without Ewald sums, so mpole and polarize are not compared")
            elif periodic:
                v = tf.topology.getPeriodicBoxVectors()
                lengths = [math.sqrt(sum(c.value_in_unit(mm.unit.angstrom) ** 2 for c in vec)) for vec in v]
                grid = [int(x) for x in s["pme-grid"]] if "pme-grid" in s else [pme_size(x) for x in lengths]
                grid = (grid + grid[-1:] * 3)[:3]
                alpha = number(s, "ewald-alpha", default=ewald_alpha(real_cut))
                f.setPMEParameters(alpha * 10.0, *grid)
                notes.append(f"PME: alpha {alpha:.6f}/Å, grid {grid[0]}x{grid[1]}x{grid[2]}, real-space cutoff "
                             f"{real_cut} Å, order 5 (OpenMM's only)")
                if number(s, "pme-order", default=5) != 5:
                    notes.append("the key's pme-order is not 5: OpenMM's AMOEBA PME has order 5 only")
    types = {a.atomType for a in tf.atoms}
    pairs = [vals for kw, vals, _ in (records(prm) if prm else []) + records(key) if kw == "polpair"]
    if any(len(v) >= 2 and v[0] in types and v[1] in types for v in pairs):
        notes.append("TinkerFiles ignores polpair records, and this system has atoms of a polpair's two types: "
                     "polarization differs")
    return tf, system, unsupported


def drop_switched_off(system, on, unsupported):
    """Remove the forces of terms the key switches off (and of terms OpenMM cannot compute here)."""
    for i in reversed(range(system.getNumForces())):
        name = system.getForce(i).getName()
        if name == "AmoebaMultipoleForce":
            keep = any(on[t] and t not in unsupported for t in ("mpole", "polarize"))
        else:
            keep = name in FORCE_TERM and on[FORCE_TERM[name]]
        if not keep:
            system.removeForce(i)


def mpole_only(system):
    """A System holding a copy of the multipole force with every polarizability 0 (the permanent multipoles)."""
    import copy
    import openmm as mm
    force = next(f for f in system.getForces() if isinstance(f, mm.AmoebaMultipoleForce))
    copied = copy.deepcopy(force)
    copied.setPolarizationType(mm.AmoebaMultipoleForce.Direct)
    for i in range(copied.getNumMultipoles()):
        p = copied.getMultipoleParameters(i)
        copied.setMultipoleParameters(i, *p[:9], 0.0)
    out = mm.System()
    for i in range(system.getNumParticles()):
        out.addParticle(system.getParticleMass(i))
    out.setDefaultPeriodicBoxVectors(*system.getDefaultPeriodicBoxVectors())
    copied.setForceGroup(0)
    out.addForce(copied)
    return out


def context(system, tf, platform_name, precision):
    import openmm as mm
    try:
        platform = mm.Platform.getPlatformByName(platform_name)
    except Exception:
        sys.exit(f"amoeba-openmm: no OpenMM platform {platform_name}; plugins that failed to load: "
                 f"{mm.Platform.getPluginLoadFailures()}")
    props = {"Precision": precision} if platform_name in ("CUDA", "OpenCL", "HIP") else {}
    ctx = mm.Context(system, mm.VerletIntegrator(0.001), platform, props)
    if tf.topology.getPeriodicBoxVectors() is not None:
        ctx.setPeriodicBoxVectors(*tf.topology.getPeriodicBoxVectors())
    ctx.setPositions(tf.positions)
    return ctx


def evaluate(ctx, groups, repeats):
    """Energy (kcal/mol), forces (kcal/mol/Å) and best seconds per evaluation of the given force groups."""
    import numpy as np
    from openmm import unit
    best = math.inf
    for i in range(repeats + 1):  # the first is a warm-up
        t0 = time.perf_counter()
        state = ctx.getState(getEnergy=True, getForces=True, groups=set(groups))
        if i:
            best = min(best, time.perf_counter() - t0)
    energy = state.getPotentialEnergy().value_in_unit(unit.kilocalorie_per_mole)
    forces = np.array(state.getForces(asNumpy=True).value_in_unit(unit.kilocalorie_per_mole / unit.angstrom))
    return energy, forces, best


# ---- Quasar, Tinker -------------------------------------------------------------------------------------------

def quasar_key(key, prm, folder, name, extra):
    """The key with its parameter file by absolute path and EXTRA lines appended (for switches, polar-eps)."""
    path = os.path.join(folder, name + ".key")
    with open(path, "w") as out:
        for kw, vals, line in records(key):
            out.write(f"parameters {prm}\n" if kw == "parameters" else line)
        out.write("\n" + "".join(line + "\n" for line in extra))
    return path


def run_quasar(binary, key, xyz, repeats):
    import numpy as np
    best, result = math.inf, None
    for _ in range(repeats):
        t0 = time.perf_counter()
        done = subprocess.run([binary, "eval", "--model", key, "--structure", xyz, "--format", "tinker", "--device",
                               "cpu", "--json"],
                              capture_output=True, text=True)
        best = min(best, time.perf_counter() - t0)
        if done.returncode:
            sys.exit(f"amoeba-openmm: {binary} eval failed:\n{done.stderr}")
        result = json.loads(done.stdout)
    terms = {k: v / KCAL_IN_EV for k, v in result["terms"].items()}
    return result["energy"] / KCAL_IN_EV, terms, np.array(result["forces"]) / KCAL_IN_EV, best


def read_tinker(path, natoms):
    """Total, terms and (if printed for every atom) forces from Tinker's analyze or testgrad output (its first
    run when the file holds several)."""
    import numpy as np
    labels = {label: name for name, label, _ in TERMS}
    total, terms, grad = None, {}, {}
    with open(path) as f:
        for line in f:
            text = line.replace("EngCnt", "").strip()
            if text.startswith("Total Potential Energy"):
                if total is not None:
                    break  # a log of several runs: the first
                total = float(text.split(":")[1].split()[0])
            for label, name in labels.items() if total is not None else ():  # the breakdown follows the total
                rest = text[len(label):].split()
                if text.startswith(label) and name not in terms and rest and \
                        rest[0].lstrip("-").replace(".", "", 1).isdigit():
                    terms[name] = float(rest[0])
            fields = line.split()
            if fields[:1] == ["Anlyt"] and len(fields) >= 5:
                grad[int(fields[1])] = [-float(x) for x in fields[2:5]]
    forces = np.array([grad[i] for i in range(1, natoms + 1)]) if len(grad) == natoms else None
    return total, terms, forces


# ---- report ---------------------------------------------------------------------------------------------------

def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("key")
    p.add_argument("xyz")
    p.add_argument("--platform", default="CPU", help="OpenMM platform: CPU (default), Reference, CUDA")
    p.add_argument("--precision", default="double", help="on CUDA/OpenCL: double (default), mixed, single")
    p.add_argument("--repeats", type=int, default=3, help="timed evaluations, the best reported (default 3)")
    p.add_argument("--per-term", action="store_true",
                   help="also run Quasar on each term alone (NAMEterm only): its time and forces per term")
    p.add_argument("--tinker", help="Tinker's analyze/testgrad output for these files: a third column")
    p.add_argument("--prm", help="this parameter file instead of the one the key names")
    p.add_argument("--polar-eps", type=float, help="override the key's polar-eps in both codes")
    p.add_argument("--no-quasar", action="store_true", help="OpenMM alone")
    p.add_argument("--json-out", help="write every number to this file")
    args = p.parse_args()

    import numpy as np
    import openmm as mm
    key, xyz = os.path.abspath(args.key), os.path.abspath(args.xyz)
    prm = os.path.abspath(args.prm) if args.prm else parameter_file(key)
    s, on = settings(key, prm)
    if args.polar_eps:
        s["polar-eps"] = [str(args.polar_eps)]
    notes = []
    quasar = os.path.abspath(os.environ.get("QUASAR", os.path.join(os.path.dirname(__file__), "..", "build",
                                                                    "quasar")))
    with tempfile.TemporaryDirectory(prefix="amoeba-openmm-") as folder:
        t0 = time.perf_counter()
        tf, system, unsupported = build_openmm(key, xyz, prm, s, on, folder, notes)
        drop_switched_off(system, on, unsupported)
        build_s = time.perf_counter() - t0
        names = []
        for g, f in enumerate(system.getForces()):
            f.setForceGroup(g)
            names.append(f.getName())
        t0 = time.perf_counter()
        ctx = context(system, tf, args.platform, args.precision)
        has_mpole = "AmoebaMultipoleForce" in names
        ctx_m = context(mpole_only(system), tf, args.platform, args.precision) if has_mpole else None
        context_s = time.perf_counter() - t0
        natoms = system.getNumParticles()
        group = {}
        for g, name in enumerate(names):
            group[name] = evaluate(ctx, [g], args.repeats)
        omm_terms, omm_forces = {}, {}
        for g, name in enumerate(names):
            e, f, _ = group[name]
            if name == "AmoebaMultipoleForce":
                em, fm, tm = evaluate(ctx_m, [0], args.repeats)
                group["mpole alone (polarizabilities 0)"] = (em, fm, tm)
                parts = [("mpole", em, fm), ("polarize", e - em, f - fm)]
            else:
                parts = [(FORCE_TERM.get(name, name), e, f)]
            for term, e_t, f_t in parts:
                omm_terms[term] = omm_terms.get(term, 0.0) + e_t
                omm_forces[term] = omm_forces.get(term, 0.0) + f_t
        active = [n for n, _, _ in TERMS if on[n] and n in omm_terms and n not in unsupported]
        active_groups = [g for g, n in enumerate(names)
                         if FORCE_TERM.get(n) in active or (n == "AmoebaMultipoleForce" and
                                                              ("mpole" in active or "polarize" in active))]
        # The whole system once more, for the total's time; mpole/polarize switched separately are summed.
        _, _, omm_total_s = evaluate(ctx, active_groups, args.repeats)
        omm_total = sum(omm_terms[n] for n in active)
        partial = any(on[n] for n in unsupported)  # then OpenMM's total and forces lack terms: not compared
        omm_f = sum(omm_forces[n] for n in active) if active else np.zeros((natoms, 3))

        extra = [f"polar-eps {args.polar_eps}"] if args.polar_eps else []
        q = None
        if not args.no_quasar:
            base = quasar_key(key, prm, folder, "all", extra)
            q = run_quasar(quasar, base, xyz, args.repeats)
            q_term = {}
            if args.per_term:
                for n, _, sw in TERMS:
                    if q[1].get(n) is not None and n in active:
                        k = quasar_key(key, prm, folder, n, extra + [f"{sw} only"])
                        q_term[n] = run_quasar(quasar, k, xyz, args.repeats)
        t = read_tinker(args.tinker, natoms) if args.tinker else None

    def maxdiff(a, b):
        return float(np.max(np.abs(a - b))) if a is not None and b is not None else None

    def fmt(x, w=13, d=4):
        return f"{x:{w}.{d}f}" if x is not None else " " * (w - 1) + "-"

    platform = ctx.getPlatform()
    detail = {"CPU": "Threads", "CUDA": "Precision", "OpenCL": "Precision"}.get(args.platform)
    detail = f" ({detail} {platform.getPropertyValue(ctx, detail)})" if detail else ""
    print(f"# {time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime())} UTC; OpenMM {mm.version.full_version} "
          f"{args.platform}{detail}; {natoms} atoms; {os.path.basename(key)} + {os.path.basename(xyz)}")
    if partial:
        notes.append("OpenMM lacks terms the key has on: its total and forces are not compared")
    for n in notes:
        print(f"# note: {n}")
    cols = (["Tinker"] if t else []) + (["Quasar"] if q else []) + ["OpenMM"]
    print(f"\n{'term (kcal/mol)':<20}" + "".join(f"{c:>13}" for c in cols) +
          ("    OpenMM-Quasar" if q else "") + ("  OpenMM-Tinker  Quasar-Tinker" if t else "")
          + ("  max|dF| O-Q" if q and args.per_term else ""))
    report = {"openmm": mm.version.full_version, "platform": args.platform, "atoms": natoms, "notes": notes,
              "terms": {}, "openmm_seconds": {}, "quasar_seconds": {}}
    rows = [(n, label) for n, label, _ in TERMS if n in active or (q and n in q[1]) or (t and n in t[1])]
    for n, label in rows + [("total", "Total")]:
        o = (None if partial else omm_total) if n == "total" else (omm_terms.get(n) if n in active else None)
        qq = (q[0] if n == "total" else q[1].get(n)) if q else None
        tt = (t[0] if n == "total" else t[1].get(n)) if t else None
        line = f"{label:<20}" + (fmt(tt) if t else "") + (fmt(qq) if q else "") + fmt(o)
        if q:
            line += fmt(o - qq if o is not None and qq is not None else None, 17, 6)
        if t:
            line += fmt(o - tt if o is not None and tt is not None else None, 15, 4)
            line += fmt(qq - tt if qq is not None and tt is not None else None, 15, 4)
        if q and args.per_term and n in q_term:
            line += fmt(maxdiff(omm_forces[n], q_term[n][2]), 14, 6)
        print(line)
        report["terms"][n] = {"tinker": tt, "quasar": qq, "openmm": o}
    print("\nmax |force difference| over atoms and components (kcal/mol/Å):")
    omm_f = None if partial else omm_f
    pairs = ([("OpenMM - Quasar", omm_f, q[2])] if q else []) + \
            ([("OpenMM - Tinker", omm_f, t[2]), ("Quasar - Tinker", q[2] if q else None, t[2])]
             if t and t[2] is not None else [])
    for label, a, b in pairs:
        d = maxdiff(a, b)
        if d is not None:
            atom = int(np.argmax(np.max(np.abs(a - b), axis=1))) + 1
            print(f"  {label:<16} {d:.6f} at atom {atom}   (largest force {float(np.max(np.abs(b))):.3f})")
            report[label] = d

    print(f"\nOpenMM {args.platform}: seconds per evaluation (energy and forces of the group), best of "
          f"{args.repeats} after a warm-up; System built in {build_s:.2f} s, contexts in {context_s:.2f} s")
    for name, (_, _, sec) in group.items():
        label = name + (" (mpole + polarize)" if name == "AmoebaMultipoleForce" else "")
        print(f"  {label:<40} {sec:10.5f}")
        report["openmm_seconds"][name] = sec
    print(f"  {'total (the compared terms)':<40} {omm_total_s:10.5f}")
    report["openmm_seconds"]["total"] = omm_total_s
    if q:
        print(f"Quasar CPU: seconds per `quasar eval` process (reading the files included), best of {args.repeats}")
        for n, r in (q_term.items() if args.per_term else []):
            print(f"  {n + ' alone':<40} {r[3]:10.5f}")
            report["quasar_seconds"][n] = r[3]
        print(f"  {'total':<40} {q[3]:10.5f}")
        report["quasar_seconds"]["total"] = q[3]
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
