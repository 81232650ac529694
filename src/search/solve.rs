//! The exact solver: the proven value of a position and of each of its legal turns, by the
//! rules alone (the game's own draw rules count, the project's ply cap does not), or
//! `unknown` where a node budget does not reach a proof (`docs/evaluation.md`, "Solver").
//!
//! # Scores
//! A value is a score from the side to move's view: a win in `n` whole turns is `WIN - n`,
//! a loss in `n` is `n - WIN`, a draw 0, so that a quicker win and a longer loss score
//! higher. The search keeps two true bounds `lo <= v <= hi` of the exact score `v`.
//!
//! # Search
//! Negamax alpha-beta over whole turns (the distinct children of
//! [`crate::game::turns`]) with iterative deepening on the number of turns. A search is
//! run in one of two modes: *lower* (a lower bound of `v`: an unsearched position past the
//! depth counts as lost in one turn) or *upper* (an upper bound: it counts as won in one
//! turn); a parent's lower bound is built from its children's upper bounds and the other
//! way round. Both kinds of leaf are true bounds of any unfinished position, so whatever a
//! lower search returns above its window's low end, and an upper search below its high end,
//! is a true bound of `v`; the other results claim nothing. Each depth runs null-window
//! tests around the draw score first (a win? a loss? at least a draw? at most a draw?),
//! then narrows the number of turns once the class is known.
//!
//! The transposition table is keyed by [`GameState::future_key`] (ReMATCH: the position
//! hash and the quiet-turn counter) and keeps per position the true bounds, the results of
//! failed tests with their depth, and the best child (tried first; then captures, then the
//! rest). Games whose future depends on the history (HexDame's repetition rule) are searched
//! without a table.

use std::cmp::Ordering;
use std::fmt;

use crate::game::turns::{distinct_turns, for_each_turn_steps, Turn};
use crate::game::{GameState, NotationError, Outcome, RulesConfig, StepKind};

/// The score of a win at the end of the game (a win in `n` turns scores `WIN - n`).
const WIN: i32 = 1_000_000;
/// The most turns a search looks ahead (a bound far beyond any budget's reach).
const MAX_DEPTH: u32 = 2_000;
/// The most table entries (about 40 bytes each).
const MAX_TABLE: usize = 1 << 22;

/// The proven value of a position or a turn, from the view of the side to move in the
/// position: the turns `N` count from that position to the end of the game with best play,
/// the turn itself included.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Proven {
    /// A win in `N` turns (`None`: proven a win, its length not within the budget).
    Win(Option<u32>),
    /// A loss in `N` turns (`None`: proven a loss, its length not within the budget).
    Loss(Option<u32>),
    /// A draw.
    Draw,
    /// Proven not a loss: a draw or a win.
    DrawOrWin,
    /// Proven not a win: a draw or a loss.
    DrawOrLoss,
    /// Nothing proven within the budget.
    Unknown,
}

impl Proven {
    /// The classes the value may still be, as a range of -1 (loss), 0 (draw), 1 (win).
    pub fn class_range(self) -> (i8, i8) {
        match self {
            Proven::Win(_) => (1, 1),
            Proven::Loss(_) => (-1, -1),
            Proven::Draw => (0, 0),
            Proven::DrawOrWin => (0, 1),
            Proven::DrawOrLoss => (-1, 0),
            Proven::Unknown => (-1, 1),
        }
    }

    /// The class when it is proven: 1 a win, 0 a draw, -1 a loss.
    pub fn class(self) -> Option<i8> {
        let (lo, hi) = self.class_range();
        (lo == hi).then_some(lo)
    }

    /// The same value from the other side's view.
    pub fn flipped(self) -> Proven {
        match self {
            Proven::Win(n) => Proven::Loss(n),
            Proven::Loss(n) => Proven::Win(n),
            Proven::DrawOrWin => Proven::DrawOrLoss,
            Proven::DrawOrLoss => Proven::DrawOrWin,
            same => same,
        }
    }

