//! Eximo: 8x8, men only, orthogonal and diagonal moves, friendly jumps, sideways captures,
//! and drops for a man that reaches the far row (rules and their binding reading:
//! `docs/rules.md`, "Eximo").
//!
//! # Board and sides
//! Squares are numbered `rank * 8 + file` (`a1` = 0, `h1` = 7, `a8` = 56, `h8` = 63) and the
//! position is two 64-bit bitboards. Seat 0 / side 0 is Black (moves first, northwards, far
//! row is rank 8, drop zone b1–g1 and b2–g2); seat 1 / side 1 is White (southwards, far row
//! rank 1, drop zone b7–g7 and b8–g8). In the notation the seat tokens are `black`/`white`
//! and the contents `b`/`w`. Eximo positions have **no counters**: any `key=value` token
//! is an [`NotationError::UnknownCounter`]. The number of turns played (for the ply cap)
//! is not part of the notation; a parsed position starts at turn 0.
//!
//! # Action space (1088 actions)
//! * Steps of a piece: `action = (from * 8 + dir) * 2 + (distance - 1)` for `from` in
//!   `0..64`, `dir` an absolute direction `0..8` = N, NE, E, SE, S, SW, W, NW, and
//!   `distance` 1 (ordinary move) or 2 (friendly jump or capture, decided by the piece that is
//!   jumped). Actions `0..1024`. Black uses N/NE/NW (+E/W for captures), White S/SE/SW
//!   (+E/W); the other entries are never legal.
//! * Drops: `action = 1024 + cell` for the cell dropped on (only the 24 drop-zone cells
//!   are ever legal). Actions `1024..1088`.
//!
//! # Turns
//! A turn is either one ordinary move, one whole friendly-jump chain, or one whole capture
//! sequence, followed by the drops it earns when the piece reaches the far row. Mid-turn the
//! state remembers the piece that must go on jumping/capturing, or how many drops are still
//! due, and [`GameState::legal_steps`] offers only the steps that continue the turn.
//! Both orders of two drops are offered as steps (they lead to the same position, which
//! perft and `moves` count once).
//!
//! # End of the game
//! Checked at the end of every turn, in this order: the side to move has no pieces (it
//! loses, [`EndReason::NoPieces`]); it has no legal step (it loses, [`EndReason::Blocked`]);
//! \[project\] the ply cap is reached (draw, [`EndReason::PlyCap`]). A win on the turn that
//! reaches the cap is a win. `RulesConfig::project_draws` changes nothing here: the cap is
//! Eximo's only \[project\] rule and has its own switch (`ply_cap = 0`).
//!
//! # Readings of open points
//! * Drops are not optional: the side drops `min(2, free drop-zone cells)` men, counted when
//!   the man leaves the board (so the cell it started from, and cells of enemy men taken
//!   in the same turn, count as free).
//! * A side can own more than 16 men: a man that reaches the far row is replaced by two.
//!
//! The text form (notation and the drawn board) is in `notation.rs`, the dedicated perft
//! in `perft.rs`.

mod notation;
mod perft;
#[cfg(test)]
mod tests;

use super::notation::PositionTokens;
use super::zobrist;
use super::*;

/// Number of step actions for pieces (64 cells x 8 directions x 2 distances).
pub const NUM_PIECE_ACTIONS: usize = 64 * 8 * 2;
/// Size of the whole action space: piece steps, then one drop per cell.
pub const NUM_ACTIONS: usize = NUM_PIECE_ACTIONS + 64;

const BLACK: usize = 0;
const WHITE: usize = 1;

/// Direction vectors (file, rank) for N, NE, E, SE, S, SW, W, NW.
const DIRS: [(i8, i8); 8] = [
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
    (-1, 0),
    (-1, 1),
];
/// Directions of ordinary moves and friendly jumps, per side.
const MOVE_DIRS: [[u8; 3]; 2] = [[0, 1, 7], [4, 3, 5]];
/// Directions of captures, per side.
const CAPTURE_DIRS: [[u8; 5]; 2] = [[0, 1, 7, 2, 6], [4, 3, 5, 2, 6]];

