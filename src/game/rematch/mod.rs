//! ReMATCH rules core (2-player `rematch` and 3-player `rematch3`): Red (4 pieces, flying
//! captures) against the Team (4 White + 4 Orange), on the 19-hex board of radius 2, with
//! captured pieces stacked under the jumper. The binding reading is
//! `docs/rules.md`, "ReMATCH".
//!
//! # Representation
//! - Cells are indexed like [`HexGrid::new(2)`](super::hex::HexGrid): by rank, then file
//!   (a1 = 0, b1 = 1, c1 = 2, a2 = 3, ... e5 = 18).
//! - Each cell holds a stack as one `u32`: bits 0..24 are the pieces, 2 bits each, **bottom
//!   first** (R = 0, W = 1, O = 2), bits 24..28 the height (0 = empty). All 12 pieces fit.
//! - `tops[c]` is the bit mask of the cells whose stack is topped by colour `c`.
//! - The state is `Copy`: no heap, under 160 bytes (checked by a unit test).
//!
//! # Hashing
//! Zobrist-style: the XOR of one key per occupied hex, a well-mixed function (splitmix64) of
//! (hex, packed stack), maintained incrementally as stacks change (O(1) per changed hex, so
//! a stack growing at the bottom costs no rehash of its pieces); plus turn-state keys from
//! fixed tables: Red to move with White/Orange due, or the Team colour that moves; mid-turn,
//! the capturing stack's hex and each jumped hex still standing. `quiet` and the turn count
//! are left out. `Rematch::recompute_piece_hash` recomputes the pieces' part from scratch.
//!
//! # Legal steps
//! At a turn boundary: if any stack of the colour to move has an adjacent capture, the
//! openings of every capture sequence of every such stack (Red: flying ones too); else, for
//! Red, the flying captures plus the simple moves; else the simple moves. Mid-sequence: the
//! captures open to the capturing stack (Red: flying too), skipping stacks already jumped;
//! the turn ends when none is left. The fast [`GameState::perft`] enumerates whole turns
//! directly (capture results deduplicated by board key, simple moves counted by popcount at
//! the last ply).
//!
//! # Action space (456 actions)
//! `action = (from_cell * 6 + direction) * 4 + (distance - 1)` with `direction` indexing
//! [`DIRECTIONS`] and `distance` 1..=4 the distance from the origin to the landing hex along
//! the line: distance 1 is a simple move to an adjacent empty hex; distance ≥ 2 is a capture
//! of the first occupied hex at distance − 1 (distance 2 = an ordinary adjacent capture,
//! 3..4 = Red's flying capture over 1..2 empty hexes). Mid-sequence, `from_cell` is the
//! hex where the capturing stack stands.
//!
//! # Turn state
//! Red to move: the colour the Team must move next (`team=` in the notation). Team to move:
//! the colour that actually moves this turn (the colour due, or the other one when no stack
//! is topped by the colour due); after a Team turn the colour due is always the other one of
//! the colour that moved, so nothing else is needed. Mid-sequence: the capturing stack's hex
//! and the hexes of the stacks jumped so far that still stand (a jumped single piece leaves
//! its hex empty at once; the other stacks never move during the turn, so a hex identifies
//! a stack).
//!
//! # Ending
//! After every turn, in this order: a side with no stack topped by its colour(s) has lost
//! ([`EndReason::NoPieces`]); else 40 consecutive turns without a capture is a draw
//! ([`EndReason::NoProgress`], a rule of the game, always on); else a seat with no legal step
//! loses for its side ([`EndReason::Blocked`]); else, \[project\], `ply_cap` whole turns
//! since the position was set up give a draw ([`EndReason::PlyCap`]). ReMATCH has no other
//! \[project\] rule, so `RulesConfig::project_draws` has no effect here.
//!
//! The text form (notation and the drawn board) is in `notation.rs`, the dedicated perft
//! in `perft.rs`.

mod notation;
mod perft;
#[cfg(test)]
mod tests;

use super::hex::{HexGrid, DIRECTIONS, NONE};
use super::notation::{parse_counter, PositionTokens};
use super::zobrist;
use super::*;

/// Number of hexes.
pub const CELLS: usize = 19;
/// Longest move along a line (landing distance).
pub const MAX_DIST: usize = 4;
/// Size of the action space.
pub const NUM_ACTIONS: usize = CELLS * 6 * MAX_DIST;
/// Total pieces on the board (captured pieces stay inside stacks).
pub const TOTAL_PIECES: u32 = 12;

