//! The Eximo encoding: 9 planes on the 8x8 board, policy over the game's 1088 actions, and
//! the left-right mirror.
//!
//! # Frame
//! Everything is seen from the side to move, which always plays "up" (towards rank 8):
//! Black to move is encoded as is; White to move is flipped vertically (rank r to 7 - r,
//! square `sq` to `sq ^ 56`), so White's far row becomes the top row and its drop zone
//! b1–g2. Planes say own/opponent, not colours; the colour to move is deliberately *not*
//! encoded: the rules are symmetric under the vertical flip with colours swapped (only who
//! moves first differs, which no later decision depends on).
//!
//! # Planes (index: meaning, values)
//! 0. own men (1/0)
//! 1. opponent men (1/0)
//! 2. the own man that must continue a friendly-jump chain (1 on its cell; mid-turn only)
//! 3. the own man that must continue capturing (1 on its cell; mid-turn only)
//! 4. exactly one drop still due (constant plane 1/0)
//! 5. two drops still due (constant plane 1/0)
//! 6. empty cells of the mover's drop zone (b–g of its first two ranks): the legal drop
//!    cells in a drop phase, and how many drops a promotion would earn otherwise (1/0)
//! 7. turns left before the ply cap's draw, clipped to [`TURN_HORIZON`](super::TURN_HORIZON), / `TURN_HORIZON`
//!    (constant plane in \[0, 1\]; 1 until the last `TURN_HORIZON` turns and when the cap
//!    is off: see [`turns_left_value`]): the only \[project\] rule, the draw at the cap
//! 8. constant 1 (lets the convolutions see the board edge through zero padding)
//!
//! # Policy index
//! The game's action layout in the mover's frame: a step of a man is
//! `(from * 8 + dir) * 2 + distance - 1` (`dir` 0..8 = N, NE, E, SE, S, SW, W, NW), a drop
//! is `1024 + cell`. For Black the index is the action; for White the cells are flipped
//! (`sq ^ 56`) and the directions turned N↔S, NE↔SE, NW↔SW (E, W stay): `dir -> (4 - dir)
//! mod 8`. This is an involution of `0..1088`, so `action_of_index` is the same map.
//!
//! # Symmetries
//! 0: identity; 1: the left-right mirror (file f to 7 - f, square `sq ^ 7`, directions
//! NE↔NW, E↔W, SE↔SW: `dir -> (8 - dir) mod 8`). It commutes with the vertical flip of the
//! frame, so it acts the same on every position's planes (every plane's squares permuted by
//! `sq ^ 7`; the constant planes and the drop zone map onto themselves) and on policy
//! indices.
use super::{permute_planes, turns_left_value, Encode};
use crate::game::eximo::{Eximo, NUM_ACTIONS, NUM_PIECE_ACTIONS};
use crate::game::{Action, GameState};

const SQUARES: usize = 64;
const PLANES: usize = 9;
const P_OWN: usize = 0;
const P_OPP: usize = 1;
const P_JUMPING: usize = 2;
const P_CAPTURING: usize = 3;
const P_ONE_DROP: usize = 4;
const P_TWO_DROPS: usize = 5;
const P_DROP_ZONE: usize = 6;
const P_TURNS: usize = 7;
const P_ONES: usize = 8;

/// The mover's drop zone in its frame: b1–g1, b2–g2.
const OWN_DROP_ZONE: u64 = 0x7E7E;

/// Square map of the left-right mirror.
const MIRROR_SQUARES: [usize; SQUARES] = {
    let mut t = [0; SQUARES];
    let mut i = 0;
    while i < SQUARES {
        t[i] = i ^ 7;
        i += 1;
    }
    t
};

/// Sets `plane[sq] = 1` for every bit of `bb`.
#[inline]
fn set_bits(plane: &mut [f32], mut bb: u64) {
    while bb != 0 {
        plane[bb.trailing_zeros() as usize] = 1.0;
        bb &= bb - 1;
    }
}

/// Maps an action to the mover's frame (and back: an involution). `white`: White moves.
#[inline]
fn to_frame(a: usize, white: bool) -> usize {
    debug_assert!(a < NUM_ACTIONS);
    if !white {
        a
    } else if a >= NUM_PIECE_ACTIONS {
        NUM_PIECE_ACTIONS + ((a - NUM_PIECE_ACTIONS) ^ 56)
    } else {
        let (from, dir, dist) = (a / 16, (a / 2) % 8, a % 2);
        ((from ^ 56) * 8 + (12 - dir) % 8) * 2 + dist
    }
}