const NONE: u8 = 64;
const RANK_1: u64 = 0xFF;
const RANK_8: u64 = 0xFF00_0000_0000_0000;
/// The far row, per side.
const FAR_ROW: [u64; 2] = [RANK_8, RANK_1];
/// b1–g1, b2–g2.
const ZONE_SOUTH: u64 = 0x7E7E;
/// b7–g7, b8–g8.
const ZONE_NORTH: u64 = 0x7E7E_0000_0000_0000;
/// The drop zone, per side.
const DROP_ZONE: [u64; 2] = [ZONE_SOUTH, ZONE_NORTH];

const FILE_A: u64 = 0x0101_0101_0101_0101;
const FILE_B: u64 = FILE_A << 1;
const FILE_G: u64 = FILE_A << 6;
const FILE_H: u64 = FILE_A << 7;
const NOT_A: u64 = !FILE_A;
const NOT_H: u64 = !FILE_H;
const NOT_AB: u64 = !(FILE_A | FILE_B);
const NOT_GH: u64 = !(FILE_G | FILE_H);

/// `TARGET[sq][dir][distance - 1]`: the cell reached, or `NONE` off the board.
const TARGET: [[[u8; 2]; 8]; 64] = {
    let mut t = [[[NONE; 2]; 8]; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut d = 0;
        while d < 8 {
            let mut dist = 1;
            while dist <= 2 {
                let f = (sq % 8) as i8 + DIRS[d].0 * dist;
                let r = (sq / 8) as i8 + DIRS[d].1 * dist;
                if f >= 0 && f < 8 && r >= 0 && r < 8 {
                    t[sq][d][(dist - 1) as usize] = (r * 8 + f) as u8;
                }
                dist += 1;
            }
            d += 1;
        }
        sq += 1;
    }
    t
};

const Z_PIECE: [u64; 128] = zobrist::table(0xE1_0001);
const Z_CAPTURING: [u64; 64] = zobrist::table(0xE1_0002);
const Z_JUMPING: [u64; 64] = zobrist::table(0xE1_0003);
const Z_DROPS: [u64; 3] = zobrist::table(0xE1_0004);
const Z_WHITE_TO_MOVE: u64 = zobrist::splitmix64(0xE1_0005);

#[inline]
const fn bit(sq: u8) -> u64 {
    1u64 << sq
}

#[inline]
fn encode(from: u8, dir: u8, dist: u8) -> Action {
    ((from as u16 * 8 + dir as u16) * 2 + (dist as u16 - 1)) as Action
}

fn coord(sq: u8) -> Coord {
    Coord::new(sq % 8, sq / 8)
}

/// Where the unfinished part of a turn stands.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
enum Phase {
    /// At a turn boundary.
    Start,
    /// The man on this cell has captured and must capture again.
    Capturing(u8),
    /// The man on this cell has jumped a friend and must jump again.
    Jumping(u8),
    /// This many drops (1 or 2) are still due.
    Dropping(u8),
}

impl Phase {
    fn key(self) -> u64 {
        match self {
            Phase::Start => 0,
            Phase::Capturing(sq) => Z_CAPTURING[sq as usize],
            Phase::Jumping(sq) => Z_JUMPING[sq as usize],
            Phase::Dropping(n) => Z_DROPS[n as usize],
        }
    }
}

/// An Eximo position, possibly in the middle of a turn. `Copy`, 48 bytes, no heap.
#[derive(Copy, Clone, Debug)]
pub struct Eximo {
    /// Bitboards of Black's and White's men.
    men: [u64; 2],
    /// The side (and seat) to move: 0 Black, 1 White.
    side: u8,
    phase: Phase,
    /// Whole turns played since the start (or since the parsed position).
    turns: u32,
    hash: u64,
    outcome: Option<Outcome>,
    rules: RulesConfig,
}

impl PartialEq for Eximo {
    fn eq(&self, other: &Self) -> bool {
        self.men == other.men && self.side == other.side && self.phase == other.phase
    }
}

impl Eximo {
    /// The position from bitboards (black, white) at a turn boundary, `side` to move.
    fn from_parts(men: [u64; 2], side: u8, rules: RulesConfig) -> Eximo {
        let mut s = Eximo {
            men,
            side,
            phase: Phase::Start,
            turns: 0,
            hash: 0,
            outcome: None,
            rules,
        };
        s.hash = s.compute_hash();
        s.outcome = s.turn_start_outcome();
        s
    }

