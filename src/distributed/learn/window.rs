//! The replay window rebuilt on resume: from the shards the checkpoint had taken in, only
//! the newest ones that fill it (walking the checkpoints' intake links back), so a restart
//! costs the window's size, not the run's length. The intake totals are restored once, from
//! the checkpoint's counters, and the games re-read are not counted again.

use std::collections::BTreeMap;
use std::path::Path;

use super::intake::{ingest_shard, listed_shards, searched_steps, SHARDS_PER_FETCH};
use super::publish::IntakeWalk;
use crate::distributed::DistError;
use crate::layout::GAMES;
use crate::net::encode::Encode;
use crate::selfplay::diversity::GameDiversity;
use crate::selfplay::record::{parse_record_bytes, GameRecord};
use crate::selfplay::samples::take_game;
use crate::store::RunStore;
use crate::train::learner::Learner;

/// Rebuilds `learner`'s window, and the diversity figures, after a resume from the
/// checkpoint it loaded.
pub(super) fn rebuild<S: Encode>(
    store: &RunStore,
    learner: &mut Learner<S>,
    diversity: &mut GameDiversity,
) -> Result<(), DistError> {
    let state = learner.state.clone();
    // Sized for the whole run from the start, so that re-reading evicts nothing early.
    let capacity = learner.config.window_size(state.samples_seen) as u64;
    let newest = match state.samples_seen > 0 {
        true => newest_games(store, state.step, capacity)?,
        false => None,
    };
    let Some(newest) = newest else {
        // Without the chain or the counts: every shard, session by session, counted.
        let keys = consumed_shards(&store.list(GAMES)?, &state.consumed);
        return reingest(store, learner, diversity, &keys);
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
    Ok(())
}

/// A shard's key and its games.
type ShardGames = (String, Vec<GameRecord>);

/// The games of the newest shards of the chain ending at checkpoint `step` that hold
/// `capacity` samples, newest first, walking the chain back only as far as they go (the
/// shards of several links fetched together, [`SHARDS_PER_FETCH`] or a link's more at a
/// time); `None` when a link of the chain does not read (a run from before the links).
fn newest_games(
    store: &RunStore,
    step: u64,
    capacity: u64,
) -> Result<Option<Vec<ShardGames>>, DistError> {
    let mut walk = IntakeWalk::from(store, step);
    let mut newest = Vec::new();
    let mut samples = 0u64;
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
            let Some(bytes) = bytes else { continue };
            let games = parse_record_bytes(&bytes, Path::new(key)).unwrap_or_else(|e| {
                eprintln!("warning: skipping shard {key}: {e}");
                Vec::new()
            });
            samples += games.iter().map(searched_steps).sum::<u64>();
            newest.push((key.clone(), games));
            if samples >= capacity {
                return Ok(Some(newest));
            }
        }
    }
    Ok(Some(newest))
}

/// The keys of the shards the counts `consumed` had taken in, among `listed` (a listing of
/// the games folder), session by session; a shard missing from the listing is warned of.
fn consumed_shards(listed: &[String], consumed: &BTreeMap<String, u64>) -> Vec<String> {
    let shards = listed_shards(listed);
    let mut keys = Vec::new();
    for (session, n) in consumed {
        for seq in 0..*n {
            match shards.get(session.as_str()).and_then(|s| s.get(&seq)) {
                Some(key) => keys.push(key.to_string()),
                None => eprintln!(
                    "warning: shard {seq} of session {session} was taken in before but is gone"
                ),
            }
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
) -> Result<(), DistError> {
    for chunk in keys.chunks(SHARDS_PER_FETCH) {
        for (key, bytes) in chunk.iter().zip(store.get_many(chunk)?) {
            match bytes {
                Some(bytes) => {
                    ingest_shard(learner, diversity, key, &bytes);
                }
                None => eprintln!("warning: {key} was taken in before but is gone"),
            }
        }
    }
    Ok(())
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
