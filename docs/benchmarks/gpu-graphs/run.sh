#!/usr/bin/env bash
# Second device call of 28 November 2026's fourth H200 session (issue 46), after the first
# (call1/) found tch's `_copy_from` refused a pinned-to-GPU copy, so every graph fell back to
# the eager pass: the graphs' input now copied with copy_. The CUDA shim's streams and graphs. check-gpu end to end (train with model swaps, match, bench), then self-play
# positions/s in one call: the 16 CPU cores on configs/rematch.toml; the GPU on
# configs/rematch-gpu.toml with graphs (the defaults), without graphs on own streams, and
# as before the shim (default stream, eager); graphs in bf16; 8 streams; the 10x128 net with
# graphs; the defaults again (run-to-run noise).
# Binary: scripts/build-other-torch 2.11.0 .gpubin/checkers-zero.
set -uo pipefail
tl=$(python3 -c 'import os,torch;print(os.path.dirname(torch.__file__))')/lib
export LD_LIBRARY_PATH=$tl
bin=$PWD/.gpubin/checkers-zero
t0=$(date +%s); stamp() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
lscpu | grep -E "Model name|^CPU\(s\)" | cut -c1-120
python3 -c 'import torch;print("torch", torch.__version__)'
bl=$OUT/bench.log
b() {  # b LABEL SECONDS ARGS...: one bench, its log appended, a summary line here
  local label=$1 limit=$2; shift 2
  echo "===== $label: $*" >> $bl
  timeout $limit $bin bench "$@" 2>&1 | grep -v -i "pin_memory\|deprecat" >> $bl
  echo -n "$label: "; awk '/^machine:|^precision:|^warning|CUDA graph/{p=p $0 " | "} /^ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ /{print} END{print p}' \
    <(sed -n "/===== $label:/,\$p" $bl) | tr '\n' '|' | tr -s ' ' | cut -c1-900; echo
}
g="--config configs/rematch-gpu.toml --device cuda --device-only --set selfplay.games_in_flight=2048 --set batching.max_batch=2048"
stamp "== GPU, graphs (defaults), 45 s"
b graphs 100 $g --seconds 45
stamp "== CPU cores, configs/rematch.toml, 45 s"
b cpu 80 --config configs/rematch.toml --device cpu --seconds 45
stamp "== GPU, as before the shim (default stream, eager), 30 s"
b before 80 $g --seconds 30 --set batching.cuda_graphs=false --set batching.own_stream=false
stamp "== GPU, own streams, no graphs, 30 s"
b streams 80 $g --seconds 30 --set batching.cuda_graphs=false
stamp "== GPU, graphs in bf16, 30 s"
b graphs-bf16 80 $g --seconds 30 --precision bf16
stamp "== check-gpu"
CHECKERS_ZERO_BIN=$bin timeout 150 bash scripts/check-gpu cuda > $OUT/check-gpu.log 2>&1
echo "check-gpu rc=$?"; grep -E "^==|precision|check-gpu:|warning|graph" $OUT/check-gpu.log | cut -c1-200 | tail -14
stamp "== GPU, 10x128 with graphs, 30 s"
b big 80 $g --seconds 30 --set net.blocks=10 --set net.channels=128
stamp "done"
