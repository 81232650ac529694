"""The net's encodings through Python: planes, masks, symmetries."""

import numpy as np
import pytest

import checkers_zero as cz
from conftest import random_turns

GAMES = ["rematch", "rematch3", "hexdame", "eximo"]


@pytest.mark.parametrize("game", GAMES)
def test_planes_have_the_encoding_shape_and_range(game):
    info = cz.encoding(game)
    assert info["board_mask"].shape == (info["height"], info["width"])
    assert info["board_mask"].dtype == np.bool_
    for seed in range(4):
        state = random_turns(cz.new_game(game), 3 * seed, seed)
        planes = state.observation()
        assert planes.dtype == np.float32
        assert planes.shape == (info["planes"], info["height"], info["width"])
        assert planes.flags["C_CONTIGUOUS"]
        # The environments declare the planes as a [0, 1] box.
        assert planes.min() >= 0.0 and planes.max() <= 1.0
        assert planes.any()
        assert state.action_mask().shape == (info["num_actions"],)
        assert state.num_actions == info["num_actions"]


@pytest.mark.parametrize("game", GAMES)
def test_encode_into_writes_a_batch_in_place(game):
    info = cz.encoding(game)
    states = [random_turns(cz.new_game(game), n, n) for n in range(3)]
    batch = np.full((len(states), info["planes"], info["height"], info["width"]), -1.0, np.float32)
    before = batch.ctypes.data
    for row, state in zip(batch, states):
        state.encode_into(row)
    assert batch.ctypes.data == before
    for row, state in zip(batch, states):
        np.testing.assert_array_equal(row, state.observation())
    with pytest.raises(ValueError, match="need"):
        states[0].encode_into(np.zeros(5, np.float32))
    with pytest.raises(ValueError, match="contiguous"):
        states[0].encode_into(batch[:, :, :, ::2][0])


@pytest.mark.parametrize("game", GAMES)
def test_symmetries_act_on_planes_and_actions_together(game):
    info = cz.encoding(game)
    assert info["symmetries"] >= 2
    checked = 0
    for seed in range(3):
        state = random_turns(cz.new_game(game), 4 + seed, seed)
        planes = state.observation()
        mask = state.action_mask()
        for sym in range(info["symmetries"]):
            perm = cz.action_permutation(game, sym)
            assert sorted(perm.tolist()) == list(range(info["num_actions"]))
            moved = cz.transform_planes(game, sym, planes)
            assert moved.shape == planes.shape
            other = state.transform(sym)
            if other is None:
                continue
            np.testing.assert_array_equal(other.observation(), moved)
            moved_mask = np.zeros_like(mask)
            moved_mask[perm] = mask
            np.testing.assert_array_equal(other.action_mask(), moved_mask)
            checked += 1
        # A batch is transformed position by position.
        batch = np.stack([planes, planes])
        np.testing.assert_array_equal(cz.transform_planes(game, 1, batch)[1], cz.transform_planes(game, 1, planes))
    assert checked > 3
    np.testing.assert_array_equal(cz.transform_planes(game, 0, planes), planes)
    with pytest.raises(ValueError, match="symmetry"):
        cz.action_permutation(game, info["symmetries"])
    with pytest.raises(ValueError, match="values per position"):
        cz.transform_planes(game, 0, np.zeros(7, np.float32))
