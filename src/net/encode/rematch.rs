//! ReMATCH input encoding (`rematch` and `rematch3` share it; the model files differ).
//!
//! # Grid and frame
//! The 19-hex board of radius 2 embedded in a 5x5 grid (square `rank * 5 + file`, cells as
//! `HexGrid::new(2)`); the 6 squares with |file − rank| > 2 are off the board and 0 in
//! every plane. There is no board turn: Red and the Team are different armies, so colours
//! stay absolute (R, W, O planes) and constant planes say who moves.
//!
//! # Planes (51)
//! - `0..36`: stack contents from the TOP down: plane `3 * d + c` is 1 where the piece at
//!   depth `d` (0 = top, up to 11) has colour `c` (0 R, 1 W, 2 O). Full height, so lossless.
//! - `36`: stack height / 12.
//! - `37`, `38`, `39`: the colour that moves this turn (R, W, O), constant planes.
//! - `40`, `41`: Red to move: the Team colour due next is White / Orange (both 0 when the
//!   Team moves: then the colour due is the moving one).
//! - `42`: mid capture sequence: the hex of the capturing stack.
//! - `43`: mid capture sequence: the hexes of the stacks already jumped (still standing).
//! - `44`: a capture sequence is in progress (constant).
//! - `45`: turns without a capture / 40 (constant).
//! - `46`: turns left before the ply cap's draw, clipped to [`TURN_HORIZON`](super::TURN_HORIZON), / `TURN_HORIZON`
//!   (constant; 1 until the last `TURN_HORIZON` turns and without a cap: see
//!   [`turns_left_value`]).
//! - `47`, `48`, `49`: `rematch3` only: the seat to move (0 Red, 1 White, 2 Orange), one-hot
//!   constant planes (all 0 in 2-player `rematch`, where the seat is implied by the colour).
//! - `50`: constant 1 on the board.
//!
//! # Policy
//! The game's action layout as is: `(cell * 6 + dir) * 4 + dist − 1` (no frame change, the
//! colours being absolute). 456 indices.
//!
//! # Symmetries
//! The 12 of the hexagon, in [`HexSymmetry::all`] order (0 = identity). Planes move square by
//! square by [`HexGrid::cell_permutation`]; a policy index moves its cell by the same
//! permutation and its direction by [`HexSymmetry::direction`], keeping the distance.
//! Symmetries 12..24 are the same 12 followed by the exchange of White and Orange
//! (`Rematch::swap_team_colours`): the W and O planes of every depth, the mover's and the
//! colour-due planes, and in `rematch3` the seat planes swap; policy indices move as under
//! the board symmetry alone.
use std::sync::OnceLock;

use super::{permute_planes, turns_left_value, Encode};
use crate::game::hex::{HexGrid, HexSymmetry};
use crate::game::rematch::{height, piece_at, Rematch, CELLS, COORDS, MAX_DIST, NUM_ACTIONS};
use crate::game::{Action, GameKind, GameState};

const SIDE: usize = 5;
const SQUARES: usize = SIDE * SIDE;
const SYMS: usize = 12;
/// The board symmetries, then each of them with White and Orange exchanged.
const ALL_SYMS: usize = 2 * SYMS;
const DEPTHS: usize = 12;

/// Plane indices.
pub const PLANE_HEIGHT: usize = 3 * DEPTHS;
/// First of the three "colour moving this turn" planes (R, W, O).
pub const PLANE_MOVER: usize = PLANE_HEIGHT + 1;
/// First of the two "Team colour due next" planes (W, O), set only when Red moves.
pub const PLANE_DUE: usize = PLANE_MOVER + 3;
/// The capturing stack's hex mid-sequence.
pub const PLANE_JUMPER: usize = PLANE_DUE + 2;
/// The hexes of the stacks jumped this sequence.
pub const PLANE_JUMPED: usize = PLANE_JUMPER + 1;
/// Constant: a capture sequence is in progress.
pub const PLANE_IN_SEQUENCE: usize = PLANE_JUMPED + 1;
/// Constant: quiet turns / 40.
pub const PLANE_QUIET: usize = PLANE_IN_SEQUENCE + 1;
/// Constant: turns left before the ply cap, clipped to the horizon ([`turns_left_value`]).
pub const PLANE_PLIES: usize = PLANE_QUIET + 1;
/// First of the three seat planes (rematch3 only).
pub const PLANE_SEAT: usize = PLANE_PLIES + 1;
/// Constant 1 on the board.
pub const PLANE_ONES: usize = PLANE_SEAT + 3;
/// Number of planes.
pub const NUM_PLANES: usize = PLANE_ONES + 1;

/// Square of each cell in the 5x5 grid.
const fn build_square_of() -> [usize; CELLS] {
    let mut out = [0; CELLS];
    let mut c = 0;
    while c < CELLS {
        out[c] = COORDS[c].1 as usize * SIDE + COORDS[c].0 as usize;
        c += 1;
    }
    out
}

/// `SQUARE_OF[cell]`: the grid square of a hex.
pub const SQUARE_OF: [usize; CELLS] = build_square_of();

