//! What the page says to people, in words: results and their reasons, who is to move
//! (with the colour due in ReMATCH), and numbers with thousands separators for limits.

use crate::game::facts::capitalized;
use crate::game::{EndReason, GameKind, GameState, Outcome, Side};

/// `n` with commas between thousands: `100,000`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A side's name for a sentence ("Red", "Team").
pub fn side_name(kind: GameKind, side: Side) -> String {
    capitalized(kind.side_names().get(side.0 as usize).unwrap_or(&"?"))
}

/// Why a game ended, in words; `loser` is the side that lost, if one did.
pub fn reason_words(kind: GameKind, reason: &str, loser: Option<Side>) -> String {
    let loser = loser.map_or_else(|| "the side to move".to_string(), |s| side_name(kind, s));
    match reason {
        "NoPieces" => format!("{loser} has no pieces left"),
        "Blocked" => format!("{loser} has no legal move"),
        "Repetition" => "the same position came up a third time".into(),
        "NoProgress" => "the limit of turns without progress was reached".into(),
        "PlyCap" => "the limit on the number of turns was reached".into(),
        "Resigned" => format!("{loser} resigned"),
        "" => "the game was not finished".into(),
        other => other.to_string(),
    }
}

/// A result in words: "Red wins: Team has no pieces left", "Draw: ...".
pub fn result_words(kind: GameKind, winner: Option<Side>, reason: &str) -> String {
    let why = reason_words(kind, reason, winner.map(Side::opponent));
    match winner {
        Some(side) => format!("{} wins: {why}", side_name(kind, side)),
        None if reason.is_empty() => "Unfinished".into(),
        None => format!("Draw: {why}"),
    }
}

/// A finished game's outcome in words.
pub fn outcome_words(kind: GameKind, outcome: &Outcome) -> String {
    let reason = match outcome.reason {
        EndReason::NoPieces => "NoPieces",
        EndReason::Blocked => "Blocked",
        EndReason::Repetition => "Repetition",
        EndReason::NoProgress => "NoProgress",
        EndReason::PlyCap => "PlyCap",
    };
    result_words(kind, outcome.winner, reason)
}

/// Who is to move, in words: the seat, and in ReMATCH the colour it moves ("Team to move
/// (White)") or, when Red moves, the Team colour due next.
pub fn mover_words<S: GameState>(state: &S) -> String {
    let kind = state.kind();
    let seat = state.seat_to_move();
    let name = capitalized(kind.seat_names().get(seat.0 as usize).unwrap_or(&"?"));
    if kind != GameKind::Rematch && kind != GameKind::Rematch3 {
        return format!("{name} to move");
    }
    let notation = state.to_notation();
    let colour = notation.split(' ').next().unwrap_or("");
    if colour != "red" {
        return match kind {
            GameKind::Rematch => format!("{name} to move ({})", capitalized(colour)),
            _ => format!("{name} to move"),
        };
    }
    let due = if notation.contains(" team=orange") {
        "Orange"
    } else {
        "White"
    };
    format!("{name} to move (then {due} for the Team)")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::rematch::Rematch;
    use crate::game::RulesConfig;

    #[test]
    fn numbers_results_and_movers_read_as_words() {
        assert_eq!(thousands(100_000), "100,000");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(
            result_words(GameKind::Rematch, Some(Side(0)), "NoPieces"),
            "Red wins: Team has no pieces left"
        );
        assert_eq!(
            result_words(GameKind::Hexdame, None, "NoProgress"),
            "Draw: the limit of turns without progress was reached"
        );
        let start = Rematch::start(GameKind::Rematch, RulesConfig::default());
        assert_eq!(mover_words(&start), "Team to move (White)");
        let red = Rematch::from_notation(
            GameKind::Rematch,
            "red a1:R a2:R b1:R b2:R b4:O c4:O c5:O d2:W d3:W e3:W e4:W e5:O team=orange",
            RulesConfig::default(),
        )
        .unwrap();
        assert_eq!(mover_words(&red), "Red to move (then Orange for the Team)");
    }
}
