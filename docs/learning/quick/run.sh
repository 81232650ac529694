#!/usr/bin/env bash
# configs/quick.toml (the README's main job, about 3 minutes) before and after the code's
# defaults became the measured best (issue 60): "before" sets the two diversity levers back
# to their old defaults (gumbel_play = "sample", opening_random_turns = 0), "after" is the
# file as it is. Writes OUT/{before,after}/ (run directories) and prints each run's last
# self-play diversity summary (its newest 1,000 games) and final losses.
#   run.sh BIN OUT
set -euo pipefail
[[ $# -eq 2 ]] || { echo "usage: run.sh BIN OUT" >&2; exit 2; }
bin="$1" out="$2"
mkdir -p "$out"
run() {  # run NAME --set ...: one quick run, kept when already done
  local name="$1"; shift
  [[ -d "$out/$name" ]] || "$bin" train --config configs/quick.toml --run-dir "$out/$name" \
    --quiet "$@" > "$out/$name.log" 2>&1
}
run before --set selfplay.gumbel_play=sample --set selfplay.opening_random_turns=0
run after
for name in before after; do
  echo "== $name"
  python3 - "$out/$name/learner/metrics.jsonl" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
div = [l for l in lines if "diversity" in l]
train = [l for l in lines if l.get("type") == "train"]
d = div[-1]["diversity"]
print(f"games {d['games']}: distinct openings of 2/4/6/8 turns "
      f"{d['openings_2']:.0f}/{d['openings_4']:.0f}/{d['openings_6']:.0f}/{d['openings_8']:.0f}, "
      f"duplicate games {100 * d['duplicate_games']:.1f}%, draws {100 * d['draws']:.1f}%, "
      f"resigned {100 * d['resigned']:.1f}%, games in all {div[-1].get('games_total')}")
if train:
    t = train[-1]
    print(f"step {t.get('step')}: policy loss {t.get('policy_loss'):.3f}, "
          f"value loss {t.get('value_loss'):.3f}")
PY
done
