#!/usr/bin/env bash
set -uo pipefail
tl=$(python3 -c 'import os,torch;print(os.path.dirname(torch.__file__))')/lib
export LD_LIBRARY_PATH=$tl
bin=$PWD/.gpubin/checkers-zero
for arm in "all-auto" "selfplay-cpu --set evaluator.device=cpu"; do
  set -- $arm; name=$1; shift
  echo "== train rematch.toml 60 s: $name"
  $bin train --config configs/rematch.toml --run-dir /tmp/r-$name --minutes 1 --quiet --log-every 20 "$@" 2>&1 | grep -E "^precision:|step [0-9]+ \(|^run "
  cp /tmp/r-$name/learner/metrics.jsonl $OUT/metrics-$name.jsonl
done
