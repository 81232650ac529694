#!/usr/bin/env bash
# Device run of 28 November 2026, third H200 session (issue 46): check-gpu; the 16 CPU cores'
# best self-play on configs/rematch.toml; self-play on the GPU with configs/rematch-gpu.toml
# and each new GPU staging lever off and on (padding to few batch shapes, pinned input
# buffer, cuDNN's benchmark), bf16, and larger batches; then the GPU config's net size by a
# forked A/B at equal wall time: 4x64 and 10x128 trained side by side from step 0 on the
# same GPU, 8 workers each (half the cores each), their newest weights brought back for a
# head-to-head match on the CPU. Binary: scripts/build-other-torch 2.11.0 .gpubin/checkers-zero.
set -uo pipefail
tl=$(python3 -c 'import os,torch;print(os.path.dirname(torch.__file__))')/lib
export LD_LIBRARY_PATH=$tl
bin=$PWD/.gpubin/checkers-zero
t0=$(date +%s); stamp() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
lscpu | grep -E "Model name|^CPU\(s\)" | cut -c1-120
python3 -c 'import torch;print("torch", torch.__version__)'
# A/B arms first in the background? No: they would load the cores the benches measure.
stamp "== check-gpu"
CHECKERS_ZERO_BIN=$bin timeout 170 bash scripts/check-gpu cuda > $OUT/check-gpu.log 2>&1
echo "check-gpu rc=$?"; grep -E "^==|precision|check-gpu:|self-play's net" $OUT/check-gpu.log | cut -c1-200 | tail -12
bl=$OUT/bench.log
b() {  # b LABEL ARGS...: one bench, its self-play table to the log, a summary line here
  local label=$1; shift
  echo "===== $label: $*" >> $bl
  timeout 90 $bin bench "$@" 2>&1 | grep -v -i "pin_memory\|deprecat" >> $bl
  echo -n "$label: "; awk '/^precision:/{p=$0} /^ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ /{print} END{print p}' \
    <(sed -n "/===== $label:/,\$p" $bl) | tr '\n' '|' | tr -s ' '; echo
}
stamp "== CPU cores, configs/rematch.toml"
b cpu --config configs/rematch.toml --device cpu --seconds 30
G="--config configs/rematch-gpu.toml --device cuda --device-only --seconds 20"
stamp "== GPU, rematch-gpu.toml, staging levers"
b gpu-old $G --set batching.pad_to=1 --set batching.pinned=false --set batching.cudnn_benchmark=false
b gpu-pad-cudnn $G --set batching.pinned=false
b gpu-new $G
b gpu-new-bf16 $G --precision bf16
b gpu-2k $G --set selfplay.games_in_flight=2048 --set batching.max_batch=2048
b gpu-2k-bf16 $G --set selfplay.games_in_flight=2048 --set batching.max_batch=2048 --precision bf16
b gpu-10x128 $G --set net.blocks=10 --set net.channels=128
stamp "== A/B: 4x64 and 10x128 side by side, 200 s each, 8 workers each, self-play and learner on the GPU"
for arm in n4x64 n10x128; do
  extra=""; [[ $arm == n10x128 ]] && extra="--set net.blocks=10 --set net.channels=128"
  timeout 240 $bin train --config configs/rematch-gpu.toml --run-dir /tmp/ab-$arm --minutes 3.33 --quiet \
    --set seed=46001 --set selfplay.workers=8 --set batching.device=cuda --set train.device=cuda $extra \
    > /tmp/ab-$arm.log 2>&1 &
done
wait
stamp "== A/B done"
for arm in n4x64 n10x128; do
  d=/tmp/ab-$arm; last=$(ls $d/checkpoints | grep '^step-' | tail -1)
  grep -v -i "pin_memory\|deprecat" /tmp/ab-$arm.log | tail -3
  echo "$arm: newest $last"
  cp /tmp/ab-$arm.log $d/train.log
  tar -C /tmp -cf $OUT/ab-$arm.tar ab-$arm/config.toml ab-$arm/train.log ab-$arm/learner/metrics.jsonl \
    ab-$arm/checkpoints/$last/model.json ab-$arm/checkpoints/$last/model.safetensors ab-$arm/checkpoints/$last/state.json
done
ls -la $OUT
stamp "done"
