"""The trained player: a quick model trained and exported with the CLI, loaded from Python,
beats random in ReMATCH; baselines; a handle shared by threads; errors."""

import json
import random
from concurrent.futures import ThreadPoolExecutor

import pytest

import checkers_zero as cz
from conftest import random_turns, run_cli

# Visits per searched step of the model in the match against random.
VISITS = 48
GAMES_PER_SEAT = 4


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """A ReMATCH model trained for half a minute with configs/quick.toml, exported."""
    root = tmp_path_factory.mktemp("quick")
    run_dir, export_dir = root / "run", root / "export"
    run_cli("train", "--config", "configs/quick.toml", "--minutes", "0.5", "--run-dir", str(run_dir), "--quiet")
    run_cli("export", "--checkpoint", str(run_dir), "--out", str(export_dir))
    return export_dir


def play_match(first, second, game, seed):
    """One game, `first` in seat 0 and `second` in seat 1; returns the returns per seat."""
    state = cz.new_game(game)
    players = [first, second]
    rng = random.Random(seed)
    while not state.is_terminal():
        choice = players[state.to_play].think(state, seed=rng.getrandbits(63))
        state.apply(choice.actions)
    return state.returns()


def test_a_quick_model_beats_random_in_rematch(exported):
    model = cz.Player.load(exported, visits=VISITS)
    assert model.game == "rematch" and model.visits == VISITS
    assert model.backend == "TorchScript on cpu, fp32, any batch"
    random_player = cz.Player.baseline("random")
    score = 0.0
    for i in range(GAMES_PER_SEAT):
        score += (play_match(model, random_player, "rematch", i)[0] + 1) / 2
        score += (play_match(random_player, model, "rematch", 100 + i)[1] + 1) / 2
    games = 2 * GAMES_PER_SEAT
    print(f"quick model ({VISITS} visits) vs random: {score}/{games}")
    assert score > 0.75 * games


def test_model_thinks_whole_turns_and_single_actions(exported):
    model = cz.Player.load(exported, visits=8)
    state = random_turns(cz.new_game("rematch"), 4, 1)
    choice = model.think(state)
    assert choice.path in state.legal_turns()
    assert state.turn_actions(choice.path) == choice.actions
    assert choice.pv[0] == choice.path
    assert -1.0 <= choice.value <= 1.0 and choice.visits >= 1
    assert model.choose_turn(state, visits=4) in state.legal_turns()
    assert model.choose_action(state) in state.legal_actions()
    with pytest.raises(ValueError, match="the model plays rematch, the position is hexdame"):
        model.think(cz.new_game("hexdame"))
    with pytest.raises(ValueError, match="visits"):
        model.think(state, visits=0)


def test_one_handle_serves_many_threads(exported):
    model = cz.Player.load(exported, visits=16)
    states = [random_turns(cz.new_game("rematch"), n, n) for n in range(8)]
    serial = [model.think(s).path for s in states]
    with ThreadPoolExecutor(max_workers=4) as pool:
        parallel = list(pool.map(lambda s: model.think(s).path, states))
    # The search is deterministic for a given position and budget.
    assert parallel == serial


@pytest.mark.parametrize("spec", ["random", "uct:20", "alphabeta:2", "alphabeta:20ms"])
@pytest.mark.parametrize("game", ["rematch", "rematch3", "hexdame", "eximo"])
def test_baselines_play_legal_turns(spec, game):
    player = cz.Player.baseline(spec, seed=3)
    assert player.name == spec and player.game is None and player.backend is None
    state = random_turns(cz.new_game(game), 3, 2)
    choice = player.think(state, seed=5)
    assert choice.path in state.legal_turns()
    if not spec.endswith("ms"):
        # The same seed gives the same choice (a time budget depends on the machine's speed).
        assert player.think(state, seed=5).path == choice.path


def test_player_errors_are_clean(tmp_path, exported):
    with pytest.raises(ValueError, match="unknown agent 'champion'"):
        cz.Player.baseline("champion")
    with pytest.raises(ValueError, match="depth must be 1..=64"):
        cz.Player.baseline("alphabeta:0")
    with pytest.raises(ValueError, match="not a baseline"):
        cz.Player.baseline(f"export:{exported}")
    with pytest.raises(OSError, match="model.json"):
        cz.Player.load(tmp_path / "missing")
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "model.json").write_text("{not json")
    with pytest.raises(ValueError, match="not an exported model"):
        cz.Player.load(broken)
    meta = json.loads((exported / "model.json").read_text())
    meta["torchscript"] = "gone.pt"
    moved = tmp_path / "moved"
    moved.mkdir()
    (moved / "model.json").write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="missing"):
        cz.Player.load(moved)
    done = cz.new_game("rematch")
    rng = random.Random(1)
    while not done.is_terminal():
        done.apply(rng.choice(done.legal_actions()))
    with pytest.raises(ValueError, match="game is over"):
        cz.Player.baseline("random").think(done)


def test_the_shipped_model_is_found_through_the_environment_and_a_missing_one_is_said(exported, monkeypatch, tmp_path):
    # A models folder holding this test's ReMATCH export as the shipped ReMATCH model.
    import shutil

    shutil.copytree(exported, tmp_path / "rematch")
    monkeypatch.setenv("CHECKERS_ZERO_MODELS", str(tmp_path))
    player = cz.Player.shipped("rematch", visits=8)
    assert str(tmp_path / "rematch") in repr(player)
    state = cz.new_game("rematch")
    assert player.think(state, seed=1).path in state.legal_turns()
    empty = tmp_path / "none"
    empty.mkdir()
    monkeypatch.setenv("CHECKERS_ZERO_MODELS", str(empty))
    monkeypatch.chdir(empty)
    with pytest.raises(ValueError, match="no shipped hexdame model"):
        cz.Player.shipped("hexdame")
