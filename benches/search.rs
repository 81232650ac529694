//! Search cost per simulation with a free evaluator (uniform priors, value 0): simulations
//! per second on one core, the overhead the search adds to every net evaluation.
//! `cargo bench --bench search`
use std::time::Instant;

use checkers_zero::game::{GameKind, GameState, RulesConfig, StepList};
use checkers_zero::search::mcts::{run_simulations, Mcts, MctsConfig, UniformEvaluator};
use checkers_zero::with_game;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn main() {
    let simulations = 800;
    for kind in GameKind::ALL {
        with_game!(kind, S => {
            // 64 trees searched together (as a self-play worker runs them), from positions
            // 0..40 plies into random games.
            let mut rng = StdRng::seed_from_u64(1);
            let mut steps = StepList::new();
            let mut trees: Vec<Mcts<S>> = (0..64)
                .map(|_| {
                    let mut s = S::start(kind, RulesConfig::default());
                    for _ in 0..rng.gen_range(0..40) {
                        s.legal_steps(&mut steps);
                        if steps.is_empty() {
                            break;
                        }
                        s.apply_step(steps[rng.gen_range(0..steps.len())]);
                    }
                    if s.outcome().is_some() {
                        s = S::start(kind, RulesConfig::default());
                    }
                    Mcts::new(s, MctsConfig::default())
                })
                .collect();
            let start = Instant::now();
            let mut refs: Vec<&mut Mcts<S>> = trees.iter_mut().collect();
            run_simulations(&mut refs, &mut UniformEvaluator, simulations);
            let seconds = start.elapsed().as_secs_f64();
            let total = (simulations as usize * trees.len()) as f64;
            println!(
                "search {:<8} {} trees x {simulations} simulations: {:>9.0} simulations/s on one core ({:.2} us each)",
                kind.name(),
                trees.len(),
                total / seconds,
                1e6 * seconds / total
            );
        });
    }
}
