#!/usr/bin/env bash
# Issue 49's first case, as a new user meets it: two `learn --config configs/quick.toml` on
# one local directory store, started 3 s apart, with one self-play worker. The second must
# be refused in words (exit 2) and leave the first run's checkpoints as they were.
#   docs/benchmarks/two-learners.sh [BINARY]   (default target/release/checkers-zero)
set -uo pipefail
bin="${1:-target/release/checkers-zero}"
dir="$(mktemp -d)"
store="$dir/store"
# Every file of every published checkpoint (`latest` and the lease move on with the first).
digest() { (cd "$store" && find checkpoints -path '*/step-*' -type f -exec sha256sum {} + | sort); }
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
"$bin" learn --store "$store" --config configs/quick.toml --quiet --max-minutes 1 \
  >"$dir/learn-1.out" 2>"$dir/learn-1.err" &
first=$!
began=$(date +%s.%N)
sleep 3
"$bin" selfplay --store "$store" --worker-id w1 --quiet --max-minutes 1 \
  >"$dir/worker.out" 2>"$dir/worker.err" &
worker=$!
# Once the first learner has published a checkpoint: its checkpoints as they are, then the
# second learner, then every file seen before compared, and the lease's holder named.
for _ in $(seq 600); do [[ -f "$store/checkpoints/latest" ]] && break; sleep 0.1; done
before="$(digest)"
echo "second learner started $(awk -v now="$(date +%s.%N)" -v began="$began" 'BEGIN { printf "%.1f", now - began }') s after the first"
"$bin" learn --store "$store" --config configs/quick.toml --quiet >"$dir/learn-2.out" 2>"$dir/learn-2.err"
code=$?
after="$(digest)"
echo "second learner: exit code $code; it said: $(cat "$dir/learn-2.err")"
echo "second learner's standard output: $(wc -c <"$dir/learn-2.out") bytes"
changed=$(comm -23 <(echo "$before") <(echo "$after") | wc -l)
echo "checkpoint files before the second learner: $(echo "$before" | wc -l); changed or gone after it: $changed"
comm -23 <(echo "$before") <(echo "$after")
echo "the lease names pid $(grep -o '"pid": [0-9]*' "$store/leases/learner.json" | grep -o '[0-9]*$'); the first learner is pid $first"
wait "$worker"; wait "$first"
echo "first learner: exit code $?; $(tail -1 "$dir/learn-1.err")"
echo "checkpoints published: $(ls "$store/checkpoints" | grep -c '^step-'), latest: $(cat "$store/checkpoints/latest")"
rm -rf "$dir"
