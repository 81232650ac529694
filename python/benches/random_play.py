"""Random-play steps per second through the Python API against the same loop in Rust.

    .venv/bin/python python/benches/random_play.py [--games N] [GAME ...]

The Python loop is the one a user writes: ask for the legal actions, pick one, apply it.
The Rust loop (``checkers_zero.rust_random_steps``) runs the same games inside the same
native module, so the ratio is the binding's cost per step.
"""

import argparse
import random
import time

import checkers_zero as cz


def python_steps(game, games, seed):
    rng = random.Random(seed)
    steps = 0
    for _ in range(games):
        state = cz.new_game(game)
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            steps += 1
    return steps


def rate(run):
    start = time.perf_counter()
    steps = run()
    return steps, steps / (time.perf_counter() - start)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=200, help="games per measurement")
    parser.add_argument("game", nargs="*", default=cz.games())
    args = parser.parse_args()
    for game in args.game:
        py_steps, py_rate = rate(lambda: python_steps(game, args.games, 1))
        rs_steps, rs_rate = rate(lambda: cz.rust_random_steps(game, args.games, 1))
        print(
            f"{game:<9} python {py_rate / 1e3:8.1f} k steps/s ({py_steps} steps)   "
            f"rust {rs_rate / 1e3:8.1f} k steps/s ({rs_steps} steps)   "
            f"ratio {rs_rate / py_rate:5.2f}x"
        )


if __name__ == "__main__":
    main()