    /// The Zobrist hash computed from scratch (equals the incremental one).
    pub fn compute_hash(&self) -> u64 {
        let mut h = self.phase.key();
        if self.side == 1 {
            h ^= Z_WHITE_TO_MOVE;
        }
        for (side, &bb) in self.men.iter().enumerate() {
            let mut b = bb;
            while b != 0 {
                let sq = b.trailing_zeros() as usize;
                b &= b - 1;
                h ^= Z_PIECE[side * 64 + sq];
            }
        }
        h
    }

    /// Black's men as a bitboard (`rank * 8 + file`).
    pub fn black(&self) -> u64 {
        self.men[BLACK]
    }

    /// White's men as a bitboard (`rank * 8 + file`).
    pub fn white(&self) -> u64 {
        self.men[WHITE]
    }

    /// Whole turns played since the start or the parsed position.
    pub fn turns_played(&self) -> u32 {
        self.turns
    }

    /// The cell (`rank * 8 + file`) of the man that has captured and must capture again,
    /// mid capture sequence.
    pub fn capturing_man(&self) -> Option<u8> {
        match self.phase {
            Phase::Capturing(sq) => Some(sq),
            _ => None,
        }
    }

    /// The cell (`rank * 8 + file`) of the man that has jumped a friend and must jump
    /// again, mid friendly-jump chain.
    pub fn jumping_man(&self) -> Option<u8> {
        match self.phase {
            Phase::Jumping(sq) => Some(sq),
            _ => None,
        }
    }

    /// Drops still due in this turn (0 outside a drop phase, else 1 or 2).
    pub fn drops_due(&self) -> u8 {
        match self.phase {
            Phase::Dropping(n) => n,
            _ => 0,
        }
    }

    /// The rules switches this position plays under (the ply cap).
    pub fn rules(&self) -> RulesConfig {
        self.rules
    }

    /// The same position mirrored left-right (file f to 7 - f): men and the unfinished
    /// turn's man move, side, turns, rules and outcome stay (the rules are mirror-symmetric:
    /// directions N/S stay, NE/NW and E/W swap, the drop zones b-g map onto themselves).
    /// Read-only: `self` is unchanged; the hash of the result is computed from scratch.
    pub fn mirrored(&self) -> Eximo {
        // reverse_bits maps r*8+f to (7-r)*8+(7-f); swap_bytes puts the ranks back.
        let flip = |bb: u64| bb.reverse_bits().swap_bytes();
        let phase = match self.phase {
            Phase::Capturing(sq) => Phase::Capturing(sq ^ 7),
            Phase::Jumping(sq) => Phase::Jumping(sq ^ 7),
            other => other,
        };
        let mut s = Eximo {
            men: [flip(self.men[0]), flip(self.men[1])],
            phase,
            ..*self
        };
        s.hash = s.compute_hash();
        s
    }

    fn toggle(&mut self, side: usize, sq: u8) {
        self.men[side] ^= bit(sq);
        self.hash ^= Z_PIECE[side * 64 + sq as usize];
    }

    fn set_phase(&mut self, phase: Phase) {
        self.hash ^= self.phase.key() ^ phase.key();
        self.phase = phase;
    }

    /// The outcome at a turn boundary (the side to move has no pieces or no step, or the
    /// ply cap is reached).
    fn turn_start_outcome(&self) -> Option<Outcome> {
        let side = self.side as usize;
        let winner = Some(Side(1 - self.side));
        if self.men[side] == 0 {
            return Some(Outcome {
                winner,
                reason: EndReason::NoPieces,
            });
        }
        let (me, opp) = north_frame(self.men, side);
        if !has_step(me, opp) {
            return Some(Outcome {
                winner,
                reason: EndReason::Blocked,
            });
        }
        if self.rules.ply_cap > 0 && self.turns >= self.rules.ply_cap {
            return Some(Outcome {
                winner: None,
                reason: EndReason::PlyCap,
            });
        }
        None
    }

    fn end_turn(&mut self) {
        self.set_phase(Phase::Start);
        self.side ^= 1;
        self.hash ^= Z_WHITE_TO_MOVE;
        self.turns = self.turns.saturating_add(1);
        self.outcome = self.turn_start_outcome();
    }

    /// The moving man reached the far row and is already off the board: the drops it earns
    /// follow (one per free drop-zone cell, at most two), or the turn ends when none is free.
    fn promote(&mut self) {
        let side = self.side as usize;
        let free = DROP_ZONE[side] & !(self.men[0] | self.men[1]);
        match free.count_ones().min(2) {
            0 => self.end_turn(),
            n => self.set_phase(Phase::Dropping(n as u8)),
        }
    }

