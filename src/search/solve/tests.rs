//! The solver against a plain exhaustive minimax (no pruning, no table) written here.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::*;
use crate::game::eximo::Eximo;
use crate::game::rematch::Rematch;
use crate::game::{GameKind, StepList};

/// The rank of an exact value: a quicker win higher, then a draw, then a longer loss.
fn rank(v: Proven) -> Option<i64> {
    match v {
        Proven::Win(Some(n)) => Some(1_000 - n as i64),
        Proven::Draw => Some(0),
        Proven::Loss(Some(n)) => Some(n as i64 - 1_000),
        _ => None,
    }
}

/// The exact value of a rank.
fn value_of(rank: i64) -> Proven {
    match rank {
        r if r > 0 => Proven::Win(Some((1_000 - r) as u32)),
        0 => Proven::Draw,
        r => Proven::Loss(Some((r + 1_000) as u32)),
    }
}

/// A child's rank seen from its parent, one turn earlier.
fn parent_rank(child: i64, same_side: bool) -> i64 {
    let r = if same_side { child } else { -child };
    r - r.signum()
}

/// Plain minimax over whole turns, no pruning, no table: the bounds (lo, hi) of the rank,
/// where a position `depth` turns away is not searched (neither won nor lost at once).
fn minimax<S: GameState>(state: &S, depth: u32) -> (i64, i64) {
    if let Some(outcome) = state.outcome() {
        let r = match outcome.winner {
            None => 0,
            Some(w) if w == state.side_to_move() => 1_000,
            Some(_) => -1_000,
        };
        return (r, r);
    }
    if depth == 0 {
        return (-999, 999);
    }
    let (mut lo, mut hi) = (i64::MIN, i64::MIN);
    for turn in distinct_turns(state) {
        let same = turn.state.side_to_move() == state.side_to_move();
        let (clo, chi) = minimax(&turn.state, depth - 1);
        let (plo, phi) = if same {
            (parent_rank(clo, true), parent_rank(chi, true))
        } else {
            (parent_rank(chi, false), parent_rank(clo, false))
        };
        lo = lo.max(plo);
        hi = hi.max(phi);
    }
    (lo, hi)
}

/// Checks a solver value against minimax's bounds: equal where minimax is exact, within
/// the bounds where the solver is; true when minimax was exact.
fn check_value(value: Proven, (lo, hi): (i64, i64), at: &str) -> bool {
    if lo == hi {
        assert_eq!(value, value_of(lo), "{at}");
    } else if let Some(r) = rank(value) {
        assert!(
            lo <= r && r <= hi,
            "{at}: {value} outside minimax's [{lo}, {hi}]"
        );
    }
    lo == hi
}

/// Compares the solver's values (position and turns) with minimax to `depth`; the number
/// of values minimax had exact.
fn agrees_with_minimax<S: GameState>(state: &S, depth: u32) -> usize {
    let state = under_rules_alone(state).unwrap();
    let solution = solve_position(&state, 20_000).unwrap();
    let at = state.to_notation();
    let mut exact = usize::from(check_value(solution.position, minimax(&state, depth), &at));
    for (turn, value) in &solution.turns {
        let same = turn.state.side_to_move() == state.side_to_move();
        let (clo, chi) = minimax(&turn.state, depth - 1);
        let bounds = if same {
            (parent_rank(clo, true), parent_rank(chi, true))
        } else {
            (parent_rank(chi, false), parent_rank(clo, false))
        };
        exact += usize::from(check_value(*value, bounds, &format!("{at}: {}", turn.path)));
    }
    exact
}

/// The positions at turn boundaries of one random game from the start, the last first.
fn random_game<S: GameState>(kind: GameKind, seed: u64) -> Vec<S> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut state = S::start(kind, RulesConfig::default());
    let mut positions = vec![state.clone()];
    let mut steps = StepList::new();
    while state.outcome().is_none() {
        state.legal_steps(&mut steps);
        state.apply_step(steps[rng.gen_range(0..steps.len())]);
        if !state.turn_in_progress() {
            positions.push(state.clone());
        }
    }
    positions.reverse();
    positions
}

fn late_positions_agree<S: GameState>(kind: GameKind, games: u64) -> usize {
    let mut compared = 0;
    for seed in 0..games {
        for state in random_game::<S>(kind, seed).iter().take(6) {
            compared += agrees_with_minimax(state, 3);
        }
    }
    compared
}

#[test]
fn late_positions_of_random_games_agree_with_minimax() {
    let rematch = late_positions_agree::<Rematch>(GameKind::Rematch, 8);
    let eximo = late_positions_agree::<Eximo>(GameKind::Eximo, 4);
    // Values minimax to 3 turns has exact (the rest are checked against its bounds).
    assert_eq!((rematch, eximo), (45, 50));
}

