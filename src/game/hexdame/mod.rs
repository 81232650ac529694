//! HexDame (Christian Freeling, 1979): international draughts on a hexagon of 61 cells.
//!
//! # Board and bitboards
//! Cells are those of [`HexGrid::new(4)`](super::hex::HexGrid): (f, r) with |f − r| ≤ 4,
//! indexed in the grid's order (rank by rank from a1, files ascending within a rank). A set of
//! cells is a `u64` with bit `i` for cell `i` (61 bits used). The six directions are those of
//! [`super::hex::DIRECTIONS`]: 0 = (1,0), 1 = (1,1), 2 = (0,1), 3 = (−1,0), 4 = (−1,−1),
//! 5 = (0,−1). White men step in directions 0, 1, 2, Red men in 3, 4, 5.
//!
//! # Action space (fixed, 2928 actions)
//! `action = (from_cell * 6 + direction) * 8 + (distance − 1)`, distance 1..=8 along the
//! direction. A man's step has distance 1, a man's jump distance 2; a king's move or capture
//! has the distance to its landing cell (each landing cell of a flying capture is its own
//! action). A step is a capture when a piece stands between origin and landing.
//!
//! # Turns
//! A turn is one quiet step, or a whole capture sequence, one jump per step. Capturing is
//! compulsory and only sequences taking the greatest possible number of pieces are legal:
//! `legal_steps` offers only the jumps that begin or continue such a sequence. Mid-sequence
//! the state holds the moving piece's cell, the set of jumped pieces (still on the board,
//! blocking, not jumpable again) and how many more captures the sequence must make. The mover
//! has left its origin, so the origin is an empty cell the sequence may cross or land on.
//! Captured pieces leave the board, and a man ending on its back rank is promoted, when the
//! sequence ends.
//!
//! # End of the game (checked after every turn, in this order)
//! 1. the side to move has no pieces: it has lost (`NoPieces`);
//! 2. the side to move has no legal step: it has lost (`Blocked`);
//! 3. the position (pieces and side to move) occurs for the third time: draw (`Repetition`);
//! 4. \[project\] 50 consecutive turns with no capture and no man move: draw (`NoProgress`),
//!    only with `RulesConfig::project_draws`;
//! 5. \[project\] `RulesConfig::ply_cap` turns played (0 = no cap): draw (`PlyCap`).
//!
//! # Repetition history
//! Only positions since the last irreversible turn (a capture or a man move) can repeat, so
//! the history holds the hashes of the positions since then (the current one excluded), as a
//! persistent linked list shared between clones (`Arc`): cloning a state is a reference-count
//! increment whatever the history's length (it stays short with the 50-turn rule and is
//! unbounded but still cheap to clone without it). An irreversible turn empties it (no
//! allocation); a king's quiet move adds one node.
//!
//! The text form (notation and the drawn board) is in `notation.rs`, the dedicated perft
//! in `perft.rs`.

mod notation;
mod perft;
#[cfg(test)]
mod tests;

use std::fmt;
use std::sync::Arc;

use super::hex::HexGrid;
use super::notation::{parse_counter, PositionTokens};
use super::zobrist;
use super::*;

/// Number of cells.
pub const CELLS: usize = 61;
/// Longest distance along a line (a ray has at most 8 cells).
pub const MAX_DIST: usize = 8;
/// Size of the action space: 61 × 6 × 8.
pub const NUM_ACTIONS: usize = CELLS * 6 * MAX_DIST;
/// \[project\] Turns without capture or man move after which the game is drawn.
pub const NO_PROGRESS_TURNS: u32 = 50;
/// Pieces per colour at the start (no position can hold more).
pub const MAX_PIECES: u32 = 16;
/// Largest `quiet=` value accepted.
const MAX_QUIET: u32 = 1_000_000;

const NONE: u8 = u8::MAX;
const WHITE: usize = 0;
const RED: usize = 1;

/// Precomputed geometry.
struct Tables {
    file: [u8; CELLS],
    rank: [u8; CELLS],
    /// Cell index at rank * 9 + file, `NONE` off the board.
    index: [u8; 81],
    neigh: [[u8; 6]; CELLS],
    ray: [[[u8; MAX_DIST]; 6]; CELLS],
    ray_len: [[u8; 6]; CELLS],
    /// Promotion cells per colour (White: rank 9 or file i; Red: rank 1 or file a).
    promo: [u64; 2],
    /// Cells a man of each colour can step to from each cell (its forward neighbours).
    forward: [[u64; CELLS]; 2],
}

