#!/usr/bin/env python3
"""Judges the test runs of bench/gpu-check.sh from the files they leave, so that a GPU check fails
when the GPU did not do its part, not only when a test reports a failure.

A results folder holds, for every run RUN of a test executable BIN (written by gpu-check.sh):
  BIN.list   `QUASAR_TEST_BACKENDS=cpu BIN --gtest_list_tests`: the tests that must exist; every
             .../cpu instance (QUASAR_INSTANTIATE_BACKENDS) must have a .../cuda twin that passed
  RUN.meta   key=value lines: binary, tool (none, memcheck, racecheck, synccheck), filter, env,
             rc (exit status; 124 when `timeout` stopped it), seconds, limit
  RUN.json   GoogleTest's --gtest_output=json report (absent when the executable crashed)
  RUN.log    its standard output and error (the sanitizer's report for sanitizer runs)

A run fails when: it has no meta (it never finished), no JSON or a non-zero exit status; any test
failed; a test it should have run (the listing under its filter, with each .../cpu instance's
.../cuda twin) is absent or, for a CUDA instance, did not pass; a test was skipped that the
allow-list (bench/gpu-allowed-skips.txt) does not name; a sanitizer run has no "ERROR SUMMARY" or
reports errors. CUDA instances are never excused by the allow-list.

  gpu_test_report.py check DIR [--allowed-skips FILE] [--title TEXT]
  gpu_test_report.py expected BIN.list FILTER   (the tests a run with FILTER must run, one a line)
  gpu_test_report.py self-test                  (the rules above on made-up runs)
"""
import argparse
import fnmatch
import json
import os
import re
import sys
import tempfile

SANITIZERS = ("memcheck", "racecheck", "synccheck", "initcheck")


# --- GoogleTest names, listings and filters ---------------------------------------------------

def read_listing(path):
    """Test names ("Suite.Test") from --gtest_list_tests output; [] when it is missing or empty."""
    if not os.path.exists(path):
        return []
    names, suite = [], None
    with open(path, errors="replace") as f:
        for line in f:
            text = line.split("#", 1)[0].rstrip()  # "  Test/cpu  # GetParam() = ..."
            if not text.strip():
                continue
            if not line[0].isspace():
                suite = text.strip() if text.endswith(".") else None  # skips "Running main() from ..."
            elif suite:
                names.append(suite + text.strip())
    return names


def glob_matches(pattern, name):
    rx = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
    return re.fullmatch(rx, name) is not None


def filter_matches(flt, name):
    """GoogleTest's --gtest_filter: POSITIVE[:POSITIVE...][-NEGATIVE[:NEGATIVE...]]."""
    positive, _, negative = (flt or "*").partition("-")
    pos = [p for p in positive.split(":") if p] or ["*"]
    neg = [p for p in negative.split(":") if p]
    return any(glob_matches(p, name) for p in pos) and not any(glob_matches(p, name) for p in neg)


def cuda_twin(name):
    return name[: -len("/cpu")] + "/cuda" if name.endswith("/cpu") else None


def is_cuda(name):
    return name.endswith("/cuda")


def expected_tests(listing, flt):
    """What a run with this filter must run: listed tests and the CUDA twins of the CPU instances."""
    out = []
    for name in listing:
        if "DISABLED_" in name:
            continue
        for candidate in (name, cuda_twin(name)):
            if candidate and filter_matches(flt, candidate):
                out.append(candidate)
    return out


def read_report(path):
    """{name: (result, [failure texts])} from a gtest JSON report, or None when unreadable."""
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError):
        return None
    out = {}
    for suite in data.get("testsuites", []):
        for t in suite.get("testsuite", []):
            name = f"{suite['name']}.{t['name']}"
            if t.get("status") == "NOTRUN":
                result = "NOTRUN"
            else:
                result = t.get("result", "COMPLETED")
            out[name] = (result, [f.get("failure", "") for f in t.get("failures", [])])
    return out