    /// The value for a person, with its unit: "win in 13 turns", "loss in 1 turn", "at
    /// least a draw".
    pub fn in_words(self) -> String {
        let within = |n: Option<u32>| match n {
            Some(1) => " in 1 turn".to_string(),
            Some(n) => format!(" in {n} turns"),
            None => String::new(),
        };
        match self {
            Proven::Win(n) => format!("win{}", within(n)),
            Proven::Loss(n) => format!("loss{}", within(n)),
            Proven::Draw => "draw".into(),
            Proven::DrawOrWin => "at least a draw".into(),
            Proven::DrawOrLoss => "at most a draw".into(),
            Proven::Unknown => "not proven".into(),
        }
    }
}

impl fmt::Display for Proven {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let turns = |n: Option<u32>| n.map_or("?".to_string(), |n| n.to_string());
        match *self {
            Proven::Win(n) => write!(f, "win {}", turns(n)),
            Proven::Loss(n) => write!(f, "loss {}", turns(n)),
            Proven::Draw => f.write_str("draw"),
            Proven::DrawOrWin => f.write_str("draw or win"),
            Proven::DrawOrLoss => f.write_str("draw or loss"),
            Proven::Unknown => f.write_str("unknown"),
        }
    }
}

/// A value that is not one of the forms [`Proven`] writes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "bad value '{0}': expected win N, win ?, loss N, loss ?, draw, draw or win, draw or loss \
     or unknown"
)]
pub struct BadValue(pub String);

impl std::str::FromStr for Proven {
    type Err = BadValue;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = || BadValue(text.to_string());
        let turns = |n: &str| match n {
            "?" => Ok(None),
            n => n.parse::<u32>().map(Some).map_err(|_| bad()),
        };
        let words: Vec<&str> = text.split_whitespace().collect();
        match words.as_slice() {
            ["win", n] => Ok(Proven::Win(turns(n)?)),
            ["loss", n] => Ok(Proven::Loss(turns(n)?)),
            ["draw"] => Ok(Proven::Draw),
            ["draw", "or", "win"] => Ok(Proven::DrawOrWin),
            ["draw", "or", "loss"] => Ok(Proven::DrawOrLoss),
            ["unknown"] => Ok(Proven::Unknown),
            _ => Err(bad()),
        }
    }
}

/// True bounds `lo <= v <= hi` of a score.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Bounds {
    lo: i32,
    hi: i32,
}

impl Bounds {
    /// What any unfinished position is known to be: neither won nor lost in 0 turns.
    const UNFINISHED: Bounds = Bounds {
        lo: 1 - WIN,
        hi: WIN - 1,
    };

    fn exact(score: i32) -> Bounds {
        Bounds {
            lo: score,
            hi: score,
        }
    }

    /// The bounds of a child seen from its parent, one turn earlier.
    fn to_parent(self, same_side: bool) -> Bounds {
        if same_side {
            Bounds {
                lo: from_child(self.lo, true),
                hi: from_child(self.hi, true),
            }
        } else {
            Bounds {
                lo: from_child(self.hi, false),
                hi: from_child(self.lo, false),
            }
        }
    }

    fn proven(self) -> Proven {
        let turns = |score: i32| (WIN - score.abs()) as u32;
        match (self.lo, self.hi) {
            (lo, hi) if lo == hi && lo > 0 => Proven::Win(Some(turns(lo))),
            (lo, hi) if lo == hi && lo < 0 => Proven::Loss(Some(turns(lo))),
            (0, 0) => Proven::Draw,
            (lo, _) if lo > 0 => Proven::Win(None),
            (_, hi) if hi < 0 => Proven::Loss(None),
            (lo, _) if lo >= 0 => Proven::DrawOrWin,
            (_, hi) if hi <= 0 => Proven::DrawOrLoss,
            _ => Proven::Unknown,
        }
    }
}

/// A child's score seen from its parent: negated when the other side moves there, and one
/// turn further from the end.
fn from_child(score: i32, same_side: bool) -> i32 {
    let s = if same_side { score } else { -score };
    match s.cmp(&0) {
        Ordering::Greater => s - 1,
        Ordering::Less => s + 1,
        Ordering::Equal => 0,
    }
}

/// The child score that maps to the parent score `x` (the inverse of [`from_child`] on the
/// scores it can give): windows are passed down through it.
fn to_child(x: i32, same_side: bool) -> i32 {
    let s = match x.cmp(&0) {
        Ordering::Greater => x + 1,
        Ordering::Less => x - 1,
        Ordering::Equal => 0,
    };
    if same_side {
        s
    } else {
        -s
    }
}

