//! Where a run's and an export's files live. Every path of a run is named here, as a key
//! relative to the run (the same key in a local run directory and in a run store); the
//! run's state files (checkpoints' counters and intake links, self-play sessions', the
//! evaluation role's and a fork's records) are read and written in [`state`] only:
//!
//! ```text
//! config.toml                               the run's config
//! fork.json                                 a forked run's base and step
//! checkpoints/step-NNNNNNNN/…               model.safetensors, model.json,
//!                                           optimizer.safetensors, state.json, intake.json
//!                                           (older ones thinned: no optimizer state, or
//!                                           only intake.json; see `[checkpoints]`);
//!                                           `pinned` keeps its weights through thinning
//! checkpoints/latest, checkpoints/promoted  pointers: the name of a checkpoint directory
//! games/<session>/NNNNNNNN.jsonl.gz         self-play's game shards (gzip-compressed JSON
//!                                           lines; older runs' plain `.jsonl` are read too)
//! workers/<session>.json                    each self-play session's counters
//! learner/metrics.jsonl                     the learner's metrics (metrics.jsonl in old runs)
//! evaluator/metrics.jsonl, evaluator/state.json   the evaluation role's results and progress
//! leases/learner.json, leases/evaluator.json the learner's and the evaluation role's leases
//! matches/…                                 match games and reports
//! ratings.csv, ratings.png, losses.png      `ratings`' outputs
//! bench/…                                   `bench-learning`'s plan, tables and matches
//! ```
//! An export directory holds `model.pt` and `model.json`. Training, evaluation, export,
//! serve and the roles all read this one layout.

pub mod state;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use state::{StateError, StateFile, TrainState};

/// The run's config.
pub const CONFIG: &str = "config.toml";
/// A forked run's record of its base.
pub const FORK: &str = "fork.json";
/// The folder of checkpoints.
pub const CHECKPOINTS: &str = "checkpoints";
/// Names the newest checkpoint.
pub const LATEST: &str = "checkpoints/latest";
/// [`LATEST`]'s name inside [`CHECKPOINTS`].
pub const LATEST_FILE: &str = "latest";
/// With gating: names the checkpoint self-play uses.
pub const PROMOTED: &str = "checkpoints/promoted";
/// An empty file in a checkpoint's folder that keeps its weights through retention
/// (`bench-learning` pins the checkpoints it rates; a person may pin one by hand).
pub const PINNED_FILE: &str = "pinned";
/// The folder of game shards.
pub const GAMES: &str = "games";
/// The folder of self-play sessions' counters.
pub const WORKERS: &str = "workers";
/// The folder of match games and reports.
pub const MATCHES: &str = "matches";
/// The folder of the singleton roles' lease objects (`leases/learner.json`).
pub const LEASES: &str = "leases";
/// The learner's folder (its metrics).
pub const LEARNER: &str = "learner";
/// The evaluation role's folder (its metrics and state).
pub const EVALUATOR: &str = "evaluator";
/// Where the run's `next:` hint exports its model (`export --out RUN/export`).
pub const EXPORT: &str = "export";
/// The learner's metrics.
pub const LEARNER_METRICS: &str = "learner/metrics.jsonl";
/// The evaluation role's metrics.
pub const EVALUATION_METRICS: &str = "evaluator/metrics.jsonl";
/// The evaluation role's progress.
pub const EVALUATION_STATE: &str = "evaluator/state.json";
/// A metrics log's file name: a role's local log, and the learner's in runs written by
/// `train` before it ran the roles (at the run's top).
pub const METRICS_FILE: &str = "metrics.jsonl";
/// Every metrics log a run may hold, the old top-level one first.
pub const METRICS_LOGS: [&str; 3] = [METRICS_FILE, LEARNER_METRICS, EVALUATION_METRICS];
/// `ratings`' table.
pub const RATINGS_CSV: &str = "ratings.csv";
/// `ratings`' Elo plot.
pub const RATINGS_PLOT: &str = "ratings.png";
/// `ratings`' loss plot.
pub const LOSSES_PLOT: &str = "losses.png";

