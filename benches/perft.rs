//! perft speed: leaf positions per second on one thread, distinct-position dedup included.
//! `cargo bench --bench perft [-- GAME...]`
use std::time::Instant;

use checkers_zero::game::{GameKind, GameState, RulesConfig};
use checkers_zero::with_game;

/// The depths measured per game: deep enough to run for a second or more.
fn depths(kind: GameKind) -> &'static [u32] {
    match kind {
        GameKind::Hexdame => &[5, 6],
        GameKind::Rematch | GameKind::Rematch3 => &[8, 9],
        GameKind::Eximo => &[5, 6],
    }
}

fn main() {
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    for kind in GameKind::ALL {
        if !filter.is_empty() && !filter.iter().any(|f| f == kind.name()) {
            continue;
        }
        with_game!(kind, S => {
            let state = S::start(kind, RulesConfig::default());
            for &depth in depths(kind) {
                let start = Instant::now();
                let leaves = state.perft(depth);
                let seconds = start.elapsed().as_secs_f64();
                println!(
                    "perft {:<8} depth {depth}: {leaves:>12} leaves in {seconds:>7.3} s = {:>7.2} M leaves/s",
                    kind.name(),
                    leaves as f64 / seconds / 1e6
                );
            }
        });
    }
}
