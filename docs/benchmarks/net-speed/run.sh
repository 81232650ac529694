#!/usr/bin/env bash
# Issue 59's side-by-side: `bench` of the build before the inference form (OLD, with the
# config as it was: it has no `form` key) and of this build (NEW), one after the other on
# the same quiet machine. Usage: run.sh OLD_BINARY NEW_BINARY OUT_DIR [SECONDS]
set -euo pipefail
old="$1" new="$2" out="$3" seconds="${4:-60}"
mkdir -p "$out"
git show 7f15677:configs/rematch.toml > "$out/rematch-old.toml"
lscpu | grep -E "Model name|^CPU\(s\)|Flags" > "$out/machine.txt"
"$old" bench --config "$out/rematch-old.toml" --seconds "$seconds" > "$out/old.txt" 2>&1
"$new" bench --config configs/rematch.toml --seconds "$seconds" > "$out/new.txt" 2>&1
"$old" bench --config "$out/rematch-old.toml" --seconds "$seconds" > "$out/old-again.txt" 2>&1
"$new" bench --config configs/rematch.toml --seconds "$seconds" > "$out/new-again.txt" 2>&1
grep -h -A3 "^workers" "$out"/old.txt "$out"/new.txt "$out"/old-again.txt "$out"/new-again.txt