/// The left-right mirror of an index (of an action, in any frame).
#[inline]
fn mirror_index(i: usize) -> usize {
    if i >= NUM_PIECE_ACTIONS {
        NUM_PIECE_ACTIONS + ((i - NUM_PIECE_ACTIONS) ^ 7)
    } else {
        let (from, dir, dist) = (i / 16, (i / 2) % 8, i % 2);
        ((from ^ 7) * 8 + (8 - dir) % 8) * 2 + dist
    }
}

impl Eximo {
    #[inline]
    fn white_to_move(&self) -> bool {
        self.seat_to_move().0 == 1
    }
}

impl Encode for Eximo {
    const ENCODING_VERSION: u32 = 2;
    const PLANES: usize = PLANES;
    const HEIGHT: usize = 8;
    const WIDTH: usize = 8;
    const HEX: bool = false;
    const SYMMETRIES: usize = 2;
    /// A man's 16 steps (8 directions, 2 distances) from a square, then a drop on it.
    const POLICY_PER_SQUARE: usize = 17;

    fn policy_square(index: usize) -> (usize, usize) {
        match index.checked_sub(NUM_PIECE_ACTIONS) {
            // `(from * 8 + dir) * 2 + distance - 1`, `from` in the mover's frame.
            None => (index % 16, index / 16),
            Some(drop) => (16, drop),
        }
    }

    fn board_mask() -> Vec<bool> {
        vec![true; SQUARES]
    }

    fn encode(&self, out: &mut [f32]) {
        assert_eq!(out.len(), PLANES * SQUARES, "eximo planes: 9 x 8 x 8");
        out.fill(0.0);
        let white = self.white_to_move();
        // The mover's frame: White's board flipped vertically (a byte swap).
        let (own, opp, flip) = if white {
            (self.white().swap_bytes(), self.black().swap_bytes(), 56u8)
        } else {
            (self.black(), self.white(), 0u8)
        };
        let plane = |p: usize| p * SQUARES..(p + 1) * SQUARES;
        set_bits(&mut out[plane(P_OWN)], own);
        set_bits(&mut out[plane(P_OPP)], opp);
        if let Some(sq) = self.jumping_man() {
            out[P_JUMPING * SQUARES + (sq ^ flip) as usize] = 1.0;
        }
        if let Some(sq) = self.capturing_man() {
            out[P_CAPTURING * SQUARES + (sq ^ flip) as usize] = 1.0;
        }
        match self.drops_due() {
            1 => out[plane(P_ONE_DROP)].fill(1.0),
            2 => out[plane(P_TWO_DROPS)].fill(1.0),
            _ => {}
        }
        set_bits(&mut out[plane(P_DROP_ZONE)], OWN_DROP_ZONE & !(own | opp));
        out[plane(P_TURNS)].fill(turns_left_value(self.turns_played(), self.rules()));
        out[plane(P_ONES)].fill(1.0);
    }

    fn policy_index(&self, action: Action) -> usize {
        to_frame(action as usize, self.white_to_move())
    }

    fn action_of_index(&self, index: usize) -> Action {
        to_frame(index, self.white_to_move()) as Action
    }

    fn transform_planes(sym: usize, planes: &[f32], out: &mut [f32]) {
        match sym {
            0 => out.copy_from_slice(planes),
            1 => permute_planes(&MIRROR_SQUARES, planes, out),
            _ => panic!("eximo has 2 symmetries, not {}", sym + 1),
        }
    }

    fn transform_policy_index(sym: usize, index: usize) -> usize {
        match sym {
            0 => index,
            1 => mirror_index(index),
            _ => panic!("eximo has 2 symmetries, not {}", sym + 1),
        }
    }

    fn transform_state(&self, sym: usize) -> Option<Self> {
        match sym {
            0 => Some(*self),
            1 => Some(self.mirrored()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_maps_are_involutions_of_the_action_space() {
        for i in 0..NUM_ACTIONS {
            for white in [false, true] {
                let j = to_frame(i, white);
                assert!(j < NUM_ACTIONS);
                assert_eq!(to_frame(j, white), i);
            }
            let m = mirror_index(i);
            assert!(m < NUM_ACTIONS);
            assert_eq!(mirror_index(m), i);
            // The mirror commutes with the vertical flip of the frame.
            assert_eq!(
                mirror_index(to_frame(i, true)),
                to_frame(mirror_index(i), true)
            );
        }
        // a2 N 1 for White in the frame is a7 S 1: from 48, dir 4.
        assert_eq!(to_frame((8 * 8) * 2, true), (48 * 8 + 4) * 2);
        // b1 NE 1 mirrored is g1 NW 1.
        assert_eq!(mirror_index((8 + 1) * 2), (6 * 8 + 7) * 2);
    }
}
