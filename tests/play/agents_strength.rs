//! Strength of the baseline agents: rollout UCT with 1,000 playouts against uniform random,
//! 40 games per game name (sides alternated), must score at least 90%.
use checkers_zero::game::{GameKind, GameState, RulesConfig, Side};
use checkers_zero::search::agents::{rollout_uct, Agent, RandomAgent};
use checkers_zero::with_game;
use rayon::prelude::*;

/// Plays one game with UCT on `uct_side` (every seat of that side); returns its score.
fn play<S: GameState>(kind: GameKind, uct_side: Side, seed: u64) -> f32 {
    let mut state = S::start(kind, RulesConfig::default());
    let mut uct = rollout_uct(1000, seed);
    let mut random = RandomAgent::new(seed ^ 0x5eed);
    while state.outcome().is_none() {
        let step = if state.side_to_move() == uct_side {
            Agent::<S>::choose(&mut uct, &state).unwrap()
        } else {
            Agent::<S>::choose(&mut random, &state).unwrap()
        };
        state.apply_step(step);
    }
    state.outcome().unwrap().score(uct_side)
}

#[test]
fn rollout_uct_beats_random_in_every_game() {
    for kind in GameKind::ALL {
        let games = 40u64;
        let score: f32 = (0..games)
            .into_par_iter()
            .map(|g| with_game!(kind, S => play::<S>(kind, Side((g % 2) as u8), 1000 + g)))
            .sum();
        let share = score / games as f32;
        println!("{kind}: uct:1000 scored {score} / {games} against random");
        assert!(
            share >= 0.9,
            "{kind}: uct:1000 scored only {share:.2} against random"
        );
    }
}
