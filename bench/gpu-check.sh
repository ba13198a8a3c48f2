#!/usr/bin/env bash
# Runs on the GPU machine (see bench/gpu-prepare.sh) and fails unless the GPU did its part.
#   bash bench/gpu-check.sh [MODE...]      MODE: tests, example, bench, sanitize, all (the default);
#                                          memcheck, racecheck or synccheck runs one sanitizer alone
#   tests     every test executable with both backends. bench/gpu_test_report.py then fails the check
#             when a test failed, an executable crashed or wrote no report, a .../cpu instance
#             (QUASAR_INSTANTIATE_BACKENDS) lacks a .../cuda twin that ran and passed, or a test was
#             skipped that bench/gpu-allowed-skips.txt does not allow. The executables that evaluate
#             a Deep Potential run their GPU tests again with QUASAR_DP_LAYERWISE=1: the
#             layer-by-layer nets that mixed16 and GPUs before sm_90 take, under the same rules.
#   example   the silicon example (DP MD at 300 K) on the GPU.
#   bench     the benchmarks (bench/*.cpp) on the GPU.
#   sanitize  compute-sanitizer, every run checked as above and failed on any reported error:
#             memcheck over the GPU tests of every executable (the Deep Potential ones on both paths),
#             racecheck and synccheck over the Deep Potential and neighbour-list ones.
# Time on an H100, ESTIMATES until a run measures them (the check's table prints each run's time):
# tests about 2 min, example and bench about 1 min, sanitize 4 to 8 min (QUASAR_CHECK_JOBS runs at
# once). With one 10-minute command per device call, run `tests example bench` and `sanitize` as
# two calls.
# The table and verdict of each part are printed and written to $OUT/gpu-check-summary.txt; the
# per-run reports and logs go to $OUT/gpu-check-logs.tar.gz (the device returns at most 8 files).
# The last line says PASS or FAIL with the reasons; the exit status is non-zero on FAIL.
# QUASAR_TEST_DIR (default build-cuda/tests) picks the executables: build-cpu/tests shows the
# check failing where no CUDA instance exists.
set -uo pipefail
cd "$(dirname "$0")/.." || exit
out=${OUT:-/tmp/quasar-gpu}
work=${QUASAR_CHECK_WORK:-/tmp/quasar-gpu-check}
mkdir -p "$out"
rm -rf "$work" && mkdir -p "$work"
testdir=${QUASAR_TEST_DIR:-build-cuda/tests}
export LD_LIBRARY_PATH=$PWD/.gpu/lib:${LD_LIBRARY_PATH:-}
[ -d .gpu/potentials ] && export QUASAR_LAMMPS_POTENTIALS=$PWD/.gpu/potentials
[ -x .gpu/bin/lmp ] && export QUASAR_LMP=$PWD/.gpu/bin/lmp
[ -d .gpu/shared ] && export QUASAR_SHARED=$PWD/.gpu/shared
QUASAR_BINARY_DIR=$(cd "$testdir/.." 2>/dev/null && pwd)
export QUASAR_SOURCE_DIR=$PWD QUASAR_BINARY_DIR
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export QUASAR_TEST_BACKENDS=cpu,cuda  # the checker needs both: the CPU instances say what must run
jobs=${QUASAR_CHECK_JOBS:-4}                     # runs at once (16 cores, one GPU)
test_limit=${QUASAR_TEST_TIMEOUT:-300}           # seconds per run, then it counts as failed
sanitizer_limit=${QUASAR_SANITIZER_TIMEOUT:-480}
report=bench/gpu_test_report.py
modes=("${@:-all}")
for m in "${modes[@]}"; do
  case $m in tests | example | bench | sanitize | memcheck | racecheck | synccheck | all) ;;
    *) echo "unknown mode '$m': tests, example, bench, sanitize, memcheck, racecheck, synccheck or all"; exit 2 ;;
  esac
done
failed=()
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/gpu.txt" ||
  echo "nvidia-smi: no GPU answered"

