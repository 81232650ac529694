//! Reanalyse (MuZero Reanalyse, Schrittwieser et al. 2021): a share of self-play's game
//! slots re-search the positions of a recent game with the newest net instead of playing a
//! new game. The game's steps and result stay; the policy targets and search values at its
//! fully searched positions are recomputed, and the game goes to the trainer again as a
//! record marked `reanalysed`.
//!
//! A fresh target this way costs one full search (about `search.visits` net calls), against
//! a full search plus the fast searches between samples for one from a new game.

use std::collections::VecDeque;
use std::sync::Arc;

use rand::Rng;

use super::record::{GameRecord, RecordError};
use crate::game::{Action, GameState};
use crate::search::tree::Mcts;

/// The newest games this process finished (not reanalysed ones), the pool reanalysis
/// draws from.
#[derive(Debug, Default)]
pub struct RecentGames {
    games: VecDeque<Arc<GameRecord>>,
    capacity: usize,
}

impl RecentGames {
    /// An empty pool of at most `capacity` games.
    pub fn new(capacity: usize) -> RecentGames {
        RecentGames {
            games: VecDeque::with_capacity(capacity.min(4096)),
            capacity,
        }
    }

    /// Takes in a finished game (dropping the oldest when full). Games without a fully
    /// searched position have nothing to reanalyse and are left out.
    pub fn push(&mut self, record: &GameRecord) {
        if self.capacity == 0
            || record.reanalysed
            || record.steps.iter().all(|s| s.target.is_empty())
        {
            return;
        }
        if self.games.len() == self.capacity {
            self.games.pop_front();
        }
        self.games.push_back(Arc::new(record.clone()));
    }

    /// A game drawn uniformly, `None` while there is none.
    pub fn pick(&self, rng: &mut impl Rng) -> Option<Arc<GameRecord>> {
        if self.games.is_empty() {
            return None;
        }
        Some(Arc::clone(&self.games[rng.gen_range(0..self.games.len())]))
    }

    /// Games held.
    pub fn len(&self) -> usize {
        self.games.len()
    }

    /// True when no game is held.
    pub fn is_empty(&self) -> bool {
        self.games.is_empty()
    }
}

/// A game being reanalysed: its source record, replayed step by step.
#[derive(Clone, Debug)]
pub struct Reanalysis {
    source: Arc<GameRecord>,
}

impl Reanalysis {
    /// The reanalysis of `source`.
    pub fn new(source: Arc<GameRecord>) -> Reanalysis {
        Reanalysis { source }
    }

    /// The source game's start position.
    pub fn start<S: GameState>(&self) -> Result<S, RecordError> {
        let kind = self.source.kind()?;
        Ok(S::from_notation(
            kind,
            &self.source.start,
            self.source.rules(),
        )?)
    }

    /// The record the reanalysis writes: the source's header and result with no steps yet,
    /// marked reanalysed by the net of `model_step`.
    pub fn record(&self, model_step: u64) -> GameRecord {
        let mut record = (*self.source).clone();
        record.steps.clear();
        record.model_step = model_step;
        record.reanalysed = true;
        record.played_through = false;
        record.would_resign = [None, None];
        record
    }

    /// Copies the source's steps after those in `record` into it, playing them on `tree`,
    /// up to the next one the source searched in full: its action, which the caller
    /// searches again and records. `None` when the source has no such step left.
    pub fn next_searched<S: GameState>(
        &self,
        tree: &mut Mcts<S>,
        record: &mut GameRecord,
    ) -> Option<Action> {
        loop {
            let step = self.source.steps.get(record.steps.len())?;
            if !step.target.is_empty() {
                return Some(step.action);
            }
            record.steps.push(step.clone());
            tree.advance(step.action);
        }
    }

    /// The copy of the source's steps left after the last searched one (forced or fast
    /// steps at the end of the game), so that the record replays to the same end.
    pub fn finish(&self, record: &mut GameRecord) {
        let done = record.steps.len();
        record
            .steps
            .extend(self.source.steps.iter().skip(done).cloned());
    }
}

#[cfg(test)]
mod tests {
    use rand::rngs::StdRng;
    use rand::SeedableRng;

    use super::*;
    use crate::selfplay::record::StepRecord;

    fn game(targets: &[bool]) -> GameRecord {
        let mut record = GameRecord::new(
            &crate::game::rematch::Rematch::start(
                crate::game::GameKind::Rematch,
                crate::game::RulesConfig::default(),
            ),
            crate::game::RulesConfig::default(),
            1,
            5,
        );
        record.steps = targets
            .iter()
            .map(|&t| StepRecord {
                target: if t { vec![(0, 1.0)] } else { Vec::new() },
                ..StepRecord::unsearched(0)
            })
            .collect();
        record
    }

    #[test]
    fn recent_games_keep_the_newest_searched_games_only() {
        let mut recent = RecentGames::new(2);
        recent.push(&game(&[false, false]));
        assert!(
            recent.is_empty(),
            "a game without a sample has nothing to reanalyse"
        );
        let mut reanalysed = game(&[true]);
        reanalysed.reanalysed = true;
        recent.push(&reanalysed);
        assert!(
            recent.is_empty(),
            "a reanalysed game is not reanalysed again"
        );
        for n in 0..3 {
            let mut g = game(&[true]);
            g.index = n;
            recent.push(&g);
        }
        assert_eq!(recent.len(), 2);
        let mut rng = StdRng::seed_from_u64(1);
        let picked: Vec<u64> = (0..40)
            .map(|_| recent.pick(&mut rng).unwrap().index)
            .collect();
        assert!(picked.contains(&1) && picked.contains(&2) && !picked.contains(&0));
    }
}
