//! Positions of random playouts, for the tests that need many varied positions of a game.

use checkers_zero::game::{GameKind, GameState, RulesConfig, StepList};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Which positions of a playout are kept.
#[derive(Clone, Copy, Debug)]
pub enum Keep {
    /// Each position with this probability, mid-turn ones included.
    Any(f64),
    /// Every mid-turn position and every game's end, and each other position between turns
    /// with this probability.
    MidTurnAnd(f64),
    /// Only positions between turns, each with this probability.
    BetweenTurns(f64),
}

/// `count` positions of `kind` under `rules`, from random playouts (every step drawn
/// uniformly) from the start seeded by `seed`, kept as `keep` says, in playout order; only
/// [`Keep::MidTurnAnd`] keeps finished ones.
pub fn random_positions<S: GameState>(
    kind: GameKind,
    rules: RulesConfig,
    count: usize,
    seed: u64,
    keep: Keep,
) -> Vec<S> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(count);
    let mut steps = StepList::new();
    while out.len() < count {
        let mut state = S::start(kind, rules);
        while state.outcome().is_none() && out.len() < count {
            let mid_turn = state.turn_in_progress();
            let kept = match keep {
                Keep::Any(share) => rng.gen_bool(share),
                Keep::MidTurnAnd(share) => mid_turn || rng.gen_bool(share),
                Keep::BetweenTurns(share) => !mid_turn && rng.gen_bool(share),
            };
            if kept {
                out.push(state.clone());
            }
            state.legal_steps(&mut steps);
            assert!(!steps.is_empty(), "{kind}: no legal step but no outcome");
            state.apply_step(steps[rng.gen_range(0..steps.len())]);
        }
        if matches!(keep, Keep::MidTurnAnd(_)) && out.len() < count {
            out.push(state);
        }
    }
    out
}
