"""The PettingZoo AEC environments (PettingZoo's own api_test) and the Gymnasium wrapper."""

import random

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

import checkers_zero as cz

GAMES = ["rematch", "rematch3", "hexdame", "eximo"]


@pytest.mark.parametrize("game", GAMES)
def test_pettingzoo_api_test(game):
    api_test(cz.env(game), num_cycles=300)
    api_test(cz.raw_env(game), num_cycles=300)


def play_aec(env, rng):
    """Plays random legal actions to the end; returns (steps, rewards summed per agent)."""
    env.reset(seed=1)
    totals = {a: 0 for a in env.possible_agents}
    steps = 0
    for agent in env.agent_iter(max_iter=100_000):
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if terminated or truncated:
            assert not obs["action_mask"].any()
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert legal.size > 0
        # The observing agent is the seat to move; its mask is the state's.
        state = env.unwrapped.state
        assert env.possible_agents[state.to_play] == agent
        assert legal.tolist() == sorted(state.legal_actions())
        env.step(int(rng.choice(legal)))
        steps += 1
    return steps, totals


@pytest.mark.parametrize("game", GAMES)
def test_aec_games_end_with_the_rules_result(game):
    env = cz.env(game)
    steps, totals = play_aec(env, random.Random(4))
    state = env.unwrapped.state
    assert state.is_terminal() and steps > 0
    assert [totals[a] for a in env.possible_agents] == state.returns()


def test_rematch3_team_reward_and_repeated_agent_in_a_turn():
    env = cz.raw_env("rematch3")
    rng = random.Random(2)
    repeated = False
    for _ in range(4):
        env.reset()
        previous = None
        for agent in env.agent_iter(max_iter=100_000):
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            if previous == agent:
                repeated = True
            previous = agent
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        state = env.state
        red, white, orange = state.returns()
        assert white == orange == -red
        winner = state.outcome()[0]
        if winner is not None:
            assert red == (1 if winner == 0 else -1)
    assert repeated, "a capture sequence should keep the same agent selected"


def test_illegal_action_ends_the_game_for_the_wrapped_env():
    env = cz.env("hexdame")
    env.reset()
    agent = env.agent_selection
    obs = env.observe(agent)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    env.step(illegal)
    assert env.rewards[agent] == -1
    assert all(env.terminations.values())
    # The unwrapped env raises a ValueError with the legal actions.
    raw = cz.raw_env("hexdame")
    raw.reset()
    with pytest.raises(ValueError, match="illegal action"):
        raw.step(illegal)


def test_reset_from_a_position_and_render():
    state = cz.new_game("eximo")
    state.apply(state.legal_turns()[0])
    env = cz.raw_env("eximo", render_mode="ansi")
    env.reset(options={"notation": state.notation()})
    assert env.state.notation() == state.notation()
    assert env.agent_selection == cz.seat_names("eximo")[state.to_play]
    assert isinstance(env.render(), str)
    with pytest.raises(ValueError):
        env.reset(options={"notation": "not a position"})


@pytest.mark.parametrize("game", GAMES)
def test_gymnasium_single_agent_wrapper(game):
    seats = cz.seat_names(game)
    env = cz.SingleAgentEnv(game, seat=len(seats) - 1, opponent="random")
    check_env(env, skip_render_check=True)
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=3)
    assert env.state.to_play == len(seats) - 1
    done = False
    total = 0.0
    while not done:
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(action)
        total += reward
        done = terminated or truncated
        if not done:
            assert env.state.to_play == len(seats) - 1
            np.testing.assert_array_equal(obs["action_mask"], info["action_mask"])
    assert total == env.state.returns()[len(seats) - 1]
    # The same seed gives the same opponent moves.
    first = env.reset(seed=9)[0]["observation"]
    np.testing.assert_array_equal(env.reset(seed=9)[0]["observation"], first)


def test_gymnasium_wrapper_takes_a_callable_and_a_player():
    calls = []

    def first_turn(state):
        calls.append(state.to_play)
        return state.legal_turns()[0]

    first = cz.new_game("rematch").to_play
    other = cz.seat_names("rematch")[1 - first]
    env = cz.SingleAgentEnv("rematch", seat=other, opponent=first_turn)
    env.reset(seed=0)
    assert calls == [first]
    assert env.state.to_play == 1 - first
    env = cz.SingleAgentEnv("rematch3", seat=0, opponent=cz.Player.baseline("alphabeta:1"))
    obs, _ = env.reset(seed=0)
    obs, *_ = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert env.state.to_play == 0 or env.state.is_terminal()
    # An illegal action ends the episode with -1 (as PettingZoo's TerminateIllegalWrapper).
    env = cz.SingleAgentEnv("hexdame")
    obs, _ = env.reset(seed=0)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    with pytest.raises(ValueError, match="the episode is over"):
        env.step(0)
    with pytest.raises(ValueError, match="unknown seat"):
        cz.SingleAgentEnv("rematch", seat="blue")
    with pytest.raises(ValueError, match="unknown agent"):
        cz.SingleAgentEnv("rematch", opponent="champion")
