"""A reference program for the growth loop's tests (src/quasar/potential/shepard/grow/
external_reference.hpp): a sum of Morse pair potentials, V(r) = D (1 - exp(-a (r - r0)))^2 - D over
every pair of atoms, with its analytic gradient and Hessian, spoken through the same files as the
PySCF reference. Standard library only, so that the C++ side is tested where PySCF and numpy are
absent.

    python3 shepard_fake_reference.py GEOMETRIES.xyz POINTS --failures FAILURES
        [--fail-every K]   every K-th frame (counting from 1) is listed as failed
        [--exit STATUS]    write a message on standard error and exit with STATUS
        [--write-nothing]  exit with 0 having written nothing
        [--calls FILE --fail-after N]   count the runs in FILE; fail from the (N+1)-th on
"""
import argparse
import math
import sys

D, A, R0 = 4.7, 1.9, 0.74  # eV, 1/Å, Å


def morse(x):
    n = len(x) // 3
    e, g, h = 0.0, [0.0] * (3 * n), [[0.0] * (3 * n) for _ in range(3 * n)]
    for i in range(n):
        for j in range(i + 1, n):
            d = [x[3 * i + k] - x[3 * j + k] for k in range(3)]
            r = math.sqrt(sum(c * c for c in d))
            u = [c / r for c in d]
            q = math.exp(-A * (r - R0))
            e += D * (1 - q) ** 2 - D
            v1 = 2 * D * A * q * (1 - q)
            v2 = 2 * D * A * A * q * (2 * q - 1)
            for k in range(3):
                g[3 * i + k] += v1 * u[k]
                g[3 * j + k] -= v1 * u[k]
                for m in range(3):
                    b = v2 * u[k] * u[m] + v1 / r * ((k == m) - u[k] * u[m])
                    h[3 * i + k][3 * i + m] += b
                    h[3 * j + k][3 * j + m] += b
                    h[3 * i + k][3 * j + m] -= b
                    h[3 * j + k][3 * i + m] -= b
    return e, g, h


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("geometries")
    ap.add_argument("points")
    ap.add_argument("--failures", required=True)
    ap.add_argument("--fail-every", type=int, default=0)
    ap.add_argument("--exit", type=int, default=0)
    ap.add_argument("--write-nothing", action="store_true")
    ap.add_argument("--calls", default=None)
    ap.add_argument("--fail-after", type=int, default=0)
    args = ap.parse_args()
    if args.calls:
        try:
            calls = int(open(args.calls).read()) + 1
        except FileNotFoundError:
            calls = 1
        open(args.calls, "w").write(str(calls))
        if calls > args.fail_after:
            print(f"fake reference: run {calls} fails", file=sys.stderr)
            return 4
    if args.write_nothing:
        return 0
    if args.exit:
        print("fake reference: asked to fail", file=sys.stderr)
        return args.exit
    lines = open(args.geometries).read().split("\n")
    frames, i = [], 0
    while i < len(lines) and lines[i].strip():
        n = int(lines[i])
        rows = [lines[i + 2 + a].split() for a in range(n)]
        frames.append(([r[0] for r in rows], [float(c) for r in rows for c in r[1:4]]))
        i += 2 + n
    kept, failed = [], []
    for k, frame in enumerate(frames):
        if args.fail_every and (k + 1) % args.fail_every == 0:
            failed.append(f"{k + 1} the SCF did not converge (fake)")
        else:
            kept.append(frame)
    out = ["shepard-points 1", f"atoms {len(frames[0][0])}", "elements " + " ".join(frames[0][0]), f"points {len(kept)}"]
    for k, (elements, x) in enumerate(kept):
        e, g, h = morse(x)
        out += [f"point {k + 1}", f"energy {e!r}", "positions"]
        out += [" ".join(repr(c) for c in x[3 * a:3 * a + 3]) for a in range(len(elements))]
        out.append("gradient")
        out += [" ".join(repr(c) for c in g[3 * a:3 * a + 3]) for a in range(len(elements))]
        out.append("hessian")
        out += [" ".join(repr(c) for c in row) for row in h]
    with open(args.points, "w") as f:
        f.write("\n".join(out) + "\n")
    with open(args.failures, "w") as f:
        f.write("".join(line + "\n" for line in failed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
