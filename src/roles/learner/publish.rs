//! Publishing the learner's checkpoints, and finding the one to resume from. A checkpoint is
//! written once: straight into the run's folder when the store is a local directory (where
//! self-play and the evaluation role read it in place), else into the learner's scratch directory
//! and then up to the store. Its intake link (`intake.json`) goes next, then `latest` moves
//! to it; the chain of links names every shard taken in, once.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::config::RunConfig;
use crate::layout::state::{IntakeLink, StateFile};
use crate::layout::{
    checkpoint_key, checkpoint_name, full_checkpoint_steps, parse_checkpoint_key, CHECKPOINTS,
    CHECKPOINT_FILES, INTAKE_FILE, LATEST, STATE_FILE,
};
use crate::net::encode::Encode;
use crate::roles::backoff::{retry, PATIENCE};
use crate::roles::{
    advance_pointer, fetch_checkpoint, io_error, prune_cache, put_created, put_own, read_pointer,
    read_state_file, unix_millis, RoleError,
};
use crate::store::{RunStore, Version};
use crate::train::learner::Learner;

/// Where the learner's checkpoints go, and the newest one's link.
#[derive(Debug)]
pub(super) struct Publisher {
    /// The run's own folder of checkpoints, when the store is a local directory.
    local: Option<PathBuf>,
    /// Else where a checkpoint is written before it goes up.
    cache: PathBuf,
    /// The newest published checkpoint's link.
    pub published: Option<IntakeLink>,
    /// The versions at which this learner wrote the newest checkpoint's files that a
    /// publish at the same step updates (its link; on a remote store, its counters too).
    own: Vec<(String, Version)>,
}

impl Publisher {
    /// The publisher of the run at `store`, with scratch directory `work`.
    pub fn new(store: &RunStore, work: &Path) -> Publisher {
        Publisher {
            local: store.local_dir().map(|dir| dir.join(CHECKPOINTS)),
            cache: work.join(CHECKPOINTS),
            published: None,
            own: Vec::new(),
        }
    }

    /// Where fetched checkpoints go (a local store's are read in place).
    pub fn cache(&self) -> &Path {
        &self.cache
    }

    /// Writes the checkpoint of `learner`'s current step with the shards `pending` taken in
    /// since the previous one, publishes it and moves `latest` to it.
    pub fn publish<S: Encode>(
        &mut self,
        store: &RunStore,
        learner: &Learner<S>,
        pending: Vec<(String, u64)>,
    ) -> Result<(), RoleError> {
        let step = learner.state.step;
        // The same step again (more intake, no training) updates this learner's own files;
        // a new step is created where nothing is.
        let again = self.published.as_ref().is_some_and(|l| l.step == step);
        if !again {
            self.own.clear();
            if let Some(local) = &self.local {
                refuse_taken(store, local, step)?;
            }
        }
        let dir = learner.save_checkpoint(self.local.as_deref().unwrap_or(&self.cache))?;
        if self.local.is_none() {
            let last = self.version_of(&checkpoint_key(step, STATE_FILE));
            let state = retry("uploading a checkpoint", PATIENCE, || {
                upload(store, &dir, step, again, last.as_ref())
            })?;
            self.remember(state);
        }
        let mut link = next_link(self.published.clone(), step, pending);
        link.published_unix_ms = unix_millis() as u64;
        let (key, bytes) = (
            checkpoint_key(step, INTAKE_FILE),
            link.to_json().into_bytes(),
        );
        let last = self.version_of(&key);
        let version = retry("publishing a checkpoint", PATIENCE, || {
            put_own(store, &key, bytes.clone(), last.as_ref())
        })?;
        self.remember((key, version));
        retry("moving latest", PATIENCE, || {
            advance_pointer(store, LATEST, step)
        })?;
        self.published = Some(link);
        if self.local.is_none() {
            prune_cache(&self.cache, &[step]);
        }
        Ok(())
    }
}

