//! What every part of the program needs to know about a game besides its rules: names of
//! seats and sides, who moves first, the action space, the default net size, notation
//! examples and the recommended match format. One record per [`GameKind`]; every list of
//! games is built from [`GameKind::ALL`], so adding a game means one new record here (and
//! its rules and encoding), not a hunt through `match` arms.

use super::{eximo, hexdame, rematch, GameKind, Seat, Side};

/// The facts of one game (see the module doc).
#[derive(Debug, PartialEq)]
pub struct GameFacts {
    /// The command-line name.
    pub name: &'static str,
    /// One line for help texts.
    pub title: &'static str,
    /// The seats by name, lower case, in seat order (seat 0 first); `play --seat` reads them.
    pub seats: &'static [&'static str],
    /// The sides by name (side 0 first): who wins or loses.
    pub sides: &'static [&'static str],
    /// The side of each seat, in seat order.
    pub seat_sides: &'static [Side],
    /// The seat that moves first in the start position (the rules say who).
    pub first_seat: Seat,
    /// The size of the action space (the policy's outputs).
    pub num_actions: usize,
    /// How an action index decomposes into a step (in the side to move's frame).
    pub action_layout: &'static str,
    /// Residual blocks of the standard net (sized per game by the learning benchmark).
    pub default_blocks: usize,
    /// Channels of the standard net's tower.
    pub default_channels: i64,
    /// A legal first turn in the turn notation, for help texts and docs.
    pub turn_example: &'static str,
    /// The recommended match format, in points: first to this many (`None`: a fixed number
    /// of games).
    pub match_first_to: Option<f64>,
}

const REMATCH_LAYOUT: &str =
    "(from hex x 6 directions x distance 1..4); distance >= 2 is a capture";

const REMATCH: GameFacts = GameFacts {
    name: "rematch",
    title: "ReMATCH, 2 seats: Red against the Team (White and Orange)",
    seats: &["red", "team"],
    sides: &["red", "team"],
    seat_sides: &[Side(0), Side(1)],
    first_seat: Seat(1),
    num_actions: rematch::NUM_ACTIONS,
    action_layout: REMATCH_LAYOUT,
    default_blocks: 4,
    default_channels: 64,
    turn_example: "d3-c3",
    match_first_to: Some(3.0),
};

const REMATCH3: GameFacts = GameFacts {
    name: "rematch3",
    title: "ReMATCH, 3 seats: Red, the White player and the Orange player",
    seats: &["red", "white", "orange"],
    seat_sides: &[Side(0), Side(1), Side(1)],
    ..REMATCH
};

const HEXDAME: GameFacts = GameFacts {
    name: "hexdame",
    title: "HexDame: hexagonal international draughts, White against Red",
    seats: &["white", "red"],
    sides: &["white", "red"],
    seat_sides: &[Side(0), Side(1)],
    first_seat: Seat(0),
    num_actions: hexdame::NUM_ACTIONS,
    action_layout: "(from cell x 6 directions x distance 1..8)",
    // 4x48 learned more per CPU-hour than 6x64 (docs/learning.md, "Net size").
    default_blocks: 4,
    default_channels: 48,
    turn_example: "d4-e5",
    match_first_to: None,
};

const EXIMO: GameFacts = GameFacts {
    name: "eximo",
    title: "Eximo: 8x8, friendly jumps, sideways captures, drops; Black against White",
    seats: &["black", "white"],
    sides: &["black", "white"],
    num_actions: eximo::NUM_ACTIONS,
    action_layout: "(from square x 8 directions x distance 1..2), then 64 drop squares",
    turn_example: "d2-d3",
    // Two seats, one per side, seat 0 first; the standard tower; a fixed number of games.
    ..HEXDAME
};

impl GameKind {
    /// The facts of this game.
    pub fn facts(self) -> &'static GameFacts {
        match self {
            GameKind::Rematch => &REMATCH,
            GameKind::Rematch3 => &REMATCH3,
            GameKind::Hexdame => &HEXDAME,
            GameKind::Eximo => &EXIMO,
        }
    }

    /// The seats by name, lower case, seat 0 first.
    pub fn seat_names(self) -> &'static [&'static str] {
        self.facts().seats
    }

    /// The sides by name, lower case, side 0 first.
    pub fn side_names(self) -> &'static [&'static str] {
        self.facts().sides
    }

    /// How many seats take decisions.
    pub fn num_seats(self) -> usize {
        self.facts().seats.len()
    }

    /// Every game's command-line name, in [`GameKind::ALL`] order, joined by `sep`.
    pub fn names(sep: &str) -> String {
        GameKind::ALL.map(GameKind::name).join(sep)
    }
}

/// `name` with its first letter in upper case, for tables ("red" -> "Red").
pub fn capitalized(name: &str) -> String {
    let mut chars = name.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}
