#!/usr/bin/env bash
# Rates one doubling of the long run, as docs/learning.md ("The long run") reports it:
#   rate.sh BIN RUN STEP PREV_STEP OUT     (PREV_STEP "-" for the first doubling)
# - the ladder: STEP at 100 visits (its own search, no noise) against uct:1000, uct:3000 and
#   alphabeta:4, 200 games a rung from openings/rematch.txt, seats swapped, seed 291180;
# - head to head against the previous doubling's checkpoint: SPRT [0, 30] Elo, alpha = beta
#   = 0.05 on pairs of games, at most 1,200 games (the suite once, both seats).
# Each match writes OUT/<name>/result.json and its log OUT/<name>.txt; a match already on
# record is not played again, so a stopped rating resumes where it stopped.
set -euo pipefail
[[ $# -eq 5 ]] || { echo "usage: rate.sh BIN RUN STEP PREV_STEP OUT" >&2; exit 2; }
bin="$1" run="$2" step="$3" prev="$4" out="$5"
checkpoint() { printf '%s/checkpoints/step-%08d@100' "$run" "$1"; }
mkdir -p "$out"

play() {  # play NAME ARGS...: one match, skipped when its result is on record
  local name="$1"; shift
  [[ -f "$out/$name/result.json" ]] && { echo "rate: $name already on record"; return; }
  rm -rf "$out/$name"
  "$bin" match --game rematch --openings openings/rematch.txt --seed 291180 --quiet --out "$out/$name" "$@" \
    > "$out/$name.txt" 2>&1
  tail -4 "$out/$name.txt"
}

for rung in uct:1000 uct:3000 alphabeta:4; do
  play "${rung//:/-}" --agent "$(checkpoint "$step")" --agent "$rung" --games 200
done
if [[ "$prev" != "-" ]]; then
  play h2h --agent "$(checkpoint "$step")" --agent "$(checkpoint "$prev")" --games 1200 \
    --sprt 0,30,0.05,0.05
fi
