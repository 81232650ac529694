#!/usr/bin/env bash
# Second device run of the session (issue 46), after `bench` stopped measuring through the
# step-0 start-up ramp (every worker began with 8 games and added one per finished game, so
# short benchmarks never reached `games_in_flight`): self-play positions/s with the net on
# the GPU and on the 16 CPU cores for the 4x64 ReMATCH net with one batch in flight and
# with several (groups and streams), and for a 10x128 net; the latency backend on the 16
# cores; then 60 s of `train` with self-play's net on the GPU and on the CPU cores.
set -uo pipefail
tl=$(python3 -c 'import os,torch;print(os.path.dirname(torch.__file__))')/lib
export LD_LIBRARY_PATH=$tl
bin=$PWD/.gpubin/checkers-zero
t0=$(date +%s); stamp() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
lscpu | grep -E "Model name|^CPU\(s\)" | cut -c1-120
mk() {  # mk NAME BLOCKS CHANNELS GAMES GROUPS STREAMS MAX_BATCH
  sed -e "s/^blocks = 4 /blocks = $2 /" -e "s/^channels = 64 /channels = $3 /" \
      -e "s/^games_in_flight = 64 /games_in_flight = $4 /" -e "s/^groups = 1 /groups = $5 /" \
      -e "s/^max_batch = 128 /max_batch = $7 /" \
      -e "s/^\[batching\] .*/[batching]\nstreams = $6/" configs/rematch.toml > /tmp/$1.toml
}
mk n4x64 4 64 64 1 1 128
mk n4x64s4 4 64 256 4 4 1024
mk n4x64w1k 4 64 1024 4 4 1024
mk n10x128s4 10 128 256 4 4 1024
for c in n4x64 n4x64s4 n4x64w1k n10x128s4; do
  stamp "== bench $c (GPU and CPU cores)"
  grep -E "^(blocks|channels|games_in_flight|groups|max_batch|streams) " /tmp/$c.toml | cut -c1-24 | tr '\n' ';'; echo
  timeout 80 $bin bench --config /tmp/$c.toml --seconds 16 --device cuda > $OUT/bench2-$c.log 2>&1
  grep -E "^ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ *(\(auto\))?$|self-play's net on" $OUT/bench2-$c.log | tail -4
done
stamp "== latency backend, 16 cores"
for c in n4x64 n4x64s4 n4x64w1k; do for ms in 0 1; do
  echo -n "$c $ms ms: "; timeout 25 $bin bench --config /tmp/$c.toml --seconds 8 --latency-ms $ms 2>&1 | tail -1
done; done
for dev in cuda cpu; do
  stamp "== train 60 s, n4x64s4, self-play's net on $dev, learner on cuda"
  timeout 95 $bin train --config /tmp/n4x64s4.toml --run-dir /tmp/t-$dev --minutes 1 --quiet \
    --set batching.device=$dev --set train.device=cuda > $OUT/train2-$dev.log 2>&1
  python3 - /tmp/t-$dev <<'PY' | tee -a $OUT/train2-$dev.log
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1] + "/learner/metrics.jsonl")]
sp = [l for l in lines if l.get("type") == "selfplay"]
tr = [l for l in lines if l.get("type") == "train"]
med = lambda xs: sorted(xs)[len(xs) // 2] if xs else None
print("step", tr[-1]["step"] if tr else None, "games", sp[-1].get("games_total") if sp else None,
      "self-play positions/s (median of iterations):", med([l.get("positions_per_s", 0) for l in sp]))
PY
done
stamp "done"
