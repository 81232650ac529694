#!/usr/bin/env bash
# Samples the long run's memory and disk while it trains (issue 60's "flat memory, bounded
# disk"): every INTERVAL seconds one CSV line per running `train` process of RUN:
#   unix_s,pid,rss_kib,peak_rss_kib,run_disk_kib,step
# (rss and peak from /proc/PID/status VmRSS and VmHWM; disk: `du -sk RUN`; step: the
# newest checkpoint). Only checkers-zero processes started in this directory count (not a
# `timeout` wrapper, not a run of the same name elsewhere). Stops by itself when no train
# process of RUN has run for 10 minutes.
#   watch.sh RUN OUT.csv [INTERVAL]
set -euo pipefail
[[ $# -ge 2 ]] || { echo "usage: watch.sh RUN OUT.csv [INTERVAL]" >&2; exit 2; }
run="$1" out="$2" interval="${3:-60}"
[[ -f "$out" ]] || echo "unix_s,pid,rss_kib,peak_rss_kib,run_disk_kib,step" > "$out"
idle=0
while (( idle < 600 )); do
  pids="$(pgrep -f "train --run-dir $run( |$)" || true)"
  if [[ -z "$pids" ]]; then
    idle=$(( idle + interval ))
  else
    idle=0
    disk="$(du -sk "$run" 2>/dev/null | cut -f1)"
    step="$(cat "$run/checkpoints/latest" 2>/dev/null || echo -)"
    for pid in $pids; do
      status="/proc/$pid/status"
      [[ -r "$status" ]] || continue
      [[ "$(cat "/proc/$pid/comm" 2>/dev/null)" == checkers-zero* ]] || continue
      [[ "$(readlink "/proc/$pid/cwd" 2>/dev/null)" == "$PWD" ]] || continue
      rss="$(awk '/^VmRSS:/ {print $2}' "$status")"
      peak="$(awk '/^VmHWM:/ {print $2}' "$status")"
      echo "$(date +%s),$pid,$rss,$peak,$disk,${step#step-}" >> "$out"
    done
  fi
  sleep "$interval"
done