impl Publisher {
    /// Takes the checkpoint this learner resumes from (its link `link`) as its own, under
    /// its lease: a publish at its step updates its files; and what an earlier learner left
    /// above it (never published: `latest` did not reach it) is removed, named on stderr,
    /// so that this learner creates its checkpoints where nothing is.
    pub fn adopt(&mut self, store: &RunStore, link: IntakeLink) -> Result<(), RoleError> {
        let step = link.step;
        self.own.clear();
        for file in [INTAKE_FILE, STATE_FILE] {
            let key = checkpoint_key(step, file);
            if let Some((_, version)) = store.get_versioned(&key)? {
                self.own.push((key, version));
            }
        }
        remove_above(store, step)?;
        self.published = Some(link);
        Ok(())
    }

    /// The version this learner last wrote `key` at, if it did.
    fn version_of(&self, key: &str) -> Option<Version> {
        self.own
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
    }

    /// Notes that this learner wrote `key` at `version`.
    fn remember(&mut self, (key, version): (String, Version)) {
        self.own.retain(|(k, _)| *k != key);
        self.own.push((key, version));
    }
}

/// Removes the files of every checkpoint above `step`: what a learner that stopped before
/// publishing them left behind.
fn remove_above(store: &RunStore, step: u64) -> Result<(), RoleError> {
    let mut left: BTreeMap<u64, Vec<String>> = BTreeMap::new();
    for key in store.list(CHECKPOINTS)? {
        let at = parse_checkpoint_key(&key).map(|(at, _)| at);
        if let Some(at) = at.filter(|at| *at > step) {
            left.entry(at).or_default().push(key);
        }
    }
    for (at, keys) in left {
        eprintln!(
            "removing {} of {}: an earlier learner left it unpublished (this one resumes \
             from {})",
            checkpoint_name(at),
            store.location(),
            checkpoint_name(step)
        );
        for key in keys {
            store.delete(&key)?;
        }
    }
    Ok(())
}

/// A local store's checkpoint at `step` that is whole already was written by another
/// learner: an error in words, before anything of it is replaced.
fn refuse_taken(store: &RunStore, local: &Path, step: u64) -> Result<(), RoleError> {
    let name = checkpoint_name(step);
    if local.join(&name).join(STATE_FILE).is_file() {
        return Err(RoleError::Run(format!(
            "{}/{CHECKPOINTS}/{name} exists already: another learner wrote it; it is left as \
             it was and this one stops",
            store.location()
        )));
    }
    Ok(())
}

/// The link of a checkpoint at `step` with the shards `pending` (and their searched
/// steps), after the one `before`.
fn next_link(before: Option<IntakeLink>, step: u64, pending: Vec<(String, u64)>) -> IntakeLink {
    let (shards, samples): (Vec<String>, Vec<u64>) = pending.into_iter().unzip();
    match before {
        // Again at the same step (more intake, no training): extend its link (its counts
        // only while they cover every shard).
        Some(mut same) if same.step == step => {
            if same.samples.len() == same.shards.len() {
                same.samples.extend(samples);
            }
            same.shards.extend(shards);
            same
        }
        before => IntakeLink {
            step,
            previous: before.map(|b| b.step),
            shards,
            samples,
            published_unix_ms: 0,
        },
    }
}

/// Uploads the files of the local checkpoint directory `dir` (its state last), each created
/// where nothing is, the others at once (a remote store's latency, paid once); the same step
/// `again` updates only its counters, at the version this learner last wrote them (`last`).
/// Returns the counters' key and new version.
fn upload(
    store: &RunStore,
    dir: &Path,
    step: u64,
    again: bool,
    last: Option<&Version>,
) -> Result<(String, Version), RoleError> {
    let read = |file: &str| {
        let path = dir.join(file);
        std::fs::read(&path).map_err(io_error(&path))
    };
    if !again {
        std::thread::scope(|scope| {
            let puts: Vec<_> = CHECKPOINT_FILES
                .iter()
                .filter(|f| **f != STATE_FILE)
                .map(|file| {
                    scope
                        .spawn(move || put_created(store, &checkpoint_key(step, file), read(file)?))
                })
                .collect();
            puts.into_iter().try_for_each(|put| {
                put.join()
                    .map_err(|_| RoleError::Run("a checkpoint upload's thread panicked".into()))?
            })
        })?;
    }
    let key = checkpoint_key(step, STATE_FILE);
    let version = put_own(store, &key, read(STATE_FILE)?, last)?;
    Ok((key, version))
}