/// The score of a finished position for its side to move.
fn terminal_score<S: GameState>(state: &S, outcome: Outcome) -> i32 {
    match outcome.winner {
        None => 0,
        Some(w) if w == state.side_to_move() => WIN,
        Some(_) => -WIN,
    }
}

/// What the table knows of one position.
#[derive(Copy, Clone, Debug)]
struct Entry {
    key: u64,
    bounds: Bounds,
    /// A lower search to `lo_depth` found nothing above `weak_lo` (claims nothing of `v`).
    weak_lo: i32,
    lo_depth: u32,
    /// An upper search to `hi_depth` found nothing below `weak_hi`.
    weak_hi: i32,
    hi_depth: u32,
    /// The position hash of the best child found.
    best: Option<u64>,
}

/// A fixed-size transposition table, one entry per slot, the newest kept.
struct Table {
    slots: Vec<Option<Entry>>,
}

impl Table {
    /// A table sized for a search of `nodes` positions.
    fn for_budget(nodes: u64) -> Table {
        let size = (nodes.max(1) as usize)
            .next_power_of_two()
            .clamp(1 << 10, MAX_TABLE);
        Table {
            slots: vec![None; size],
        }
    }

    fn slot(&self, key: u64) -> usize {
        (key as usize) & (self.slots.len() - 1)
    }

    fn get(&self, key: u64) -> Option<&Entry> {
        self.slots[self.slot(key)].as_ref().filter(|e| e.key == key)
    }

    fn entry(&mut self, key: u64) -> &mut Entry {
        let slot = self.slot(key);
        let fresh = Entry {
            key,
            bounds: Bounds::UNFINISHED,
            weak_lo: WIN,
            lo_depth: 0,
            weak_hi: -WIN,
            hi_depth: 0,
            best: None,
        };
        let entry = self.slots[slot].get_or_insert(fresh);
        if entry.key != key {
            *entry = fresh;
        }
        entry
    }

    /// A result the table gives without searching, in a search of mode `lower` to `depth`
    /// with window `(alpha, beta)`.
    fn cutoff(&self, key: u64, depth: u32, alpha: i32, beta: i32, lower: bool) -> Option<i32> {
        let e = self.get(key)?;
        let b = e.bounds;
        if b.lo >= beta || b.lo == b.hi {
            return Some(b.lo);
        }
        if b.hi <= alpha {
            return Some(b.hi);
        }
        if lower && e.lo_depth >= depth && e.weak_lo <= alpha {
            return Some(e.weak_lo);
        }
        if !lower && e.hi_depth >= depth && e.weak_hi >= beta {
            return Some(e.weak_hi);
        }
        None
    }

    /// Records a finished search's result `best` (see [`Table::cutoff`] for the arguments).
    fn store(&mut self, key: u64, depth: u32, window: (i32, i32), lower: bool, best: i32) {
        let (alpha, beta) = window;
        let e = self.entry(key);
        if lower && best > alpha {
            e.bounds.lo = e.bounds.lo.max(best);
        } else if lower && depth >= e.lo_depth {
            (e.weak_lo, e.lo_depth) = (best, depth);
        } else if !lower && best < beta {
            e.bounds.hi = e.bounds.hi.min(best);
        } else if !lower && depth >= e.hi_depth {
            (e.weak_hi, e.hi_depth) = (best, depth);
        }
    }
}

/// One whole-turn child in the search.
struct Child<S> {
    state: S,
    hash: u64,
    capture: bool,
}

/// The distinct children of `state`, the child `first` first, then captures, then the rest.
fn ordered_children<S: GameState>(state: &S, first: Option<u64>) -> Vec<Child<S>> {
    let mut children: Vec<Child<S>> = Vec::new();
    for_each_turn_steps(state, |steps, end| {
        let hash = end.position_hash();
        if children.iter().all(|c| c.hash != hash) {
            children.push(Child {
                state: end.clone(),
                hash,
                capture: state.describe_step(steps[0]).kind == StepKind::Capture,
            });
        }
    });
    children.sort_by_key(|c| (Some(c.hash) != first, !c.capture));
    children
}

/// The search and its table, spending nodes up to a budget.
struct Prover {
    table: Table,
    nodes: u64,
    budget: u64,
    out_of_nodes: bool,
}