want() {
  local m
  for m in "${modes[@]}"; do [ "$m" = "$1" ] || [ "$m" = all ] || { [ "$m" = sanitize ] && [[ $1 == *check ]]; } && return 0; done
  return 1
}

# The GPU tests of an executable: its CUDA instances and the GPU-only tests, which carry Gpu in
# their names (GpuPrecision.*, Training.GpuTakesTheCpuSteps, ...) and compare with the CPU themselves.
gpu_tests='*/cuda:*Gpu*'

# memcheck's filter: every GPU test except those too long under it (memcheck makes each of the
# thousands of small launches of an MD run slow), each with what covers its kernels instead.
memcheck_filter() {
  case $1 in
    # 40,000, 12,000 and 10,000 steps (each over 200 s under memcheck on the H100): Bussi's kernels
    # run in BussiConservedQuantityStaysConstant (3,000 steps), the anisotropic barostat's scale
    # kernel in StochasticCellRescalingReachesTheTargetPressure, NVE and Langevin in the short runs
    # of lammps_nve_test, determinism_test and md_safety_test.
    md_test) echo "$gpu_tests-*BussiSamplesTheCanonicalKineticEnergy/cuda:*AnisotropicCellRescalingRelaxesEachAxis/cuda:*NveConservesEnergyOverTenThousandSteps/cuda:*LangevinSamplesTheCanonicalKineticEnergy/cuda" ;;
    *) echo "$gpu_tests" ;;
  esac
}

# racecheck and synccheck (shared memory and barriers): the Deep Potential's kernels (dp_test: the
# fused nets in double; dp_precision_test: mixed32, mixed16, compressed tables and the full-size
# water nets) and the neighbour list's.
race_sync_tests=(dp_test dp_precision_test neighbor_list_test)

