#!/usr/bin/env bash
# Self-play's CPU cost per position with two binaries, interleaved (before, after, before,
# after), as recorded in docs/benchmarks.md:
#   docs/benchmarks/selfplay-before-after.sh BEFORE_BIN AFTER_BIN RUN@STEP OUT
# Each round copies RUN's config and checkpoint STEP into a fresh store, runs
# `selfplay --store STORE --quiet --precision fp32 --max-games 96 --drain-seconds 600`
# under /usr/bin/time, and appends a line (games, positions counted in the shards, user and
# system seconds, positions per CPU-second) to OUT/results.txt.
set -u
if [ "$#" -ne 4 ] || [[ "$3" != *@* ]]; then
  sed -n '2,8p' "$0" >&2
  exit 2
fi
declare -A bins=([before]="$1" [after]="$2")
run="${3%@*}" ckpt="$(printf 'step-%08d' "${3##*@}")" out="$4"
mkdir -p "$out"
for round in 1 2; do
for v in before after; do
  st="$out/store-$v-$round"; rm -rf "$st"; mkdir -p "$st/checkpoints"
  cp "$run/config.toml" "$st/"; cp -r "$run/checkpoints/$ckpt" "$st/checkpoints/"; echo "$ckpt" > "$st/checkpoints/latest"
  /usr/bin/time -f "%U %S %e" -o "$out/time-$v-$round" "${bins[$v]}" selfplay --store "$st" --quiet --precision fp32 --max-games 96 --drain-seconds 600 --worker-id bench > "$out/log-$v-$round" 2>&1
  python3 - "$st" "$out/time-$v-$round" "$v" "$round" <<'PY' >> "$out/results.txt"
import json, glob, sys
st, tf, v, r = sys.argv[1:]
games = steps = 0
for f in glob.glob(st + '/games/*/*.jsonl'):
    for line in open(f):
        if line.strip():
            g = json.loads(line); games += 1; steps += len(g['steps'])
u, s, e = map(float, open(tf).read().split()[-3:])
print(f"{v} round {r}: {games} games, {steps} positions, user {u:.1f} s sys {s:.1f} s wall {e:.1f} s: {steps/(u+s):.1f} positions per CPU-second")
PY
done; done
