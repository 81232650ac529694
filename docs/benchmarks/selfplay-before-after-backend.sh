#!/usr/bin/env bash
# The record of the run in docs/benchmarks.md ("Before and after one backend interface and
# the learner in parts"): release builds of main kept at /work/cz-bin-re (810e51b, before the
# two merges; Reanalyse off by default) and /work/cz-bin-v6 (after them, 435e485+).
# Self-play CPU cost before and after, interleaved.
cd /work/main
out=/work/spbench2; mkdir -p $out
for round in 1 2; do
for v in re v6; do
  st=/tmp/sp-store-$v-$round; rm -rf $st; mkdir -p $st/checkpoints
  cp runs/base/config.toml $st/; cp -r runs/base/checkpoints/step-00000600 $st/checkpoints/; echo step-00000600 > $st/checkpoints/latest
  /usr/bin/time -f "%U %S %e" -o $out/time-$v-$round /work/cz-bin-$v selfplay --store $st --quiet --precision fp32 --max-games 96 --drain-seconds 600 --worker-id bench > $out/log-$v-$round 2>&1
  python3 - $st $out/time-$v-$round $v $round <<'PY' >> $out/results.txt
import json, glob, sys
st, tf, v, r = sys.argv[1:]
games = steps = 0
for f in glob.glob(st + '/games/*/*.jsonl'):
    for line in open(f):
        if line.strip():
            g = json.loads(line); games += 1; steps += len(g['steps'])
u, s, e = map(float, open(tf).read().split()[-3:])
print(f"v{v} round {r}: {games} games, {steps} positions, user {u:.1f} s sys {s:.1f} s wall {e:.1f} s: {steps/(u+s):.1f} positions per CPU-second")
PY
done; done
