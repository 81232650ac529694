"""Random-play steps per second through the Python API against the same loop in Rust.

    .venv/bin/python python/benches/random_play.py [--seconds S] [--rounds R] [GAME ...]

The Python loop is the one a user writes: ask for the legal actions, pick one at random
(``random.choice``), apply it, until the game ends. A second Python loop makes the same
binding calls but picks with a pre-drawn random number, so that its ratio is the binding's
own cost per step, without ``random.choice`` (about 0.27 us a call in CPython 3.11, as much
as a whole Rust step). Two Rust loops (``checkers_zero.rust_random_steps``) play
random games from the start inside the same native module: ``api`` makes the same calls
from Rust (``is_terminal``, ``legal_actions``, ``apply_action`` on the state the binding
wraps), so the ratio to it is what the binding costs per step; ``core`` uses the rules
core's step ids alone, the fastest a random player can go. Each measurement plays whole
games for at least S seconds; rounds alternate the loops and the median is reported.
"""

import argparse
import itertools
import random
import statistics
import time

import checkers_zero as cz


def python_games(game, games, rng):
    steps = 0
    for _ in range(games):
        state = cz.new_game(game)
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            steps += 1
    return steps


def python_games_binding_only(game, games, draws):
    steps = 0
    for _ in range(games):
        state = cz.new_game(game)
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[next(draws) % len(legal)])
            steps += 1
    return steps


def steps_per_second(play, seconds):
    """Plays batches of games until `seconds` have passed; steps per second."""
    steps, games = 0, 1
    start = time.perf_counter()
    while True:
        steps += play(games)
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return steps / elapsed
        games = min(games * 2, 1000)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="per measurement")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("game", nargs="*", default=cz.games())
    args = parser.parse_args()
    for game in args.game:
        rng = random.Random(1)
        draws = itertools.cycle([rng.getrandbits(30) for _ in range(1 << 16)])
        seeds = iter(range(1, 1 << 30))
        loops = {
            "python": lambda n: python_games(game, n, rng),
            "binding": lambda n: python_games_binding_only(game, n, draws),
            "api": lambda n: cz.rust_random_steps(game, n, next(seeds), through="api"),
            "core": lambda n: cz.rust_random_steps(game, n, next(seeds), through="core"),
        }
        rates = {name: [] for name in loops}
        for _ in range(args.rounds):
            for name, play in loops.items():
                rates[name].append(steps_per_second(play, args.seconds))
        py, binding, api, core = (statistics.median(rates[k]) for k in loops)
        print(
            f"{game:<9} k steps/s: python {py / 1e3:6.1f}  python without random.choice "
            f"{binding / 1e3:6.1f}  rust api {api / 1e3:6.1f}  rust core {core / 1e3:6.1f}"
        )
        print(
            f"{'':<9} per step against rust api: the binding {api / binding:4.2f}x, "
            f"the user loop {api / py:4.2f}x; against rust core: {core / binding:4.2f}x, {core / py:4.2f}x"
        )


if __name__ == "__main__":
    main()