/// The learning benchmark's folder (`bench-learning`): its config and plan, the ladder
/// tables, and its matches (each a match directory).
pub const BENCH: &str = "bench";
/// The benchmark's plan, in [`BENCH`].
pub const BENCH_PLAN_FILE: &str = "plan.json";
/// The benchmark's ladder tables and plot, in [`BENCH`].
pub const LADDER_FILES: [&str; 3] = ["ladder.md", "ladder.csv", "ladder.png"];
/// Self-play's diversity over the benchmark's run, table and plot, in [`BENCH`].
pub const DIVERSITY_FILES: [&str; 2] = ["diversity.csv", "diversity.png"];
/// A match directory's report (`match --out DIR`, and each benchmark match).
pub const MATCH_REPORT_FILE: &str = "result.json";
/// A match directory's games.
pub const MATCH_GAMES_FILE: &str = "games.jsonl";

/// The folders inside a run that are parts of it, never runs of their own.
pub const RUN_PARTS: [&str; 9] = [
    LEARNER,
    EVALUATOR,
    WORKERS,
    CHECKPOINTS,
    GAMES,
    EXPORT,
    BENCH,
    MATCHES,
    LEASES,
];

/// A checkpoint's weights.
pub const WEIGHTS_FILE: &str = "model.safetensors";
/// A checkpoint's model metadata (game, encoding, shape), beside the weights.
pub const MODEL_META_FILE: &str = "model.json";
/// A checkpoint's optimizer state.
pub const OPTIMIZER_FILE: &str = "optimizer.safetensors";
/// A checkpoint's counters ([`TrainState`]).
pub const STATE_FILE: &str = "state.json";
/// A published checkpoint's intake link ([`state::IntakeLink`]).
pub const INTAKE_FILE: &str = "intake.json";
/// The files of a checkpoint, in upload order (`state.json` last).
pub const CHECKPOINT_FILES: [&str; 4] = [WEIGHTS_FILE, MODEL_META_FILE, OPTIMIZER_FILE, STATE_FILE];
/// What a player of a checkpoint needs of it.
pub const MODEL_FILES: [&str; 2] = [WEIGHTS_FILE, MODEL_META_FILE];

/// The TorchScript file of an export directory.
pub const TORCHSCRIPT_FILE: &str = "model.pt";
/// The metadata file of an export directory.
pub const META_FILE: &str = "model.json";

/// The directory name of the checkpoint at `step`.
pub fn checkpoint_name(step: u64) -> String {
    format!("step-{step:08}")
}

/// The step of a checkpoint directory's name (`step-NNNNNNNN`), or of a pointer's text.
pub fn parse_checkpoint_name(name: &str) -> Option<u64> {
    name.trim().strip_prefix("step-")?.parse().ok()
}

/// The key of the checkpoint directory at `step`.
pub fn checkpoint_dir_key(step: u64) -> String {
    format!("{CHECKPOINTS}/{}", checkpoint_name(step))
}

/// The key of file `file` of the checkpoint at `step`.
pub fn checkpoint_key(step: u64, file: &str) -> String {
    format!("{}/{file}", checkpoint_dir_key(step))
}

/// The step and file name of a checkpoint object's key (`checkpoints/step-N/FILE`; `None`
/// for anything else, such as `checkpoints/latest`).
pub fn parse_checkpoint_key(key: &str) -> Option<(u64, &str)> {
    let rest = key.strip_prefix(CHECKPOINTS)?.strip_prefix('/')?;
    let (name, file) = rest.split_once('/')?;
    Some((parse_checkpoint_name(name)?, file))
}

/// The steps of the checkpoints among `keys` (a listing of [`CHECKPOINTS`]) whose state is
/// there (it is written last, so the checkpoint is whole), oldest first.
pub fn checkpoint_steps(keys: &[String]) -> Vec<u64> {
    let mut steps: Vec<u64> = keys
        .iter()
        .filter_map(|key| match parse_checkpoint_key(key)? {
            (step, STATE_FILE) => Some(step),
            _ => None,
        })
        .collect();
    steps.sort_unstable();
    steps.dedup();
    steps
}