struct Tables {
    /// `cells[k][cell]`: image hex of `cell` under symmetry k.
    cells: [[u8; CELLS]; SYMS],
    /// `squares[k][square]`: image square (off-board squares map to themselves).
    squares: [[usize; SQUARES]; SYMS],
    /// `policy[k][index]`: image policy index.
    policy: [[u16; NUM_ACTIONS]; SYMS],
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let grid = HexGrid::new(2);
        let mut t = Tables {
            cells: [[0; CELLS]; SYMS],
            squares: [[0; SQUARES]; SYMS],
            policy: [[0; NUM_ACTIONS]; SYMS],
        };
        for (k, sym) in HexSymmetry::all().enumerate() {
            let perm = grid.cell_permutation(sym);
            t.cells[k].copy_from_slice(&perm);
            for (sq, slot) in t.squares[k].iter_mut().enumerate() {
                *slot = sq;
            }
            for c in 0..CELLS {
                t.squares[k][SQUARE_OF[c]] = SQUARE_OF[perm[c] as usize];
            }
            for i in 0..NUM_ACTIONS {
                let (cell, dir, dist0) = (i / (6 * MAX_DIST), (i / MAX_DIST) % 6, i % MAX_DIST);
                let image = (perm[cell] as usize * 6 + sym.direction(dir)) * MAX_DIST + dist0;
                t.policy[k][i] = image as u16;
            }
        }
        t
    })
}

/// Exchanges the White and Orange planes (pieces at every depth, mover, colour due, seat).
fn swap_team_planes(planes: &mut [f32]) {
    let pairs = (0..DEPTHS)
        .map(|d| 3 * d + 1)
        .chain([PLANE_MOVER + 1, PLANE_DUE, PLANE_SEAT + 1]);
    for white in pairs {
        let (head, tail) = planes.split_at_mut((white + 1) * SQUARES);
        head[white * SQUARES..].swap_with_slice(&mut tail[..SQUARES]);
    }
}

#[inline(always)]
fn fill_board(plane: &mut [f32], value: f32) {
    for &sq in &SQUARE_OF {
        plane[sq] = value;
    }
}

impl Encode for Rematch {
    const ENCODING_VERSION: u32 = 2;
    const PLANES: usize = NUM_PLANES;
    const HEIGHT: usize = SIDE;
    const WIDTH: usize = SIDE;
    const HEX: bool = true;
    const SYMMETRIES: usize = ALL_SYMS;
    const POLICY_PER_SQUARE: usize = 6 * MAX_DIST;

    fn policy_square(index: usize) -> (usize, usize) {
        // `(cell * 6 + dir) * MAX_DIST + dist - 1`.
        let per = Self::POLICY_PER_SQUARE;
        (index % per, SQUARE_OF[index / per])
    }
    const BOARD_SYMMETRIES: usize = SYMS;

    fn board_mask() -> Vec<bool> {
        let mut mask = vec![false; SQUARES];
        for &sq in &SQUARE_OF {
            mask[sq] = true;
        }
        mask
    }

    fn encode(&self, out: &mut [f32]) {
        assert_eq!(
            out.len(),
            NUM_PLANES * SQUARES,
            "ReMATCH planes buffer size"
        );
        out.fill(0.0);
        let plane = |p: usize| p * SQUARES;
        for (c, &sq) in SQUARE_OF.iter().enumerate() {
            let s = self.stack(c);
            let h = height(s);
            for d in 0..h {
                let colour = piece_at(s, h - 1 - d) as usize;
                out[plane(3 * d as usize + colour) + sq] = 1.0;
            }
            out[plane(PLANE_HEIGHT) + sq] = h as f32 / DEPTHS as f32;
        }
        let mover = self.colour_to_move() as usize;
        fill_board(&mut out[plane(PLANE_MOVER + mover)..], 1.0);
        if mover == 0 {
            let due = self.team_due() as usize;
            fill_board(&mut out[plane(PLANE_DUE + due - 1)..], 1.0);
        }
        if let Some(j) = self.jumper() {
            out[plane(PLANE_JUMPER) + SQUARE_OF[j]] = 1.0;
            let mut m = self.jumped();
            while m != 0 {
                let c = m.trailing_zeros() as usize;
                m &= m - 1;
                out[plane(PLANE_JUMPED) + SQUARE_OF[c]] = 1.0;
            }
            fill_board(&mut out[plane(PLANE_IN_SEQUENCE)..], 1.0);
        }
        fill_board(
            &mut out[plane(PLANE_QUIET)..],
            self.quiet().min(40) as f32 / 40.0,
        );
        fill_board(
            &mut out[plane(PLANE_PLIES)..],
            turns_left_value(self.plies(), self.rules()),
        );
        if self.kind() == GameKind::Rematch3 {
            let seat = self.seat_to_move().0 as usize;
            fill_board(&mut out[plane(PLANE_SEAT + seat)..], 1.0);
        }
        fill_board(&mut out[plane(PLANE_ONES)..], 1.0);
    }

    fn policy_index(&self, action: Action) -> usize {
        action as usize
    }

    fn action_of_index(&self, index: usize) -> Action {
        debug_assert!(index < NUM_ACTIONS);
        index as Action
    }

    fn transform_planes(sym: usize, planes: &[f32], out: &mut [f32]) {
        permute_planes(&tables().squares[sym % SYMS], planes, out);
        if sym >= SYMS {
            swap_team_planes(out);
        }
    }

    fn transform_policy_index(sym: usize, index: usize) -> usize {
        tables().policy[sym % SYMS][index] as usize
    }

    fn transform_state(&self, sym: usize) -> Option<Self> {
        if sym >= ALL_SYMS {
            return None;
        }
        let moved = self.map_cells(&tables().cells[sym % SYMS]);
        Some(if sym >= SYMS {
            moved.swap_team_colours()
        } else {
            moved
        })
    }
}
