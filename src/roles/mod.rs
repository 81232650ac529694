//! The roles of a run, which share one run location ([`crate::store::RunStore`]): any
//! number of self-play workers, one learner and at most one evaluation role, each its own
//! process on its own machine, or all three in one process over a local directory (the
//! `train` command). One loop, one layout (docs/training.md). Its modules:
//!
//! - [`learner`]: the learner's loop (intake, steps, checkpoints published), shared by
//!   `learn` and `train`;
//! - [`selfplay`]: a self-play session publishing game shards;
//! - [`evaluation`]: the evaluation role, rating each new checkpoint;
//! - [`local`]: the `train` command, the three roles in one process;
//! - [`fork`]: a new run started from a base run's checkpoint; [`settings`]: a resumed
//!   run's settings changed from its newest checkpoint on;
//! - [`lease`] and [`keeper`]: the learner's and the evaluation role's leases, and a role's
//!   lease kept renewed; [`backoff`]: riding out a store that does not answer;
//! - [`status`]: what each role is doing, read from the store;
//! - [`command`]: the command lines of `train`, `learn`, `selfplay`, `evaluate`, `status`;
//! - here, what the roles share: pointers, checkpoints fetched, stored metrics logs, stop
//!   flags and scratch directories.
//!
//! The run's objects are named by [`crate::layout`], the same keys as in a local run
//! directory.
//!
//! No step relies on a lock: every object has one writer. A shard is one put, so it exists
//! whole or not at all; a session writes its shards one after another, so the learner's
//! progress is a count per session, saved in each checkpoint (`TrainState::consumed`). A
//! learner restarted from a checkpoint takes in again exactly the shards taken in after it,
//! whose training was lost with the process. Pointers are written after what they point to.
//! On a local store a checkpoint is written once, in the run, and read there in place.

pub mod backoff;
pub mod command;
pub mod evaluation;
pub mod fork;
pub mod keeper;
pub mod learner;
pub mod lease;
pub mod local;
pub mod selfplay;
pub mod settings;
pub mod status;

use std::path::{Path, PathBuf};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::config::ConfigError;
use crate::config::RunConfig;
use crate::layout::state::StateFile;
use crate::layout::{
    checkpoint_dir_key, checkpoint_key, checkpoint_name, parse_checkpoint_name, CONFIG,
    METRICS_FILE,
};
use crate::metrics::log::MetricsLog;
use crate::metrics::MetricsLine;
use crate::net::NetError;
use crate::selfplay::record::RecordError;
use crate::store::{RunStore, StoreError, Version};
use crate::train::checkpoint::CheckpointError;
use crate::train::error::TrainError;
use crate::util::write_atomic;

