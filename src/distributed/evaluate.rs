//! The `evaluate` role: at most one per run. Each time the learner has published
//! `evaluation.every` iterations' worth of new steps, the newest checkpoint plays the
//! previously evaluated one (with gating: the promoted one) and the anchors. Results go to
//! `evaluator/metrics.jsonl` and `matches/` (the format `ratings` reads); with gating, a
//! checkpoint that scores `gate_score` becomes `checkpoints/promoted`, which self-play follows.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::{
    fetch_checkpoint, io_error, prune_cache, read_pointer, wait_for_config, write_pointer,
    DistError, StopFlag, StoredMetrics, WorkDir, LATEST_KEY, MODEL_FILES, PROMOTED_KEY,
};
use crate::store::RunStore;
use crate::train::evaluation::{EvaluationContext, EvaluationJob, EvaluationOutcome};

/// The evaluator's metrics object.
pub const EVALUATOR_METRICS_KEY: &str = "evaluator/metrics.jsonl";
/// The evaluator's progress object.
pub const EVALUATOR_STATE_KEY: &str = "evaluator/state.json";

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
    /// Local scratch directory (default: a temporary one, removed at exit).
    pub work_dir: Option<PathBuf>,
}

/// The evaluator's progress, saved in the store so that a restart does not redo work.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EvaluatorState {
    /// The step of the last checkpoint evaluated.
    pub last_step: Option<u64>,
}

/// Runs the evaluator; returns the steps it evaluated.
pub fn evaluate(options: &EvaluateOptions) -> Result<Vec<u64>, DistError> {
    let store = RunStore::open(&options.store)?;
    let stop = StopFlag::on_signals();
    let wait = Duration::from_secs_f64(options.wait_minutes.max(0.0) * 60.0);
    let config = wait_for_config(&store, wait, &stop)?;
    let evaluation = config.evaluation.clone();
    let every_steps = evaluation.every.max(1) * config.train.steps_per_iteration;
    let work = WorkDir::new(options.work_dir.as_deref(), "evaluate")?;
    let cache = work.path().join("checkpoints");
    let context = EvaluationContext {
        kind: config.kind(),
        rules: config.rules(),
        seed: config.seed,
        run_dir: work.path().to_path_buf(),
        search: config.search.clone(),
    };
    let mut state: EvaluatorState = match store.get_text(EVALUATOR_STATE_KEY)? {
        Some(text) => serde_json::from_str(&text).map_err(|e| {
            DistError::Run(format!("{}/{EVALUATOR_STATE_KEY}: {e}", store.location()))
        })?,
        None => EvaluatorState::default(),
    };
    let metrics = StoredMetrics::open(&store, EVALUATOR_METRICS_KEY, work.path(), None)?;
    let started = Instant::now();
    let deadline = options
        .max_minutes
        .filter(|m| *m > 0.0)
        .map(|m| started + Duration::from_secs_f64(m * 60.0));
    let mut uploaded = BTreeSet::new();
    let mut evaluated = Vec::new();
    while !stop.raised() && deadline.is_none_or(|d| Instant::now() < d) {
        let due = read_pointer(&store, LATEST_KEY)?
            .filter(|latest| *latest >= state.last_step.unwrap_or(0) + every_steps);
        let Some(candidate) = due else {
            if options.once {
                break;
            }
            std::thread::sleep(Duration::from_secs_f64(options.poll_seconds.max(0.05)));
            continue;
        };
        let incumbent = if evaluation.gating {
            read_pointer(&store, PROMOTED_KEY)?
        } else {
            Some(state.last_step.unwrap_or(0))
        }
        .filter(|s| *s != candidate);
        let candidate_dir = fetch_checkpoint(&store, candidate, &MODEL_FILES, &cache)?;
        let incumbent_dir = incumbent
            .map(|s| fetch_checkpoint(&store, s, &MODEL_FILES, &cache).map(|d| (s, d)))
            .transpose()?;
        eprintln!(
            "evaluating step {candidate}{}",
            incumbent.map_or(String::new(), |s| format!(" against step {s}"))
        );
        let mut job = EvaluationJob::start(
            &evaluation,
            &context,
            candidate,
            &candidate_dir,
            incumbent_dir.as_ref().map(|(s, d)| (*s, d.as_path())),
        );
        let outcome = EvaluationOutcome::of(&evaluation, candidate, job.wait());
        upload_matches(&store, work.path(), &mut uploaded)?;
        for line in &outcome.metrics {
            metrics.append(line)?;
        }
        metrics.publish(&store)?;
        if outcome.promote {
            write_pointer(&store, PROMOTED_KEY, candidate)?;
        }
        state.last_step = Some(candidate);
        store.put(
            EVALUATOR_STATE_KEY,
            serde_json::to_vec_pretty(&state).expect("state serialises"),
        )?;
        eprintln!("{}", outcome.summary);
        evaluated.push(candidate);
        let keep: Vec<u64> = [Some(candidate), incumbent].into_iter().flatten().collect();
        prune_cache(&cache, &keep);
        if options.once {
            break;
        }
    }
    Ok(evaluated)
}

/// Uploads the match files written since the last call: games before reports, since
/// `ratings` counts a match only once its report exists.
fn upload_matches(
    store: &RunStore,
    work: &std::path::Path,
    uploaded: &mut BTreeSet<String>,
) -> Result<(), DistError> {
    let dir = work.join("matches");
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
        store.put(&format!("matches/{name}"), bytes)?;
        uploaded.insert(name);
    }
    Ok(())
}
