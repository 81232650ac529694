//! Proven value targets (lc0 rescores its training games with endgame tablebases; here the
//! exact solver plays the tablebase): after a game ends, its searched positions are tried
//! from the end backwards, each with a small node budget, and those the solver proves get
//! their proven class as value target (`StepRecord::proven`). The walk stops at the first
//! position it cannot prove, since earlier ones are further from the end.

use std::collections::VecDeque;

use super::record::{GameRecord, RecordError};
use crate::game::GameState;
use crate::search::solve::quick_proof;

/// The most positions tried per game (the last ones searched in full).
pub const MAX_TRIED: usize = 24;

/// Labels the game's last fully searched positions (at turn boundaries) that the solver
/// proves within `nodes` each, newest first, until one is not proven; returns how many
/// were labelled. A record that does not replay is an error and is left unchanged.
pub fn label_proven<S: GameState>(
    record: &mut GameRecord,
    nodes: u64,
) -> Result<usize, RecordError> {
    let mut tried: VecDeque<(usize, S)> = VecDeque::with_capacity(MAX_TRIED);
    let mut index = 0;
    record.replay::<S>(|state, step| {
        if !step.target.is_empty() && !state.turn_in_progress() {
            if tried.len() == MAX_TRIED {
                tried.pop_front();
            }
            tried.push_back((index, state.clone()));
        }
        index += 1;
    })?;
    let mut labelled = 0;
    for (i, state) in tried.iter().rev() {
        let class = quick_proof(state, nodes)
            .map_err(|e| RecordError::Replay(e.to_string()))?
            .and_then(|proven| proven.class());
        let Some(class) = class else {
            break;
        };
        record.steps[*i].proven = Some(class);
        labelled += 1;
    }
    Ok(labelled)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::rematch::Rematch;
    use crate::game::{GameKind, RulesConfig, StepList};
    use crate::search::solve::solve_position;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    /// A random ReMATCH game with every step searched in full.
    fn searched_game(seed: u64) -> GameRecord {
        let rules = RulesConfig::default();
        let mut state = Rematch::start(GameKind::Rematch, rules);
        let mut record = GameRecord::new(&state, rules, seed, 0);
        let mut rng = StdRng::seed_from_u64(seed);
        let mut legal = StepList::new();
        while state.outcome().is_none() {
            state.legal_steps(&mut legal);
            let action = legal[rng.gen_range(0..legal.len())];
            record.play_unsearched(&mut state, action);
            record.steps.last_mut().unwrap().target = vec![(action, 1.0)];
        }
        let outcome = state.outcome().unwrap();
        record.finish(outcome.winner, outcome.reason);
        record
    }

    #[test]
    fn the_last_positions_get_the_solvers_class_newest_first() {
        let mut labelled_games = 0;
        for seed in 0..6 {
            let mut record = searched_game(seed);
            let labelled = label_proven::<Rematch>(&mut record, 5_000).unwrap();
            let marks: Vec<usize> = (0..record.steps.len())
                .filter(|&i| record.steps[i].proven.is_some())
                .collect();
            assert_eq!(marks.len(), labelled);
            labelled_games += usize::from(labelled > 0);
            // Each label is the solver's own class of that position.
            let mut i = 0;
            record
                .replay::<Rematch>(|state, step| {
                    if let Some(class) = step.proven {
                        let value = solve_position(state, 5_000).unwrap().position;
                        assert_eq!(value.class(), Some(class), "seed {seed} step {i}");
                    }
                    i += 1;
                })
                .unwrap();
        }
        assert!(labelled_games > 0, "random games end in provable positions");
    }
}