    fn push_captures_from(&self, sq: u8, out: &mut StepList) {
        let side = self.side as usize;
        let opp = self.men[side ^ 1];
        let occ = self.men[0] | self.men[1];
        for &d in &CAPTURE_DIRS[side] {
            let [mid, land] = TARGET[sq as usize][d as usize];
            if land != NONE && opp & bit(mid) != 0 && occ & bit(land) == 0 {
                out.push(encode(sq, d, 2));
            }
        }
    }

    fn push_jumps_from(&self, sq: u8, out: &mut StepList) {
        let side = self.side as usize;
        let own = self.men[side];
        let occ = self.men[0] | self.men[1];
        for &d in &MOVE_DIRS[side] {
            let [mid, land] = TARGET[sq as usize][d as usize];
            if land != NONE && own & bit(mid) != 0 && occ & bit(land) == 0 {
                out.push(encode(sq, d, 2));
            }
        }
    }

    fn push_moves_from(&self, sq: u8, out: &mut StepList) {
        let side = self.side as usize;
        let occ = self.men[0] | self.men[1];
        for &d in &MOVE_DIRS[side] {
            let to = TARGET[sq as usize][d as usize][0];
            if to != NONE && occ & bit(to) == 0 {
                out.push(encode(sq, d, 1));
            }
        }
    }

    fn decode(action: Action) -> (u8, u8, u8) {
        let a = action as usize;
        ((a / 16) as u8, ((a / 2) % 8) as u8, (a % 2) as u8 + 1)
    }
}

/// The position seen from the side `side` as if it moved north: (own men, enemy men).
#[inline]
fn north_frame(men: [u64; 2], side: usize) -> (u64, u64) {
    if side == BLACK {
        (men[BLACK], men[WHITE])
    } else {
        (men[WHITE].swap_bytes(), men[BLACK].swap_bytes())
    }
}

/// Origins of captures for a side moving north.
#[inline]
fn capture_origins(me: u64, opp: u64) -> u64 {
    let empty = !(me | opp);
    (me & (opp >> 8) & (empty >> 16))
        | (me & NOT_GH & (opp >> 9) & (empty >> 18))
        | (me & NOT_AB & (opp >> 7) & (empty >> 14))
        | (me & NOT_GH & (opp >> 1) & (empty >> 2))
        | (me & NOT_AB & (opp << 1) & (empty << 2))
}

/// Origins of friendly jumps for a side moving north.
#[inline]
fn jump_origins(me: u64, opp: u64) -> u64 {
    let empty = !(me | opp);
    (me & (me >> 8) & (empty >> 16))
        | (me & NOT_GH & (me >> 9) & (empty >> 18))
        | (me & NOT_AB & (me >> 7) & (empty >> 14))
}

/// Whether a side moving north has any legal step.
#[inline]
fn has_step(me: u64, opp: u64) -> bool {
    let empty = !(me | opp);
    let moves = ((me << 8) | ((me & NOT_H) << 9) | ((me & NOT_A) << 7)) & empty;
    moves != 0 || capture_origins(me, opp) != 0 || jump_origins(me, opp) != 0
}

impl GameState for Eximo {
    fn material(&self, side: Side) -> f32 {
        let me = side.0 as usize;
        self.men[me].count_ones() as f32 - self.men[1 - me].count_ones() as f32
    }

    fn start(_kind: GameKind, rules: RulesConfig) -> Self {
        // b1-g1, b2-g2, b3, c3, f3, g3 and the mirror image for White.
        let black: u64 = 0x7E7E | bit(17) | bit(18) | bit(21) | bit(22);
        Eximo::from_parts([black, black.swap_bytes()], 0, rules)
    }

    fn from_notation(
        kind: GameKind,
        text: &str,
        rules: RulesConfig,
    ) -> Result<Self, NotationError> {
        Eximo::read_notation(kind, text, rules)
    }

    fn to_notation(&self) -> String {
        self.write_notation()
    }

    fn kind(&self) -> GameKind {
        GameKind::Eximo
    }

    fn num_actions(&self) -> usize {
        NUM_ACTIONS
    }

    fn seat_to_move(&self) -> Seat {
        Seat(self.side)
    }

