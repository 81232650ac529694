//! The learner's intake: listing the store's new game shards, fetching them in batches and
//! parsing their games into the replay window, each shard exactly once and in order within
//! its session.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::{Duration, Instant};

use crate::game::Side;
use crate::layout::{parse_shard_key, GAMES};
use crate::net::encode::Encode;
use crate::roles::RoleError;
use crate::selfplay::diversity::GameDiversity;
use crate::selfplay::record::{parse_record_bytes, GameRecord};
use crate::selfplay::samples::take_game;
use crate::store::RunStore;
use crate::train::learner::Learner;

/// Shards fetched per batch of concurrent gets.
pub(super) const SHARDS_PER_FETCH: usize = 256;

/// What was taken in: shards, games and samples, and how the games went.
#[derive(Clone, Copy, Debug, Default)]
pub struct IntakeTally {
    /// Shards taken in.
    pub shards: u64,
    /// Shards that could not be read.
    pub rejected: u64,
    /// Games in them.
    pub games: u64,
    /// Training samples in them (reanalyses' included).
    pub samples: u64,
    /// Searched steps of the games read, those that failed to replay included: how a
    /// window's rebuild and game retention measure a shard ([`searched_steps`]).
    pub searched: u64,
    /// Reanalysed games taken in (`selfplay.reanalyse_share`): their samples count above,
    /// their results and steps nowhere else (they repeat a game already counted).
    pub reanalysed: u64,
    /// Of `samples`, those from reanalysed games.
    pub reanalysed_samples: u64,
    /// Of `samples`, those whose value target the solver proved (`selfplay.proven_nodes`).
    pub proven_samples: u64,
    /// Steps played in the games (searched or not).
    pub game_steps: u64,
    /// Wins of side 0 and side 1.
    pub wins: [u64; 2],
    /// Drawn games.
    pub draws: u64,
    /// Games ended by resignation.
    pub resigned: u64,
    /// Per side, games it resigned.
    pub resigned_by: [u64; 2],
    /// Games played through with resignation disabled.
    pub played_through: u64,
    /// Per side, played-through games in which it would have resigned...
    pub would_resign: [u64; 2],
    /// ...and of those, games it did not lose (a false resignation).
    pub false_resign: [u64; 2],
    /// Per side, the resign threshold of the last game taken in that had one.
    pub resign_threshold: [Option<f32>; 2],
}

impl IntakeTally {
    /// Counts a game that gave `samples` training samples.
    fn add_game(&mut self, record: &GameRecord, samples: u64) {
        self.samples += samples;
        self.proven_samples += record.steps.iter().filter(|s| s.proven.is_some()).count() as u64;
        if record.reanalysed {
            self.reanalysed += 1;
            self.reanalysed_samples += samples;
            return;
        }
        self.games += 1;
        self.game_steps += record.steps.len() as u64;
        match record.winner {
            Some(w) => self.wins[(w as usize).min(1)] += 1,
            None => self.draws += 1,
        }
        self.resigned += record.resigned as u64;
        if let (true, Some(winner)) = (record.resigned, record.winner) {
            self.resigned_by[1 - (winner as usize).min(1)] += 1;
        }
        self.played_through += record.played_through as u64;
        for side in 0..2 {
            if record.played_through && record.would_resign[side].is_some() {
                self.would_resign[side] += 1;
                self.false_resign[side] += u64::from(record.score(Side(side as u8)) > 0.0);
            }
            if let Some(t) = record.resign_thresholds[side] {
                self.resign_threshold[side] = Some(t);
            }
        }
    }

    /// Adds `other`'s counts to this.
    pub fn merge(&mut self, other: &IntakeTally) {
        self.shards += other.shards;
        self.rejected += other.rejected;
        self.games += other.games;
        self.samples += other.samples;
        self.searched += other.searched;
        self.reanalysed += other.reanalysed;
        self.reanalysed_samples += other.reanalysed_samples;
        self.proven_samples += other.proven_samples;
        self.game_steps += other.game_steps;
        self.wins[0] += other.wins[0];
        self.wins[1] += other.wins[1];
        self.draws += other.draws;
        self.resigned += other.resigned;
        self.played_through += other.played_through;
        for side in 0..2 {
            self.resigned_by[side] += other.resigned_by[side];
            self.would_resign[side] += other.would_resign[side];
            self.false_resign[side] += other.false_resign[side];
            if other.resign_threshold[side].is_some() {
                self.resign_threshold[side] = other.resign_threshold[side];
            }
        }
    }
}

/// The learner's intake: the shards taken in since the last checkpoint, the totals, and
/// when the store was last listed.
#[derive(Debug)]
pub(super) struct Intake {
    /// Shards taken in since the newest published checkpoint, in order, with their
    /// searched steps.
    pub pending: Vec<(String, u64)>,
    /// Everything this invocation took in.
    pub total: IntakeTally,
    /// The newest games' openings and results (the `diversity` metrics).
    pub diversity: GameDiversity,
    poll: Duration,
    last_list: Option<(Instant, Duration)>,
}

impl Intake {
    /// An intake that lists the store at most every `poll`.
    pub fn new(poll: Duration) -> Intake {
        Intake {
            pending: Vec::new(),
            total: IntakeTally::default(),
            diversity: GameDiversity::default(),
            poll,
            last_list: None,
        }
    }

    /// How often it lists the store at most.
    pub fn poll(&self) -> Duration {
        self.poll
    }