/// Colour codes of the pieces.
pub const RED: u8 = 0;
/// White (Team, moves first).
pub const WHITE: u8 = 1;
/// Orange (Team).
pub const ORANGE: u8 = 2;

const COLOUR_CHARS: [char; 3] = ['R', 'W', 'O'];
const COLOUR_NAMES: [&str; 3] = ["red", "white", "orange"];

const fn build_coords() -> [(u8, u8); CELLS] {
    let mut out = [(0u8, 0u8); CELLS];
    let mut n = 0;
    let mut rank = 0;
    while rank < 5 {
        let mut file = 0;
        while file < 5 {
            let diff = file - rank;
            if diff >= -2 && diff <= 2 {
                out[n] = (file as u8, rank as u8);
                n += 1;
            }
            file += 1;
        }
        rank += 1;
    }
    out
}

/// (file, rank) of every cell, 0-based, in cell-index order.
pub const COORDS: [(u8, u8); CELLS] = build_coords();

const fn cell_at(file: i32, rank: i32) -> u8 {
    let mut i = 0;
    while i < CELLS {
        if COORDS[i].0 as i32 == file && COORDS[i].1 as i32 == rank {
            return i as u8;
        }
        i += 1;
    }
    NONE
}

const fn build_rays() -> [[[u8; MAX_DIST]; 6]; CELLS] {
    let mut out = [[[NONE; MAX_DIST]; 6]; CELLS];
    let mut c = 0;
    while c < CELLS {
        let mut d = 0;
        while d < 6 {
            let mut k = 0;
            while k < MAX_DIST {
                let f = COORDS[c].0 as i32 + DIRECTIONS[d].0 as i32 * (k as i32 + 1);
                let r = COORDS[c].1 as i32 + DIRECTIONS[d].1 as i32 * (k as i32 + 1);
                out[c][d][k] = cell_at(f, r);
                k += 1;
            }
            d += 1;
        }
        c += 1;
    }
    out
}

/// `RAY[cell][dir][k]`: the cell k + 1 steps from `cell` along `dir`, or `NONE`.
pub const RAY: [[[u8; MAX_DIST]; 6]; CELLS] = build_rays();

const fn build_neighbour_masks() -> [u32; CELLS] {
    let mut out = [0u32; CELLS];
    let mut c = 0;
    while c < CELLS {
        let mut d = 0;
        while d < 6 {
            let n = RAY[c][d][0];
            if n != NONE {
                out[c] |= 1 << n;
            }
            d += 1;
        }
        c += 1;
    }
    out
}

const fn build_ray_masks() -> [[u32; 6]; CELLS] {
    let mut out = [[0u32; 6]; CELLS];
    let mut c = 0;
    while c < CELLS {
        let mut d = 0;
        while d < 6 {
            let mut k = 0;
            while k < MAX_DIST {
                let x = RAY[c][d][k];
                if x != NONE {
                    out[c][d] |= 1 << x;
                }
                k += 1;
            }
            d += 1;
        }
        c += 1;
    }
    out
}

/// `RAY_MASK[cell][dir]`: the cells along `dir` from `cell` (the cell excluded).
pub const RAY_MASK: [[u32; 6]; CELLS] = build_ray_masks();

/// Bit mask of the neighbours of each cell.
pub const NEIGHBOURS: [u32; CELLS] = build_neighbour_masks();

const ALL_CELLS: u32 = (1 << CELLS) - 1;

// Zobrist keys. A stack's key is a well-mixed function of (cell, packed contents), so a
// stack that grows at the bottom or loses its top is rehashed in O(1); the position's key is
// the XOR of its stacks' keys and of the turn-state keys below.
const STACK_SALT: u64 = 0x5245_4d41_5443_4801;
const JUMPER_KEYS: [u64; CELLS] = zobrist::table(0x5245_4d41_5443_4802);
const JUMPED_KEYS: [u64; CELLS] = zobrist::table(0x5245_4d41_5443_4803);
/// [red to move, team due white], [red, due orange], [team moves white], [team moves orange].
const TURN_KEYS: [u64; 4] = zobrist::table(0x5245_4d41_5443_4804);
/// Keys of the quiet-turn counter (0..=40), for [`GameState::future_key`] only.
const QUIET_KEYS: [u64; 41] = zobrist::table(0x5245_4d41_5443_4805);

