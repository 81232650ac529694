//! Seats and points: which agent plays which seat of each game, the side of each seat, and
//! the points a game gives each seat (see the module documentation of [`super`]).

use crate::game::facts::capitalized;
use crate::game::{GameKind, GameState, RulesConfig, Seat, Side};
use crate::with_game;

/// The agent that plays seat `seat` of game `game` (see the module documentation).
pub fn seat_agent(seats: usize, seat: usize, game: u64) -> usize {
    let g = (game % seats as u64) as usize;
    match seats {
        2 => (seat + g) % 2,
        _ => (seat + seats - g) % seats,
    }
}

/// The agents of every seat of game `game`.
pub fn seat_agents(seats: usize, game: u64) -> Vec<usize> {
    (0..seats).map(|s| seat_agent(seats, s, game)).collect()
}

/// The side of each seat of `kind`.
pub fn seat_sides(kind: GameKind) -> Vec<Side> {
    with_game!(kind, S => {
        let state = S::start(kind, RulesConfig::default());
        (0..state.num_seats()).map(|s| state.side_of(Seat(s as u8))).collect()
    })
}

/// The score of `side` when `winner` won (`None`: a draw).
pub(super) fn side_score(winner: Option<u8>, side: Side) -> f64 {
    match winner {
        None => 0.5,
        Some(w) if w == side.0 => 1.0,
        Some(_) => 0.0,
    }
}

/// Points of each seat for a game won by `winner`: its side's score shared equally by the
/// seats of that side.
pub fn seat_points(sides: &[Side], winner: Option<u8>) -> Vec<f64> {
    sides
        .iter()
        .map(|&side| {
            let members = sides.iter().filter(|&&s| s == side).count() as f64;
            side_score(winner, side) / members
        })
        .collect()
}

/// Names of the seats of `kind`, for tables.
pub fn seat_names(kind: GameKind) -> Vec<String> {
    kind.seat_names().iter().map(|n| capitalized(n)).collect()
}