/// What a whole checkpoint of a run holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Held {
    /// Weights, optimizer state and counters: what resume and fork need.
    Full,
    /// Weights and counters only (thinned by checkpoint retention): for ratings and play.
    Weights,
}

/// The whole checkpoints among `keys` (a listing of [`CHECKPOINTS`]: those whose state is
/// there) and what each holds. A checkpoint thinned away entirely keeps only its intake link
/// and is not among them.
pub fn held_checkpoints(keys: &[String]) -> BTreeMap<u64, Held> {
    let mut files: BTreeMap<u64, BTreeSet<&str>> = BTreeMap::new();
    for (step, file) in keys.iter().filter_map(|k| parse_checkpoint_key(k)) {
        files.entry(step).or_default().insert(file);
    }
    files
        .into_iter()
        .filter(|(_, files)| files.contains(STATE_FILE))
        .map(|(step, files)| match files.contains(OPTIMIZER_FILE) {
            true => (step, Held::Full),
            false => (step, Held::Weights),
        })
        .collect()
}

/// The steps among `keys` whose checkpoint holds a [`PINNED_FILE`].
pub fn pinned_steps(keys: &[String]) -> BTreeSet<u64> {
    keys.iter()
        .filter_map(|k| parse_checkpoint_key(k))
        .filter(|(_, file)| *file == PINNED_FILE)
        .map(|(step, _)| step)
        .collect()
}

/// The steps of the whole checkpoints among `keys` that hold their optimizer state (what a
/// resume or a fork needs), oldest first.
pub fn full_checkpoint_steps(keys: &[String]) -> Vec<u64> {
    held_checkpoints(keys)
        .into_iter()
        .filter(|(_, held)| *held == Held::Full)
        .map(|(step, _)| step)
        .collect()
}

/// The key of shard `seq` of self-play session `session` (gzip-compressed JSON lines).
pub fn shard_key(session: &str, seq: u64) -> String {
    format!("{GAMES}/{session}/{seq:08}.jsonl.gz")
}

/// The session and number of a shard key, compressed or (an older run's) plain; `None` for
/// anything else.
pub fn parse_shard_key(key: &str) -> Option<(&str, u64)> {
    let rest = key.strip_prefix(GAMES)?.strip_prefix('/')?;
    let (session, file) = rest.split_once('/')?;
    let seq = file
        .strip_suffix(".jsonl.gz")
        .or_else(|| file.strip_suffix(".jsonl"))?;
    if session.is_empty() || seq.len() != 8 || !seq.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((session, seq.parse().ok()?))
}

/// The key of self-play session `session`'s counters.
pub fn worker_key(session: &str) -> String {
    format!("{WORKERS}/{session}.json")
}

/// The key of match file `name`.
pub fn match_key(name: &str) -> String {
    format!("{MATCHES}/{name}")
}

/// Where `match` writes when given no `--out`: `matches/<game>-<unix seconds>` under the
/// current directory.
pub fn default_match_dir(game: &str, unix_seconds: u64) -> PathBuf {
    Path::new(MATCHES).join(format!("{game}-{unix_seconds}"))
}

/// A run's local checkpoint directory: its step and path.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckpointDir {
    /// The step its name gives.
    pub step: u64,
    /// The directory.
    pub dir: PathBuf,
}

impl CheckpointDir {
    /// Its counters (`state.json`).
    pub fn state(&self) -> Result<TrainState, StateError> {
        read_state(&self.dir)
    }
}

/// The checkpoint directories of the local run `run_dir` that hold weights, oldest first
/// (an error when it has no `checkpoints` folder).
pub fn list_checkpoints(run_dir: &Path) -> std::io::Result<Vec<CheckpointDir>> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(run_dir.join(CHECKPOINTS))? {
        let dir = entry?.path();
        let step = dir
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(parse_checkpoint_name);
        if let Some(step) = step.filter(|_| dir.join(WEIGHTS_FILE).is_file()) {
            found.push(CheckpointDir { step, dir });
        }
    }
    found.sort_by_key(|c| c.step);
    Ok(found)
}