/// Height of a packed stack.
#[inline(always)]
pub fn height(s: u32) -> u32 {
    s >> 24
}

/// Top colour of a non-empty packed stack.
#[inline(always)]
pub fn top(s: u32) -> u8 {
    ((s >> (2 * (height(s) - 1))) & 3) as u8
}

/// Colour of the piece at `level` (0 = bottom).
#[inline(always)]
pub fn piece_at(s: u32, level: u32) -> u8 {
    ((s >> (2 * level)) & 3) as u8
}

#[inline(always)]
fn pop_top(s: u32) -> u32 {
    let h = height(s) - 1;
    if h == 0 {
        0
    } else {
        (s & ((1 << (2 * h)) - 1)) | (h << 24)
    }
}

#[inline(always)]
fn push_bottom(s: u32, colour: u8) -> u32 {
    let h = height(s) + 1;
    (((s & 0x00ff_ffff) << 2) | colour as u32) | (h << 24)
}

#[cfg(test)]
fn single(colour: u8) -> u32 {
    colour as u32 | (1 << 24)
}

#[inline(always)]
fn stack_hash(cell: usize, s: u32) -> u64 {
    if s == 0 {
        0
    } else {
        zobrist::splitmix64(((cell as u64) << 32 | s as u64) ^ STACK_SALT)
    }
}

#[inline(always)]
fn encode(from: usize, dir: usize, dist: usize) -> Action {
    ((from * 6 + dir) * MAX_DIST + dist - 1) as Action
}

#[inline(always)]
fn decode(action: Action) -> (usize, usize, usize) {
    let a = action as usize;
    (a / (6 * MAX_DIST), (a / MAX_DIST) % 6, a % MAX_DIST + 1)
}

fn coord(cell: usize) -> Coord {
    Coord::new(COORDS[cell].0, COORDS[cell].1)
}

/// Iterates over the set bits of a mask.
#[inline(always)]
fn bits(mut m: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let i = m.trailing_zeros() as usize;
            m &= m - 1;
            Some(i)
        }
    })
}

/// A ReMATCH position (2- or 3-player), at a turn boundary or in the middle of a capture
/// sequence.
#[derive(Copy, Clone, Debug)]
pub struct Rematch {
    cells: [u32; CELLS],
    tops: [u32; 3],
    /// Colour moving this turn (R when Red is to move).
    colour: u8,
    /// Red to move: the Team colour due next. Team to move: equal to `colour`.
    team_due: u8,
    /// Hex of the capturing stack mid-sequence, or `NONE`.
    jumper: u8,
    /// Hexes of the stacks jumped in this sequence that still stand.
    jumped: u32,
    quiet: u32,
    plies: u32,
    /// Key of the pieces (maintained incrementally; the turn-state part is folded in by
    /// `position_hash`, from at most 13 table keys).
    piece_hash: u64,
    outcome: Option<Outcome>,
    kind: GameKind,
    rules: RulesConfig,
}

impl Rematch {
    /// The packed stack on a cell (0 when empty).
    pub fn stack(&self, cell: usize) -> u32 {
        self.cells[cell]
    }

    /// The stack on a cell as colour codes, bottom first.
    pub fn stack_colours(&self, cell: usize) -> Vec<u8> {
        let s = self.cells[cell];
        (0..height(s)).map(|l| piece_at(s, l)).collect()
    }

    /// The colour moving this turn (RED, WHITE or ORANGE).
    pub fn colour_to_move(&self) -> u8 {
        self.colour
    }

    /// Whole turns since the last capture.
    pub fn quiet(&self) -> u32 {
        self.quiet
    }

    /// Whole turns played since the position was set up.
    pub fn plies(&self) -> u32 {
        self.plies
    }

    /// The Team colour due next when Red is to move (equal to the moving colour when the
    /// Team is to move).
    pub fn team_due(&self) -> u8 {
        self.team_due
    }

    /// Mid capture sequence: the hex where the capturing stack stands.
    pub fn jumper(&self) -> Option<usize> {
        (self.jumper != NONE).then_some(self.jumper as usize)
    }

    /// Mid capture sequence: bit mask of the hexes of the stacks jumped so far that still
    /// stand (0 at a turn boundary).
    pub fn jumped(&self) -> u32 {
        self.jumped
    }

    /// The rule switches this position was set up with.
    pub fn rules(&self) -> RulesConfig {
        self.rules
    }

