#!/usr/bin/env bash
# Issue 59's check that the inference forms play the training form's games: the same
# checkpoint against itself at fp32, one game at a time, from the opening suite, once per
# form; then the games compared step for step. Usage: same-games.sh BINARY CHECKPOINT OUT [GAMES]
set -euo pipefail
bin="$1" ckpt="$2" out="$3" games="${4:-40}"
mkdir -p "$out"
for form in training folded folded-channels-last; do
  "$bin" match --game rematch --agent "net:$ckpt:100" --agent "net:$ckpt:100" \
    --openings openings/rematch.txt --games "$games" --parallel 1 --precision fp32 \
    --form "$form" --seed 59 --out "$out/$form" --quiet > "$out/$form.txt" 2>&1
done
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
def games(form):
    with open(f"{out}/{form}/games.jsonl") as f:
        return {g["index"]: [s["action"] for s in g["steps"]] for g in map(json.loads, f)}
ref = games("training")
for form in ["folded", "folded-channels-last"]:
    got = games(form)
    same = sum(got[i] == ref[i] for i in ref)
    steps = sum(len(ref[i]) for i in ref)
    first = [next((k for k, (a, b) in enumerate(zip(got[i], ref[i])) if a != b), None) for i in ref]
    diverged = [k for k in first if k is not None]
    print(f"{form}: {same} of {len(ref)} games the same step for step as the training form "
          f"({steps} steps in the training form's games); diverging games part at steps {diverged}")
PY