const DIRS: [(i32, i32); 6] = [(1, 0), (1, 1), (0, 1), (-1, 0), (-1, -1), (0, -1)];

const fn build_tables() -> Tables {
    let mut t = Tables {
        file: [0; CELLS],
        rank: [0; CELLS],
        index: [NONE; 81],
        neigh: [[NONE; 6]; CELLS],
        ray: [[[NONE; MAX_DIST]; 6]; CELLS],
        ray_len: [[0; 6]; CELLS],
        promo: [0; 2],
        forward: [[0; CELLS]; 2],
    };
    let mut n = 0;
    let mut r = 0;
    while r < 9 {
        let mut f = 0;
        while f < 9 {
            let d = f as i32 - r as i32;
            if d >= -4 && d <= 4 {
                t.file[n] = f as u8;
                t.rank[n] = r as u8;
                t.index[r * 9 + f] = n as u8;
                if r == 8 || f == 8 {
                    t.promo[WHITE] |= 1u64 << n;
                }
                if r == 0 || f == 0 {
                    t.promo[RED] |= 1u64 << n;
                }
                n += 1;
            }
            f += 1;
        }
        r += 1;
    }
    let mut c = 0;
    while c < CELLS {
        let mut d = 0;
        while d < 6 {
            let mut f = t.file[c] as i32;
            let mut r = t.rank[c] as i32;
            let mut len = 0;
            loop {
                f += DIRS[d].0;
                r += DIRS[d].1;
                if f < 0 || f > 8 || r < 0 || r > 8 || f - r > 4 || r - f > 4 {
                    break;
                }
                t.ray[c][d][len] = t.index[(r * 9 + f) as usize];
                len += 1;
            }
            t.ray_len[c][d] = len as u8;
            t.neigh[c][d] = t.ray[c][d][0];
            if t.neigh[c][d] != NONE {
                let b = 1u64 << t.neigh[c][d];
                if d < 3 {
                    t.forward[WHITE][c] |= b;
                } else {
                    t.forward[RED][c] |= b;
                }
            }
            d += 1;
        }
        c += 1;
    }
    t
}

static T: Tables = build_tables();

/// Zobrist keys: piece kind (colour * 2 + king) × cell.
const PIECE_KEYS: [u64; 4 * CELLS] = zobrist::table(0x4845_5844_414d_0001);
/// Key of the moving piece's cell during an unfinished capture sequence.
const MOVER_KEYS: [u64; CELLS] = zobrist::table(0x4845_5844_414d_0002);
/// Key of each jumped-but-not-yet-removed piece's cell.
const CAPTURED_KEYS: [u64; CELLS] = zobrist::table(0x4845_5844_414d_0003);
/// Key toggled when Red is to move.
const RED_TO_MOVE_KEY: u64 = zobrist::splitmix64(0x4845_5844_414d_0004);

/// The cell's image under the file/rank swap.
fn mirror_cell(c: u8) -> u8 {
    T.index[T.file[c as usize] as usize * 9 + T.rank[c as usize] as usize]
}

#[inline(always)]
const fn bit(c: u8) -> u64 {
    1u64 << c
}

#[inline(always)]
fn piece_key(colour: usize, king: bool, cell: u8) -> u64 {
    PIECE_KEYS[(colour * 2 + king as usize) * CELLS + cell as usize]
}

fn coord_of(cell: u8) -> Coord {
    Coord::new(T.file[cell as usize], T.rank[cell as usize])
}

fn cell_of(c: Coord) -> Option<u8> {
    if c.file < 9 && c.rank < 9 {
        let i = T.index[c.rank as usize * 9 + c.file as usize];
        (i != NONE).then_some(i)
    } else {
        None
    }
}

/// Encodes a step as an action index.
pub fn encode_action(from: u8, dir: usize, dist: usize) -> Action {
    ((from as usize * 6 + dir) * MAX_DIST + (dist - 1)) as Action
}