#[test]
fn small_endgames_agree_with_minimax() {
    let positions = [
        "red a1:RRRR c1:WWWW e5:OOOO quiet=37",
        "white a1:RRRR c1:WWWW e5:OOOO quiet=37",
        "red a1:WWWOOOR c3:RRRW e5:O quiet=38",
        "white a1:RRRR c2:OOOW e4:WWWO quiet=37",
        "red c3:WWWR b2:RRRW d4:OOOO quiet=35",
        "red e3:RRRR a1:WWWW c5:OOOO quiet=36",
        "red a1:WWWOOOOR c3:RRRW",
        "white a1:WWWOOOOR c3:RRRW",
        "white b2:WWWOOOOR c3:RRRW",
    ];
    let mut exact = 0;
    for text in positions {
        let state = Rematch::from_notation(GameKind::Rematch, text, RULES_ALONE).unwrap();
        exact += agrees_with_minimax(&state, 4);
    }
    // Values minimax to 4 turns has exact (the rest are checked against its bounds).
    assert_eq!(exact, 20);
}

#[test]
fn a_hand_made_position_has_its_exact_lines() {
    // Red's flying capture a1xd4 takes the Team's last top; after a1-b2 White takes Red's
    // only top with c3xa1.
    let text = "red a1:WWWOOOOR c3:RRRW";
    let state = Rematch::from_notation(GameKind::Rematch, text, RULES_ALONE).unwrap();
    let solution = solve_position(&state, 100_000).unwrap();
    assert_eq!(solution.position, Proven::Win(Some(1)));
    let value = |path: &str| {
        solution
            .turns
            .iter()
            .find(|(t, _)| t.path == path)
            .unwrap()
            .1
    };
    let paths: Vec<&str> = solution
        .turns
        .iter()
        .map(|(t, _)| t.path.as_str())
        .collect();
    assert_eq!(paths, ["a1-a2", "a1-b1", "a1-b2", "a1xd4"]);
    assert_eq!(value("a1xd4"), Proven::Win(Some(1)));
    assert_eq!(value("a1-b2"), Proven::Loss(Some(2)));
}

#[test]
fn a_finished_position_is_lost_or_drawn() {
    let lost =
        Rematch::from_notation(GameKind::Rematch, "white a1:WWWWOOOORRRR", RULES_ALONE).unwrap();
    let solution = solve_position(&lost, 100).unwrap();
    assert_eq!(solution.position, Proven::Loss(Some(0)));
    assert!(solution.turns.is_empty());
    assert_eq!(solution.nodes_used, 0);
    let drawn = "red a1:RRRR c3:WWWW e5:OOOO quiet=40";
    let drawn = Rematch::from_notation(GameKind::Rematch, drawn, RULES_ALONE).unwrap();
    assert_eq!(solve_position(&drawn, 100).unwrap().position, Proven::Draw);
}

#[test]
fn a_budget_too_small_gives_unknown() {
    let start = Rematch::start(GameKind::Rematch, RulesConfig::default());
    let solution = solve_position(&start, 50).unwrap();
    assert_eq!(solution.position, Proven::Unknown);
    assert!(solution.nodes_used <= 50);
    assert!(solution.turns.iter().all(|(_, v)| *v == Proven::Unknown));
}

#[test]
fn values_read_back() {
    let values = [
        Proven::Win(Some(3)),
        Proven::Win(None),
        Proven::Loss(Some(0)),
        Proven::Loss(None),
        Proven::Draw,
        Proven::DrawOrWin,
        Proven::DrawOrLoss,
        Proven::Unknown,
    ];
    for v in values {
        assert_eq!(v.to_string().parse::<Proven>(), Ok(v));
    }
    for bad in ["", "win", "win -1", "loss x", "draw or", "victory 2"] {
        assert_eq!(bad.parse::<Proven>(), Err(BadValue(bad.to_string())));
    }
}

#[test]
fn a_quick_proof_gives_only_proven_classes() {
    let won = Rematch::from_notation(GameKind::Rematch, "red a1:WWWOOOOR c3:RRRW", RULES_ALONE);
    assert_eq!(
        quick_proof(&won.unwrap(), 10_000),
        Ok(Some(Proven::Win(Some(1))))
    );
    let start = Rematch::start(GameKind::Rematch, RulesConfig::default());
    assert_eq!(quick_proof(&start, 1_000), Ok(None));
}

#[test]
fn proven_values_read_in_words_and_flip_sides() {
    assert_eq!(Proven::Win(Some(13)).in_words(), "win in 13 turns");
    assert_eq!(Proven::Loss(Some(1)).in_words(), "loss in 1 turn");
    assert_eq!(Proven::Win(None).in_words(), "win");
    assert_eq!(Proven::DrawOrWin.in_words(), "at least a draw");
    assert_eq!(Proven::Win(Some(3)).flipped(), Proven::Loss(Some(3)));
    assert_eq!(Proven::DrawOrLoss.flipped(), Proven::DrawOrWin);
    assert_eq!(Proven::Draw.flipped(), Proven::Draw);
}
