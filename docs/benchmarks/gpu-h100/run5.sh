#!/usr/bin/env bash
# Re-check of the CUDA path at a later commit: check-gpu, then bench (both devices) on the
# binary built with scripts/build-other-torch 2.11.0 .gpubin/checkers-zero.
set -uo pipefail
tl=$(python3 -c 'import os,torch;print(os.path.dirname(torch.__file__))')/lib
export LD_LIBRARY_PATH=$tl
bin=$PWD/.gpubin/checkers-zero
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
lscpu | grep -E "Model name|^CPU\(s\)" | cut -c1-120
echo "== check-gpu"
CHECKERS_ZERO_BIN=$bin timeout 240 bash scripts/check-gpu cuda 2>&1 | tee $OUT/check-gpu.log
echo "check-gpu rc=${PIPESTATUS[0]}"
echo "== bench rematch (auto: both devices)"
timeout 150 $bin bench --config configs/rematch.toml --seconds 40 --write $OUT/bench-rematch.toml 2>&1 | tee $OUT/bench.log
cat $OUT/bench-rematch.toml
