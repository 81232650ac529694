#!/usr/bin/env bash
# Second device call (issue 46): where a forward pass's time goes on the GPU (parts.py, in
# the device's PyTorch), then self-play positions/s measured over longer windows than
# run.sh's (bench's steps come in waves when thousands of games search in lockstep): the
# 16 CPU cores on configs/rematch.toml, and the GPU on configs/rematch-gpu.toml with 2,048
# games a worker and max_batch 2,048 (run.sh's fastest).
set -uo pipefail
tl=$(python3 -c 'import os,torch;print(os.path.dirname(torch.__file__))')/lib
export LD_LIBRARY_PATH=$tl
bin=$PWD/.gpubin/checkers-zero
t0=$(date +%s); stamp() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
stamp "== parts.py"
timeout 100 python3 docs/benchmarks/gpu-staging/parts.py 2>&1 | tee $OUT/parts.log
stamp "== CPU cores, configs/rematch.toml, 45 s"
timeout 70 $bin bench --config configs/rematch.toml --device cpu --seconds 45 2>&1 | grep -v -i "pin_memory\|deprecat" > $OUT/bench2-cpu.log
grep -E "^ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+" $OUT/bench2-cpu.log
stamp "== GPU, rematch-gpu.toml, 2,048 games a worker, max_batch 2,048, 45 s"
timeout 70 $bin bench --config configs/rematch-gpu.toml --device cuda --device-only --seconds 45 \
  --set selfplay.games_in_flight=2048 --set batching.max_batch=2048 2>&1 | grep -v -i "pin_memory\|deprecat" > $OUT/bench2-gpu.log
grep -E "^ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+|^precision" $OUT/bench2-gpu.log
stamp "done"
