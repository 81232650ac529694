#!/usr/bin/env bash
set -uo pipefail
tl=$(python3 -c 'import os,torch;print(os.path.dirname(torch.__file__))')/lib
export LD_LIBRARY_PATH=$tl
bin=$PWD/.gpubin/checkers-zero
echo "== check-gpu"
CHECKERS_ZERO_BIN=$bin bash scripts/check-gpu cuda 2>&1 | tee $OUT/check-gpu.log
echo "check-gpu rc=${PIPESTATUS[0]}"
for c in .gpubin/rematch-b*.toml; do
  echo "== bench $c cuda"
  timeout 90 $bin bench --config $c --seconds 25 --device cuda 2>&1 | sed -n '/self-play positions/,$p'
done
