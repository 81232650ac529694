//! `games show`: replays recorded games as text — the turns in the move notation with the
//! search's values, and the board after each turn.

use std::fmt::Write;

use super::record::{GameRecord, RecordError};
use crate::game::turns::push_step_text;
use crate::game::GameState;
use crate::with_game;

/// Writes one game: a header, each turn (seat, path, the search's value for the mover when
/// recorded) and, with `boards`, the board after every turn; then the result.
pub fn show_game(record: &GameRecord, boards: bool) -> Result<String, RecordError> {
    let kind = record.kind()?;
    with_game!(kind, S => show_typed::<S>(record, boards))
}

fn show_typed<S: GameState>(record: &GameRecord, boards: bool) -> Result<String, RecordError> {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "game: {}  seed: {}  model step: {}  agents: {}",
        record.game,
        record.seed,
        record.model_step,
        if record.agents.is_empty() {
            "-".to_string()
        } else {
            record.agents.join(", ")
        }
    );
    let _ = writeln!(out, "start: {}", record.start);
    let mut state = S::from_notation(record.kind()?, &record.start, record.rules())?;
    if boards {
        out.push_str(&state.render());
    }
    let mut turn = 1;
    let mut path = String::new();
    let mut value = None;
    let mut seat = state.seat_to_move();
    for (i, step) in record.steps.iter().enumerate() {
        if path.is_empty() {
            seat = state.seat_to_move();
            value = step.value;
        }
        let mut legal = Vec::new();
        state.legal_steps(&mut legal);
        if !legal.contains(&step.action) {
            return Err(RecordError::Replay(format!(
                "step {} (action {}) is not legal in {}",
                i + 1,
                step.action,
                state.to_notation()
            )));
        }
        push_step_text(&state, step.action, path.is_empty(), &mut path);
        state.apply_step(step.action);
        if !state.turn_in_progress() || state.outcome().is_some() {
            let shown_value = value
                .map(|v| format!("  value {v:+.2}"))
                .unwrap_or_default();
            let _ = writeln!(out, "{turn:>4}. seat {} {path}{shown_value}", seat.0);
            if boards {
                out.push_str(&state.render());
            }
            path.clear();
            turn += 1;
        }
    }
    if !path.is_empty() {
        let _ = writeln!(out, "{turn:>4}. seat {} {path} (unfinished)", seat.0);
    }
    let result = match record.winner {
        Some(side) => format!("side {side} wins"),
        None => "draw".to_string(),
    };
    let _ = writeln!(
        out,
        "result: {result} ({}){}",
        record.reason,
        if record.played_through {
            "  [played through: resignation off]"
        } else {
            ""
        }
    );
    Ok(out)
}