/// Decodes an action into (from cell, direction, distance).
pub fn decode_action(action: Action) -> (u8, usize, usize) {
    let a = action as usize;
    let dist = a % MAX_DIST + 1;
    let dir = (a / MAX_DIST) % 6;
    let from = (a / MAX_DIST / 6) as u8;
    (from, dir, dist)
}

/// One jump: the captured piece's cell, the landing cell, and the action's direction and
/// distance.
#[derive(Copy, Clone, Default, Debug)]
struct Jump {
    cap: u8,
    land: u8,
    dir: u8,
    dist: u8,
}

/// Room for every jump from one cell (at most 6 directions × 7 landings).
const MAX_JUMPS: usize = 48;

/// The jumps open to a piece on `cell`: `occ` holds every cell that blocks (pieces, including
/// jumped ones, but not the mover itself), `avail` the enemy pieces that may still be jumped.
#[inline]
fn jumps(cell: u8, king: bool, occ: u64, avail: u64, out: &mut [Jump; MAX_JUMPS]) -> usize {
    let mut n = 0;
    let c = cell as usize;
    if king {
        for d in 0..6 {
            let len = T.ray_len[c][d] as usize;
            let ray = &T.ray[c][d];
            let mut i = 0;
            while i < len && occ & bit(ray[i]) == 0 {
                i += 1;
            }
            if i + 1 >= len || avail & bit(ray[i]) == 0 {
                continue;
            }
            let cap = ray[i];
            let mut j = i + 1;
            while j < len && occ & bit(ray[j]) == 0 {
                out[n] = Jump {
                    cap,
                    land: ray[j],
                    dir: d as u8,
                    dist: (j + 1) as u8,
                };
                n += 1;
                j += 1;
            }
        }
    } else {
        for d in 0..6 {
            let cap = T.neigh[c][d];
            if cap == NONE || avail & bit(cap) == 0 {
                continue;
            }
            let land = T.neigh[cap as usize][d];
            if land != NONE && occ & bit(land) == 0 {
                out[n] = Jump {
                    cap,
                    land,
                    dir: d as u8,
                    dist: 2,
                };
                n += 1;
            }
        }
    }
    n
}

/// True if a piece on `cell` has at least one jump.
#[inline]
fn has_jump(cell: u8, king: bool, occ: u64, avail: u64) -> bool {
    let c = cell as usize;
    if king {
        for d in 0..6 {
            let len = T.ray_len[c][d] as usize;
            let ray = &T.ray[c][d];
            let mut i = 0;
            while i < len && occ & bit(ray[i]) == 0 {
                i += 1;
            }
            if i + 1 < len && avail & bit(ray[i]) != 0 && occ & bit(ray[i + 1]) == 0 {
                return true;
            }
        }
    } else {
        for d in 0..6 {
            let cap = T.neigh[c][d];
            if cap == NONE || avail & bit(cap) == 0 {
                continue;
            }
            let land = T.neigh[cap as usize][d];
            if land != NONE && occ & bit(land) == 0 {
                return true;
            }
        }
    }
    false
}

/// The greatest number of further captures a piece on `cell` can make.
fn best(cell: u8, king: bool, occ: u64, avail: u64) -> u32 {
    let mut buf = [Jump::default(); MAX_JUMPS];
    let n = jumps(cell, king, occ, avail, &mut buf);
    if n == 0 {
        return 0;
    }
    let limit = avail.count_ones();
    let mut b = 0;
    for j in &buf[..n] {
        let v = 1 + best(j.land, king, occ, avail & !bit(j.cap));
        if v > b {
            b = v;
            if b == limit {
                break;
            }
        }
    }
    b
}

/// True if `colour` (with pieces `own` against `opp`, kings among `kings`) has a legal step.
fn has_any_step(colour: usize, own: u64, opp: u64, kings: u64) -> bool {
    let occ = own | opp;
    let empty = !occ & ((1u64 << CELLS) - 1);
    let mut rest = own;
    while rest != 0 {
        let c = rest.trailing_zeros() as u8;
        rest &= rest - 1;
        let king = kings & bit(c) != 0;
        let targets = if king {
            T.forward[WHITE][c as usize] | T.forward[RED][c as usize]
        } else {
            T.forward[colour][c as usize]
        };
        if targets & empty != 0 {
            return true;
        }
    }
    let mut rest = own;
    while rest != 0 {
        let c = rest.trailing_zeros() as u8;
        rest &= rest - 1;
        if has_jump(c, kings & bit(c) != 0, occ & !bit(c), opp) {
            return true;
        }
    }
    false
}

