#!/usr/bin/env bash
# 2-core latency rows after the bench fix (steady state, no start-up ramp).
cd /work/main
bin=target/release/checkers-zero
lscpu | grep -E "Model name" ; grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx2|avx512f|avx512_bf16|amx.*)$' | tr '\n' ' '; echo
uptime
row() { # NAME SETS... ; MS list in $MS
  local name=$1; shift
  for ms in $MS; do
    echo -n "$name | $ms ms | "
    $bin bench --config configs/rematch.toml --latency-ms $ms --seconds 16 "$@" 2>&1 | tail -1
  done
}
MS="0 1" row "default (64 games, 1 group, 1 stream)"
MS="0 0.5 1 2" row "256 games, 4 groups, 4 streams, max_batch 256" --set selfplay.games_in_flight=256 --set selfplay.groups=4 --set batching.streams=4 --set batching.max_batch=256
MS="0 1" row "1024 games, 4 groups, 4 streams, max_batch 256" --set selfplay.games_in_flight=1024 --set selfplay.groups=4 --set batching.streams=4 --set batching.max_batch=256
MS="0 1" row "1024 games, 2 groups, 2 streams, max_batch 512" --set selfplay.games_in_flight=1024 --set selfplay.groups=2 --set batching.streams=2 --set batching.max_batch=512
MS="0 1" row "2048 games, 4 groups, 4 streams, max_batch 512" --set selfplay.games_in_flight=2048 --set selfplay.groups=4 --set batching.streams=4 --set batching.max_batch=512
uptime
