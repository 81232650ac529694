//! HexDame's encoding: 11 planes on the 9x9 grid embedding the 61-cell hexagon.
//!
//! # Frame
//! Everything is seen from the side to move. White to move: the board as is. Red to move: the
//! board turned 180° ((f, r) → (8 − f, 8 − r), hex rotation 3), which maps Red's forward
//! directions (3, 4, 5) onto White's (0, 1, 2) and Red's promotion line onto White's, so the
//! mover always plays "up". The rules are symmetric under that turn with the colours swapped,
//! so the colour to move is not an input.
//!
//! # Planes (`rank * 9 + file` in the mover's frame; off-board squares are 0 everywhere)
//! 0. own men
//! 1. own kings
//! 2. opponent men (pieces jumped in an unfinished capture included: they still block)
//! 3. opponent kings (likewise)
//! 4. the capturing piece's cell, during an unfinished capture sequence
//! 5. the pieces jumped so far in that sequence (removed when it ends, not jumpable again)
//! 6. captures the sequence must still make, / 16 (scalar; 0 at a turn boundary)
//! 7. the position has occurred before (scalar 0/1): one more occurrence is the repetition
//!    draw. (A third occurrence ends the game, so no position the net is asked about has
//!    occurred twice before: encoding 1's "at least twice" plane was always 0 and is gone.)
//! 8. no-progress counter: quiet turns / 50, capped at 1 (0 when the project draws are off)
//! 9. turns left before the ply cap's draw, clipped to [`TURN_HORIZON`](super::TURN_HORIZON), / `TURN_HORIZON`
//!    (scalar; 1 until the last `TURN_HORIZON` turns and without a cap: see
//!    [`turns_left_value`])
//! 10. on-board cells (constant 1 on the 61 cells), so the net sees the edge
//!
//! # Policy
//! `index = (cell * 6 + dir) * 8 + dist − 1`, the game's own action layout, with cell and
//! direction taken in the mover's frame: the identity for White; for Red the cell turned by
//! 180° and the direction reversed (d + 3). Both maps are involutions.
//!
//! # Symmetries
//! Two: 0 the identity, 1 the file/rank swap (`HexSymmetry { rotation: 0, mirror: true }`),
//! which keeps the men's forward directions, the start and the promotion lines. It commutes
//! with the 180° turn, so it acts the same way on planes and on policy indices whichever side
//! is to move: squares (f, r) ↔ (r, f); directions d → (2 − d) mod 6.
use super::{permute_planes, turns_left_value, Encode};
use crate::game::hex::HexSymmetry;
use crate::game::hexdame::{HexDame, CELLS, MAX_DIST, NO_PROGRESS_TURNS, NUM_ACTIONS};
use crate::game::Action;

/// Grid side.
const SIDE: usize = 9;
/// Squares of the grid.
const SQUARES: usize = SIDE * SIDE;
/// Planes.
const PLANES: usize = 11;
/// Divisor of the captures-required plane (no side ever has more pieces to take).
const CAPTURE_SCALE: f32 = 16.0;

const P_OWN_MEN: usize = 0;
const P_OWN_KINGS: usize = 1;
const P_OPP_MEN: usize = 2;
const P_OPP_KINGS: usize = 3;
const P_MOVER: usize = 4;
const P_JUMPED: usize = 5;
const P_REMAINING: usize = 6;
const P_REPEATED: usize = 7;
const P_QUIET: usize = 8;
const P_TURNS: usize = 9;
const P_BOARD: usize = 10;

/// The mirror symmetry (index 1).
pub const MIRROR: HexSymmetry = HexSymmetry {
    rotation: 0,
    mirror: true,
};
/// The turn that gives Red's frame.
pub const HALF_TURN: HexSymmetry = HexSymmetry {
    rotation: 3,
    mirror: false,
};