    /// The position moved by a board symmetry: `map[cell]` is the image of each hex (a
    /// permutation that keeps lines and distances, e.g. [`HexGrid::cell_permutation`]). The
    /// stacks and the unfinished turn (capturing stack, jumped stacks) move with it; the
    /// colour to move, the colour due, the counters and the outcome stay as they are
    /// (ReMATCH's rules are isotropic). Does not change any rule behaviour.
    /// The same position with White and Orange exchanged everywhere: the pieces in every
    /// stack, the colour moving and the Team colour due next. The rules treat the two Team
    /// colours alike, so legal turns and outcomes commute with this map (in `rematch3` it
    /// also exchanges the White and Orange seats).
    pub(crate) fn swap_team_colours(&self) -> Rematch {
        let swap = |c: u8| if c == RED { RED } else { c ^ 3 };
        let mut out = *self;
        out.cells = [0; CELLS];
        out.tops = [0; 3];
        out.piece_hash = 0;
        for (cell, &s) in self.cells.iter().enumerate() {
            if s != 0 {
                let swapped = (0..height(s))
                    .filter(|&level| piece_at(s, level) != RED)
                    .fold(s, |t, level| t ^ (3 << (2 * level)));
                out.set_cell(cell, swapped);
            }
        }
        out.colour = swap(self.colour);
        out.team_due = swap(self.team_due);
        out.debug_check_hash();
        out
    }

    pub(crate) fn map_cells(&self, map: &[u8]) -> Rematch {
        assert_eq!(map.len(), CELLS);
        let mut out = *self;
        out.cells = [0; CELLS];
        out.tops = [0; 3];
        out.piece_hash = 0;
        for (&s, &image) in self.cells.iter().zip(map) {
            if s != 0 {
                out.set_cell(image as usize, s);
            }
        }
        if self.jumper != NONE {
            out.jumper = map[self.jumper as usize];
        }
        out.jumped = bits(self.jumped).fold(0, |m, c| m | 1 << map[c]);
        out.debug_check_hash();
        out
    }

    #[inline(always)]
    fn occupied(&self) -> u32 {
        self.tops[0] | self.tops[1] | self.tops[2]
    }

    #[inline(always)]
    fn set_cell(&mut self, cell: usize, s: u32) {
        let old = self.cells[cell];
        self.piece_hash ^= stack_hash(cell, old) ^ stack_hash(cell, s);
        if old != 0 {
            self.tops[top(old) as usize] &= !(1 << cell);
        }
        if s != 0 {
            self.tops[top(s) as usize] |= 1 << cell;
        }
        self.cells[cell] = s;
    }

    fn turn_hash(&self) -> u64 {
        let mut h = if self.colour == RED {
            TURN_KEYS[(self.team_due - 1) as usize]
        } else {
            TURN_KEYS[1 + self.colour as usize]
        };
        if self.jumper != NONE {
            h ^= JUMPER_KEYS[self.jumper as usize];
            for c in bits(self.jumped) {
                h ^= JUMPED_KEYS[c];
            }
        }
        h
    }

    /// The piece part of the hash recomputed from scratch.
    fn recompute_piece_hash(&self) -> u64 {
        (0..CELLS).fold(0, |h, c| h ^ stack_hash(c, self.cells[c]))
    }

    /// Checks, in debug builds (tests are), that the incrementally kept piece hash is the
    /// one recomputed from scratch.
    fn debug_check_hash(&self) {
        debug_assert_eq!(
            self.piece_hash,
            self.recompute_piece_hash(),
            "incremental hash of {}",
            self.to_notation()
        );
    }

