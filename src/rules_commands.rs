//! The rules-core commands behind the CLI (`perft`, `moves`, `show`, `solve`), as library
//! functions so that tests and other tools call exactly what the binary runs.

use std::io::Write;

use crate::game::{position, GameKind, GameState, NotationError, RulesConfig};
use crate::search::solve::{solve_position, RULES_ALONE};
use crate::with_game;

/// Writes `<d> <count>` for each depth d in 1..=depth, each line as soon as it is known.
pub fn perft(
    kind: GameKind,
    text: Option<&str>,
    depth: u32,
    out: &mut impl Write,
) -> Result<(), anyhow::Error> {
    with_game!(kind, S => {
        let state: S = position(kind, text, RulesConfig::default())?;
        for d in 1..=depth {
            writeln!(out, "{d} {}", state.perft(d))?;
            out.flush()?;
        }
    });
    Ok(())
}

/// The legal whole turns, one per distinct resulting position (its smallest path), sorted.
pub fn moves(kind: GameKind, text: Option<&str>) -> Result<Vec<String>, NotationError> {
    crate::game::turns::turn_paths(kind, text, RulesConfig::default())
}

/// The board drawn for a terminal, followed by the position's notation and any result.
pub fn show(kind: GameKind, text: Option<&str>) -> Result<String, NotationError> {
    with_game!(kind, S => {
        let state: S = position(kind, text, RulesConfig::default())?;
        let mut shown = state.render();
        shown.push_str(&format!("position: {}\n", state.to_notation()));
        if let Some(outcome) = state.outcome() {
            shown.push_str(&format!("game over: {outcome:?}\n"));
        }
        Ok(shown)
    })
}

/// `solve`: one line `TURN VALUE` per legal turn (as `moves` writes them), then
/// `position VALUE`, the values proven with at most `nodes` expanded positions, by the rules
/// alone (no ply cap), from the view of the side to move at the position (the start
/// position when `text` is `None`).
pub fn solve(kind: GameKind, text: Option<&str>, nodes: u64) -> Result<Vec<String>, NotationError> {
    with_game!(kind, S => {
        let state: S = position(kind, text, RULES_ALONE)?;
        let solution = solve_position(&state, nodes)?;
        let mut lines: Vec<String> = solution
            .turns
            .iter()
            .map(|(turn, value)| format!("{} {value}", turn.path))
            .collect();
        lines.push(format!("position {}", solution.position));
        Ok(lines)
    })
}