/// Precomputed geometry for the encoding.
struct Tables {
    /// Grid square of each cell (`rank * 9 + file`).
    square: [u8; CELLS],
    /// Grid square of each cell turned by 180° (Red's frame).
    square_turned: [u8; CELLS],
    /// Square map of the mirror (off-board squares fixed).
    mirror_square: [usize; SQUARES],
    /// Policy index map of the 180° turn (an involution).
    turn_index: [u16; NUM_ACTIONS],
    /// Policy index map of the mirror (an involution).
    mirror_index: [u16; NUM_ACTIONS],
    /// The on-board squares.
    on_board: [bool; SQUARES],
}

const fn on_board(f: usize, r: usize) -> bool {
    f < SIDE && r < SIDE && (f as i32 - r as i32).abs() <= 4
}

const fn build() -> Tables {
    let mut t = Tables {
        square: [0; CELLS],
        square_turned: [0; CELLS],
        mirror_square: [0; SQUARES],
        turn_index: [0; NUM_ACTIONS],
        mirror_index: [0; NUM_ACTIONS],
        on_board: [false; SQUARES],
    };
    // Cell order of the game (HexGrid): rank by rank, files ascending.
    let mut cell_at = [u8::MAX; SQUARES];
    let mut n = 0;
    let mut sq = 0;
    while sq < SQUARES {
        let (f, r) = (sq % SIDE, sq / SIDE);
        t.mirror_square[sq] = sq;
        if on_board(f, r) {
            t.on_board[sq] = true;
            t.square[n] = sq as u8;
            t.square_turned[n] = ((SIDE - 1 - r) * SIDE + (SIDE - 1 - f)) as u8;
            t.mirror_square[sq] = f * SIDE + r;
            cell_at[sq] = n as u8;
            n += 1;
        }
        sq += 1;
    }
    let mut a = 0;
    while a < NUM_ACTIONS {
        let dist = a % MAX_DIST;
        let dir = (a / MAX_DIST) % 6;
        let cell = a / MAX_DIST / 6;
        let turned = cell_at[t.square_turned[cell] as usize] as usize;
        t.turn_index[a] = ((turned * 6 + (dir + 3) % 6) * MAX_DIST + dist) as u16;
        let mirrored = cell_at[t.mirror_square[t.square[cell] as usize]] as usize;
        t.mirror_index[a] = ((mirrored * 6 + (8 - dir) % 6) * MAX_DIST + dist) as u16;
        a += 1;
    }
    t
}

static T: Tables = build();

/// Writes a cell set into a plane.
#[inline]
fn put_cells(plane: &mut [f32], squares: &[u8; CELLS], mut set: u64) {
    while set != 0 {
        let c = set.trailing_zeros() as usize;
        set &= set - 1;
        plane[squares[c] as usize] = 1.0;
    }
}

/// Plane `p` of the encoding.
#[inline(always)]
fn plane(out: &mut [f32], p: usize) -> &mut [f32] {
    &mut out[p * SQUARES..(p + 1) * SQUARES]
}

/// Fills a plane's on-board squares with `value`.
#[inline]
fn put_scalar(plane: &mut [f32], value: f32) {
    if value != 0.0 {
        for &sq in &T.square {
            plane[sq as usize] = value;
        }
    }
}

impl Encode for HexDame {
    const ENCODING_VERSION: u32 = 2;
    const PLANES: usize = PLANES;
    const HEIGHT: usize = SIDE;
    const WIDTH: usize = SIDE;
    const HEX: bool = true;
    const SYMMETRIES: usize = 2;
    const POLICY_PER_SQUARE: usize = 6 * MAX_DIST;

    fn board_mask() -> Vec<bool> {
        T.on_board.to_vec()
    }

    fn policy_square(index: usize) -> (usize, usize) {
        // `(cell * 6 + dir) * MAX_DIST + dist - 1`, the cell in the mover's frame, whose
        // square is the one the planes put that cell's piece on.
        let per = Self::POLICY_PER_SQUARE;
        (index % per, T.square[index / per] as usize)
    }

