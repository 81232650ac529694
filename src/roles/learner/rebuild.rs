//! The replay window rebuilt on resume: from the shards the checkpoint had taken in, only
//! the newest ones that fill it (walking the checkpoints' intake links back), so a restart
//! costs the window's size, not the run's length. The intake totals are restored once, from
//! the checkpoint's counters, and the games re-read are not counted again.

use std::collections::BTreeMap;
use std::path::Path;

use super::intake::{ingest_shard, listed_shards, searched_steps, SHARDS_PER_FETCH};
use super::publish::IntakeWalk;
use crate::layout::GAMES;
use crate::metrics::{MetricsLine, WindowLine};
use crate::net::encode::Encode;
use crate::roles::RoleError;
use crate::selfplay::diversity::GameDiversity;
use crate::selfplay::record::{parse_record_bytes, GameRecord};
use crate::selfplay::samples::take_game;
use crate::store::RunStore;
use crate::train::learner::Learner;

/// What a resume's window rebuild found: the shards it read back and those whose game
/// files were gone (a run moved to a machine with only its committed checkpoints): the
/// window then refills from new self-play.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rebuilt {
    /// Shards read back.
    pub shards_read: u64,
    /// Shards taken in before whose files are gone.
    pub shards_missing: u64,
    /// Samples in the window after the rebuild.
    pub samples: u64,
}

impl Rebuilt {
    /// In words, for the start of a resumed run: what the window holds, and, when game files
    /// were gone, that it refills from new self-play.
    pub fn describe(&self) -> String {
        match self.shards_missing {
            0 => format!(
                "replay window rebuilt from {} shards: {} samples",
                self.shards_read, self.samples
            ),
            n => format!(
                "replay window: {n} of the game files taken in before are gone (a run moved \
                 to another machine keeps only its checkpoints), {} shards read back, {} \
                 samples; the window refills from new self-play, and training waits for it \
                 to hold train.min_window samples",
                self.shards_read, self.samples
            ),
        }
    }

    /// The same as a metrics line (`type` `window`; its step is the learner's to set).
    pub fn metrics_line(&self) -> MetricsLine {
        MetricsLine::Window(WindowLine {
            step: 0,
            shards_read: self.shards_read,
            shards_missing: self.shards_missing,
            samples: self.samples,
            refills_from_new_selfplay: self.shards_missing > 0,
        })
    }
}

/// Rebuilds `learner`'s window, and the diversity figures, after a resume from the
/// checkpoint it loaded; says what it found.
pub(super) fn rebuild<S: Encode>(
    store: &RunStore,
    learner: &mut Learner<S>,
    diversity: &mut GameDiversity,
) -> Result<Rebuilt, RoleError> {
    let state = learner.state.clone();
    // Sized for the whole run from the start, so that re-reading evicts nothing early.
    let capacity = learner.config.window_size(state.samples_seen) as u64;
    let newest = match state.samples_seen > 0 {
        true => newest_games(store, state.step, capacity)?,
        false => None,
    };
    let Some((newest, missing)) = newest else {
        // Without the chain or the counts: every shard, session by session, counted.
        let listed = store.list(GAMES)?;
        let keys = consumed_shards(&listed, &state.consumed);
        let taken: u64 = state.consumed.values().sum();
        let mut rebuilt = reingest(store, learner, diversity, &keys)?;
        rebuilt.shards_missing += taken.saturating_sub(keys.len() as u64);
        if state.samples_seen > 0 {
            // The counts on record stand for every sample taken in, read back or gone: the
            // replay ratio goes on from them instead of waiting for new self-play to match
            // all the training done before.
            learner.restore_totals(state.samples_seen, state.games_seen);
        }
        return Ok(rebuilt);
    };
    learner.restore_totals(state.samples_seen, state.games_seen);
    for (key, games) in newest.iter().rev() {
        for game in games {
            match take_game::<S>(game) {
                Ok(taken) => {
                    learner.refill(taken.samples);
                    if let Some(summary) = taken.summary {
                        diversity.add(summary);
                    }
                }
                Err(e) => eprintln!("warning: skipping a game of shard {key}: {e}"),
            }
        }
    }
    Ok(Rebuilt {
        shards_read: newest.len() as u64,
        shards_missing: missing,
        samples: learner.window.len() as u64,
    })
}