    /// Calls `f(dir, dist)` for every capture open to the stack on `from`: adjacent ones, and
    /// for Red flying ones too. `jumped` stacks can be neither captured nor passed.
    #[inline(always)]
    fn for_each_capture(&self, from: usize, mut f: impl FnMut(usize, usize)) {
        let colour = self.colour;
        let occ = self.occupied();
        // Stacks that can be taken: occupied, not topped by the mover, not jumped yet.
        let takeable = occ & !self.tops[colour as usize] & !self.jumped;
        if colour == RED {
            // The first occupied hex along each line (cell indices grow along directions
            // 0..3 and shrink along 3..6).
            for d in 0..6 {
                let blockers = RAY_MASK[from][d] & occ;
                if blockers == 0 {
                    continue;
                }
                let x = if d < 3 {
                    blockers.trailing_zeros()
                } else {
                    31 - blockers.leading_zeros()
                } as usize;
                if takeable & (1 << x) == 0 {
                    continue;
                }
                let land = RAY[x][d][0];
                if land != NONE && occ & (1 << land) == 0 {
                    let dist = (RAY_MASK[from][d] & !RAY_MASK[x][d]).count_ones() + 1;
                    f(d, dist as usize);
                }
            }
        } else {
            if NEIGHBOURS[from] & takeable == 0 {
                return;
            }
            for (d, ray) in RAY[from].iter().enumerate() {
                let x = ray[0];
                if x != NONE && takeable & (1 << x) != 0 {
                    let land = ray[1];
                    if land != NONE && occ & (1 << land) == 0 {
                        f(d, 2);
                    }
                }
            }
        }
    }

    fn any_capture_from(&self, from: usize) -> bool {
        let mut any = false;
        self.for_each_capture(from, |_, _| any = true);
        any
    }

    /// Has the colour to move any legal step at all (turn start)?
    fn has_any_step(&self) -> bool {
        let own = self.tops[self.colour as usize];
        let empty = ALL_CELLS & !self.occupied();
        if bits(own).any(|s| NEIGHBOURS[s] & empty != 0) {
            return true;
        }
        bits(own).any(|s| self.any_capture_from(s))
    }

    /// Turn-start steps into `out` (not cleared).
    fn turn_start_steps(&self, out: &mut StepList) {
        let own = self.tops[self.colour as usize];
        let mut forced = false;
        for s in bits(own) {
            self.for_each_capture(s, |d, k| {
                // An adjacent capture (distance 2) makes the turn a capture sequence.
                forced |= k == 2;
                out.push(encode(s, d, k));
            });
        }
        if forced {
            return;
        }
        // No adjacent capture: any captures listed are Red's optional flying ones.
        let empty = ALL_CELLS & !self.occupied();
        for s in bits(own) {
            let targets = NEIGHBOURS[s] & empty;
            if targets == 0 {
                continue;
            }
            for (d, ray) in RAY[s].iter().enumerate() {
                let n = ray[0];
                if n != NONE && targets & (1 << n) != 0 {
                    out.push(encode(s, d, 1));
                }
            }
        }
    }

    /// Applies a step without touching the turn state; returns true if it was a capture.
    #[inline(always)]
    fn move_pieces(&mut self, from: usize, d: usize, dist: usize) -> bool {
        let to = RAY[from][d][dist - 1] as usize;
        let mut s = self.cells[from];
        self.set_cell(from, 0);
        if dist >= 2 {
            let x = RAY[from][d][dist - 2] as usize;
            let victim = self.cells[x];
            s = push_bottom(s, top(victim));
            let rest = pop_top(victim);
            self.set_cell(x, rest);
            if rest != 0 {
                self.jumped |= 1 << x;
            }
        }
        self.set_cell(to, s);
        dist >= 2
    }

    /// Ends the turn: counters, next colour, game end. `check_blocked` false (perft only)
    /// leaves a blocked seat undetected: its position simply has no children.
    fn finish_turn(&mut self, captured: bool, check_blocked: bool) {
        self.jumper = NONE;
        self.jumped = 0;
        self.plies += 1;
        self.quiet = if captured { 0 } else { self.quiet + 1 };
        if self.colour == RED {
            self.colour = self.effective_team_colour(self.team_due);
            self.team_due = self.colour;
        } else {
            self.team_due = 3 - self.colour;
            self.colour = RED;
        }
        self.outcome = self.end_check(check_blocked);
    }

    /// The colour the Team moves when `due` is due (the due one if it tops a stack, or if
    /// neither does: then the Team has lost anyway).
    fn effective_team_colour(&self, due: u8) -> u8 {
        if self.tops[due as usize] != 0 || self.tops[3 - due as usize] == 0 {
            due
        } else {
            3 - due
        }
    }

