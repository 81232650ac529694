#!/usr/bin/env bash
# The final device run: bench's GPU-against-CPU comparison, then check-gpu, on the final binary.
set -uo pipefail
tl=$(python3 -c 'import os,torch;print(os.path.dirname(torch.__file__))')/lib
export LD_LIBRARY_PATH=$tl
bin=$PWD/.gpubin/checkers-zero
echo "== bench rematch (auto: a GPU is there, so both devices)"
timeout 100 $bin bench --config configs/rematch.toml --seconds 60 --write $OUT/bench-rematch.toml 2>&1 | tee $OUT/bench.log
cat $OUT/bench-rematch.toml
echo "== check-gpu"
CHECKERS_ZERO_BIN=$bin timeout 200 bash scripts/check-gpu cuda 2>&1 | tee $OUT/check-gpu.log
echo "check-gpu rc=${PIPESTATUS[0]}"
