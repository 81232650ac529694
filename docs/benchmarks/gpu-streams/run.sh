#!/usr/bin/env bash
# Device run on one GPU machine (issue 46, second GPU session): check-gpu with today's
# binary; self-play positions/s with the net on the GPU and on the machine's CPU cores
# (bench measures both and settles which is faster) for the default 4x64 ReMATCH net, and
# for the 4x64 and 10x128 nets with several batches in flight (256 games per worker in 4
# groups, 4 streams per batcher instance, max_batch 1,024; and 512 games in 8 groups with 8
# streams); self-play's pipeline alone through the latency backend on the 16 cores; the
# learner's samples/s on the GPU. The binary comes from scripts/build-other-torch for the
# device's torch (.gpubin/checkers-zero, carried).
set -uo pipefail
tl=$(python3 -c 'import os,torch;print(os.path.dirname(torch.__file__))')/lib
python3 -c 'import torch;print("torch", torch.__version__)'
export LD_LIBRARY_PATH=$tl
bin=$PWD/.gpubin/checkers-zero
t0=$(date +%s); stamp() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
lscpu | grep -E "Model name|^CPU\(s\)" | cut -c1-120
grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx2|avx512f|avx512_bf16|amx.*)$' | tr '\n' ' '; echo
stamp "== check-gpu"
CHECKERS_ZERO_BIN=$bin timeout 170 bash scripts/check-gpu cuda > $OUT/check-gpu.log 2>&1
echo "check-gpu rc=$?"; grep -E "^==|precision:|check-gpu|exported" $OUT/check-gpu.log | tail -10
mk() {  # mk NAME BLOCKS CHANNELS GAMES GROUPS STREAMS MAX_BATCH
  sed -e "s/^blocks = 4 /blocks = $2 /" -e "s/^channels = 64 /channels = $3 /" \
      -e "s/^games_in_flight = 64 /games_in_flight = $4 /" -e "s/^groups = 1 /groups = $5 /" \
      -e "s/^max_batch = 128 /max_batch = $7 /" configs/rematch.toml > /tmp/$1.toml
  printf 'streams = %s\n' "$6" > /tmp/$1.streams
  python3 - /tmp/$1.toml "$6" <<'PY'
import sys, re
p, s = sys.argv[1], sys.argv[2]
t = open(p).read()
t = re.sub(r"(?m)^streams = \d+ ", f"streams = {s} ", t) if re.search(r"(?m)^streams = ", t) \
    else t.replace("[batching]", f"[batching]\nstreams = {s}", 1)
open(p, "w").write(t)
PY
}
mk n4x64 4 64 64 1 1 128
mk n4x64s4 4 64 256 4 4 1024
mk n4x64s8 4 64 512 8 8 2048
mk n10x128s4 10 128 256 4 4 1024
for c in n4x64 n4x64s4 n4x64s8 n10x128s4; do
  stamp "== bench $c (GPU and CPU cores)"
  grep -E "^(blocks|channels|games_in_flight|groups|max_batch|streams) " /tmp/$c.toml | cut -c1-40 | tr '\n' ';'; echo
  timeout 80 $bin bench --config /tmp/$c.toml --seconds 16 --device cuda > $OUT/bench-$c.log 2>&1
  grep -E "^ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+|self-play's net on" $OUT/bench-$c.log | tail -6
done
stamp "== latency backend, 16 cores"
for c in n4x64 n4x64s4 n4x64s8; do for ms in 0 1; do
  echo -n "$c $ms ms: "; timeout 25 $bin bench --config /tmp/$c.toml --seconds 8 --latency-ms $ms 2>&1 | tail -1
done; done
stamp "== learner on the GPU, self-play on the CPU cores (60 s, 4x64)"
timeout 100 $bin train --config configs/rematch.toml --run-dir /tmp/gpu-learner --minutes 1 --quiet \
  --set batching.device=cpu --set train.device=cuda > $OUT/train-learner-gpu.log 2>&1
python3 - <<'PY' | tee -a $OUT/train-learner-gpu.log
import json
lines = [json.loads(l) for l in open("/tmp/gpu-learner/learner/metrics.jsonl")]
med = lambda xs: sorted(xs)[len(xs) // 2] if xs else None
train = [l for l in lines if l.get("type") == "train"]
print("steps", train[-1]["step"] if train else None,
      "learner samples/s (median):", med([l.get("samples_per_s", 0) for l in train]))
PY
stamp "done"
