"""The rules through Python: perft against the CLI, random games with exact masks, turns
and actions, bad input as clean exceptions."""

import copy
import random

import numpy as np
import pytest

import checkers_zero as cz
from conftest import random_turns, run_cli

GAMES = ["rematch", "rematch3", "hexdame", "eximo"]
# Depths that the CLI (a debug build) counts in about a second.
PERFT_DEPTH = {"rematch": 3, "rematch3": 3, "hexdame": 3, "eximo": 3}


def cli_perft(game, depth, notation=None):
    args = ["perft", "--game", game, "--depth", str(depth)]
    if notation is not None:
        args += ["--position", notation]
    _, out, _ = run_cli(*args)
    return [int(line.split()[1]) for line in out.split("\n") if line.strip()]


@pytest.mark.parametrize("game", GAMES)
def test_perft_from_the_start_equals_the_cli(game):
    depth = PERFT_DEPTH[game]
    expected = cli_perft(game, depth)
    state = cz.new_game(game)
    assert [state.perft(d) for d in range(1, depth + 1)] == expected
    assert cz.perft(game, depth) == expected[-1]


@pytest.mark.parametrize("game", GAMES)
def test_perft_from_mid_game_positions_equals_the_cli(game):
    for seed in range(3):
        state = random_turns(cz.new_game(game), 6 + 4 * seed, seed)
        if state.is_terminal():
            continue
        notation = state.notation()
        depth = PERFT_DEPTH[game] - 1
        expected = cli_perft(game, depth, notation)
        assert [state.perft(d) for d in range(1, depth + 1)] == expected
        assert cz.perft(game, depth, notation) == expected[-1]
        # The notation round-trips.
        assert cz.from_notation(game, notation).notation() == notation


def turn_results(state):
    """The positions the legal whole turns lead to, by notation."""
    results = set()
    for turn in state.legal_turns():
        after = state.clone()
        after.apply(turn)
        results.add(after.notation())
    return results


def check_boundary(state, rng):
    """At a turn boundary: the mask is exactly the first steps of the legal turns: every
    legal turn starts with a masked action, and every masked action, continued at random,
    ends in a position some legal turn reaches."""
    mask = state.action_mask()
    legal = set(np.flatnonzero(mask).tolist())
    assert legal == set(state.legal_actions())
    results = turn_results(state)
    for actions in state.legal_turns(actions=True):
        assert actions[0] in legal
    for action in legal:
        after = state.clone()
        after.apply(action)
        while after.turn_in_progress and not after.is_terminal():
            after.apply(rng.choice(after.legal_actions()))
        assert after.notation() in results
    return results


@pytest.mark.parametrize("game", GAMES)
def test_random_games_to_the_end_with_exact_masks(game):
    rng = random.Random(7)
    for _ in range(2):
        state = cz.new_game(game)
        steps = 0
        results = None
        while not state.is_terminal():
            if not state.turn_in_progress:
                if results is not None:
                    assert state.notation() in results
                results = check_boundary(state, rng)
            mask = state.action_mask()
            assert mask.dtype == np.uint8 and mask.shape == (state.num_actions,)
            legal = np.flatnonzero(mask).tolist()
            assert sorted(state.legal_actions()) == legal
            assert len(legal) > 0
            state.apply(rng.choice(legal))
            steps += 1
        assert not state.action_mask().any()
        assert state.legal_actions() == []
        returns = state.returns()
        assert len(returns) == state.num_seats
        winner, reason = state.outcome()
        for seat, value in enumerate(returns):
            side = state.side_of(seat)
            assert value == (0 if winner is None else (1 if side == winner else -1))
        assert reason
        assert steps > 0


def test_rematch3_seats_share_the_team_result():
    state = cz.new_game("rematch3")
    assert state.num_seats == 3
    assert [state.side_of(s) for s in range(3)] == [0, 1, 1]
    assert cz.seat_names("rematch3") == ["red", "white", "orange"]
    rng = random.Random(3)
    while not state.is_terminal():
        state.apply(rng.choice(state.legal_actions()))
    returns = state.returns()
    assert returns[1] == returns[2] == -returns[0]


