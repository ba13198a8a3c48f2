#!/usr/bin/env bash
# Training beside DeePMD-kit on the GPU machine (after bench/gpu-prepare.sh; carry .gpu, .whl and
# build-cuda/quasar): DeePMD-kit's water input (water-se_e2_a-input.json: se_e2_a [25, 50, 100],
# fitting [240, 240, 240], batch "auto") on its water data (data_0-2 for training, data_3 held out),
# STEPS steps with each code, then both models tested on every frame of data_3.
# Usage: bench/train-bench.sh [STEPS] [quasar|deepmd-kit|both] [double|mixed32 (Quasar's precision)].
# Logs to $OUT/train-*.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/quasar-gpu}
mkdir -p "$out"
steps=${1:-2000}
which=${2:-both}
precision=${3:-double}
root=$PWD
data=$root/.gpu/shared/reference/deepmd/water-data
work=/tmp/train-bench
rm -rf $work && mkdir -p $work/quasar $work/deepmd-kit
python3 - "$data/../water-se_e2_a-input.json" "$data" "$steps" > $work/input.json <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
d, n = sys.argv[2], int(sys.argv[3])
j["training"]["training_data"]["systems"] = [f"{d}/data_{k}" for k in range(3)]
j["training"]["validation_data"]["systems"] = [f"{d}/data_3"]
j["training"].update(numb_steps=n, save_freq=n, disp_freq=max(1, n // 20))
print(json.dumps(j, indent=1))
PY
export LD_LIBRARY_PATH=$root/.gpu/lib:${LD_LIBRARY_PATH:-}
if [ "$which" != deepmd-kit ]; then
  cd $work/quasar && cp ../input.json .
  /usr/bin/time -f "quasar: %e s wall" $root/build-cuda/quasar train input.json --device cuda --precision $precision 2>&1 | tail -3
  cp lcurve.out "$out/train-quasar-$precision-lcurve.out"
  $root/build-cuda/quasar test --model model.dp --data $data/data_3 --json | tee "$out/train-quasar-$precision-test.json"
fi
if [ "$which" != quasar ]; then
  cd $root && source bench/deepmd-kit-env.sh
  cd $work/deepmd-kit && cp ../input.json .
  /usr/bin/time -f "deepmd-kit: %e s wall" python3 $root/bench/deepmd_kit_cli.py --pt train input.json > train.log 2>&1
  tail -2 train.log; grep -i -E "average training time|wall" train.log | tail -3
  cp lcurve.out "$out/train-deepmd-kit-lcurve.out"
  python3 $root/bench/deepmd_kit_cli.py --pt freeze -o frozen.pth > /dev/null 2>&1
  python3 $root/bench/deepmd_kit_cli.py --pt test -m frozen.pth -s $data/data_3 2>&1 | grep -E "RMSE|MAE" |
    tee "$out/train-deepmd-kit-test.txt"
fi