/// Where a learner resumes: the link of the checkpoint it loaded, and the candidates there
/// were ([`resume_candidates`]), newest first.
pub(super) struct Resume {
    pub link: IntakeLink,
    pub candidates: Vec<u64>,
}

impl Resume {
    /// True when a newer candidate did not load: `latest` is then moved back to this one.
    pub fn fell_back(&self) -> bool {
        self.candidates.first() != Some(&self.link.step)
    }
}

/// The newest published checkpoint that loads, trying them from the one `latest` names
/// downwards; each one skipped is named on stderr with the reason. Nothing is written.
/// `None` for a run without checkpoints; an error when none loads.
pub(super) fn find_newest<S: Encode>(
    store: &RunStore,
    config: &RunConfig,
    cache: &Path,
) -> Result<Option<(Learner<S>, Resume)>, RoleError> {
    let candidates = resume_candidates(store)?;
    let mut first_error = None;
    for &step in &candidates {
        let loaded = fetch_checkpoint(store, step, &CHECKPOINT_FILES, cache)
            .and_then(|dir| Ok(Learner::<S>::new(config.clone(), Some(&dir))?))
            .and_then(|learner| Ok((learner, read_link(store, step)?)));
        match loaded {
            Ok((learner, link)) => return Ok(Some((learner, Resume { link, candidates }))),
            Err(error) => {
                eprintln!(
                    "warning: skipping checkpoint {} of {}: {error}",
                    checkpoint_name(step),
                    store.location()
                );
                first_error.get_or_insert(error);
            }
        }
    }
    match first_error {
        None => Ok(None),
        Some(error) => Err(RoleError::Run(format!(
            "no checkpoint of {} loads (the newest: {error})",
            store.location()
        ))),
    }
}

/// The newest candidate checkpoint now, if the run has one: a learner readied earlier
/// ([`Resume::candidates`]) is stale when this differs.
pub(super) fn newest_candidate(store: &RunStore) -> Result<Option<u64>, RoleError> {
    // A readable `latest` is the newest: every other candidate is at or below it (one read,
    // not a listing, as a standby takes the run over).
    if let Ok(Some(latest)) = read_pointer(store, LATEST) {
        return Ok(Some(latest));
    }
    Ok(resume_candidates(store)?.first().copied())
}

/// The steps of the whole published checkpoints a learner may resume from, newest first:
/// the one `latest` names and those below it (a checkpoint above it was not published
/// whole; with an unreadable `latest`, every one there). Checkpoints thinned to their
/// weights are left out: they have no optimizer state.
fn resume_candidates(store: &RunStore) -> Result<Vec<u64>, RoleError> {
    let pointer = read_pointer(store, LATEST);
    let latest = pointer.as_ref().ok().copied().flatten();
    let mut steps: Vec<u64> = full_checkpoint_steps(&store.list(CHECKPOINTS)?)
        .into_iter()
        .filter(|step| latest.is_none_or(|l| *step <= l))
        .chain(latest)
        .collect();
    steps.sort_unstable_by(|a, b| b.cmp(a));
    steps.dedup();
    match pointer {
        // A bad pointer with checkpoints beside it: they are tried; with none, the run
        // cannot be told from a new one, so it stops.
        Err(error) if steps.is_empty() => Err(error),
        Err(error) => {
            eprintln!("warning: {error}; trying the checkpoints there");
            Ok(steps)
        }
        Ok(_) => Ok(steps),
    }
}