    fn legal_steps(&self, out: &mut StepList) {
        out.clear();
        if self.outcome.is_some() {
            return;
        }
        let side = self.side as usize;
        match self.phase {
            Phase::Start => {
                let mut own = self.men[side];
                while own != 0 {
                    let sq = own.trailing_zeros() as u8;
                    own &= own - 1;
                    self.push_captures_from(sq, out);
                }
                if !out.is_empty() {
                    return;
                }
                let mut own = self.men[side];
                while own != 0 {
                    let sq = own.trailing_zeros() as u8;
                    own &= own - 1;
                    self.push_moves_from(sq, out);
                    self.push_jumps_from(sq, out);
                }
            }
            Phase::Capturing(sq) => self.push_captures_from(sq, out),
            Phase::Jumping(sq) => self.push_jumps_from(sq, out),
            Phase::Dropping(_) => {
                let mut free = DROP_ZONE[side] & !(self.men[0] | self.men[1]);
                while free != 0 {
                    let sq = free.trailing_zeros() as u16;
                    free &= free - 1;
                    out.push((NUM_PIECE_ACTIONS as u16 + sq) as Action);
                }
            }
        }
    }

    fn apply_step(&mut self, action: Action) {
        let side = self.side as usize;
        if action as usize >= NUM_PIECE_ACTIONS {
            let sq = (action as usize - NUM_PIECE_ACTIONS) as u8;
            debug_assert!((self.men[0] | self.men[1]) & bit(sq) == 0);
            self.toggle(side, sq);
            match self.phase {
                Phase::Dropping(2) if DROP_ZONE[side] & !(self.men[0] | self.men[1]) != 0 => {
                    self.set_phase(Phase::Dropping(1))
                }
                _ => self.end_turn(),
            }
            return;
        }
        let (from, dir, dist) = Eximo::decode(action);
        let to = TARGET[from as usize][dir as usize][dist as usize - 1];
        debug_assert!(to != NONE && self.men[side] & bit(from) != 0);
        self.toggle(side, from);
        let mut capture = false;
        if dist == 2 {
            let mid = TARGET[from as usize][dir as usize][0];
            if self.men[side ^ 1] & bit(mid) != 0 {
                self.toggle(side ^ 1, mid);
                capture = true;
            }
        }
        if FAR_ROW[side] & bit(to) != 0 {
            // Removed at once: the sequence ends and drops follow.
            self.set_phase(Phase::Start);
            self.promote();
            return;
        }
        self.toggle(side, to);
        if dist == 2 {
            // Cheap bit tests rather than a list: does the man on `to` go on?
            let own = self.men[side];
            let opp = self.men[side ^ 1];
            let occ = own | opp;
            let more = if capture {
                CAPTURE_DIRS[side].iter().any(|&d| {
                    let [m, l] = TARGET[to as usize][d as usize];
                    l != NONE && opp & bit(m) != 0 && occ & bit(l) == 0
                })
            } else {
                MOVE_DIRS[side].iter().any(|&d| {
                    let [m, l] = TARGET[to as usize][d as usize];
                    l != NONE && own & bit(m) != 0 && occ & bit(l) == 0
                })
            };
            if more {
                self.set_phase(if capture {
                    Phase::Capturing(to)
                } else {
                    Phase::Jumping(to)
                });
                return;
            }
        }
        self.end_turn();
    }

    fn turn_in_progress(&self) -> bool {
        self.phase != Phase::Start
    }

    fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    fn position_hash(&self) -> u64 {
        self.hash
    }

    fn future_key(&self) -> Option<u64> {
        // No counters: only the ply cap depends on the turns played.
        Some(self.hash)
    }

    fn describe_step(&self, action: Action) -> StepDesc {
        if action as usize >= NUM_PIECE_ACTIONS {
            return StepDesc {
                from: None,
                to: coord((action as usize - NUM_PIECE_ACTIONS) as u8 & 63),
                kind: StepKind::Drop,
            };
        }
        let (from, dir, dist) = Eximo::decode(action);
        let to = TARGET[from as usize][dir as usize][dist as usize - 1];
        let mid = TARGET[from as usize][dir as usize][0];
        let capture = dist == 2 && mid != NONE && self.men[self.side as usize ^ 1] & bit(mid) != 0;
        StepDesc {
            from: Some(coord(from)),
            to: coord(to & 63),
            kind: if capture {
                StepKind::Capture
            } else {
                StepKind::Move
            },
        }
    }

    fn render(&self) -> String {
        self.draw_board()
    }

    fn perft(&self, depth: u32) -> u64 {
        self.perft_turns(depth)
    }
}
