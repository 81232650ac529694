#!/usr/bin/env bash
# Device run on one GPU machine: check-gpu; self-play positions/s with the net on the GPU and
# on the machine's CPU cores (bench measures both and settles which is faster) for the
# default 4x64 ReMATCH net and a 10x128 one, with one batch in flight per worker and with
# four (selfplay.groups = 4); self-play's pipeline alone through the latency backend; and
# the learner's samples/s on the GPU with self-play on the CPU cores. The binary comes from
# scripts/build-other-torch for the device's torch (.gpubin/checkers-zero, carried).
set -uo pipefail
tl=$(python3 -c 'import os,torch;print(os.path.dirname(torch.__file__))')/lib
export LD_LIBRARY_PATH=$tl
bin=$PWD/.gpubin/checkers-zero
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
lscpu | grep -E "Model name|^CPU\(s\)" | cut -c1-120
grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx2|avx512f|avx512_bf16|amx.*)$' | tr '\n' ' '; echo
echo "== check-gpu"
CHECKERS_ZERO_BIN=$bin timeout 170 bash scripts/check-gpu cuda > $OUT/check-gpu.log 2>&1
echo "check-gpu rc=$?"; grep -E "^==|precision|check-gpu|won|step " $OUT/check-gpu.log | tail -12
mk() {  # mk NAME BLOCKS CHANNELS GROUPS: a copy of configs/rematch.toml with that net and groups
  sed -e "s/^blocks = 4 /blocks = $2 /" -e "s/^channels = 64 /channels = $3 /" \
      -e "s/^groups = 1 /groups = $4 /" configs/rematch.toml > /tmp/$1.toml
}
mk n4x64 4 64 1; mk n4x64g4 4 64 4; mk n10x128 10 128 1; mk n10x128g4 10 128 4
for c in n4x64 n4x64g4 n10x128 n10x128g4; do
  echo "== bench $c (GPU and CPU cores)"
  timeout 100 $bin bench --config /tmp/$c.toml --seconds 24 --device cuda > $OUT/bench-$c.log 2>&1
  grep -E "^machine|^net:|positions/s$|^ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+|self-play's net on" $OUT/bench-$c.log | tail -12
done
echo "== latency backend, 16 cores (4x64, groups 1 and 4)"
for c in n4x64 n4x64g4; do for ms in 0 1; do
  timeout 30 $bin bench --config /tmp/$c.toml --seconds 8 --latency-ms $ms 2>&1 | tail -1
done; done
echo "== learner on the GPU, self-play on the CPU cores (60 s, 4x64)"
timeout 110 $bin train --config configs/rematch.toml --run-dir /tmp/gpu-learner --minutes 1 --quiet \
  --set evaluator.device=cpu --set train.device=cuda > $OUT/train-learner-gpu.log 2>&1
python3 - <<'PY' | tee -a $OUT/train-learner-gpu.log
import json
lines = [json.loads(l) for l in open("/tmp/gpu-learner/learner/metrics.jsonl")]
med = lambda xs: sorted(xs)[len(xs) // 2]
train = [l for l in lines if l.get("type") == "train"]
intake = [l for l in lines if l.get("type") == "intake"]
sp = [l for l in lines if l.get("type") == "selfplay"]
print("steps", train[-1]["step"], "learner samples/s (median):", round(med([l["samples_per_s"] for l in train])))
print("self-play positions/s (median):", round(med([l["positions_per_s"] for l in sp])))
print("new samples/s (median):", round(med([l["samples_per_s"] for l in intake])))
PY
