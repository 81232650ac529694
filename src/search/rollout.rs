//! Random playouts: the value of a finished game for each side, and a uniformly random game
//! played out to its end. The `uct:N` agent evaluates its leaves by one playout; a net search
//! with `search.rollouts` mixes the mean of that many into the net's value (AlphaGo's mixed
//! leaf evaluation).

use rand::Rng;

use crate::game::{GameState, Side, StepList};

/// The value of an outcome for each side, in [-1, 1].
pub fn terminal_values<S: GameState>(state: &S) -> Option<[f32; 2]> {
    state
        .outcome()
        .map(|o| [0, 1].map(|s| 2.0 * o.score(Side(s)) - 1.0))
}

/// Plays uniformly random steps from `state` to the end of the game; the result for each
/// side in [-1, 1].
pub fn random_playout<S: GameState>(state: &S, rng: &mut impl Rng) -> [f32; 2] {
    let mut state = state.clone();
    let mut steps = StepList::new();
    loop {
        if let Some(values) = terminal_values(&state) {
            return values;
        }
        state.legal_steps(&mut steps);
        let step = steps[rng.gen_range(0..steps.len())];
        state.apply_step(step);
    }
}

/// The mean result of `playouts` random playouts from `state` for the side to move there.
pub fn playout_mean<S: GameState>(state: &S, playouts: u32, rng: &mut impl Rng) -> f32 {
    let side = state.side_to_move().0 as usize;
    let sum: f32 = (0..playouts)
        .map(|_| random_playout(state, rng)[side])
        .sum();
    sum / playouts.max(1) as f32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{rematch::Rematch, GameKind, GameState, RulesConfig};
    use rand::rngs::StdRng;
    use rand::SeedableRng;

    #[test]
    fn playouts_end_the_game_and_score_it_for_both_sides() {
        let start = Rematch::start(GameKind::Rematch, RulesConfig::default());
        let mut rng = StdRng::seed_from_u64(3);
        for _ in 0..50 {
            let [a, b] = random_playout(&start, &mut rng);
            assert!([-1.0, 0.0, 1.0].contains(&a) && a == -b, "{a} {b}");
        }
        let mean = playout_mean(&start, 16, &mut rng);
        assert!((-1.0..=1.0).contains(&mean), "{mean}");
    }
}
