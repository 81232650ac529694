"""PettingZoo AEC environments over steps, and a Gymnasium single-agent wrapper.

An agent is a seat (``seat_names(game)``). Each ``step`` is one action: one move, one jump
of a capture sequence, one drop. While a turn is unfinished the same agent is selected
again, with the mask offering exactly the steps that begin or continue a legal whole turn.
Rewards come at the end: +1 win, 0 draw, -1 loss for each seat's side (in ``rematch3`` the
White and Orange players share the Team's reward). The project's ply cap (an adjudicated
draw) ends the game as a truncation; every other end is a termination.
"""

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ._native import Player, encoding, new_game, from_notation, seat_names

# Every plane of every game's encoding holds values in [0, 1] (checked by the tests).
PLANE_LOW, PLANE_HIGH = 0.0, 1.0
# The reason the rules give for the project's ply cap (a truncation, not a result).
PLY_CAP = "PlyCap"


def _spaces(game):
    info = encoding(game)
    shape = (info["planes"], info["height"], info["width"])
    observation = spaces.Dict(
        {
            "observation": spaces.Box(PLANE_LOW, PLANE_HIGH, shape=shape, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, shape=(info["num_actions"],), dtype=np.int8),
        }
    )
    return observation, spaces.Discrete(info["num_actions"])


def _start(game, options):
    notation = (options or {}).get("notation")
    return from_notation(game, notation) if notation else new_game(game)


def _ended_by_cap(state):
    outcome = state.outcome()
    return outcome is not None and outcome[1] == PLY_CAP


class CheckersZeroEnv(AECEnv):
    """One game as a PettingZoo AEC environment (``checkers_zero.raw_env(game)``).

    Observation per agent: ``{"observation": planes, "action_mask": mask}``; the planes are
    the net's input from the view of the side to move, the mask is non-zero only for the
    agent to move. ``reset(options={"notation": ...})`` starts from a position.
    """

    metadata = {
        "render_modes": ["human", "ansi"],
        "name": "checkers_zero_v0",
        "is_parallelizable": False,
    }

    def __init__(self, game, render_mode=None):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        self.game = game
        self.render_mode = render_mode
        self.possible_agents = list(seat_names(game))
        observation, action = _spaces(game)
        self.observation_spaces = {a: observation for a in self.possible_agents}
        self.action_spaces = {a: action for a in self.possible_agents}
        self.state = None
        self._planes = None

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed=None, options=None):
        self.state = _start(self.game, options)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._planes = None
        self.agent_selection = self.possible_agents[self.state.to_play]

    def observe(self, agent):
        if self._planes is None:
            self._planes = self.state.observation()
        if agent == self.agent_selection and not self.state.is_terminal():
            mask = self.state.action_mask().view(np.int8)
        else:
            mask = np.zeros(self.state.num_actions, dtype=np.int8)
        return {"observation": self._planes, "action_mask": mask}

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0
        self.state.apply_action(int(action))
        self._planes = None
        self._clear_rewards()
        if self.state.is_terminal():
            done = self.truncations if _ended_by_cap(self.state) else self.terminations
            for seat, name in enumerate(self.possible_agents):
                self.rewards[name] = self.state.returns()[seat]
                done[name] = True
        self.agent_selection = self.possible_agents[self.state.to_play]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self):
        return _render(self.state, self.render_mode)

    def close(self):
        pass


def _render(state, mode):
    """The board as text (``ansi``), printed (``human``), or nothing without a mode."""
    if mode is None:
        gymnasium.logger.warn("render() called without a render_mode")
        return None
    text = state.render()
    if mode == "ansi":
        return text
    print(text)
    return None


def wrapped_env(game, **kwargs):
    """``CheckersZeroEnv`` with the wrappers PettingZoo's board games use."""
    env = CheckersZeroEnv(game, **kwargs)
    env = wrappers.TerminateIllegalWrapper(env, illegal_reward=-1)
    env = wrappers.AssertOutOfBoundsWrapper(env)
    return wrappers.OrderEnforcingWrapper(env)


def _opponent_from(opponent):
    if opponent is None:
        return Player.baseline("random")
    if isinstance(opponent, str):
        return Player.baseline(opponent)
    return opponent


class SingleAgentEnv(gymnasium.Env):
    """One seat of ``game`` as a Gymnasium environment; ``opponent`` plays every other seat.

    ``opponent`` is a ``Player`` (a loaded model or a baseline), a baseline spec
    (``"random"``, ``"uct:N"``, ``"alphabeta:D"``; default ``"random"``) or a callable
    ``f(state) -> turn`` returning a turn in the move notation, an action or a list of
    actions. Observations and actions are those of the AEC environment; the reward is the
    seat's result at the end (+1, 0, -1); ``info["action_mask"]`` repeats the mask. An
    illegal action ends the episode with reward -1 and ``info["illegal_action"]``, as
    PettingZoo's ``TerminateIllegalWrapper`` does.
    """

    metadata = {"render_modes": ["human", "ansi"]}

    def __init__(self, game, seat=0, opponent=None, render_mode=None):
        names = list(seat_names(game))
        if isinstance(seat, str):
            if seat not in names:
                raise ValueError(f"unknown seat '{seat}' for {game} (seats: {', '.join(names)})")
            seat = names.index(seat)
        if not 0 <= seat < len(names):
            raise ValueError(f"seat {seat} out of range for {game} (0..{len(names)})")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        self.game = game
        self.seat = seat
        self.opponent = _opponent_from(opponent)
        self.render_mode = render_mode
        self.observation_space, self.action_space = _spaces(game)
        self.state = None
        self._illegal = False

    def _observation(self):
        if self.state.is_terminal() or self.state.to_play != self.seat:
            mask = np.zeros(self.state.num_actions, dtype=np.int8)
        else:
            mask = self.state.action_mask().view(np.int8)
        obs = {"observation": self.state.observation(), "action_mask": mask}
        return obs, {"action_mask": mask}

    def _play_others(self):
        while not self.state.is_terminal() and self.state.to_play != self.seat:
            if isinstance(self.opponent, Player):
                seed = int(self.np_random.integers(2**63))
                turn = self.opponent.think(self.state, seed=seed).actions
            else:
                turn = self.opponent(self.state)
            self.state.apply(turn)

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        self.state = _start(self.game, options)
        self._illegal = False
        self._play_others()
        return self._observation()

    def step(self, action):
        if self.state.is_terminal() or self._illegal:
            raise ValueError("the episode is over: call reset()")
        action = int(action)
        if action not in self.state.legal_actions():
            self._illegal = True
            obs, info = self._observation()
            info["illegal_action"] = True
            return obs, -1.0, True, False, info
        self.state.apply_action(action)
        self._play_others()
        obs, info = self._observation()
        done = self.state.is_terminal()
        reward = float(self.state.returns()[self.seat]) if done else 0.0
        capped = done and _ended_by_cap(self.state)
        if self.render_mode == "human":
            self.render()
        return obs, reward, done and not capped, capped, info

    def render(self):
        return _render(self.state, self.render_mode)