def skip_reasons(log_path):
    """{test: reason} from a full gtest log: the line after "file:line: Skipped"."""
    reasons, current, take = {}, None, False
    if not os.path.exists(log_path):
        return reasons
    with open(log_path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if take:
                reasons.setdefault(current, line.strip())
                take = False
            m = re.match(r"\[ RUN      \] (\S+)", line)
            if m:
                current = m.group(1)
            elif current and line.endswith(": Skipped"):
                take = True
    return reasons


def read_allowed_skips(path):
    """[(pattern, reason)] from lines "PATTERN  reason"; a line without a reason is an error."""
    allowed = []
    if not path:
        return allowed
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split(None, 1)
            if len(parts) < 2:
                raise SystemExit(f"{path}:{number}: '{line}' gives no reason for the skip")
            allowed.append((parts[0], parts[1]))
    return allowed


# racecheck reports hazards inside cuBLAS's Hopper GEMM kernels (nvjet_*), whose warps hand tiles
# to each other through asynchronous barriers that racecheck does not model (256-384 "hazards" in
# each on the H100; excluding them with --kernel-name-exclude made the sanitizer itself fail on
# them). They are not Quasar's kernels: such reports are counted apart and do not fail the check.
LIBRARY_RACE = re.compile(r"Race reported between \w+ access at (nvjet_\w+)\+")
LIBRARY_RACE_OTHER = re.compile(r"and \w+ access at (\w+)\+")


def library_races(lines):
    """Racecheck reports whose two accesses both lie in cuBLAS's nvjet kernels."""
    n = 0
    for i, l in enumerate(lines):
        if LIBRARY_RACE.search(l) and i + 1 < len(lines):
            other = LIBRARY_RACE_OTHER.search(lines[i + 1])
            n += bool(other and other.group(1).startswith("nvjet_"))
    return n


def sanitizer_summary(log_path):
    """(errors or None when no summary, of which in cuBLAS's kernels, first lines of the first
    report of Quasar's own) from a sanitizer's log."""
    if not os.path.exists(log_path):
        return None, 0, []
    with open(log_path, errors="replace") as f:
        lines = f.read().splitlines()
    # memcheck and synccheck end with "ERROR SUMMARY: N errors", racecheck with
    # "RACECHECK SUMMARY: N hazards displayed (E errors, W warnings)".
    summary = re.compile(r"ERROR SUMMARY: (\d+) errors?|RACECHECK SUMMARY: \d+ hazards? displayed \((\d+) errors?")
    counts = [int(m.group(1) or m.group(2)) for m in (summary.search(l) for l in lines) if m]
    report = []
    for i, l in enumerate(lines):
        if (l.startswith("=========") and "SUMMARY" not in l and "COMPUTE-SANITIZER" not in l and l.strip("= ")
                and not LIBRARY_RACE.search(l) and not LIBRARY_RACE_OTHER.search(l)):
            report = lines[i:i + 12]
            break
    return (sum(counts) if counts else None), library_races(lines), report


def read_meta(path):
    meta = {}
    with open(path) as f:
        for line in f:
            key, sep, value = line.rstrip("\n").partition("=")
            if sep:
                meta[key] = value
    return meta


def log_tail(path, n=15):
    if not os.path.exists(path):
        return ["(no log)"]
    with open(path, errors="replace") as f:
        return f.read().splitlines()[-n:]


# --- the verdict on one run ------------------------------------------------------------------

class RunResult:
    def __init__(self, run):
        self.run = run
        self.problems = []  # one line each, for the verdict
        self.details = []   # indented lines printed under the table
        self.cuda = [0, 0, 0]  # ran, passed, expected
        self.counts = {"passed": 0, "failed": 0, "skipped": 0}
        self.tool = "none"
        self.seconds = "?"
        self.note = ""


def check_run(folder, run, allowed):
    r = RunResult(run)
    base = os.path.join(folder, run)
    meta = read_meta(base + ".meta")
    binary = meta.get("binary", run.split(".")[0])
    r.tool, r.seconds = meta.get("tool", "none"), meta.get("seconds", "?")
    flt = meta.get("filter", "*")
    listing = read_listing(os.path.join(folder, binary + ".list"))
    if not listing:
        err = log_tail(os.path.join(folder, binary + ".list.err"), 3)
        r.problems.append(f"{run}: `{binary} --gtest_list_tests` listed no test ({' '.join(err)})")
        return r
    expected = expected_tests(listing, flt)
    r.cuda[2] = sum(1 for n in expected if is_cuda(n))
    rc = meta.get("rc", "")
    if rc == "":
        r.problems.append(f"{run}: did not finish (no exit status recorded)")
        return r
    report = read_report(base + ".json")
    if report is None:
        why = f"timed out after {meta.get('limit', '?')} s" if rc in ("124", "137") else f"exit status {rc}"
        lost = f"; its {r.cuda[2]} CUDA instances did not run" if r.cuda[2] else ""
        r.problems.append(f"{run}: crashed or produced no JSON report ({why}){lost}")
        r.details += [f"    {line}" for line in log_tail(base + ".log")]
        return r
    reasons = skip_reasons(base + ".log")
    for name, (result, failures) in sorted(report.items()):
        if result == "NOTRUN":
            continue
        if failures:
            r.counts["failed"] += 1
            first = failures[0].strip().splitlines()
            r.problems.append(f"{run}: {name} FAILED")
            r.details += [f"    {name}: {line}" for line in first[:4]]
        elif result == "SKIPPED":
            r.counts["skipped"] += 1
            why = reasons.get(name, "no reason printed")
            excuse = next((reason for pattern, reason in allowed if fnmatch.fnmatchcase(name, pattern)), None)
            if is_cuda(name):
                r.problems.append(f"{run}: {name} skipped ({why}): a CUDA instance must run")
            elif excuse is None:
                r.problems.append(f"{run}: {name} skipped ({why}), not in the allowed skips")
            else:
                r.details.append(f"    allowed skip: {name} ({why}): {excuse}")
        else:
            r.counts["passed"] += 1
    missing = [n for n in expected if n not in report or report[n][0] == "NOTRUN"]
    for name in expected:
        if is_cuda(name) and name in report and report[name][0] != "NOTRUN":
            r.cuda[0] += 1
            if report[name][0] == "COMPLETED" and not report[name][1]:
                r.cuda[1] += 1
    missing_cuda = [n for n in missing if is_cuda(n)]
    if missing_cuda:
        r.problems.append(f"{run}: {len(missing_cuda)} of {r.cuda[2]} CUDA instances did not run "
                          f"(e.g. {missing_cuda[0]}): no GPU, or the build has no CUDA")
    other = [n for n in missing if not is_cuda(n)]
    if other:
        r.problems.append(f"{run}: {len(other)} listed tests did not run (e.g. {other[0]})")
    if not expected:
        r.problems.append(f"{run}: the filter '{flt}' selects no test")
    if r.tool in SANITIZERS:
        errors, library, first = sanitizer_summary(base + ".log")
        ours = None if errors is None else errors - library
        if errors is None:
            r.problems.append(f"{run}: compute-sanitizer printed no ERROR SUMMARY")
            r.details += [f"    {line}" for line in log_tail(base + ".log")]
        elif ours:
            r.problems.append(f"{run}: compute-sanitizer {r.tool} reported errors: {ours}")
            r.details += [f"    {line}" for line in first]
        r.note = "no summary" if errors is None else f"errors: {ours}" + (f" (+{library} in cuBLAS)" if library else "")
    library_only = r.tool in SANITIZERS and errors is not None and errors > 0 and ours == 0
    if rc != "0" and not r.problems and not (library_only and rc == "1"):
        r.problems.append(f"{run}: exit status {rc} although every test passed")
    return r


def check_folder(folder, allowed_path, title, out=sys.stdout):
    allowed = read_allowed_skips(allowed_path)
    runs = sorted(f[: -len(".meta")] for f in os.listdir(folder) if f.endswith(".meta"))
    results = [check_run(folder, run, allowed) for run in runs]
    problems = [p for r in results for p in r.problems]
    if not runs:
        problems.append(f"no run recorded in {folder}")
    print(f"{'run':40} {'tool':9} {'CUDA ran/passed/expected':>24} {'passed':>7} {'failed':>7} "
          f"{'skipped':>7} {'time':>6}  sanitizer", file=out)
    for r in results:
        cuda = "{}/{}/{}".format(*r.cuda)
        print(f"{r.run:40} {r.tool:9} {cuda:>24} {r.counts['passed']:>7} {r.counts['failed']:>7} "
              f"{r.counts['skipped']:>7} {r.seconds + 's':>6}  {r.note}", file=out)
    for r in results:
        for line in r.details:
            print(line, file=out)
    passed = sum(r.cuda[1] for r in results)
    if problems:
        print(f"{title}: FAIL ({len(problems)} problems):", file=out)
        for p in problems:
            print(f"  - {p}", file=out)
    else:
        print(f"{title}: PASS ({len(runs)} runs, {passed} CUDA instances passed)", file=out)
    return not problems


# --- self-test: the rules on made-up runs ----------------------------------------------------

LISTING = """Running main() from ./googletest/src/gtest_main.cc
Plain.
  ReadsAFile
  DeePMDKitAgrees
Gpu.
  GpuMatchesCpu
Backends/Kernels.
  Forces/cpu  # GetParam() = 4-byte object <00-00 00-00>
  Energies/cpu  # GetParam() = 4-byte object <00-00 00-00>
"""


def fake_run(folder, run, results, rc=0, tool="none", flt="*", log="", write_json=True):
    """results: {name: 'ok' | 'fail' | 'skip'}, written as GoogleTest 1.12 writes its report."""
    suites = {}
    for name, outcome in results.items():
        suite, test = name.split(".", 1)
        entry = {"name": test, "status": "RUN", "result": "SKIPPED" if outcome == "skip" else "COMPLETED",
                 "time": "0.1s", "classname": suite}
        if outcome == "fail":
            entry["failures"] = [{"failure": "kernels.cpp:12\nExpected: (err) < (1e-10), actual: 0.5 vs 1e-10",
                                  "type": ""}]
        suites.setdefault(suite, []).append(entry)
    if write_json:
        with open(os.path.join(folder, run + ".json"), "w") as f:
            json.dump({"tests": len(results), "testsuites": [{"name": s, "testsuite": t} for s, t in suites.items()]}, f)
    with open(os.path.join(folder, run + ".log"), "w") as f:
        for name, outcome in results.items():
            f.write(f"[ RUN      ] {name}\n")
            if outcome == "skip":
                f.write("t.cpp:3: Skipped\nDeePMD-kit is not installed\n")
        f.write(log)
    with open(os.path.join(folder, run + ".meta"), "w") as f:
        f.write(f"binary=fake_test\ntool={tool}\nfilter={flt}\nenv=\nrc={rc}\nseconds=1\nlimit=60\n")


def self_test():
    every = {"Plain.ReadsAFile": "ok", "Plain.DeePMDKitAgrees": "skip", "Gpu.GpuMatchesCpu": "ok",
             "Backends/Kernels.Forces/cpu": "ok", "Backends/Kernels.Energies/cpu": "ok",
             "Backends/Kernels.Forces/cuda": "ok", "Backends/Kernels.Energies/cuda": "ok"}
    cpu_only = {k: v for k, v in every.items() if not k.endswith("/cuda")}
    clean = "========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n"
    dirty = ("========= Invalid __global__ read of size 8 bytes\n=========     at forces_kernel(double *)\n"
             "========= ERROR SUMMARY: 2 errors\n")
    gpu_part = {k: v for k, v in every.items() if k.endswith("/cuda") or "Gpu" in k}
    cases = [  # (what, runs [(results, keyword arguments of fake_run)], passes, words the verdict must hold)
        ("a GPU run where everything ran", [(every, {})], True, ["PASS", "2/2/2"]),
        ("CPU only: no CUDA instance ran", [(cpu_only, {})], False, ["2 of 2 CUDA instances did not run"]),
        ("one CUDA instance missing", [({k: v for k, v in every.items() if k != "Backends/Kernels.Forces/cuda"}, {})],
         False, ["1 of 2 CUDA instances did not run"]),
        ("a CUDA instance failed", [(dict(every, **{"Backends/Kernels.Forces/cuda": "fail"}), {"rc": 1})], False,
         ["Backends/Kernels.Forces/cuda FAILED", "actual: 0.5"]),
        ("a CUDA instance skipped", [(dict(every, **{"Backends/Kernels.Energies/cuda": "skip"}), {})], False,
         ["a CUDA instance must run"]),
        ("a skip not allowed", [(dict(every, **{"Gpu.GpuMatchesCpu": "skip"}), {})], False,
         ["Gpu.GpuMatchesCpu skipped", "not in the allowed skips"]),
        ("a crash: no JSON", [(every, {"rc": 139, "write_json": False, "log": "Segmentation fault\n"})], False,
         ["crashed or produced no JSON", "exit status 139", "its 2 CUDA instances did not run", "Segmentation fault"]),
        ("stopped by timeout", [(every, {"rc": 124, "write_json": False})], False, ["timed out after 60 s"]),
        ("non-zero exit, tests passed", [(every, {"rc": 1})], False, ["exit status 1 although"]),
        ("memcheck clean", [(gpu_part, {"tool": "memcheck", "flt": "*/cuda:*Gpu*", "log": clean})], True,
         ["PASS", "errors: 0"]),
        ("memcheck errors", [(gpu_part, {"tool": "memcheck", "flt": "*/cuda:*Gpu*", "log": dirty, "rc": 1})], False,
         ["memcheck reported errors: 2", "forces_kernel"]),
        ("racecheck hazards", [(gpu_part, {"tool": "racecheck", "flt": "*/cuda:*Gpu*", "rc": 1,
          "log": "========= Error: Race reported between Read access at k+0xb0\n"
                 "========= RACECHECK SUMMARY: 4 hazards displayed (4 errors, 0 warnings)\n"})],
         False, ["racecheck reported errors: 4", "Race reported"]),
        ("racecheck hazards in cuBLAS only", [(gpu_part, {"tool": "racecheck", "flt": "*/cuda:*Gpu*", "rc": 1,
          "log": "========= Error: Race reported between Read access at nvjet_sm90_hss_32x64_NNN+0xb00\n"
                 "=========     and Write access at nvjet_sm90_hss_32x64_NNN+0x29b0 [256 hazards]\n"
                 "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n"})],
         True, ["PASS", "errors: 0 (+1 in cuBLAS)"]),
        ("racecheck hazards in cuBLAS and in Quasar", [(gpu_part, {"tool": "racecheck", "flt": "*/cuda:*Gpu*", "rc": 1,
          "log": "========= Error: Race reported between Read access at nvjet_sm90_hss_32x64_NNN+0xb00\n"
                 "=========     and Write access at nvjet_sm90_hss_32x64_NNN+0x29b0 [256 hazards]\n"
                 "========= Error: Race reported between Write access at embed_net_kernel+0x10\n"
                 "=========     and Read access at embed_net_kernel+0x20 [4 hazards]\n"
                 "========= RACECHECK SUMMARY: 2 hazards displayed (2 errors, 0 warnings)\n"})],
         False, ["racecheck reported errors: 1", "embed_net_kernel"]),
        ("racecheck clean", [(gpu_part, {"tool": "racecheck", "flt": "*/cuda:*Gpu*",
          "log": "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n"})], True, ["PASS"]),
        ("sanitizer without summary", [(gpu_part, {"tool": "racecheck", "flt": "*/cuda:*Gpu*", "log": "Error: Device not supported\n", "rc": 1})],
         False, ["no ERROR SUMMARY", "Device not supported"]),
        ("a filter narrower than what ran", [(gpu_part, {"flt": "*/cuda"})], True, ["PASS"]),
        ("a filter that selects nothing", [({}, {"flt": "Nothing.*"})], False, ["selects no test"]),
    ]
    failed = 0
    for what, runs, passes, words in cases:
        with tempfile.TemporaryDirectory() as folder:
            with open(os.path.join(folder, "fake_test.list"), "w") as f:
                f.write(LISTING)
            with open(os.path.join(folder, "allowed.txt"), "w") as f:
                f.write("# pattern  reason\nPlain.DeePMDKit*  DeePMD-kit is not on the GPU machine\n")
            for k, (results, kw) in enumerate(runs):
                fake_run(folder, f"fake_test.{k}", results, **kw)
            with open(os.path.join(folder, "verdict.txt"), "w+") as out:
                ok = check_folder(folder, os.path.join(folder, "allowed.txt"), "check", out)
                out.seek(0)
                text = out.read()
        good = ok == passes and all(w in text for w in words)
        failed += not good
        print(f"{'ok' if good else 'WRONG'}: {what}: {'PASS' if ok else 'FAIL'}")
        if not good:
            print("    expected " + ("PASS" if passes else "FAIL") + f" with {words}; the verdict was:")
            print("".join("    " + line + "\n" for line in text.splitlines()))
    # The filter syntax and the listing parser, on their own.
    assert filter_matches("*/cuda:*Gpu*-*Slow*", "Backends/Dynamics.Fast/cuda")
    assert not filter_matches("*/cuda:*Gpu*-*Slow*", "Backends/Dynamics.Slow/cuda")
    assert not filter_matches("*/cuda", "Backends/Dynamics.Fast/cpu")
    assert filter_matches("", "Anything.At/all")
    assert read_listing_from_text(LISTING)[-1] == "Backends/Kernels.Energies/cpu"
    print(f"self-test: {'PASS' if not failed else f'FAIL ({failed} cases)'}")
    return not failed


def read_listing_from_text(text):
    with tempfile.NamedTemporaryFile("w", suffix=".list", delete=False) as f:
        f.write(text)
    try:
        return read_listing(f.name)
    finally:
        os.unlink(f.name)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check")
    check.add_argument("folder")
    check.add_argument("--allowed-skips")
    check.add_argument("--title", default="gpu tests")
    expected = sub.add_parser("expected")
    expected.add_argument("listing")
    expected.add_argument("filter")
    sub.add_parser("self-test")
    args = parser.parse_args()
    if args.command == "check":
        return 0 if check_folder(args.folder, args.allowed_skips, args.title) else 1
    if args.command == "expected":
        print("\n".join(expected_tests(read_listing(args.listing), args.filter)))
        return 0
    return 0 if self_test() else 1


if __name__ == "__main__":
    sys.exit(main())