/// Reads a checkpoint directory's counters (`state.json`).
pub fn read_state(dir: &Path) -> Result<TrainState, StateError> {
    TrainState::read(&dir.join(STATE_FILE))
}

/// True for a directory written by `checkers-zero export`.
pub fn is_export_dir(path: &Path) -> bool {
    path.join(META_FILE).is_file() && path.join(TORCHSCRIPT_FILE).is_file()
}

/// Where a model path leads: the weights file, and the training step when it is a
/// checkpoint (from its `state.json`).
#[derive(Clone, Debug, PartialEq)]
pub struct ResolvedModel {
    /// The `.safetensors` weights file (metadata beside it).
    pub weights: PathBuf,
    /// The checkpoint's training step, when known.
    pub step: Option<u64>,
}

/// Finds the weights behind a model path: a weights file, a checkpoint directory (its
/// `model.safetensors`), or a run directory (the checkpoint named in
/// `checkpoints/latest`). Errors name what was looked for.
pub fn resolve_model(path: &Path) -> Result<ResolvedModel, String> {
    if path.is_file() {
        let step = path.parent().and_then(checkpoint_step);
        return Ok(ResolvedModel {
            weights: path.to_path_buf(),
            step,
        });
    }
    if !path.is_dir() {
        return Err(format!("{} does not exist", path.display()));
    }
    let weights = path.join(WEIGHTS_FILE);
    if weights.is_file() {
        return Ok(ResolvedModel {
            weights,
            step: checkpoint_step(path),
        });
    }
    let latest = path.join(LATEST);
    if let Ok(name) = std::fs::read_to_string(&latest) {
        let dir = path.join(CHECKPOINTS).join(name.trim());
        let weights = dir.join(WEIGHTS_FILE);
        if weights.is_file() {
            return Ok(ResolvedModel {
                weights,
                step: checkpoint_step(&dir),
            });
        }
        return Err(format!(
            "{} names {}, which holds no {WEIGHTS_FILE}",
            latest.display(),
            dir.display()
        ));
    }
    Err(format!(
        "{} holds neither {WEIGHTS_FILE} nor {LATEST}",
        path.display()
    ))
}

/// The run directory a weights file belongs to, when it lies in a run's checkpoint
/// directory (`RUN/checkpoints/step-N/model.safetensors`).
pub fn run_dir_of_weights(weights: &Path) -> Option<PathBuf> {
    let checkpoints = weights.parent()?.parent()?;
    if checkpoints.file_name()? != CHECKPOINTS {
        return None;
    }
    checkpoints.parent().map(Path::to_path_buf)
}