impl Prover {
    fn new(nodes: u64) -> Prover {
        Prover {
            table: Table::for_budget(nodes),
            nodes: 0,
            budget: nodes,
            out_of_nodes: false,
        }
    }

    /// Alpha-beta to `depth` turns in mode `lower` (see the module docs); fail-soft.
    fn search<S: GameState>(
        &mut self,
        state: &S,
        depth: u32,
        alpha: i32,
        beta: i32,
        lower: bool,
    ) -> i32 {
        if let Some(outcome) = state.outcome() {
            return terminal_score(state, outcome);
        }
        let horizon = if lower {
            Bounds::UNFINISHED.lo
        } else {
            Bounds::UNFINISHED.hi
        };
        if depth == 0 {
            return horizon;
        }
        let key = state.future_key();
        if let Some(cut) = key.and_then(|k| self.table.cutoff(k, depth, alpha, beta, lower)) {
            return cut;
        }
        if self.nodes >= self.budget {
            self.out_of_nodes = true;
            return horizon;
        }
        self.nodes += 1;
        let first = key.and_then(|k| self.table.get(k).and_then(|e| e.best));
        let children = ordered_children(state, first);
        let Some((best, best_hash)) =
            self.search_children(state, &children, depth, (alpha, beta), lower)
        else {
            return horizon;
        };
        if let Some(key) = key {
            self.table.store(key, depth, (alpha, beta), lower, best);
            if best > alpha {
                self.table.entry(key).best = Some(best_hash);
            }
        }
        best
    }

    /// The best of `children` and its hash; `None` when there are none or the budget ran
    /// out (then nothing may be stored).
    fn search_children<S: GameState>(
        &mut self,
        state: &S,
        children: &[Child<S>],
        depth: u32,
        (alpha, beta): (i32, i32),
        lower: bool,
    ) -> Option<(i32, u64)> {
        let mut best: Option<(i32, u64)> = None;
        let mut a = alpha;
        for child in children {
            let same = child.state.side_to_move() == state.side_to_move();
            let (ca, cb) = if same {
                (to_child(a, true), to_child(beta, true))
            } else {
                (to_child(beta, false), to_child(a, false))
            };
            let child_lower = if same { lower } else { !lower };
            let v = self.search(&child.state, depth - 1, ca, cb, child_lower);
            if self.out_of_nodes {
                return None;
            }
            let v = from_child(v, same);
            if best.is_none_or(|(b, _)| v > b) {
                best = Some((v, child.hash));
            }
            a = a.max(v);
            if a >= beta {
                break;
            }
        }
        best
    }

    /// Tries to prove `v > x` with a search to `depth`; raises `b.lo` when it does.
    fn prove_above<S: GameState>(&mut self, state: &S, depth: u32, x: i32, b: &mut Bounds) -> bool {
        let r = self.search(state, depth, x, x + 1, true);
        let proved = !self.out_of_nodes && r > x;
        if proved {
            b.lo = b.lo.max(r);
        }
        proved
    }

    /// Tries to prove `v < x` with a search to `depth`; lowers `b.hi` when it does.
    fn prove_below<S: GameState>(&mut self, state: &S, depth: u32, x: i32, b: &mut Bounds) -> bool {
        let r = self.search(state, depth, x - 1, x, false);
        let proved = !self.out_of_nodes && r < x;
        if proved {
            b.hi = b.hi.min(r);
        }
        proved
    }

    /// One depth of iterative deepening: the class tests, then the number of turns.
    fn deepen<S: GameState>(&mut self, state: &S, depth: u32, b: &mut Bounds) {
        if b.lo <= 0 && b.hi > 0 {
            self.prove_above(state, depth, 0, b); // a win?
        }
        if b.lo < 0 && b.hi >= 0 {
            self.prove_below(state, depth, 0, b); // a loss?
        }
        if b.lo < 0 && b.hi >= 0 {
            self.prove_above(state, depth, -1, b); // at least a draw?
        }
        if b.lo <= 0 && b.hi > 0 {
            self.prove_below(state, depth, 1, b); // at most a draw?
        }
        while b.lo > 0 && b.lo < b.hi {
            let x = b.lo;
            if !self.prove_below(state, depth, x + 1, b) && !self.prove_above(state, depth, x, b) {
                break;
            }
        }
        while b.hi < 0 && b.lo < b.hi {
            let x = b.hi;
            if !self.prove_above(state, depth, x - 1, b) && !self.prove_below(state, depth, x, b) {
                break;
            }
        }
    }

