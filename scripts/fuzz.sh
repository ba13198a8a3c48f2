#!/usr/bin/env bash
# Runs every libFuzzer target (fuzz/*.cpp) for SECONDS each (default 20, as CI does) on a corpus
# seeded from the real files of the repository and ../shared/reference, under ASan+UBSan (the
# `debug` preset, clang). Fails when a target finds a crash, a leak, a hang or an allocation over
# the limit; the input is left in build-debug/fuzz/artifacts/NAME/ (minimise it with
# `build-debug/fuzz/fuzz_NAME -minimize_crash=1 FILE`, fix the parser and keep it in tests/fuzz/NAME/).
#   bash scripts/fuzz.sh [SECONDS] [NAME...]     (scripts/fuzz-long.sh: 10 minutes each)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
shift || true
source scripts/env.sh
if [ ! -f build-debug/CMakeCache.txt ]; then
  cmake --preset debug -DCMAKE_CXX_COMPILER_LAUNCHER=ccache >/dev/null
fi
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for src in fuzz/*.cpp; do
    n=$(basename "$src" .cpp)
    [ "$n" = replay_main ] || names+=("$n")
  done
fi
cmake --build build-debug -j"$(nproc)" --target "${names[@]/#/fuzz_}" >/dev/null
# Seed files per target: fuzz/NAME.seeds lists glob patterns, one per line, relative to the
# repository (../shared/reference/... for the reference data); files over 64 kB are left out so that
# libFuzzer's input length stays small and executions fast.
seeds() { [ -f "fuzz/$1.seeds" ] && grep -v '^#' "fuzz/$1.seeds" || true; }
status=0
log=build-debug/fuzz/runs.log
mkdir -p build-debug/fuzz
for n in "${names[@]}"; do
  corpus=build-debug/fuzz/corpus/$n
  artifacts=build-debug/fuzz/artifacts/$n/
  mkdir -p "$corpus" "$artifacts"
  shopt -s nullglob
  for f in $(seeds "$n") tests/fuzz/"$n"/*; do
    [ -f "$f" ] && [ "$(stat -c %s "$f")" -le 65536 ] && cp "$f" "$corpus/seed-$(echo "${f#../}" | tr / _)"  # the path: real files share names
  done
  shopt -u nullglob
  echo "== fuzz_$n: $seconds s, $(ls "$corpus" | wc -l) inputs in the corpus"
  if build-debug/fuzz/fuzz_"$n" "$corpus" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
       -malloc_limit_mb=512 -artifact_prefix="$artifacts" -print_final_stats=1 > "build-debug/fuzz/$n.log" 2>&1; then
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "build-debug/fuzz/$n.log" | grep -o '[0-9]*$')
    echo "ok: $runs executions, no findings"
    echo "$(date -u +%F) $(git rev-parse --short HEAD) fuzz_$n ${seconds}s runs=$runs findings=0" >> "$log"
  else
    status=1
    echo "FINDING in fuzz_$n: $(ls "$artifacts")"
    grep -E -m5 'ERROR|SUMMARY|==[0-9]+==|terminate|what\(\)' "build-debug/fuzz/$n.log" || tail -20 "build-debug/fuzz/$n.log"
  fi
done
exit $status
