//! The replay window rebuilt on resume: from the shards the checkpoint had taken in, only
//! the newest ones that fill it (walking the checkpoints' intake links back), so a restart
//! costs the window's size, not the run's length. The intake totals are restored once, from
//! the checkpoint's counters, and the games re-read are not counted again.

use std::path::Path;

use super::intake::{ingest_shard, searched_steps, SHARDS_PER_FETCH};
use super::publish::intake_chain;
use crate::distributed::DistError;
use crate::layout::shard_key;
use crate::net::encode::Encode;
use crate::selfplay::record::{parse_records, GameRecord};
use crate::store::RunStore;
use crate::train::learner::Learner;

/// Rebuilds `learner`'s window after a resume from the checkpoint it loaded.
pub(super) fn rebuild<S: Encode>(
    store: &RunStore,
    learner: &mut Learner<S>,
) -> Result<(), DistError> {
    let state = learner.state.clone();
    let chain = if state.samples_seen > 0 {
        intake_chain(store, state.step).ok()
    } else {
        None
    };
    let Some(chain) = chain else {
        // Without the chain or the counts: every shard, session by session, counted.
        let keys: Vec<String> = state
            .consumed
            .iter()
            .flat_map(|(session, n)| (0..*n).map(|seq| shard_key(session, seq)))
            .collect();
        return reingest(store, learner, &keys);
    };
    // Sized for the whole run from the start, so that re-reading evicts nothing early.
    learner.restore_totals(state.samples_seen, state.games_seen);
    let capacity = learner.config.window_size(state.samples_seen) as u64;
    for (key, games) in newest_games(store, &chain, capacity)?.iter().rev() {
        for game in games {
            if let Err(e) = learner.replay(game) {
                eprintln!("warning: skipping a game of shard {key}: {e}");
            }
        }
    }
    Ok(())
}

/// The games of the newest shards of `chain` that hold `capacity` samples, newest first.
fn newest_games(
    store: &RunStore,
    chain: &[String],
    capacity: u64,
) -> Result<Vec<(String, Vec<GameRecord>)>, DistError> {
    let mut newest = Vec::new();
    let mut samples = 0u64;
    for chunk in chain.rchunks(SHARDS_PER_FETCH).map(<[String]>::to_vec) {
        for (key, bytes) in chunk.iter().zip(store.get_many(&chunk)?).rev() {
            let Some(bytes) = bytes else { continue };
            let games =
                parse_records(&String::from_utf8_lossy(&bytes), Path::new(key)).unwrap_or_default();
            samples += games.iter().map(searched_steps).sum::<u64>();
            newest.push((key.clone(), games));
            if samples >= capacity {
                return Ok(newest);
            }
        }
    }
    Ok(newest)
}

/// Takes the shards `keys` in again, in order, counting them.
fn reingest<S: Encode>(
    store: &RunStore,
    learner: &mut Learner<S>,
    keys: &[String],
) -> Result<(), DistError> {
    for chunk in keys.chunks(SHARDS_PER_FETCH) {
        for (key, bytes) in chunk.iter().zip(store.get_many(chunk)?) {
            match bytes {
                Some(bytes) => {
                    ingest_shard(learner, key, &String::from_utf8_lossy(&bytes));
                }
                None => eprintln!("warning: {key} was taken in before but is gone"),
            }
        }
    }
    Ok(())
}
