//! Game retention (`[checkpoints] keep_games`): after each checkpoint, the game files that
//! no kept checkpoint's replay window will read again are deleted, so a long run's disk
//! stays bounded. Kept are the shards a rebuild of each whole or pinned checkpoint's window
//! reads (walking its intake links back, newest first, until they hold the window's size,
//! as a resume or a fork does), and every shard not yet taken in.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;

use super::intake::{listed_shards, searched_steps};
use super::publish::previous_of;
use crate::config::retention::KeepGames;
use crate::config::RunConfig;
use crate::layout::state::{IntakeLink, TrainState};
use crate::layout::{
    checkpoint_key, held_checkpoints, pinned_steps, Held, CHECKPOINTS, GAMES, INTAKE_FILE,
    STATE_FILE,
};
use crate::roles::{read_state_file, RoleError};
use crate::selfplay::record::parse_record_bytes;
use crate::store::RunStore;

/// Deletes game files no kept checkpoint needs; remembers the sizes of shards whose links
/// do not record them (links written before they did), read once, and the links it walked:
/// a published link below the newest checkpoint never changes, so each is read from the
/// store once (a remote store's latency, paid once, not at every checkpoint).
#[derive(Debug, Default)]
pub struct GameRetention {
    counted: HashMap<String, u64>,
    links: HashMap<u64, IntakeLink>,
}

impl GameRetention {
    /// Deletes the shards taken in (by the counts `consumed`) that no kept checkpoint's
    /// window reads; returns how many it deleted.
    pub fn prune(
        &mut self,
        store: &RunStore,
        config: &RunConfig,
        consumed: &BTreeMap<String, u64>,
    ) -> Result<usize, RoleError> {
        // Every checkpoint kept whole (`keep_full = 0`) keeps every window too.
        if config.checkpoints.keep_games == KeepGames::All || config.checkpoints.keep_full == 0 {
            return Ok(0);
        }
        let listed = store.list(GAMES)?;
        let mut taken: Vec<&str> = Vec::new();
        for (session, seqs) in listed_shards(&listed) {
            let next = consumed.get(session).copied().unwrap_or(0);
            taken.extend(seqs.range(..next).map(|(_, key)| *key));
        }
        if taken.is_empty() {
            return Ok(0);
        }
        let present: BTreeSet<&str> = listed.iter().map(String::as_str).collect();
        let keep = self.kept(store, config, &present)?;
        let gone: Vec<String> = taken
            .into_iter()
            .filter(|key| !keep.contains(*key))
            .map(String::from)
            .collect();
        store.delete_many(&gone)?;
        for key in &gone {
            self.counted.remove(key);
        }
        Ok(gone.len())
    }

    /// The shards the windows of the run's whole and pinned checkpoints read.
    fn kept(
        &mut self,
        store: &RunStore,
        config: &RunConfig,
        present: &BTreeSet<&str>,
    ) -> Result<BTreeSet<String>, RoleError> {
        let keys = store.list(CHECKPOINTS)?;
        let anchors: BTreeSet<u64> = held_checkpoints(&keys)
            .into_iter()
            .filter(|(_, held)| *held == Held::Full)
            .map(|(step, _)| step)
            .chain(pinned_steps(&keys))
            .collect();
        let newest = anchors.last().copied().unwrap_or(0);
        let mut keep = BTreeSet::new();
        let mut walked = HashSet::new();
        for step in anchors {
            let state: Option<TrainState> =
                read_state_file(store, &checkpoint_key(step, STATE_FILE))?;
            let capacity = match state {
                Some(state) => config.window_size(state.samples_seen) as u64,
                None => config.train.window_max as u64,
            };
            let window = Window {
                step,
                newest,
                capacity,
            };
            self.window_of(store, window, present, &mut keep, &mut walked)?;
        }
        // Links no window reached any more are not needed again.
        self.links.retain(|step, _| walked.contains(step));
        Ok(keep)
    }

    /// The intake link of the checkpoint at `step` (`None` when its file is gone), from
    /// memory when read before; kept there when below `newest` (the newest may still grow).
    fn link(
        &mut self,
        store: &RunStore,
        step: u64,
        newest: u64,
    ) -> Result<Option<IntakeLink>, RoleError> {
        if let Some(link) = self.links.get(&step) {
            return Ok(Some(link.clone()));
        }
        let link: Option<IntakeLink> = read_state_file(store, &checkpoint_key(step, INTAKE_FILE))?;
        if let Some(link) = link.as_ref().filter(|_| step < newest) {
            self.links.insert(step, link.clone());
        }
        Ok(link)
    }

    /// Adds to `keep` the shards a rebuild of `window` reads: walking its checkpoint's
    /// intake links back (as far as they are kept), newest first, up to and including the
    /// shard that fills it; a shard whose file is gone holds nothing (the rebuild reads on
    /// past it). The links' steps go into `walked`.
    fn window_of(
        &mut self,
        store: &RunStore,
        window: Window,
        present: &BTreeSet<&str>,
        keep: &mut BTreeSet<String>,
        walked: &mut HashSet<u64>,
    ) -> Result<(), RoleError> {
        let (mut next, capacity) = (Some(window.step), window.capacity);
        let mut filled = 0u64;
        while let Some(at) = next {
            let Some(link) = self.link(store, at, window.newest)? else {
                break;
            };
            walked.insert(at);
            next = previous_of(&link, at)?;
            let sizes = self.sizes(store, &link, present)?;
            for (key, samples) in link.shards.iter().zip(sizes).rev() {
                let Some(samples) = samples else { continue };
                keep.insert(key.clone());
                filled += samples;
                if filled >= capacity {
                    return Ok(());
                }
            }
        }
        Ok(())
    }

    /// The samples each of `link`'s shards holds (`None` when its file is gone): as the
    /// link records them, else read from the files (once; an unreadable one holds none).
    fn sizes(
        &mut self,
        store: &RunStore,
        link: &IntakeLink,
        present: &BTreeSet<&str>,
    ) -> Result<Vec<Option<u64>>, RoleError> {
        let here = |key: &String| present.contains(key.as_str());
        if link.samples.len() == link.shards.len() {
            let sizes = link.shards.iter().zip(&link.samples);
            return Ok(sizes.map(|(k, n)| here(k).then_some(*n)).collect());
        }
        let unknown: Vec<String> = link
            .shards
            .iter()
            .filter(|k| here(k) && !self.counted.contains_key(*k))
            .cloned()
            .collect();
        for (key, bytes) in unknown.iter().zip(store.get_many(&unknown)?) {
            let games = bytes
                .and_then(|bytes| parse_record_bytes(&bytes, Path::new(key)).ok())
                .unwrap_or_default();
            self.counted
                .insert(key.clone(), games.iter().map(searched_steps).sum());
        }
        let size = |k: &String| self.counted.get(k).copied().unwrap_or(0);
        Ok(link
            .shards
            .iter()
            .map(|k| here(k).then(|| size(k)))
            .collect())
    }
}

/// A kept checkpoint's replay window: its step, the newest kept checkpoint's, and its size
/// in samples.
#[derive(Clone, Copy, Debug)]
struct Window {
    step: u64,
    newest: u64,
    capacity: u64,
}
