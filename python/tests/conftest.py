"""Shared helpers: the CLI binary (the reference the bindings must agree with)."""

import os
import random
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def cli_binary():
    """The `checkers-zero` binary: $CHECKERS_ZERO_BIN, else the newest one under target/."""
    given = os.environ.get("CHECKERS_ZERO_BIN")
    if given:
        return Path(given)
    found = [
        p
        for p in (ROOT / "target" / "debug" / "checkers-zero", ROOT / "target" / "release" / "checkers-zero")
        if p.is_file()
    ]
    if not found:
        pytest.fail("no checkers-zero binary under target/: run `cargo build` (or set CHECKERS_ZERO_BIN)")
    return max(found, key=lambda p: p.stat().st_mtime)


def run_cli(*args, check=True):
    """Runs the CLI; returns (exit code, stdout, stderr)."""
    done = subprocess.run([str(cli_binary()), *args], capture_output=True, text=True, timeout=600)
    if check and done.returncode != 0:
        raise AssertionError(f"checkers-zero {' '.join(args)} failed: {done.stderr}")
    return done.returncode, done.stdout, done.stderr


def random_turns(state, turns, seed):
    """Plays `turns` random whole turns (fewer if the game ends) on a copy of `state`."""
    rng = random.Random(seed)
    state = state.clone()
    for _ in range(turns):
        if state.is_terminal():
            break
        state.apply(rng.choice(state.legal_turns()))
    return state