/// A shard's key and its games.
type ShardGames = (String, Vec<GameRecord>);

/// The games of the newest shards of the chain ending at checkpoint `step` that hold
/// `capacity` samples, newest first, walking the chain back only as far as they go (the
/// shards of several links fetched together, [`SHARDS_PER_FETCH`] or a link's more at a
/// time), with the count of the chain's shards whose files are gone; `None` when a link of
/// the chain does not read (a run from before the links).
fn newest_games(
    store: &RunStore,
    step: u64,
    capacity: u64,
) -> Result<Option<(Vec<ShardGames>, u64)>, RoleError> {
    let mut walk = IntakeWalk::from(store, step);
    let mut newest = Vec::new();
    let mut samples = 0u64;
    let mut missing = 0u64;
    let mut walked_back = false;
    while !walked_back {
        // The next shards back, newest first.
        let mut batch: Vec<String> = Vec::new();
        while batch.len() < SHARDS_PER_FETCH {
            match walk.next_shards() {
                Ok(Some(shards)) => batch.extend(shards.into_iter().rev()),
                Ok(None) => {
                    walked_back = true;
                    break;
                }
                Err(_) => return Ok(None),
            }
        }
        for (key, bytes) in batch.iter().zip(store.get_many(&batch)?) {
            let Some(bytes) = bytes else {
                missing += 1;
                continue;
            };
            let games = parse_record_bytes(&bytes, Path::new(key)).unwrap_or_else(|e| {
                eprintln!("warning: skipping shard {key}: {e}");
                Vec::new()
            });
            samples += games.iter().map(searched_steps).sum::<u64>();
            newest.push((key.clone(), games));
            if samples >= capacity {
                return Ok(Some((newest, missing)));
            }
        }
    }
    Ok(Some((newest, missing)))
}

/// The keys of the shards the counts `consumed` had taken in, among `listed` (a listing of
/// the games folder), session by session; shards missing from the listing are warned of,
/// one line per session.
fn consumed_shards(listed: &[String], consumed: &BTreeMap<String, u64>) -> Vec<String> {
    let shards = listed_shards(listed);
    let mut keys = Vec::new();
    for (session, n) in consumed {
        let before = keys.len();
        keys.extend((0..*n).filter_map(|seq| {
            let key = shards.get(session.as_str())?.get(&seq)?;
            Some(key.to_string())
        }));
        let missing = *n as usize - (keys.len() - before);
        if missing > 0 {
            eprintln!(
                "warning: {missing} of the {n} shards of session {session} taken in before are gone"
            );
        }
    }
    keys
}

/// Takes the shards `keys` in again, in order, counting them.
fn reingest<S: Encode>(
    store: &RunStore,
    learner: &mut Learner<S>,
    diversity: &mut GameDiversity,
    keys: &[String],
) -> Result<Rebuilt, RoleError> {
    let mut rebuilt = Rebuilt::default();
    for chunk in keys.chunks(SHARDS_PER_FETCH) {
        for (key, bytes) in chunk.iter().zip(store.get_many(chunk)?) {
            match bytes {
                Some(bytes) => {
                    ingest_shard(learner, diversity, key, &bytes);
                    rebuilt.shards_read += 1;
                }
                None => {
                    eprintln!("warning: {key} was taken in before but is gone");
                    rebuilt.shards_missing += 1;
                }
            }
        }
    }
    rebuilt.samples = learner.window.len() as u64;
    Ok(rebuilt)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::shard_key;

    #[test]
    fn consumed_shards_are_found_in_the_listing_whatever_their_format() {
        let listed = vec![
            shard_key("a", 0),
            "games/a/00000002.jsonl".to_string(),
            shard_key("a", 3),
            shard_key("b", 0),
            shard_key("b", 1),
        ];
        let consumed = BTreeMap::from([("a".to_string(), 3), ("b".to_string(), 1)]);
        // Shard a/1 is gone (warned of); a/3 and b/1 were not taken in.
        assert_eq!(
            consumed_shards(&listed, &consumed),
            [
                shard_key("a", 0),
                "games/a/00000002.jsonl".into(),
                shard_key("b", 0)
            ]
        );
    }
}
