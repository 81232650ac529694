#!/usr/bin/env bash
# Device run: check-gpu with a binary built elsewhere against the device's torch 2.11.
set -uo pipefail
tl=$(python3 -c 'import os,torch;print(os.path.dirname(torch.__file__))')/lib
export LD_LIBRARY_PATH=$tl
bin=$PWD/.gpubin/checkers-zero
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
lscpu | grep -E "Model name|^CPU\(s\)|Flags" | cut -c1-200
python3 -c 'import torch;print("python torch", torch.__version__, torch.cuda.is_available())'
echo "== check-gpu"
time CHECKERS_ZERO_BIN=$bin bash scripts/check-gpu cuda 2>&1 | tee $OUT/check-gpu.log
echo "check-gpu rc=${PIPESTATUS[0]}"
for d in cuda cpu; do
  echo "== bench rematch $d"
  timeout 120 $bin bench --config configs/rematch.toml --seconds 40 --device $d --write $OUT/bench-rematch-$d.toml 2>&1 | grep -v "^\s*$" | tail -40
done