# The executables whose source reads a Deep Potential model: their GPU tests run again on the
# layer-by-layer path.
dp_tests() { grep -lE 'reference/deepmd|\.dp"' tests/*_test.cpp | xargs -n1 basename | sed 's/\.cpp$//'; }

tests=()
for exe in "$testdir"/*_test; do [ -x "$exe" ] && tests+=("$exe"); done

# BIN.list (the CPU instances and plain tests) for every executable: what the checker expects.
list_tests() {
  local exe
  for exe in "${tests[@]}"; do
    QUASAR_TEST_BACKENDS=cpu "$exe" --gtest_list_tests > "$1/$(basename "$exe").list" 2> "$1/$(basename "$exe").list.err"
  done
}

has_tests() { [ -n "$(python3 "$report" expected "$1/$2.list" "$3")" ]; }  # DIR NAME FILTER

# run_test DIR RUN EXECUTABLE TOOL FILTER LIMIT [VAR=VALUE...]: one run, recorded for the checker.
run_test() {
  local dir=$1 run=$2 exe=$3 tool=$4 filter=$5 limit=$6 rc=0 start=$SECONDS
  shift 6
  local cmd=("$exe" "--gtest_filter=$filter" "--gtest_output=json:$dir/$run.json")
  # application-only: not the LAMMPS and mpirun that some tests start (they run no CUDA)
  [ "$tool" = none ] || cmd=("$sanitizer" --tool "$tool" --error-exitcode 1 --target-processes application-only "${cmd[@]}")
  env "$@" timeout -k 10 "$limit" "${cmd[@]}" > "$dir/$run.log" 2>&1 || rc=$?
  printf 'binary=%s\ntool=%s\nfilter=%s\nenv=%s\nrc=%s\nseconds=%s\nlimit=%s\n' "$(basename "$exe")" "$tool" \
    "$filter" "$*" "$rc" "$((SECONDS - start))" "$limit" > "$dir/$run.meta"
  echo "  $run: exit $rc after $((SECONDS - start)) s"
}

start_test() {  # run_test in the background, at most $jobs at a time
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
  run_test "$@" &
}

check() {  # DIR TITLE: the checker's table and verdict; records a failed part
  python3 "$report" check "$1" --allowed-skips bench/gpu-allowed-skips.txt --title "$2" | tee "$1/verdict.txt"
  [ "${PIPESTATUS[0]}" = 0 ] || failed+=("$2: $(grep -c '^  - ' "$1/verdict.txt") problems (above)")
  cat "$1/verdict.txt" >> "$work/summary.txt"
}

if want tests; then
  dir=$work/tests
  mkdir -p "$dir"
  list_tests "$dir"
  echo "== tests: ${#tests[@]} executables in $testdir, both backends, $jobs at a time"
  for exe in "${tests[@]}"; do start_test "$dir" "$(basename "$exe")" "$exe" none '*' "$test_limit"; done
  for name in $(dp_tests); do
    if [ ! -x "$testdir/$name" ] || ! has_tests "$dir" "$name" "$gpu_tests"; then continue; fi
    start_test "$dir" "$name.layerwise" "$testdir/$name" none "$gpu_tests" "$test_limit" QUASAR_DP_LAYERWISE=1
  done
  wait
  [ ${#tests[@]} -gt 0 ] || failed+=("tests: no test executable in $testdir")
  check "$dir" "gpu-check tests"
fi

if want example; then
  echo "== example: examples/silicon on the GPU"
  if (cd examples/silicon && ../../build-cuda/quasar run md.toml --device cuda) > "$out/example.log" 2>&1; then
    tail -n 5 "$out/example.log"
  else
    tail -n 20 "$out/example.log"
    failed+=("example: quasar run exited non-zero")
  fi
fi

if want bench; then
  for b in build-cuda/bench/bench_*; do
    [ -x "$b" ] || continue
    echo "== $(basename "$b")"
    "$b" --device cuda ${BENCH_ARGS:-} 2>&1 | tee "$out/$(basename "$b").log" || failed+=("bench: $(basename "$b") exited non-zero")
  done
fi

if want memcheck || want racecheck || want synccheck; then
  dir=$work/sanitize
  mkdir -p "$dir"
  list_tests "$dir"
  sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer \
    /usr/local/cuda/compute-sanitizer/compute-sanitizer 2>/dev/null | head -n 1)
  if [ -z "$sanitizer" ]; then
    failed+=("sanitize: compute-sanitizer not found")
  else
    echo "== sanitize with $sanitizer, $jobs at a time"
    for tool in racecheck synccheck; do
      want $tool || continue
      for name in "${race_sync_tests[@]}"; do
        [ -x "$testdir/$name" ] || { failed+=("$tool: $testdir/$name is missing"); continue; }
        start_test "$dir" "$name.$tool" "$testdir/$name" $tool "$gpu_tests" "$sanitizer_limit"
      done
    done
    if want memcheck; then
      for exe in "${tests[@]}"; do
        name=$(basename "$exe") filter=$(memcheck_filter "$(basename "$exe")")
        if ! has_tests "$dir" "$name" "$filter"; then echo "  memcheck: $name has no GPU test"; continue; fi
        start_test "$dir" "$name.memcheck" "$exe" memcheck "$filter" "$sanitizer_limit"
        grep -qxF "$name" <(dp_tests) &&
          start_test "$dir" "$name.memcheck-layerwise" "$exe" memcheck "$filter" "$sanitizer_limit" QUASAR_DP_LAYERWISE=1
      done
    fi
    wait
    check "$dir" "gpu-check sanitize"
  fi
fi

cp "$work/summary.txt" "$out/gpu-check-summary.txt" 2>/dev/null
tar czf "$out/gpu-check-logs.tar.gz" -C "$work" .
if [ ${#failed[@]} -eq 0 ]; then
  echo "gpu-check (${modes[*]}): PASS"
else
  printf -v reasons '%s; ' "${failed[@]}"
  echo "gpu-check (${modes[*]}): FAIL: ${reasons%; }"
  exit 1
fi
