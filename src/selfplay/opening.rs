//! How a self-play game opens (`selfplay.opening_random_turns`, `balanced_openings`): a
//! number of uniformly random whole turns drawn from 0 to N, unsearched and not training
//! samples (lc0's random opening plies). With a balance check, the draw is repeated while a
//! shallow material search calls the position decided (the generator of the opening suites,
//! [`Balance`]), or while it is a position of the game's shipped evaluation suite: the
//! ladder's and `bench-fork`'s openings stay positions self-play never opened on.

use std::collections::HashSet;

use rand::Rng;

use super::record::GameRecord;
use crate::config::decided::DecidedCheck;
use crate::game::{GameKind, GameState, RulesConfig};
use crate::search::agents::Balance;
use crate::with_game;

/// Draws of a balanced opening before a game opens from the start position instead.
const DRAWS: u32 = 16;

/// The shipped evaluation suite of `kind` (`openings/<game>.txt`), built into the binary so
/// that a worker anywhere avoids it.
fn shipped_suite(kind: GameKind) -> &'static str {
    match kind {
        GameKind::Rematch => include_str!("../../openings/rematch.txt"),
        GameKind::Rematch3 => include_str!("../../openings/rematch3.txt"),
        GameKind::Hexdame => include_str!("../../openings/hexdame.txt"),
        GameKind::Eximo => include_str!("../../openings/eximo.txt"),
    }
}

/// How the games of a run open.
#[derive(Clone, Debug)]
pub struct OpeningDraw {
    /// Random whole turns: from 0 to this.
    turns: u32,
    /// With `balanced_openings`: the check, and the suite positions' hashes avoided.
    balanced: Option<(Balance, HashSet<u64>)>,
}

impl OpeningDraw {
    /// The openings of `kind` under `rules`: 0..=`turns` random turns, drawn again while
    /// `check` calls them decided.
    pub fn new(kind: GameKind, rules: RulesConfig, turns: u32, check: DecidedCheck) -> Self {
        if turns == 0 || check == DecidedCheck::None {
            return OpeningDraw {
                turns,
                balanced: None,
            };
        }
        with_game!(kind, S => OpeningDraw {
            turns,
            balanced: Some((Balance::new(&S::start(kind, rules), check), suite_hashes::<S>(kind, rules))),
        })
    }

    /// Plays the opening on `state` and `record` (a game's start): returns the whole turns
    /// played. Without a check this draws from `rng` exactly as a plain random opening.
    pub fn open<S: GameState>(
        &self,
        state: &mut S,
        record: &mut GameRecord,
        rng: &mut impl Rng,
    ) -> u32 {
        if self.turns == 0 {
            return 0;
        }
        let Some((balance, avoided)) = &self.balanced else {
            let turns = rng.gen_range(0..=self.turns);
            return record.play_random_turns(state, turns, rng);
        };
        for _ in 0..DRAWS {
            let (mut drawn, mut drawn_record) = (state.clone(), record.clone());
            let turns = rng.gen_range(0..=self.turns);
            let played = drawn_record.play_random_turns(&mut drawn, turns, rng);
            let kept = drawn.outcome().is_none()
                && !avoided.contains(&drawn.position_hash())
                && !balance.decided(&drawn);
            if kept {
                (*state, *record) = (drawn, drawn_record);
                return played;
            }
        }
        0
    }
}

/// The position hashes of the shipped suite of `kind`.
fn suite_hashes<S: GameState>(kind: GameKind, rules: RulesConfig) -> HashSet<u64> {
    shipped_suite(kind)
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .filter_map(|line| S::from_notation(kind, line, rules).ok())
        .map(|state| state.position_hash())
        .collect()
}

#[cfg(test)]
mod tests {
    use rand::rngs::StdRng;
    use rand::SeedableRng;

    use super::*;
    use crate::game::rematch::Rematch;

    fn opened(draw: &OpeningDraw, seed: u64) -> (Rematch, GameRecord, u32) {
        let rules = RulesConfig::default();
        let mut state = Rematch::start(GameKind::Rematch, rules);
        let mut record = GameRecord::new(&state, rules, seed, 0);
        let turns = draw.open(&mut state, &mut record, &mut StdRng::seed_from_u64(seed));
        (state, record, turns)
    }

    #[test]
    fn without_a_check_the_opening_is_the_plain_random_one() {
        let draw = OpeningDraw::new(
            GameKind::Rematch,
            RulesConfig::default(),
            4,
            DecidedCheck::None,
        );
        for seed in 0..20 {
            let (state, record, turns) = opened(&draw, seed);
            let rules = RulesConfig::default();
            let mut rng = StdRng::seed_from_u64(seed);
            let mut plain = Rematch::start(GameKind::Rematch, rules);
            let mut plain_record = GameRecord::new(&plain, rules, seed, 0);
            let want = rng.gen_range(0..=4);
            assert_eq!(
                turns,
                plain_record.play_random_turns(&mut plain, want, &mut rng)
            );
            assert_eq!(state.to_notation(), plain.to_notation());
            assert_eq!(record, plain_record);
        }
    }

    #[test]
    fn balanced_openings_are_undecided_and_never_a_suite_position() {
        let check = DecidedCheck::AlphaBeta {
            depth: 2,
            margin: 2.0,
        };
        let rules = RulesConfig::default();
        let draw = OpeningDraw::new(GameKind::Rematch, rules, 6, check);
        let (balance, avoided) = draw.balanced.clone().unwrap();
        assert_eq!(avoided.len(), 600, "every position of openings/rematch.txt");
        let mut deep = 0;
        for seed in 0..60 {
            let (state, record, turns) = opened(&draw, seed);
            assert!(state.outcome().is_none());
            assert!(
                !balance.decided(&state),
                "seed {seed}: {}",
                state.to_notation()
            );
            assert!(!avoided.contains(&state.position_hash()));
            let end: Rematch = record.replay(|_: &Rematch, _| {}).unwrap();
            assert_eq!(end.to_notation(), state.to_notation());
            deep += usize::from(turns == 6);
        }
        assert!(deep > 0, "six-turn openings are kept too");
    }

    #[test]
    fn a_suite_position_is_drawn_again() {
        let rules = RulesConfig::default();
        // Avoid every position: no draw is kept, the game opens from the start.
        let check = DecidedCheck::AlphaBeta {
            depth: 1,
            margin: 100.0,
        };
        let mut draw = OpeningDraw::new(GameKind::Rematch, rules, 1, check);
        let start = Rematch::start(GameKind::Rematch, rules);
        let mut all = suite_hashes::<Rematch>(GameKind::Rematch, rules);
        let mut legal = crate::game::StepList::new();
        start.legal_steps(&mut legal);
        for &step in &legal {
            let mut after = start;
            after.apply_step(step);
            all.insert(after.position_hash());
        }
        all.insert(start.position_hash());
        draw.balanced.as_mut().unwrap().1 = all;
        let (state, record, turns) = opened(&draw, 3);
        assert_eq!(turns, 0);
        assert!(record.steps.is_empty());
        assert_eq!(state.to_notation(), start.to_notation());
    }
}