/// The hashes of the positions before the current one since the last irreversible turn,
/// newest first.
struct History {
    hash: u64,
    prev: Option<Arc<History>>,
}

impl Drop for History {
    fn drop(&mut self) {
        // Unlink iteratively: a long chain must not overflow the stack.
        let mut next = self.prev.take();
        while let Some(node) = next {
            match Arc::try_unwrap(node) {
                Ok(mut n) => next = n.prev.take(),
                Err(_) => break,
            }
        }
    }
}

/// A HexDame position, possibly in the middle of a capture sequence.
#[derive(Clone)]
pub struct HexDame {
    /// Pieces by colour (White, Red), jumped-but-not-removed pieces included.
    pieces: [u64; 2],
    /// Kings of both colours.
    kings: u64,
    /// Colour to move: 0 White, 1 Red.
    side: u8,
    /// The moving piece's cell during an unfinished capture sequence, else `NONE`.
    mover: u8,
    /// Captures the unfinished sequence still has to make.
    remaining: u8,
    /// Pieces jumped in the unfinished sequence.
    captured: u64,
    /// Whole turns since the last capture or man move.
    quiet: u32,
    /// Whole turns played since the start (or since the parsed position).
    turns: u32,
    hash: u64,
    outcome: Option<Outcome>,
    rules: RulesConfig,
    history: Option<Arc<History>>,
}

impl fmt::Debug for HexDame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "HexDame({}", self.to_notation())?;
        if self.mover != NONE {
            write!(
                f,
                "; mid-capture: mover {}, captured {:#x}, {} more",
                coord_of(self.mover),
                self.captured,
                self.remaining
            )?;
        }
        if let Some(o) = self.outcome {
            write!(f, "; over: {o:?}")?;
        }
        write!(f, "; turns {})", self.turns)
    }
}

impl HexDame {
    fn empty(rules: RulesConfig) -> HexDame {
        HexDame {
            pieces: [0; 2],
            kings: 0,
            side: WHITE as u8,
            mover: NONE,
            remaining: 0,
            captured: 0,
            quiet: 0,
            turns: 0,
            hash: 0,
            outcome: None,
            rules,
            history: None,
        }
    }

    /// The hash computed from scratch (what `position_hash` maintains incrementally).
    pub fn compute_hash(&self) -> u64 {
        let mut h = 0;
        for colour in 0..2 {
            let mut rest = self.pieces[colour];
            while rest != 0 {
                let c = rest.trailing_zeros() as u8;
                rest &= rest - 1;
                h ^= piece_key(colour, self.kings & bit(c) != 0, c);
            }
        }
        if self.side as usize == RED {
            h ^= RED_TO_MOVE_KEY;
        }
        if self.mover != NONE {
            h ^= MOVER_KEYS[self.mover as usize];
        }
        let mut rest = self.captured;
        while rest != 0 {
            let c = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            h ^= CAPTURED_KEYS[c];
        }
        h
    }

    /// Whole turns since the last capture or man move.
    pub fn quiet_turns(&self) -> u32 {
        self.quiet
    }

    /// Whole turns played since the start or the parsed position.
    pub fn turns_played(&self) -> u32 {
        self.turns
    }

    /// How many times the current position has occurred since the last irreversible turn,
    /// this occurrence included (at a turn boundary).
    pub fn repetition_count(&self) -> u32 {
        let mut n = 1;
        let mut node = self.history.as_deref();
        while let Some(h) = node {
            if h.hash == self.hash {
                n += 1;
            }
            node = h.prev.as_deref();
        }
        n
    }

    /// The pieces of a colour (0 White, 1 Red) as a cell set (bit `i` for cell `i`),
    /// pieces jumped in an unfinished sequence included.
    pub fn pieces(&self, colour: usize) -> u64 {
        self.pieces[colour]
    }

