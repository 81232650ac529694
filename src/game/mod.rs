//! The game API shared by every rules core: sides and seats, steps as actions from a fixed
//! per-game action space, legal steps, apply, whole-turn boundaries, outcomes, hashing and
//! the text notation.
//!
//! A *turn* is one seat's whole move; a *step* is one atomic part of it (one move, one jump,
//! one drop). Steps are the actions: while a turn is unfinished ([`GameState::turn_in_progress`])
//! the same seat moves again. Rules that look at a whole turn (majority capture, "jumped at
//! most once", drops) are enforced by offering only steps that begin or continue a legal
//! complete turn.
//!
//! The rules cores are [`rematch`], [`hexdame`] and [`eximo`] ([`hex`]: the hex geometry
//! two of them share); [`facts`] holds what else the program needs to know of each game,
//! [`notation`] positions and moves as text, [`turns`] whole turns and perft for every game,
//! and [`zobrist`] the hashing keys.

pub mod eximo;
pub mod facts;
pub mod hex;
pub mod hexdame;
pub mod notation;
pub mod rematch;
pub mod turns;
pub mod zobrist;

use std::fmt;

pub use notation::{Coord, NotationError};

/// An index into a game's fixed action space (`0..num_actions()`).
pub type Action = u16;

/// Legal steps are collected into a reusable list; reuse it across calls to avoid allocation.
pub type StepList = Vec<Action>;

/// The party that wins or loses (ReMATCH: Red vs the Team). Values are per side.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Side(pub u8);

/// Who decides a step (ReMATCH 3-player: Red, White player, Orange player).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Seat(pub u8);

impl Side {
    /// The other side (every game here has exactly two sides).
    pub fn opponent(self) -> Side {
        Side(1 - self.0)
    }
}

/// Why a game ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// The loser has no pieces (ReMATCH: no stack topped by its colours).
    NoPieces,
    /// The seat to move had no legal step.
    Blocked,
    /// The same position with the same side to move occurred for the third time.
    Repetition,
    /// The rules' (or the project's) limit on turns without progress was reached.
    NoProgress,
    /// \[project\] The configurable ply cap was reached: an adjudicated draw.
    PlyCap,
}

/// The result of a finished game.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Outcome {
    /// The winning side, or `None` for a draw.
    pub winner: Option<Side>,
    /// Why the game ended.
    pub reason: EndReason,
}

impl Outcome {
    /// The score for `side`: 1 for a win, ½ for a draw, 0 for a loss.
    pub fn score(&self, side: Side) -> f32 {
        match self.winner {
            None => 0.5,
            Some(w) if w == side => 1.0,
            Some(_) => 0.0,
        }
    }
}

/// Switches for the rules marked \[project\] in `docs/rules.md`. Saved with a trained model
/// (the rules its self-play used), so that play uses the same ones.
///
/// Its default (on, with the one default cap) and [`RulesConfig::for_play`] live with the
/// other settings, in `crate::config::rules`; self-play's cap is the config's
/// `selfplay.ply_cap`, which a checkpoint records and play then follows.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RulesConfig {
    /// Whole turns (plies) after which the game is an adjudicated draw; 0 disables the cap.
    pub ply_cap: u32,
    /// Whether the project's extra draw rules (e.g. HexDame's 50-turn no-progress draw) apply.
    pub project_draws: bool,
}

/// The games this crate knows, by their command-line names.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum GameKind {
    /// ReMATCH, 2 seats: Red against the Team.
    Rematch,
    /// ReMATCH, 3 seats: Red, White player, Orange player (the last two share one side).
    Rematch3,
    /// HexDame: hexagonal international draughts.
    Hexdame,
    /// Eximo: 8x8, friendly jumps, sideways captures, drops.
    Eximo,
}

impl GameKind {
    /// Every game, in a stable order.
    pub const ALL: [GameKind; 4] = [
        GameKind::Rematch,
        GameKind::Rematch3,
        GameKind::Hexdame,
        GameKind::Eximo,
    ];

    /// The command-line name.
    pub fn name(self) -> &'static str {
        self.facts().name
    }
}

impl fmt::Display for GameKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for GameKind {
    type Err = NotationError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        GameKind::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| NotationError::UnknownGame(s.to_string()))
    }
}

/// How a step is written in a turn's path.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum StepKind {
    /// A non-capturing move or a friendly jump: written `-`.
    Move,
    /// A capture: written `x`.
    Capture,
    /// A drop: written `*cell`.
    Drop,
}

/// What a step does, for notation: origin (none for drops), landing cell and kind.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct StepDesc {
    /// The cell the piece leaves (`None` for a drop).
    pub from: Option<Coord>,
    /// The cell the piece lands on (or is dropped on).
    pub to: Coord,
    /// How the step is written.
    pub kind: StepKind,
}