/// Errors of the roles.
#[derive(Debug, thiserror::Error)]
pub enum RoleError {
    /// The run location failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The training side failed: config, checkpoint, model, local files.
    #[error(transparent)]
    Train(#[from] TrainError),
    /// A game record could not be read.
    #[error(transparent)]
    Record(#[from] RecordError),
    /// A singleton role's lease: held by another process, or lost.
    #[error(transparent)]
    Lease(#[from] lease::LeaseError),
    /// Self-play stopped by itself.
    #[error("self-play stopped unexpectedly (its net's batcher failed)")]
    SelfPlayStopped,
    /// The run cannot go on as asked.
    #[error("{0}")]
    Run(String),
}

/// Errors of the training side reach the roles through [`TrainError`].
macro_rules! via_train_error {
    ($($source:ty),*) => {$(
        impl From<$source> for RoleError {
            fn from(error: $source) -> Self {
                RoleError::Train(error.into())
            }
        }
    )*};
}
via_train_error!(ConfigError, CheckpointError, NetError);

pub(crate) fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> RoleError + '_ {
    move |source| {
        RoleError::Train(TrainError::Io {
            path: path.to_path_buf(),
            source,
        })
    }
}

/// The step a pointer object (`latest`, `promoted`) names, if it exists.
pub fn read_pointer(store: &RunStore, key: &str) -> Result<Option<u64>, RoleError> {
    let Some(text) = store.get_text(key)? else {
        return Ok(None);
    };
    parse_checkpoint_name(&text).map(Some).ok_or_else(|| {
        RoleError::Run(format!(
            "{}/{key} holds {:?}, not a checkpoint name",
            store.location(),
            text.trim()
        ))
    })
}

/// Writes `bytes` at `key` only where nothing is (a checkpoint's weights, a match record):
/// a retry whose earlier put landed (the same bytes there) counts as written; other bytes
/// there are an error in words, and they are left as they were.
pub fn put_created(store: &RunStore, key: &str, bytes: Vec<u8>) -> Result<(), RoleError> {
    if put_new_or_same(store, key, bytes)? {
        return Ok(());
    }
    Err(RoleError::Run(format!(
        "{}/{key} exists with other contents: another process wrote it; it is left as it was \
         and this one stops",
        store.location()
    )))
}

/// Creates `key` with `bytes` where nothing is. True when these bytes are there now (written,
/// or a retry of a put that landed); false when another process created it with other
/// contents, which are left as they were.
pub fn put_new_or_same(store: &RunStore, key: &str, bytes: Vec<u8>) -> Result<bool, RoleError> {
    match store.put_new(key, bytes.clone()) {
        Ok(()) => Ok(true),
        Err(StoreError::Exists { .. }) => Ok(store.get(key)?.as_deref() == Some(&bytes[..])),
        Err(error) => Err(error.into()),
    }
}

/// Writes `key`, which this process last wrote at version `last` (`None`: it creates it),
/// by compare-and-swap, and returns the new version: an object another process created or
/// changed meanwhile is an error in words and is left as it was. A retry of a write that
/// landed (the same bytes there) counts as written.
pub fn put_own(
    store: &RunStore,
    key: &str,
    bytes: Vec<u8>,
    last: Option<&Version>,
) -> Result<Version, RoleError> {
    match store.put_if(key, bytes.clone(), last)? {
        Ok(version) => Ok(version),
        Err(_) => match store.get_versioned(key)? {
            Some((there, version)) if there == bytes => Ok(version),
            _ => Err(RoleError::Run(format!(
                "{}/{key} was written by another process since this one last wrote it; it \
                 is left as it was and this one stops",
                store.location()
            ))),
        },
    }
}

/// Points `key` at the checkpoint of `step`.
pub fn write_pointer(store: &RunStore, key: &str, step: u64) -> Result<(), RoleError> {
    Ok(store.put(key, checkpoint_name(step).into_bytes())?)
}

/// Moves the pointer `key` forward to the checkpoint of `step`, by compare-and-swap: a
/// pointer already past `step` means another process wrote the run, an error in words.
/// (Moving it back, as a learner resuming from an older checkpoint does, is
/// [`write_pointer`], under the learner's lease.)
pub fn advance_pointer(store: &RunStore, key: &str, step: u64) -> Result<(), RoleError> {
    for _ in 0..5 {
        let current = store.get_versioned(key)?;
        let at = current
            .as_ref()
            .and_then(|(bytes, _)| parse_checkpoint_name(&String::from_utf8_lossy(bytes)));
        if let Some(at) = at.filter(|at| *at > step) {
            return Err(RoleError::Run(format!(
                "{}/{key} names step {at}, past this process's step {step}: another process writes this run, so this one stops",
                store.location()
            )));
        }
        let bytes = checkpoint_name(step).into_bytes();
        if store
            .put_if(key, bytes, current.as_ref().map(|(_, v)| v))?
            .is_ok()
        {
            return Ok(());
        }
    }
    Err(RoleError::Run(format!(
        "{}/{key}: other writers kept moving it; this process stops",
        store.location()
    )))
}

/// Reads the record `key` of `store` (`None` when it is not there).
pub fn read_state_file<R: StateFile>(store: &RunStore, key: &str) -> Result<Option<R>, RoleError> {
    let Some(text) = store.get_text(key)? else {
        return Ok(None);
    };
    let source = format!("{}/{key}", store.location());
    R::parse(&text, &source)
        .map(Some)
        .map_err(|e| RoleError::Run(e.to_string()))
}

/// The directory holding `files` of the checkpoint at `step`: a local store's own (read in
/// place, no copy), else `cache/step-NNNNNNNN/`, downloaded there (kept if already there).
pub fn fetch_checkpoint(
    store: &RunStore,
    step: u64,
    files: &[&str],
    cache: &Path,
) -> Result<PathBuf, RoleError> {
    if let Some(run) = store.local_dir() {
        let dir = run.join(checkpoint_dir_key(step));
        return match files.iter().find(|file| !dir.join(file).is_file()) {
            Some(file) => Err(RoleError::Run(format!(
                "{}/{} is missing",
                store.location(),
                checkpoint_key(step, file)
            ))),
            None => Ok(dir),
        };
    }
    let dir = cache.join(checkpoint_name(step));
    std::fs::create_dir_all(&dir).map_err(io_error(&dir))?;
    for file in files {
        let path = dir.join(file);
        if path.is_file() {
            continue;
        }
        let key = checkpoint_key(step, file);
        let bytes = store
            .get(&key)?
            .ok_or_else(|| RoleError::Run(format!("{}/{key} is missing", store.location())))?;
        write_atomic(&path, &bytes).map_err(io_error(&path))?;
    }
    Ok(dir)
}

/// Removes the cached checkpoints in `cache` other than `keep`.
pub fn prune_cache(cache: &Path, keep: &[u64]) {
    let keep: Vec<String> = keep.iter().map(|s| checkpoint_name(*s)).collect();
    if let Ok(entries) = std::fs::read_dir(cache) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().to_string();
            if parse_checkpoint_name(&name).is_some() && !keep.contains(&name) {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
}

/// The run's config, waiting up to `wait` for the learner to write it.
pub fn wait_for_config(
    store: &RunStore,
    wait: Duration,
    stop: &StopFlag,
) -> Result<RunConfig, RoleError> {
    let text = wait_for(store, wait, stop, CONFIG, |s| {
        s.get_text(CONFIG)
            .map_err(RoleError::from)
            .map(|t| t.filter(|t| !t.is_empty()))
    })?;
    Ok(RunConfig::parse(
        &text,
        &format!("{}/{CONFIG}", store.location()),
    )?)
}

/// Polls `probe` twice a second until it finds something, `wait` passes, or a stop signal;
/// a store that does not answer counts as nothing found yet (said once on stderr).
pub fn wait_for<T>(
    store: &RunStore,
    wait: Duration,
    stop: &StopFlag,
    what: &str,
    mut probe: impl FnMut(&RunStore) -> Result<Option<T>, RoleError>,
) -> Result<T, RoleError> {
    let started = std::time::Instant::now();
    let (mut said, mut said_outage) = (false, false);
    loop {
        match probe(store) {
            Ok(Some(found)) => return Ok(found),
            Ok(None) => {}
            Err(error) if backoff::transient(&error) => {
                if !std::mem::replace(&mut said_outage, true) {
                    eprintln!("warning: {what}: the store did not answer ({error}); waiting on");
                }
            }
            Err(error) => return Err(error),
        }
        if started.elapsed() >= wait || stop.raised() {
            return Err(RoleError::Run(format!(
                "{} has no {what} yet (waited {:.0} s; is the learner running?)",
                store.location(),
                started.elapsed().as_secs_f64()
            )));
        }
        if !said {
            eprintln!("waiting for {what} at {}", store.location());
            said = true;
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// Set by SIGINT or SIGTERM: the role finishes its current unit of work (publishes its
/// games, writes its checkpoint) and exits.
#[derive(Clone, Debug, Default)]
pub struct StopFlag(Arc<AtomicBool>);

impl StopFlag {
    /// A flag raised only by [`StopFlag::raise`].
    pub fn new() -> StopFlag {
        StopFlag(Arc::new(AtomicBool::new(false)))
    }

    /// Asks for a stop.
    pub fn raise(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// A flag raised by SIGINT and SIGTERM.
    pub fn on_signals() -> StopFlag {
        let flag = Arc::new(AtomicBool::new(false));
        for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
            // Registration only fails for forbidden signals, which these are not.
            let _ = signal_hook::flag::register(signal, Arc::clone(&flag));
        }
        StopFlag(flag)
    }

    /// True once a stop was asked for.
    pub fn raised(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// A scratch directory for a role's local files, removed when dropped.
#[derive(Debug)]
pub struct WorkDir {
    path: PathBuf,
    remove: bool,
}

impl WorkDir {
    /// `given`, kept afterwards, or a fresh temporary directory for `role`, removed (its
    /// name unique in the process, even for roles started in the same millisecond).
    pub fn new(given: Option<&Path>, role: &str) -> Result<WorkDir, RoleError> {
        static STARTED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let (path, remove) = match given {
            Some(path) => (path.to_path_buf(), false),
            None => {
                let temp = std::env::temp_dir();
                // Those of roles killed before they could remove theirs go first.
                crate::util::sweep_stale_work_dirs(&temp, "checkers-zero-");
                let name = format!(
                    "checkers-zero-{role}-{}-{}-{}",
                    std::process::id(),
                    unix_millis(),
                    STARTED.fetch_add(1, Ordering::Relaxed)
                );
                (temp.join(name), true)
            }
        };
        std::fs::create_dir_all(&path).map_err(io_error(&path))?;
        Ok(WorkDir { path, remove })
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        if self.remove {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

/// A role's metrics log: lines appended to a local file, published whole as one object
/// (stores have no append).
#[derive(Debug)]
pub struct StoredMetrics {
    key: &'static str,
    path: PathBuf,
    log: MetricsLog,
}

impl StoredMetrics {
    /// The log published at `key`, continued from the store's copy in `work`; on resume
    /// from `resume_step`, lines of later steps are dropped.
    pub fn open(
        store: &RunStore,
        key: &'static str,
        work: &Path,
        resume_step: Option<u64>,
    ) -> Result<StoredMetrics, RoleError> {
        let path = work.join(METRICS_FILE);
        if let Some(bytes) = store.get(key)? {
            std::fs::write(&path, bytes).map_err(io_error(&path))?;
        }
        let log = MetricsLog::open(&path, resume_step).map_err(io_error(&path))?;
        Ok(StoredMetrics { key, path, log })
    }

    /// Appends one line locally.
    pub fn append(&self, line: &MetricsLine) -> Result<(), RoleError> {
        self.log.append(line).map_err(io_error(&self.path))
    }

    /// Publishes the whole log (if it has any line).
    pub fn publish(&self, store: &RunStore) -> Result<(), RoleError> {
        if self.path.is_file() {
            let bytes = std::fs::read(&self.path).map_err(io_error(&self.path))?;
            store.put(self.key, bytes)?;
        }
        Ok(())
    }
}

/// A role's progress bar on stderr (hidden unless `show`): with a known `length`, a bar with
/// rate and ETA; without, a spinner with the elapsed time.
pub fn progress_bar(show: bool, label: &str, length: Option<u64>) -> ProgressBar {
    let target = if show {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    };
    let bar = ProgressBar::with_draw_target(length, target);
    let template = match length {
        Some(_) => format!("{label} [{{bar:30}}] {{pos}}/{{len}} {{per_sec}} ETA {{eta}} {{msg}}"),
        None => format!("{{spinner}} {label} {{elapsed_precise}} {{msg}}"),
    };
    bar.set_style(
        ProgressStyle::with_template(&template)
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar
}

/// Milliseconds since the Unix epoch.
pub fn unix_millis() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::{advance_pointer, put_created, put_own, read_pointer, write_pointer, WorkDir};
    use crate::store::RunStore;

    #[test]
    fn a_pointer_moves_forward_only() {
        let dir = std::env::temp_dir().join(format!("cz-pointer-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let store = RunStore::open(dir.to_str().unwrap()).unwrap();
        advance_pointer(&store, "latest", 100).unwrap();
        advance_pointer(&store, "latest", 100).unwrap();
        advance_pointer(&store, "latest", 200).unwrap();
        assert_eq!(read_pointer(&store, "latest").unwrap(), Some(200));
        let error = advance_pointer(&store, "latest", 150)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("names step 200, past this process's step 150"),
            "{error}"
        );
        assert_eq!(read_pointer(&store, "latest").unwrap(), Some(200));
        // A resuming learner moves it back on purpose, and publishing goes on from there.
        write_pointer(&store, "latest", 100).unwrap();
        advance_pointer(&store, "latest", 150).unwrap();
        assert_eq!(read_pointer(&store, "latest").unwrap(), Some(150));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn created_objects_and_own_objects_are_never_replaced_by_another_writer() {
        let dir = std::env::temp_dir().join(format!("cz-create-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let store = RunStore::open(dir.to_str().unwrap()).unwrap();
        put_created(&store, "a", b"one".to_vec()).unwrap();
        // A retry of a put that landed is fine; other bytes are refused and left.
        put_created(&store, "a", b"one".to_vec()).unwrap();
        let error = put_created(&store, "a", b"two".to_vec()).unwrap_err();
        assert!(
            error.to_string().contains("exists with other contents"),
            "{error}"
        );
        assert_eq!(store.get("a").unwrap().as_deref(), Some(&b"one"[..]));
        // An own object: created, then replaced at the version last written...
        let v1 = put_own(&store, "b", b"1".to_vec(), None).unwrap();
        let v2 = put_own(&store, "b", b"2".to_vec(), Some(&v1)).unwrap();
        // ...but not once another writer changed it.
        store.put("b", b"other".to_vec()).unwrap();
        let error = put_own(&store, "b", b"3".to_vec(), Some(&v2)).unwrap_err();
        assert!(
            error.to_string().contains("written by another process"),
            "{error}"
        );
        assert_eq!(store.get("b").unwrap().as_deref(), Some(&b"other"[..]));
        // Creating over an object that is there is refused too (unless it holds the bytes).
        assert!(put_own(&store, "b", b"4".to_vec(), None).is_err());
        put_own(&store, "b", b"other".to_vec(), None).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn scratch_directories_started_together_differ() {
        let dirs: Vec<WorkDir> = (0..4)
            .map(|_| WorkDir::new(None, "test").unwrap())
            .collect();
        let mut paths: Vec<_> = dirs.iter().map(|d| d.path().to_path_buf()).collect();
        paths.dedup();
        assert_eq!(paths.len(), dirs.len(), "{paths:?}");
        assert!(paths.iter().all(|p| p.is_dir()));
        drop(dirs);
        assert!(paths.iter().all(|p| !p.exists()), "removed when dropped");
    }
}