    /// The kings of both colours as a cell set.
    pub fn kings(&self) -> u64 {
        self.kings
    }

    /// The colour to move: 0 White, 1 Red.
    pub fn colour_to_move(&self) -> usize {
        self.side as usize
    }

    /// The moving piece's cell during an unfinished capture sequence.
    pub fn capturing_piece(&self) -> Option<u8> {
        (self.mover != NONE).then_some(self.mover)
    }

    /// The pieces jumped so far in an unfinished capture sequence (still on the board).
    pub fn jumped(&self) -> u64 {
        self.captured
    }

    /// The captures an unfinished sequence must still make (0 at a turn boundary).
    pub fn captures_required(&self) -> u32 {
        self.remaining as u32
    }

    /// The rules switches this game is played with.
    pub fn rules(&self) -> RulesConfig {
        self.rules
    }

    /// The position mirrored by the file/rank swap (HexDame's one board symmetry): pieces and
    /// the unfinished capture move, side to move, counters and outcome stay.
    ///
    /// The repetition history holds only hashes, so it is rebuilt: every entry differs from
    /// the next by one king's quiet move of the side that made it, which is found from the
    /// hashes; the positions so recovered are mirrored and hashed. Mid-turn the history is
    /// dropped: the capture under way is irreversible, so it will never be consulted again.
    pub(crate) fn mirrored(&self) -> HexDame {
        let map = |set: u64| {
            let mut out = 0;
            let mut rest = set;
            while rest != 0 {
                let c = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                out |= bit(mirror_cell(c as u8));
            }
            out
        };
        let mut m = self.clone();
        m.pieces = [map(self.pieces[0]), map(self.pieces[1])];
        m.kings = map(self.kings);
        m.captured = map(self.captured);
        if self.mover != NONE {
            m.mover = mirror_cell(self.mover);
        }
        m.hash = m.compute_hash();
        m.history = None;
        if self.mover != NONE {
            return m;
        }
        // Walk back through the history, undoing one king move per entry.
        let mut at = HexDame::empty(self.rules);
        at.pieces = self.pieces;
        at.kings = self.kings;
        at.side = self.side;
        at.hash = self.hash;
        let mut hashes = Vec::new();
        let mut node = self.history.as_deref();
        while let Some(h) = node {
            let mover = 1 - at.side as usize;
            let empty = !(at.pieces[0] | at.pieces[1]) & ((1u64 << CELLS) - 1);
            let mut undo = None;
            let mut kings = at.pieces[mover] & at.kings;
            'search: while kings != 0 {
                let to = kings.trailing_zeros() as u8;
                kings &= kings - 1;
                let mut from_set = empty;
                while from_set != 0 {
                    let from = from_set.trailing_zeros() as u8;
                    from_set &= from_set - 1;
                    let key = piece_key(mover, true, to) ^ piece_key(mover, true, from);
                    if at.hash ^ key ^ RED_TO_MOVE_KEY == h.hash {
                        undo = Some((from, to));
                        break 'search;
                    }
                }
            }
            let Some((from, to)) = undo else {
                debug_assert!(false, "history entry is not one king move back");
                break;
            };
            at.pieces[mover] = (at.pieces[mover] & !bit(to)) | bit(from);
            at.kings = (at.kings & !bit(to)) | bit(from);
            at.side ^= 1;
            at.hash = h.hash;
            let mut image = HexDame::empty(self.rules);
            image.pieces = [map(at.pieces[0]), map(at.pieces[1])];
            image.kings = map(at.kings);
            image.side = at.side;
            hashes.push(image.compute_hash());
            node = h.prev.as_deref();
        }
        for hash in hashes.into_iter().rev() {
            m.history = Some(Arc::new(History {
                hash,
                prev: m.history.take(),
            }));
        }
        m
    }

    /// The outcome of the position just reached at a turn boundary (history up to date).
    fn boundary_outcome(&self) -> Option<Outcome> {
        let me = self.side as usize;
        let winner = Some(Side(1 - self.side));
        if self.pieces[me] == 0 {
            return Some(Outcome {
                winner,
                reason: EndReason::NoPieces,
            });
        }
        if !has_any_step(me, self.pieces[me], self.pieces[1 - me], self.kings) {
            return Some(Outcome {
                winner,
                reason: EndReason::Blocked,
            });
        }
        if self.repetition_count() >= 3 {
            return Some(Outcome {
                winner: None,
                reason: EndReason::Repetition,
            });
        }
        if self.rules.project_draws && self.quiet >= NO_PROGRESS_TURNS {
            return Some(Outcome {
                winner: None,
                reason: EndReason::NoProgress,
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

    /// Ends the turn: removes the jumped pieces, promotes, updates the counters, passes the
    /// move and decides whether the game is over. `to` is the moving piece's cell.
    fn end_turn(&mut self, to: u8, irreversible: bool, before: u64) {
        let me = self.side as usize;
        let opp = 1 - me;
        if self.mover != NONE {
            self.hash ^= MOVER_KEYS[self.mover as usize];
            self.mover = NONE;
        }
        let mut rest = self.captured;
        while rest != 0 {
            let c = rest.trailing_zeros() as u8;
            rest &= rest - 1;
            self.hash ^= CAPTURED_KEYS[c as usize] ^ piece_key(opp, self.kings & bit(c) != 0, c);
        }
        self.pieces[opp] &= !self.captured;
        self.kings &= !self.captured;
        self.captured = 0;
        self.remaining = 0;
        if self.kings & bit(to) == 0 && T.promo[me] & bit(to) != 0 {
            self.kings |= bit(to);
            self.hash ^= piece_key(me, false, to) ^ piece_key(me, true, to);
        }
        self.side ^= 1;
        self.hash ^= RED_TO_MOVE_KEY;
        self.turns = self.turns.saturating_add(1);
        if irreversible {
            // No earlier position can recur: no allocation on man moves and captures.
            self.quiet = 0;
            self.history = None;
        } else {
            self.quiet = self.quiet.saturating_add(1);
            self.history = Some(Arc::new(History {
                hash: before,
                prev: self.history.take(),
            }));
        }
        self.outcome = self.boundary_outcome();
    }

    /// The landing cell of an action, if it is on the board.
    fn target(from: u8, dir: usize, dist: usize) -> Option<u8> {
        if from as usize >= CELLS || dist > T.ray_len[from as usize][dir] as usize {
            return None;
        }
        Some(T.ray[from as usize][dir][dist - 1])
    }

    /// The first occupied cell strictly between `from` and the landing at `dist`.
    fn between(&self, from: u8, dir: usize, dist: usize) -> Option<u8> {
        let occ = self.pieces[0] | self.pieces[1];
        (0..dist - 1)
            .map(|i| T.ray[from as usize][dir][i])
            .find(|&c| occ & bit(c) != 0)
    }
}

impl GameState for HexDame {
    fn material(&self, side: Side) -> f32 {
        // Men 1, kings 3; pieces jumped in an unfinished sequence are already lost.
        let count = |colour: usize| {
            let pieces = self.pieces[colour] & !self.captured;
            let kings = (pieces & self.kings).count_ones() as f32;
            (pieces & !self.kings).count_ones() as f32 + 3.0 * kings
        };
        let me = side.0 as usize;
        count(me) - count(1 - me)
    }

    fn start(_kind: GameKind, rules: RulesConfig) -> Self {
        let mut s = HexDame::empty(rules);
        for c in 0..CELLS as u8 {
            let (f, r) = (T.file[c as usize], T.rank[c as usize]);
            if f < 4 && r < 4 {
                s.pieces[WHITE] |= bit(c);
            }
            if f >= 5 && r >= 5 {
                s.pieces[RED] |= bit(c);
            }
        }
        s.hash = s.compute_hash();
        s
    }

    fn from_notation(
        kind: GameKind,
        text: &str,
        rules: RulesConfig,
    ) -> Result<Self, NotationError> {
        HexDame::read_notation(kind, text, rules)
    }

    fn to_notation(&self) -> String {
        self.write_notation()
    }

    fn kind(&self) -> GameKind {
        GameKind::Hexdame
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
        let me = self.side as usize;
        let own = self.pieces[me];
        let opp = self.pieces[1 - me];
        let mut buf = [Jump::default(); MAX_JUMPS];
        if self.mover != NONE {
            let m = self.mover;
            let king = self.kings & bit(m) != 0;
            let occ = (own | opp) & !bit(m);
            let avail = opp & !self.captured;
            let n = jumps(m, king, occ, avail, &mut buf);
            for j in &buf[..n] {
                if 1 + best(j.land, king, occ, avail & !bit(j.cap)) == self.remaining as u32 {
                    out.push(encode_action(m, j.dir as usize, j.dist as usize));
                }
            }
            return;
        }
        // Captures, keeping only the first jumps of the longest sequences.
        let occ_all = own | opp;
        let mut max = 0;
        let mut rest = own;
        while rest != 0 {
            let c = rest.trailing_zeros() as u8;
            rest &= rest - 1;
            let king = self.kings & bit(c) != 0;
            let occ = occ_all & !bit(c);
            let n = jumps(c, king, occ, opp, &mut buf);
            for j in &buf[..n] {
                let v = 1 + best(j.land, king, occ, opp & !bit(j.cap));
                if v > max {
                    max = v;
                    out.clear();
                }
                if v == max {
                    out.push(encode_action(c, j.dir as usize, j.dist as usize));
                }
            }
        }
        if max > 0 {
            return;
        }
        let empty = !occ_all & ((1u64 << CELLS) - 1);
        let mut rest = own;
        while rest != 0 {
            let c = rest.trailing_zeros() as u8;
            rest &= rest - 1;
            if self.kings & bit(c) != 0 {
                for d in 0..6 {
                    let len = T.ray_len[c as usize][d] as usize;
                    for i in 0..len {
                        if empty & bit(T.ray[c as usize][d][i]) == 0 {
                            break;
                        }
                        out.push(encode_action(c, d, i + 1));
                    }
                }
            } else {
                let dirs = if me == WHITE { 0..3 } else { 3..6 };
                for d in dirs {
                    let t = T.neigh[c as usize][d];
                    if t != NONE && empty & bit(t) != 0 {
                        out.push(encode_action(c, d, 1));
                    }
                }
            }
        }
    }

    fn apply_step(&mut self, action: Action) {
        let (from, dir, dist) = decode_action(action);
        let to = Self::target(from, dir, dist).expect("action off the board");
        let before = self.hash;
        let me = self.side as usize;
        let opp = 1 - me;
        let king = self.kings & bit(from) != 0;
        let cap = self.between(from, dir, dist);
        // Move the piece.
        self.pieces[me] = (self.pieces[me] & !bit(from)) | bit(to);
        if king {
            self.kings = (self.kings & !bit(from)) | bit(to);
        }
        self.hash ^= piece_key(me, king, from) ^ piece_key(me, king, to);
        let Some(cap) = cap else {
            // A quiet step is a whole turn.
            self.end_turn(to, !king, before);
            return;
        };
        debug_assert!(self.pieces[opp] & bit(cap) != 0 && self.captured & bit(cap) == 0);
        self.captured |= bit(cap);
        self.hash ^= CAPTURED_KEYS[cap as usize];
        if self.mover != NONE {
            self.hash ^= MOVER_KEYS[self.mover as usize];
            self.remaining -= 1;
        } else {
            let occ = (self.pieces[me] | self.pieces[opp]) & !bit(to);
            self.remaining = best(to, king, occ, self.pieces[opp] & !self.captured) as u8;
        }
        self.mover = to;
        self.hash ^= MOVER_KEYS[to as usize];
        if self.remaining == 0 {
            self.end_turn(to, true, before);
        }
    }

    fn turn_in_progress(&self) -> bool {
        self.mover != NONE
    }

    fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    fn position_hash(&self) -> u64 {
        self.hash
    }

    fn describe_step(&self, action: Action) -> StepDesc {
        let (from, dir, dist) = decode_action(action);
        let from = from.min(CELLS as u8 - 1);
        let to = Self::target(from, dir, dist).unwrap_or(from);
        let kind = if to != from && self.between(from, dir, dist).is_some() {
            StepKind::Capture
        } else {
            StepKind::Move
        };
        StepDesc {
            from: Some(coord_of(from)),
            to: coord_of(to),
            kind,
        }
    }

    fn render(&self) -> String {
        self.draw_board()
    }

    fn perft(&self, depth: u32) -> u64 {
        self.perft_turns(depth)
    }
}
