#!/usr/bin/env python3
"""Checks, independently of the trainer, that a run's game retention kept every window:
for the newest whole checkpoint and each pinned one, walks the intake links back (newest
shard first) until the shards still on disk hold the window's size at that checkpoint,
and counts the shards on that walk whose files are gone (0 expected).

Run it while the run is stopped: a running learner moves its newest windows on, and
deletes the tail of a checkpoint that is no longer among its newest whole ones.

Usage: check-windows.py RUN"""
import gzip, json, os, sys, tomllib

run = sys.argv[1]
cfg = tomllib.load(open(os.path.join(run, "config.toml"), "rb"))["train"]


def window_size(n):
    c = cfg["window_base"]
    size = c if n <= c else c * (1 + cfg["window_scale"] * ((n / c) ** cfg["window_exponent"] - 1) / cfg["window_exponent"])
    return min(int(size), cfg["window_max"])


def searched(path):
    total = 0
    with gzip.open(path, "rt") as f:
        for line in f:
            total += sum(1 for s in json.loads(line)["steps"] if s.get("target"))
    return total


cps = os.path.join(run, "checkpoints")
steps = sorted(int(d[5:]) for d in os.listdir(cps) if d.startswith("step-"))
whole = [s for s in steps if os.path.exists(os.path.join(cps, f"step-{s:08d}", "optimizer.safetensors"))]
pinned = [s for s in steps if os.path.exists(os.path.join(cps, f"step-{s:08d}", "pinned"))]
for anchor in sorted(set(whole[-2:] + pinned)):
    try:
        state = json.load(open(os.path.join(cps, f"step-{anchor:08d}", "state.json")))
    except FileNotFoundError:
        continue  # thinned while this ran (a newer checkpoint came)
    capacity = window_size(state["samples_seen"])
    filled, read, gone, step = 0, 0, 0, anchor
    while step is not None and filled < capacity:
        link = json.load(open(os.path.join(cps, f"step-{step:08d}", "intake.json")))
        for key in reversed(link["shards"]):
            path = os.path.join(run, key)
            if not os.path.exists(path):
                gone += 1
                continue
            filled += searched(path)
            read += 1
            if filled >= capacity:
                break
        step = link.get("previous")
    print(f"step {anchor}: window {capacity} samples, {filled} read from {read} shards, {gone} gone on the way")