    /// The end conditions, in the binding order, at a turn boundary.
    fn end_check(&self, check_blocked: bool) -> Option<Outcome> {
        if self.tops[RED as usize] == 0 {
            return Some(Outcome {
                winner: Some(Side(1)),
                reason: EndReason::NoPieces,
            });
        }
        if self.tops[WHITE as usize] | self.tops[ORANGE as usize] == 0 {
            return Some(Outcome {
                winner: Some(Side(0)),
                reason: EndReason::NoPieces,
            });
        }
        if self.quiet >= 40 {
            return Some(Outcome {
                winner: None,
                reason: EndReason::NoProgress,
            });
        }
        if check_blocked && !self.has_any_step() {
            let loser = if self.colour == RED { Side(0) } else { Side(1) };
            return Some(Outcome {
                winner: Some(loser.opponent()),
                reason: EndReason::Blocked,
            });
        }
        if self.rules.ply_cap > 0 && self.plies >= self.rules.ply_cap {
            return Some(Outcome {
                winner: None,
                reason: EndReason::PlyCap,
            });
        }
        None
    }

    fn empty_state(kind: GameKind, rules: RulesConfig) -> Rematch {
        Rematch {
            cells: [0; CELLS],
            tops: [0; 3],
            colour: WHITE,
            team_due: WHITE,
            jumper: NONE,
            jumped: 0,
            quiet: 0,
            plies: 0,
            piece_hash: 0,
            outcome: None,
            kind,
            rules,
        }
    }
}

impl GameState for Rematch {
    fn material(&self, side: Side) -> f32 {
        // A stack controlled counts 1, and each piece inside it a tenth more.
        let controlled = |mask: u32| {
            (0..CELLS)
                .filter(|&c| mask & (1 << c) != 0)
                .map(|c| 1.0 + 0.1 * (height(self.cells[c]) as f32 - 1.0))
                .sum::<f32>()
        };
        let red = controlled(self.tops[RED as usize]);
        let team = controlled(self.tops[WHITE as usize] | self.tops[ORANGE as usize]);
        if side == Side(0) {
            red - team
        } else {
            team - red
        }
    }

    fn start(kind: GameKind, rules: RulesConfig) -> Self {
        Self::from_notation(
            kind,
            "white a1:R a2:R b1:R b2:R d2:W d3:W e3:W e4:W b4:O c4:O c5:O d5:O",
            rules,
        )
        .expect("the start position parses")
    }

    fn from_notation(
        kind: GameKind,
        text: &str,
        rules: RulesConfig,
    ) -> Result<Self, NotationError> {
        Rematch::read_notation(kind, text, rules)
    }

    fn to_notation(&self) -> String {
        self.write_notation()
    }

    fn kind(&self) -> GameKind {
        self.kind
    }

    fn num_actions(&self) -> usize {
        NUM_ACTIONS
    }

    fn num_seats(&self) -> usize {
        self.kind.num_seats()
    }

    fn seat_to_move(&self) -> Seat {
        match (self.kind, self.colour) {
            (_, RED) => Seat(0),
            (GameKind::Rematch3, c) => Seat(c),
            _ => Seat(1),
        }
    }

    fn side_of(&self, seat: Seat) -> Side {
        if seat.0 == 0 {
            Side(0)
        } else {
            Side(1)
        }
    }

    fn legal_steps(&self, out: &mut StepList) {
        out.clear();
        if self.outcome.is_some() {
            return;
        }
        if self.jumper != NONE {
            let at = self.jumper as usize;
            self.for_each_capture(at, |d, k| out.push(encode(at, d, k)));
        } else {
            self.turn_start_steps(out);
        }
    }

    fn apply_step(&mut self, action: Action) {
        let (from, d, dist) = decode(action);
        let to = RAY[from][d][dist - 1];
        assert!(
            to != NONE && self.cells[from] != 0,
            "illegal ReMATCH step {action}"
        );
        let captured = self.move_pieces(from, d, dist);
        if captured {
            self.jumper = to;
            if self.any_capture_from(to as usize) {
                self.debug_check_hash();
                return;
            }
        }
        self.finish_turn(captured, true);
        self.debug_check_hash();
    }

    fn turn_in_progress(&self) -> bool {
        self.jumper != NONE
    }

    fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    fn position_hash(&self) -> u64 {
        self.piece_hash ^ self.turn_hash()
    }

    fn future_key(&self) -> Option<u64> {
        Some(self.position_hash() ^ QUIET_KEYS[self.quiet.min(40) as usize])
    }

    fn describe_step(&self, action: Action) -> StepDesc {
        let (from, d, dist) = decode(action);
        StepDesc {
            from: Some(coord(from)),
            to: coord(RAY[from][d][dist - 1] as usize),
            kind: if dist >= 2 {
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
