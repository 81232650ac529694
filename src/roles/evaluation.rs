//! The `evaluate` role: at most one per run. Each time the learner has published
//! `evaluation.every` iterations' worth of new steps, the newest checkpoint plays the
//! previously evaluated one (with gating: the promoted one) and the anchors. Results go to
//! `evaluator/metrics.jsonl` and `matches/` (the format `ratings` reads); with gating, a
//! checkpoint that scores `gate_score` becomes `checkpoints/promoted`, which self-play follows.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::backoff::{retry, PATIENCE};
use super::keeper::LeaseKeeper;
use super::lease::SingletonRole;
use super::{
    advance_pointer, fetch_checkpoint, io_error, prune_cache, put_new_or_same, read_pointer,
    read_state_file, wait_for_config, RoleError, StopFlag, StoredMetrics, WorkDir,
};
use crate::config::evaluation::EvaluationConfig;
use crate::config::RunConfig;
use crate::eval::periodic::{EvaluationContext, EvaluationJob, EvaluationOutcome};
use crate::layout::state::{EvaluationState, StateFile};
use crate::layout::{
    match_key, CHECKPOINTS, CONFIG, EVALUATION_METRICS, EVALUATION_STATE, LATEST, MATCHES,
    MODEL_FILES, PROMOTED,
};
use crate::net::args::NetSettings;
use crate::store::RunStore;
use crate::util::write_atomic;

/// What `evaluate` was asked to do.
#[derive(Clone, Debug)]
pub struct EvaluateOptions {
    /// The run location.
    pub store: String,
    /// Stop after this many minutes (0 or none: no limit).
    pub max_minutes: Option<f64>,
    /// Evaluate the newest checkpoint if it is due, then exit.
    pub once: bool,
    /// How long to wait for the run's config (minutes).
    pub wait_minutes: f64,
    /// Seconds between looks for a new checkpoint.
    pub poll_seconds: f64,
    /// While another evaluation role's lease runs, wait (up to twice the lease time) for it to
    /// expire instead of exiting.
    pub wait_for_lease: bool,
    /// Local scratch directory (default: a temporary one, removed at exit).
    pub work_dir: Option<PathBuf>,
    /// `--precision` and `--device` over the run's `[batching]` settings.
    pub net: crate::net::args::NetArgs,
}

/// Runs the evaluation role; returns the steps it evaluated.
pub fn evaluate(options: &EvaluateOptions) -> Result<Vec<u64>, RoleError> {
    let store = RunStore::open(&options.store)?;
    let stop = StopFlag::on_signals();
    let wait = Duration::from_secs_f64(options.wait_minutes.max(0.0) * 60.0);
    let mut config = wait_for_config(&store, wait, &stop)?;
    options.net.apply_to(&mut config);
    let patience = options.wait_for_lease.then(|| config.lease.duration() * 2);
    let Some(lease) = LeaseKeeper::acquire_waiting(
        &options.store,
        SingletonRole::Evaluation,
        &config.lease,
        patience,
        &stop,
    )?
    else {
        return Ok(Vec::new());
    };
    let mut role = EvaluationRole::start(&store, &config, options.work_dir.as_deref(), lease)?;
    let started = Instant::now();
    let deadline = options
        .max_minutes
        .filter(|m| *m > 0.0)
        .map(|m| started + Duration::from_secs_f64(m * 60.0));
    let poll = Duration::from_secs_f64(options.poll_seconds.max(0.05));
    while !stop.raised() && deadline.is_none_or(|d| Instant::now() < d) {
        match role.due()? {
            Some(candidate) => {
                eprintln!("evaluating step {candidate}");
                eprintln!("{}", role.evaluate(candidate)?);
            }
            None if !options.once => std::thread::sleep(poll),
            None => {}
        }
        if options.once {
            break;
        }
    }
    Ok(role.evaluated)
}

/// The evaluation role of a run: plays each due checkpoint, records the results in the store and,
/// with gating, moves `checkpoints/promoted`.
pub struct EvaluationRole<'a> {
    store: &'a RunStore,
    /// The role's lease: it writes the run only while it holds.
    lease: LeaseKeeper,
    evaluation: EvaluationConfig,
    every_steps: u64,
    work: WorkDir,
    context: EvaluationContext,
    state: EvaluationState,
    metrics: StoredMetrics,
    uploaded: BTreeSet<String>,
    /// The steps this invocation evaluated.
    pub evaluated: Vec<u64>,
}