/// The `step` of a checkpoint directory's `state.json`, if it has a readable one.
pub fn checkpoint_step(dir: &Path) -> Option<u64> {
    read_state(dir).ok().map(|s| s.step)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_keys_round_trip_and_reject_other_objects() {
        let key = shard_key("worker-1-abc", 17);
        assert_eq!(key, "games/worker-1-abc/00000017.jsonl.gz");
        assert_eq!(parse_shard_key(&key), Some(("worker-1-abc", 17)));
        // An older run's plain shards are still shards.
        let plain = "games/worker-1-abc/00000018.jsonl";
        assert_eq!(parse_shard_key(plain), Some(("worker-1-abc", 18)));
        for other in [
            "games/x/00000017.jsonl#1",
            "games/x/00000017.gz",
            "games/x/00000017.jsonl.gz.tmp",
            "games/x/17.jsonl",
            "games/00000001.jsonl",
            "games//00000001.jsonl",
            "workers/x.json",
        ] {
            assert_eq!(parse_shard_key(other), None, "{other}");
        }
    }

    #[test]
    fn keys_are_built_and_parsed_back() {
        assert_eq!(LATEST, format!("{CHECKPOINTS}/{LATEST_FILE}"));
        assert_eq!(
            checkpoint_key(200, INTAKE_FILE),
            "checkpoints/step-00000200/intake.json"
        );
        assert_eq!(
            parse_checkpoint_key("checkpoints/step-00000200/intake.json"),
            Some((200, INTAKE_FILE))
        );
        assert_eq!(parse_checkpoint_key(LATEST), None);
        assert_eq!(parse_checkpoint_name(" step-00000007\n"), Some(7));
        assert_eq!(parse_checkpoint_name("latest"), None);
        let listing: Vec<String> = [
            "checkpoints/step-00000020/model.safetensors",
            "checkpoints/step-00000020/state.json",
            "checkpoints/step-00000030/model.safetensors",
            "checkpoints/step-00000010/state.json",
            "checkpoints/latest",
        ]
        .map(String::from)
        .to_vec();
        // Step 30 has no state yet: it is not whole.
        assert_eq!(checkpoint_steps(&listing), vec![10, 20]);
        let listing: Vec<String> = listing
            .into_iter()
            .chain(["checkpoints/step-00000010/optimizer.safetensors".into()])
            .collect();
        let held = held_checkpoints(&listing);
        assert_eq!(
            held,
            BTreeMap::from([(10, Held::Full), (20, Held::Weights)])
        );
        assert_eq!(full_checkpoint_steps(&listing), vec![10]);
        assert_eq!(worker_key("w-1"), "workers/w-1.json");
        assert_eq!(match_key("a.json"), "matches/a.json");
    }

    #[test]
    fn lists_local_checkpoints_by_step() {
        let root = std::env::temp_dir().join(format!("cz-list-{}", std::process::id()));
        let missing = list_checkpoints(&root).unwrap_err();
        assert_eq!(missing.kind(), std::io::ErrorKind::NotFound);
        for (name, weights) in [
            ("step-00000100", true),
            ("step-00000020", true),
            ("step-x", true),
        ]
        .into_iter()
        .chain([("step-00000300", false), (".tmp-step-00000400-1", true)])
        {
            let dir = root.join(CHECKPOINTS).join(name);
            std::fs::create_dir_all(&dir).unwrap();
            if weights {
                std::fs::write(dir.join(WEIGHTS_FILE), b"x").unwrap();
            }
        }
        let found = list_checkpoints(&root).unwrap();
        let steps: Vec<u64> = found.iter().map(|c| c.step).collect();
        assert_eq!(steps, vec![20, 100]);
        assert_eq!(found[0].dir, root.join("checkpoints/step-00000020"));
        assert!(found[0]
            .state()
            .unwrap_err()
            .to_string()
            .contains("state.json"));
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn resolves_checkpoint_run_and_file_paths() {
        let root = std::env::temp_dir().join(format!("cz-spec-{}", std::process::id()));
        let ckpt = root.join("checkpoints").join("step-00000200");
        std::fs::create_dir_all(&ckpt).unwrap();
        std::fs::write(ckpt.join("model.safetensors"), b"x").unwrap();
        std::fs::write(
            ckpt.join("state.json"),
            br#"{"step": 200, "elapsed_s": 1.5}"#,
        )
        .unwrap();
        std::fs::write(root.join("checkpoints").join("latest"), b"step-00000200").unwrap();
        let expected = ResolvedModel {
            weights: ckpt.join("model.safetensors"),
            step: Some(200),
        };
        assert_eq!(resolve_model(&root).unwrap(), expected);
        assert_eq!(resolve_model(&ckpt).unwrap(), expected);
        assert_eq!(
            resolve_model(&ckpt.join("model.safetensors")).unwrap(),
            expected
        );
        // The run of a checkpoint's weights (its config is read, or missed, by the caller).
        assert_eq!(run_dir_of_weights(&expected.weights), Some(root.clone()));
        assert_eq!(run_dir_of_weights(&root.join("model.safetensors")), None);
        assert!(resolve_model(&root.join("nope"))
            .unwrap_err()
            .contains("does not exist"));
        assert!(resolve_model(&root.join("checkpoints"))
            .unwrap_err()
            .contains("neither"));
        std::fs::remove_dir_all(&root).unwrap();
    }
}