    fn encode(&self, out: &mut [f32]) {
        assert_eq!(out.len(), PLANES * SQUARES, "HexDame planes");
        out.fill(0.0);
        let me = self.colour_to_move();
        let squares = if me == 0 { &T.square } else { &T.square_turned };
        let kings = self.kings();
        let own = self.pieces(me);
        let opp = self.pieces(1 - me);
        put_cells(plane(out, P_OWN_MEN), squares, own & !kings);
        put_cells(plane(out, P_OWN_KINGS), squares, own & kings);
        put_cells(plane(out, P_OPP_MEN), squares, opp & !kings);
        put_cells(plane(out, P_OPP_KINGS), squares, opp & kings);
        if let Some(c) = self.capturing_piece() {
            plane(out, P_MOVER)[squares[c as usize] as usize] = 1.0;
        }
        put_cells(plane(out, P_JUMPED), squares, self.jumped());
        let required = self.captures_required() as f32 / CAPTURE_SCALE;
        put_scalar(plane(out, P_REMAINING), required);
        let repeated = self.repetition_count() >= 2;
        put_scalar(plane(out, P_REPEATED), repeated as u8 as f32);
        let rules = self.rules();
        let quiet = if rules.project_draws {
            (self.quiet_turns() as f32 / NO_PROGRESS_TURNS as f32).min(1.0)
        } else {
            0.0
        };
        put_scalar(plane(out, P_QUIET), quiet);
        put_scalar(
            plane(out, P_TURNS),
            turns_left_value(self.turns_played(), rules),
        );
        put_scalar(plane(out, P_BOARD), 1.0);
    }

    fn policy_index(&self, action: Action) -> usize {
        let a = action as usize;
        if self.colour_to_move() == 0 {
            a
        } else {
            T.turn_index[a] as usize
        }
    }

    fn action_of_index(&self, index: usize) -> Action {
        if self.colour_to_move() == 0 {
            index as Action
        } else {
            T.turn_index[index]
        }
    }

    fn transform_planes(sym: usize, planes: &[f32], out: &mut [f32]) {
        match sym {
            0 => out.copy_from_slice(planes),
            1 => permute_planes(&T.mirror_square, planes, out),
            _ => panic!("HexDame has 2 symmetries, not {}", sym + 1),
        }
    }

    fn transform_policy_index(sym: usize, index: usize) -> usize {
        match sym {
            0 => index,
            1 => T.mirror_index[index] as usize,
            _ => panic!("HexDame has 2 symmetries, not {}", sym + 1),
        }
    }

    fn transform_state(&self, sym: usize) -> Option<Self> {
        match sym {
            0 => Some(self.clone()),
            1 => Some(self.mirrored()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::hex::HexGrid;

    #[test]
    fn tables_agree_with_hex_grid() {
        let grid = HexGrid::new(4);
        let turn = grid.cell_permutation(HALF_TURN);
        let mirror = grid.cell_permutation(MIRROR);
        for (cell, c) in grid.cells.iter().enumerate() {
            let sq = c.rank as usize * SIDE + c.file as usize;
            assert_eq!(T.square[cell] as usize, sq);
            let t = grid.cells[turn[cell] as usize];
            assert_eq!(
                T.square_turned[cell] as usize,
                t.rank as usize * SIDE + t.file as usize
            );
            let m = grid.cells[mirror[cell] as usize];
            assert_eq!(
                T.mirror_square[sq],
                m.rank as usize * SIDE + m.file as usize
            );
        }
        for a in 0..NUM_ACTIONS {
            let (cell, dir, dist) = (a / 48, (a / 8) % 6, a % 8);
            let expect_turn = (turn[cell] as usize * 6 + HALF_TURN.direction(dir)) * 8 + dist;
            assert_eq!(T.turn_index[a] as usize, expect_turn);
            let expect_mirror = (mirror[cell] as usize * 6 + MIRROR.direction(dir)) * 8 + dist;
            assert_eq!(T.mirror_index[a] as usize, expect_mirror);
        }
    }
}