impl<'a> EvaluationRole<'a> {
    /// The evaluation role of the run at `store`, continuing from its saved state; local files go
    /// to `work_dir` (default: a temporary directory). It writes the run only while it
    /// holds `lease`.
    pub fn start(
        store: &'a RunStore,
        config: &RunConfig,
        work_dir: Option<&Path>,
        lease: LeaseKeeper,
    ) -> Result<Self, RoleError> {
        let work = WorkDir::new(work_dir, "evaluate")?;
        // Fetched checkpoints sit under the work directory as in a run, and a checkpoint's
        // agent reads its run's config there (on a local store they are read in place).
        let config_path = work.path().join(CONFIG);
        write_atomic(&config_path, config.to_toml().as_bytes()).map_err(io_error(&config_path))?;
        let state: EvaluationState = read_state_file(store, EVALUATION_STATE)?.unwrap_or_default();
        Ok(EvaluationRole {
            evaluation: config.evaluation.clone(),
            every_steps: config.evaluation.every.max(1) * config.train.steps_per_iteration,
            context: EvaluationContext {
                kind: config.kind(),
                rules: config.rules(),
                seed: config.seed,
                run_dir: work.path().to_path_buf(),
                search: config.search.clone(),
                net: NetSettings::of(&config.batching),
            },
            metrics: StoredMetrics::open(store, EVALUATION_METRICS, work.path(), None)?,
            store,
            lease,
            work,
            state,
            uploaded: BTreeSet::new(),
            evaluated: Vec::new(),
        })
    }

    /// The newest checkpoint, if it is `every` iterations past the last one evaluated.
    pub fn due(&self) -> Result<Option<u64>, RoleError> {
        let last = self.state.last_step.unwrap_or(0);
        let latest = retry("reading latest", PATIENCE, || {
            read_pointer(self.store, LATEST)
        })?;
        Ok(latest.filter(|latest| *latest >= last + self.every_steps))
    }

    /// Plays the checkpoint at `candidate` against the incumbent (the previous one
    /// evaluated, or with gating the promoted one) and the anchors; records the results and
    /// returns the summary line.
    pub fn evaluate(&mut self, candidate: u64) -> Result<String, RoleError> {
        let store = self.store;
        let incumbent = if self.evaluation.gating {
            retry("reading promoted", PATIENCE, || {
                read_pointer(store, PROMOTED)
            })?
        } else {
            Some(self.state.last_step.unwrap_or(0))
        }
        .filter(|s| *s != candidate);
        let cache = self.work.path().join(CHECKPOINTS);
        let fetch = |step: u64| {
            retry("fetching a checkpoint", PATIENCE, || {
                fetch_checkpoint(store, step, &MODEL_FILES, &cache)
            })
        };
        let candidate_dir = fetch(candidate)?;
        let incumbent_dir = incumbent.map(|s| fetch(s).map(|d| (s, d))).transpose()?;
        let mut job = EvaluationJob::start(
            &self.evaluation,
            &self.context,
            candidate,
            &candidate_dir,
            incumbent_dir.as_ref().map(|(s, d)| (*s, d.as_path())),
        );
        let outcome = EvaluationOutcome::of(&self.evaluation, candidate, job.wait());
        self.lease.check()?;
        let (work, uploaded) = (self.work.path(), &mut self.uploaded);
        retry("uploading match records", PATIENCE, || {
            upload_matches(store, work, uploaded)
        })?;
        for line in &outcome.metrics {
            self.metrics.append(line)?;
        }
        let metrics = &self.metrics;
        retry("publishing metrics", PATIENCE, || metrics.publish(store))?;
        if outcome.promote {
            retry("moving promoted", PATIENCE, || {
                advance_pointer(store, PROMOTED, candidate)
            })?;
        }
        self.state.last_step = Some(candidate);
        let state = self.state.to_json().into_bytes();
        retry("saving the evaluation role's state", PATIENCE, || {
            Ok(store.put(EVALUATION_STATE, state.clone())?)
        })?;
        self.evaluated.push(candidate);
        let keep: Vec<u64> = [Some(candidate), incumbent].into_iter().flatten().collect();
        prune_cache(&cache, &keep);
        Ok(outcome.summary)
    }
}

/// Uploads the match files written since the last call: games before reports, since
/// `ratings` counts a match only once its report exists.
fn upload_matches(
    store: &RunStore,
    work: &Path,
    uploaded: &mut BTreeSet<String>,
) -> Result<(), RoleError> {
    let dir = work.join(MATCHES);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Ok(());
    };
    let mut names: Vec<String> = entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| !uploaded.contains(n))
        .collect();
    names.sort_by_key(|n| (!n.ends_with(".games.jsonl"), n.clone()));
    for name in names {
        let path = dir.join(&name);
        let bytes = std::fs::read(&path).map_err(io_error(&path))?;
        put_match_file(store, &match_key(&name), bytes)?;
        uploaded.insert(name);
    }
    Ok(())
}

/// Writes a match's file only where nothing is: a file there already (an earlier
/// evaluation role played the same match before it stopped) is kept as it is, said on
/// stderr when it differs.
fn put_match_file(store: &RunStore, key: &str, bytes: Vec<u8>) -> Result<(), RoleError> {
    if !put_new_or_same(store, key, bytes)? {
        eprintln!(
            "warning: {}/{key} exists with other contents (an earlier evaluation role played this \
             match); the file there is kept",
            store.location()
        );
    }
    Ok(())
}