    /// True when the last listing is `poll` old, and at least ten times as old as it took
    /// (listing grows with the run).
    pub fn due(&self) -> bool {
        self.last_list
            .is_none_or(|(at, took)| at.elapsed() >= self.poll.max(took * 10))
    }

    /// Takes in every new shard, in order within each session, into `learner` (its
    /// per-session counts move on); returns their tally.
    pub fn take_in<S: Encode>(
        &mut self,
        store: &RunStore,
        learner: &mut Learner<S>,
    ) -> Result<IntakeTally, RoleError> {
        let started = Instant::now();
        let keys = store.list(GAMES)?;
        self.last_list = Some((Instant::now(), started.elapsed()));
        let new = new_shards(&keys, &learner.state.consumed);
        let mut tally = IntakeTally::default();
        let mut stopped = BTreeSet::new();
        for chunk in new.chunks(SHARDS_PER_FETCH) {
            let keys: Vec<String> = chunk.iter().map(|s| s.key.clone()).collect();
            for (shard, bytes) in chunk.iter().zip(store.get_many(&keys)?) {
                if stopped.contains(&shard.session) {
                    continue;
                }
                let Some(bytes) = bytes else {
                    // Listed but gone (deleted by hand): this session stops here for now.
                    stopped.insert(shard.session.clone());
                    continue;
                };
                let taken = ingest_shard(learner, &mut self.diversity, &shard.key, &bytes);
                tally.merge(&taken);
                learner
                    .state
                    .consumed
                    .insert(shard.session.clone(), shard.seq + 1);
                self.pending.push((shard.key.clone(), taken.searched));
            }
        }
        self.total.merge(&tally);
        Ok(tally)
    }
}

/// A listed shard: its session, number and key.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Shard {
    pub session: String,
    pub seq: u64,
    pub key: String,
}

/// The shards among `keys` (a listing of the games folder), by session and number.
pub(super) fn listed_shards(keys: &[String]) -> BTreeMap<&str, BTreeMap<u64, &str>> {
    let mut listed: BTreeMap<&str, BTreeMap<u64, &str>> = BTreeMap::new();
    for key in keys {
        if let Some((session, seq)) = parse_shard_key(key) {
            listed.entry(session).or_default().insert(seq, key);
        }
    }
    listed
}

/// The shards among `keys` not taken in yet by the counts `consumed`: each session's next
/// ones, in order, up to the first gap.
fn new_shards(keys: &[String], consumed: &BTreeMap<String, u64>) -> Vec<Shard> {
    let mut new = Vec::new();
    for (session, seqs) in listed_shards(keys) {
        let mut next = consumed.get(session).copied().unwrap_or(0);
        while let Some(key) = seqs.get(&next) {
            new.push(Shard {
                session: session.to_string(),
                seq: next,
                key: key.to_string(),
            });
            next += 1;
        }
    }
    new
}

/// Adds a shard's games to the window and the diversity figures and counts them, or (with
/// a warning) counts a shard that cannot be used as rejected.
pub(super) fn ingest_shard<S: Encode>(
    learner: &mut Learner<S>,
    diversity: &mut GameDiversity,
    key: &str,
    bytes: &[u8],
) -> IntakeTally {
    let mut tally = match parse_record_bytes(bytes, Path::new(key)) {
        Ok(games) => {
            let mut tally = IntakeTally {
                searched: games.iter().map(searched_steps).sum(),
                ..IntakeTally::default()
            };
            for game in &games {
                match take_game::<S>(game) {
                    Ok(taken) => {
                        tally.add_game(game, taken.samples.len() as u64);
                        learner.ingest(taken.samples, taken.summary.is_some());
                        if let Some(summary) = taken.summary {
                            diversity.add(summary);
                        }
                    }
                    Err(e) => eprintln!("warning: skipping a game of shard {key}: {e}"),
                }
            }
            tally
        }
        Err(e) => {
            eprintln!("warning: skipping shard {key}: {e}");
            IntakeTally {
                rejected: 1,
                ..IntakeTally::default()
            }
        }
    };
    tally.shards = 1;
    tally
}

/// The training samples a game gives: its fully searched steps.
pub(super) fn searched_steps(game: &GameRecord) -> u64 {
    game.steps.iter().filter(|s| !s.target.is_empty()).count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::shard_key;

    #[test]
    fn new_shards_follow_each_session_up_to_its_first_gap() {
        let keys: Vec<String> = [("a", 0), ("a", 1), ("a", 3), ("a", 5), ("b", 2), ("b", 1)]
            .iter()
            .map(|(s, n)| shard_key(s, *n))
            .chain(["games/readme.txt".to_string()])
            // An older run's plain shard continues its session.
            .chain(["games/a/00000002.jsonl".to_string()])
            .collect();
        let consumed = BTreeMap::from([("b".to_string(), 1)]);
        let new: Vec<(String, u64, String)> = new_shards(&keys, &consumed)
            .into_iter()
            .map(|s| (s.session, s.seq, s.key))
            .collect();
        let key = |s: &str, n| {
            let plain = (s, n) == ("a", 2);
            let key = shard_key(s, n);
            (
                s.to_string(),
                n,
                if plain { key.replace(".gz", "") } else { key },
            )
        };
        let expected =
            [("a", 0), ("a", 1), ("a", 2), ("a", 3), ("b", 1), ("b", 2)].map(|(s, n)| key(s, n));
        assert_eq!(new, expected.to_vec());
    }
}