@pytest.mark.parametrize("game", GAMES)
def test_turns_and_actions_map_both_ways(game):
    state = random_turns(cz.new_game(game), 5, 11)
    for path, actions in zip(state.legal_turns(), state.legal_turns(actions=True)):
        assert state.turn_actions(path) == actions
        assert state.turn_text(actions) == path
        by_text, by_actions = state.clone(), state.clone()
        assert by_text.apply(path) == actions
        by_actions.apply(actions)
        assert by_text.notation() == by_actions.notation()
        assert by_text.position_hash == by_actions.position_hash
    for action in state.legal_actions():
        step = state.step_of_action(action)
        assert state.action_of_step(step) == action
        assert step in state.legal_steps()


def test_clone_and_copy_are_independent():
    state = cz.new_game("eximo")
    for other in (state.clone(), copy.copy(state), copy.deepcopy(state)):
        other.apply(other.legal_turns()[0])
        assert other.notation() != state.notation()
    assert state.notation() == cz.new_game("eximo").notation()


def cli_error(*args):
    code, _, err = run_cli(*args, check=False)
    assert code == 2
    assert err.startswith("error: ")
    return err[len("error: ") :].strip()


def test_bad_input_raises_the_cli_messages():
    with pytest.raises(ValueError) as e:
        cz.new_game("chess")
    assert str(e.value) == cli_error("perft", "--game", "chess", "--depth", "1")
    for game, text in [
        ("rematch", "red a1:zz"),
        ("hexdame", ""),
        ("eximo", "nobody"),
        ("rematch3", "red q99:R"),
    ]:
        with pytest.raises(ValueError) as e:
            cz.from_notation(game, text)
        assert str(e.value) == cli_error("perft", "--game", game, "--depth", "1", "--position", text)
    state = cz.new_game("rematch")
    with pytest.raises(ValueError, match="illegal move 'a1-a9'"):
        state.apply("a1-a9")
    with pytest.raises(ValueError, match="malformed move"):
        state.apply("hello")
    with pytest.raises(ValueError, match="out of range"):
        state.apply(10**6)
    illegal = int(np.flatnonzero(state.action_mask() == 0)[0])
    with pytest.raises(ValueError, match="illegal action"):
        state.apply(illegal)
    with pytest.raises(ValueError):
        state.apply(1.5)
    with pytest.raises((ValueError, OverflowError, TypeError)):
        state.apply(-1)
    with pytest.raises(ValueError, match="out of range"):
        state.side_of(5)
    # A failed apply leaves the state as it was.
    assert state.notation() == cz.new_game("rematch").notation()


def test_mid_turn_calls_that_need_a_boundary_raise():
    # Find a position in the middle of a turn (a capture sequence or a drop phase).
    rng = random.Random(5)
    for game in ["hexdame", "eximo", "rematch"]:
        state = cz.new_game(game)
        while not state.is_terminal() and not state.turn_in_progress:
            state.apply(rng.choice(state.legal_actions()))
        if state.turn_in_progress:
            for call in (state.notation, state.legal_turns, lambda: state.perft(1)):
                with pytest.raises(ValueError, match="middle of a turn"):
                    call()
            assert "mid-turn" in repr(state)
            return
    pytest.fail("no game reached the middle of a turn")


@pytest.mark.parametrize("game", cz.games())
def test_the_rust_reference_loops_play_whole_games(game):
    # The benchmark's references: the same API calls made from Rust, and the rules core
    # alone, both play random games to the end; an unknown loop is a ValueError.
    api = cz.rust_random_steps(game, 3, 5, through="api")
    core = cz.rust_random_steps(game, 3, 5, through="core")
    assert api > 0 and core > 0
    with pytest.raises(ValueError, match="through"):
        cz.rust_random_steps(game, 1, 1, through="python")