/// One position of one game, with everything its rules need (counters, history, the
/// unfinished part of a turn). Cloning must be cheap: search clones states constantly.
pub trait GameState: Clone + Send + Sync + fmt::Debug + 'static {
    /// The start position of `kind` (which must be a kind this type implements).
    fn start(kind: GameKind, rules: RulesConfig) -> Self;

    /// Parses a position in the notation of `docs/notation.md` (always at a turn boundary).
    fn from_notation(kind: GameKind, text: &str, rules: RulesConfig)
        -> Result<Self, NotationError>;

    /// Writes the position in the notation (only meaningful at a turn boundary).
    fn to_notation(&self) -> String;

    /// Which game this is.
    fn kind(&self) -> GameKind;

    /// The size of the action space: every step is an index below it.
    fn num_actions(&self) -> usize;

    /// How many seats take decisions (2, or 3 in 3-player ReMATCH).
    fn num_seats(&self) -> usize {
        2
    }

    /// The seat whose step it is.
    fn seat_to_move(&self) -> Seat;

    /// The side a seat plays for (by default seat n plays for side n).
    fn side_of(&self, seat: Seat) -> Side {
        Side(seat.0)
    }

    /// The side whose step it is.
    fn side_to_move(&self) -> Side {
        self.side_of(self.seat_to_move())
    }

    /// Fills `out` (cleared first) with the legal steps; empty when the game is over.
    fn legal_steps(&self, out: &mut StepList);

    /// Applies a step that `legal_steps` offered. Behaviour on other actions is unspecified
    /// (it may panic); use [`GameState::try_apply_step`] for untrusted input.
    fn apply_step(&mut self, action: Action);

    /// Applies a step after checking that it is legal.
    fn try_apply_step(&mut self, action: Action) -> Result<(), NotationError> {
        let mut steps = StepList::new();
        self.legal_steps(&mut steps);
        if !steps.contains(&action) {
            return Err(NotationError::IllegalStep(action));
        }
        self.apply_step(action);
        Ok(())
    }

    /// True while a turn is unfinished (mid capture sequence, jump chain or drop phase).
    fn turn_in_progress(&self) -> bool;

    /// The result, once the game is over.
    fn outcome(&self) -> Option<Outcome>;

    /// A hash of what makes two positions the same for repetition and for perft's "distinct
    /// positions": pieces, seat/colour to move, rule state such as ReMATCH's colour due, and
    /// the unfinished part of a turn. Move counters (plies, quiet turns) are left out.
    /// Incrementally maintained where the game allows; must equal a from-scratch recomputation.
    fn position_hash(&self) -> u64;

    /// A key of everything that shapes the rest of the game under the rules (the ply cap
    /// aside, and only at a turn boundary): the position hash plus counters such as
    /// ReMATCH's quiet turns. `None` when the rest of the game also depends on the history
    /// (a repetition rule), so that positions cannot share a table entry (the exact solver's).
    fn future_key(&self) -> Option<u64> {
        None
    }

    /// How the legal step `action` is written, in the current position.
    fn describe_step(&self, action: Action) -> StepDesc;

    /// The material balance for `side`, positive when it is ahead (pieces only, no
    /// positional terms): the evaluation of simple agents such as alpha-beta.
    fn material(&self, side: Side) -> f32;

    /// A drawing of the board for a terminal, with coordinates.
    fn render(&self) -> String;

    /// perft(depth): leaves of the whole-turn tree (children are distinct positions).
    /// Games may override this with a faster generator.
    fn perft(&self, depth: u32) -> u64 {
        turns::perft_generic(self, depth)
    }
}

/// Calls `$body` with `$S` bound to the state type of `$kind`. Lets the CLI and tools stay
/// generic over the games without trait objects.
#[macro_export]
macro_rules! with_game {
    ($kind:expr, $S:ident => $body:expr) => {
        match $kind {
            $crate::game::GameKind::Rematch | $crate::game::GameKind::Rematch3 => {
                type $S = $crate::game::rematch::Rematch;
                $body
            }
            $crate::game::GameKind::Hexdame => {
                type $S = $crate::game::hexdame::HexDame;
                $body
            }
            $crate::game::GameKind::Eximo => {
                type $S = $crate::game::eximo::Eximo;
                $body
            }
        }
    };
}

/// The position `text` gives in the project notation, or the start position when none.
pub fn position<S: GameState>(
    kind: GameKind,
    text: Option<&str>,
    rules: RulesConfig,
) -> Result<S, NotationError> {
    match text {
        Some(text) => S::from_notation(kind, text, rules),
        None => Ok(S::start(kind, rules)),
    }
}