    /// The bounds of `state`'s score, searching until they meet or `self.nodes` reaches
    /// `budget`.
    fn prove<S: GameState>(&mut self, state: &S, budget: u64) -> Bounds {
        if let Some(outcome) = state.outcome() {
            return Bounds::exact(terminal_score(state, outcome));
        }
        self.budget = budget;
        self.out_of_nodes = false;
        let key = state.future_key();
        let mut b = key
            .and_then(|k| self.table.get(k))
            .map_or(Bounds::UNFINISHED, |e| e.bounds);
        for depth in 1..=MAX_DEPTH {
            if b.lo == b.hi || self.out_of_nodes {
                break;
            }
            self.deepen(state, depth, &mut b);
        }
        b
    }
}

/// The solver's answer for one position.
#[derive(Clone, Debug)]
pub struct Solution<S> {
    /// Every legal turn (distinct resulting positions, sorted by path) and its value from
    /// the position's side to move.
    pub turns: Vec<(Turn<S>, Proven)>,
    /// The position's value for its side to move.
    pub position: Proven,
    /// The nodes (positions expanded) the search used.
    pub nodes_used: u64,
}

/// The rules the solver plays under: the game's own (its draw rules included), without the
/// project's ply cap and extra draw rules.
pub const RULES_ALONE: RulesConfig = RulesConfig {
    ply_cap: 0,
    project_draws: false,
};

/// `state` (at a turn boundary) set up again under [`RULES_ALONE`], from its notation (so
/// any history before it, such as HexDame's repetitions, is forgotten).
pub fn under_rules_alone<S: GameState>(state: &S) -> Result<S, NotationError> {
    S::from_notation(state.kind(), &state.to_notation(), RULES_ALONE)
}

/// Solves `state` (at a turn boundary) under [`RULES_ALONE`] with at most `nodes` expanded
/// positions: first the position's value (with at most half of them), then each turn's
/// with an even share of what is left (what a turn leaves goes to the next), the table
/// shared throughout. Values not proven within the budget are [`Proven::Unknown`] (or a class without
/// its number of turns), never a guess.
pub fn solve_position<S: GameState>(state: &S, nodes: u64) -> Result<Solution<S>, NotationError> {
    let root = under_rules_alone(state)?;
    let mut prover = Prover::new(nodes);
    let mut position = prover.prove(&root, nodes / 2);
    let turns = distinct_turns(&root);
    let mut values = Vec::with_capacity(turns.len());
    for (i, turn) in turns.iter().enumerate() {
        let share = (nodes - prover.nodes.min(nodes)) / (turns.len() - i) as u64;
        let child = prover.prove(&turn.state, prover.nodes + share);
        let same = turn.state.side_to_move() == root.side_to_move();
        values.push(child.to_parent(same));
    }
    if let (Some(lo), Some(hi)) = (
        values.iter().map(|b| b.lo).max(),
        values.iter().map(|b| b.hi).max(),
    ) {
        position.lo = position.lo.max(lo);
        position.hi = position.hi.min(hi);
    }
    Ok(Solution {
        turns: turns
            .into_iter()
            .zip(values)
            .map(|(t, b)| (t, b.proven()))
            .collect(),
        position: position.proven(),
        nodes_used: prover.nodes,
    })
}

/// The positions a quick proof shown beside a search may expand (`engine`'s `eval`, the
/// page's analyses): a tenth of a second or so.
pub const QUICK_PROOF_NODES: u64 = 200_000;

/// The position's proven value when the solver proves its class within `nodes` (a quick
/// look for analysis displays); `None` when it does not, or for a game searched without a
/// table (HexDame), where so small a budget rarely proves anything.
pub fn quick_proof<S: GameState>(state: &S, nodes: u64) -> Result<Option<Proven>, NotationError> {
    if state.future_key().is_none() {
        return Ok(None);
    }
    let value = solve_position(state, nodes)?.position;
    Ok(value.class().map(|_| value))
}

#[cfg(test)]
mod tests;