/// The link of the published checkpoint at `step`.
fn read_link(store: &RunStore, step: u64) -> Result<IntakeLink, RoleError> {
    read_kept_link(store, step)?.ok_or_else(|| missing_link(store, step))
}

/// The error of a checkpoint whose intake link is gone.
fn missing_link(store: &RunStore, step: u64) -> RoleError {
    let key = checkpoint_key(step, INTAKE_FILE);
    RoleError::Run(format!("{}/{key}: missing", store.location()))
}

/// The link of the published checkpoint at `step` (`None` when its file is gone).
fn read_kept_link(store: &RunStore, step: u64) -> Result<Option<IntakeLink>, RoleError> {
    read_state_file(store, &checkpoint_key(step, INTAKE_FILE))
}

/// The checkpoint chain ending at a step, walked back one `previous` link at a time: each
/// checkpoint's shards, the newest checkpoint first. A resume reads only as far back as its
/// window needs.
pub struct IntakeWalk<'a> {
    store: &'a RunStore,
    next: Option<u64>,
    /// The step whose link was gone, where [`next_kept`](Self::next_kept) stopped.
    pub gone: Option<u64>,
}

impl<'a> IntakeWalk<'a> {
    /// The walk back from the checkpoint at `step`.
    pub fn from(store: &'a RunStore, step: u64) -> IntakeWalk<'a> {
        IntakeWalk {
            store,
            next: Some(step),
            gone: None,
        }
    }

    /// The shards the next checkpoint back took in, in order; `None` past the first.
    pub fn next_shards(&mut self) -> Result<Option<Vec<String>>, RoleError> {
        self.next_link(false)
    }

    /// As [`next_shards`](Self::next_shards), but a link whose file is gone (a committed
    /// run keeps only its newest checkpoint's) ends the walk there, kept in `gone`.
    pub fn next_kept(&mut self) -> Result<Option<Vec<String>>, RoleError> {
        self.next_link(true)
    }

    fn next_link(&mut self, stop_where_gone: bool) -> Result<Option<Vec<String>>, RoleError> {
        let Some(step) = self.next else {
            return Ok(None);
        };
        let link = match stop_where_gone {
            false => read_link(self.store, step)?,
            true => match read_kept_link(self.store, step)? {
                Some(link) => link,
                None => {
                    (self.gone, self.next) = (Some(step), None);
                    return Ok(None);
                }
            },
        };
        self.next = previous_of(&link, step)?;
        Ok(Some(link.shards))
    }
}

/// The step the link of the checkpoint at `step` links back to, checked to lie below it (a
/// chain that does not go back is an error, not a loop).
pub(super) fn previous_of(link: &IntakeLink, step: u64) -> Result<Option<u64>, RoleError> {
    match link.previous {
        Some(p) if p >= step => Err(RoleError::Run(format!(
            "checkpoint {step} links back to {p}"
        ))),
        previous => Ok(previous),
    }
}

/// Every shard the checkpoint chain ending at `step` took in, in order, following each
/// checkpoint's `previous` link (used to audit exactly-once intake).
pub fn intake_chain(store: &RunStore, step: u64) -> Result<Vec<String>, RoleError> {
    match kept_intake_chain(store, step)? {
        (chain, None) => Ok(chain),
        (_, Some(gone)) => Err(missing_link(store, gone)),
    }
}

/// The shards of the chain ending at `step` as far back as its links are kept, in order,
/// and the step whose link is gone (`None`: the whole chain is kept).
pub fn kept_intake_chain(
    store: &RunStore,
    step: u64,
) -> Result<(Vec<String>, Option<u64>), RoleError> {
    let mut walk = IntakeWalk::from(store, step);
    let mut links = Vec::new();
    while let Some(shards) = walk.next_kept()? {
        links.push(shards);
    }
    Ok((links.into_iter().rev().flatten().collect(), walk.gone))
}
