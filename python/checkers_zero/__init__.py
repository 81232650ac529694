"""checkers-zero from Python: the rules of ReMATCH (2 and 3 players), HexDame and Eximo,
the net's encodings, PettingZoo/Gymnasium environments and a trained player.

Terms: an *action* is the net's policy index of one step in the side to move's frame (what
the environments, ``State.action_mask()`` and an exported model's output use); a *turn* is
a seat's whole move (one or more steps: a capture sequence, a drop phase), written in the
project's move notation (``b2-c3``, ``a3xc3xe3``, ``c7-c8*b1*c1``). ``docs/python.md`` has
the details and an example.
"""

from ._native import (
    Choice,
    Player,
    State,
    action_permutation,
    encoding,
    from_notation,
    games,
    new_game,
    perft,
    rust_random_steps,
    seat_names,
    side_names,
    transform_planes,
)

__all__ = [
    "Choice",
    "Player",
    "SingleAgentEnv",
    "State",
    "action_permutation",
    "encoding",
    "env",
    "from_notation",
    "games",
    "new_game",
    "perft",
    "raw_env",
    "rust_random_steps",
    "seat_names",
    "side_names",
    "transform_planes",
]


def env(game, **kwargs):
    """The PettingZoo AEC environment of ``game`` (``rematch``, ``rematch3``, ``hexdame``,
    ``eximo``) with PettingZoo's standard wrappers for board games (an illegal action ends
    the game with -1 for its agent)."""
    from .environments import wrapped_env

    return wrapped_env(game, **kwargs)


def raw_env(game, **kwargs):
    """The PettingZoo AEC environment of ``game`` without wrappers."""
    from .environments import CheckersZeroEnv

    return CheckersZeroEnv(game, **kwargs)


def __getattr__(name):
    # The Gymnasium wrapper needs gymnasium: imported on first use only, so that the rules
    # work without it.
    if name == "SingleAgentEnv":
        from .environments import SingleAgentEnv

        return SingleAgentEnv
    raise AttributeError(f"module 'checkers_zero' has no attribute '{name}'")
