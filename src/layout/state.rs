//! The state files a run keeps as JSON: beside its checkpoints the training counters
//! (`state.json`) and the intake link (`intake.json`), the roles' progress (each self-play
//! session's `workers/<session>.json`, the evaluation role's `evaluator/state.json`) and a forked
//! run's `fork.json`.
//! Each is a typed struct, written with a `version` and read here only: a file without one
//! (written before state files had versions) reads as version 0; a newer or malformed one
//! is refused, with the reason in words.

use std::collections::BTreeMap;
use std::path::Path;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The version of the state files this build writes (and the newest it reads).
pub const RECORD_VERSION: u64 = 1;

/// Why a state file could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StateError {
    /// The file or object could not be read.
    #[error("{source_name}: cannot be read: {reason}")]
    Unreadable {
        /// The file or object.
        source_name: String,
        /// What went wrong.
        reason: String,
    },
    /// Not JSON, or not the record's fields.
    #[error("{source_name}: not a {what}: {reason}")]
    Malformed {
        /// The file or object.
        source_name: String,
        /// The kind of record expected.
        what: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// Written by a newer checkers-zero.
    #[error(
        "{source_name}: {what} version {found} is newer than this checkers-zero reads \
         (up to {RECORD_VERSION}); update checkers-zero to read it"
    )]
    Newer {
        /// The file or object.
        source_name: String,
        /// The kind of record.
        what: &'static str,
        /// The version it carries.
        found: u64,
    },
}

/// The counters saved with a checkpoint (`state.json`). Only `step` and `elapsed_s` must be
/// there; keys of older versions (`next_game`, `promoted_step`) are ignored, so their
/// checkpoints still load.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TrainState {
    /// Training steps done.
    pub step: u64,
    /// Training wall time, summed over all invocations of the run (seconds).
    pub elapsed_s: f64,
    /// CPU time of the training process, summed over all invocations (seconds): self-play
    /// and learning together in `train`, the learner's alone in `learn`; 0 in older runs.
    #[serde(default)]
    pub cpu_s: f64,
    /// Positions sampled for training so far.
    #[serde(default)]
    pub samples_trained: u64,
    /// The run's seed.
    #[serde(default)]
    pub seed: u64,
    /// Game shards taken in, per self-play session (its shards are
    /// numbered from 0, so the count says which ones).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub consumed: BTreeMap<String, u64>,
    /// Training samples in every game taken in (sizes the window).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub samples_seen: u64,
    /// Games taken in.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub games_seen: u64,
}

fn is_zero(value: &u64) -> bool {
    *value == 0
}

/// A field that reads as `None` when it is missing, null or not of its type.
fn none_unless_readable<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: DeserializeOwned,
{
    let value = Value::deserialize(deserializer)?;
    Ok(serde_json::from_value(value).ok())
}

/// A published checkpoint's intake link (`intake.json`): the shards taken in since the
/// checkpoint before it, which it names, so the chain of links lists every shard once.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct IntakeLink {
    /// The checkpoint's step.
    pub step: u64,
    /// The step of the checkpoint published before it (none for the first).
    #[serde(default)]
    pub previous: Option<u64>,
    /// The shard keys taken in since `previous`, in order.
    pub shards: Vec<String>,
    /// The training samples each of `shards` gave, in the same order (empty in links
    /// written before it): game retention sizes the replay windows from them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub samples: Vec<u64>,
    /// When the checkpoint was published (milliseconds since the Unix epoch; 0 if unknown).
    #[serde(default)]
    pub published_unix_ms: u64,
}

/// A self-play session's counters (`workers/<session>.json`), rewritten as it publishes.
/// Every field has a default, so older files read. `P` is the type of its precision line
/// (`metrics::PrecisionLine`, which self-play names: the layout sits below the metrics).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(
    default,
    bound(
        serialize = "P: Serialize",
        deserialize = "P: DeserializeOwned + Default"
    )
)]
pub struct WorkerStatus<P> {
    /// The session's name.
    pub session: String,
    /// Games finished (published or about to be).
    pub games: u64,
    /// Games published.
    pub published_games: u64,
    /// Shards published.
    pub shards: u64,
    /// Positions played (searched or forced).
    pub positions: u64,
    /// Training samples made.
    pub samples: u64,
    /// Seconds of play.
    pub seconds: f64,
    /// Positions played per second.
    pub positions_per_s: f64,
    /// Positions the nets evaluated per second.
    pub net_positions_per_s: f64,
    /// Positions per forward pass.
    pub net_mean_batch: f64,
    /// Net calls per fully searched step.
    pub net_calls_per_searched_step: f64,
    /// Share of net calls made for forced leaves.
    pub forced_leaf_share: f64,
    /// The checkpoint new games use.
    pub model_step: u64,
    /// The newest checkpoint it has seen.
    pub newest_seen: u64,
    /// Pools still finishing games with an older checkpoint.
    pub draining_pools: usize,
    /// True once the session stopped.
    pub done: bool,
    /// When it wrote this (milliseconds since the Unix epoch).
    pub updated_unix_ms: u64,
    /// Its batcher's precision choice (that metrics line); none in older files, and in
    /// files whose line does not read as one.
    #[serde(deserialize_with = "none_unless_readable")]
    pub precision: Option<P>,
    /// Store requests that failed and were tried again (outages ridden out).
    pub store_retries: u64,
}

/// The evaluation role's progress (`evaluator/state.json`), so that a restart does not redo
/// work.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EvaluationState {
    /// The step of the last checkpoint evaluated.
    #[serde(default)]
    pub last_step: Option<u64>,
}

/// A forked run's record of where it came from (`fork.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ForkState {
    /// The base run's directory, as given.
    pub base: String,
    /// The checkpoint's step.
    pub step: u64,
    /// Shards copied (every one the base had taken in by that step).
    pub shards: u64,
    /// When the fork was made (Unix milliseconds).
    pub unix_ms: u64,
}

/// A state file kept as versioned JSON.
pub trait StateFile: Serialize + DeserializeOwned {
    /// What it is, in words ("checkpoint state").
    const WHAT: &'static str;

    /// The record as JSON, with the current version.
    fn to_json(&self) -> String {
        #[derive(Serialize)]
        struct Stamped<'a, T> {
            version: u64,
            #[serde(flatten)]
            record: &'a T,
        }
        let stamped = Stamped {
            version: RECORD_VERSION,
            record: self,
        };
        serde_json::to_string_pretty(&stamped).expect("records serialise")
    }

    /// Parses the record from `text` (read from `source_name`, which errors name).
    fn parse(text: &str, source_name: &str) -> Result<Self, StateError> {
        let malformed = |reason: String| StateError::Malformed {
            source_name: source_name.to_string(),
            what: Self::WHAT,
            reason,
        };
        let mut value: Value = serde_json::from_str(text).map_err(|e| malformed(e.to_string()))?;
        let object = value
            .as_object_mut()
            .ok_or_else(|| malformed("not a JSON object".into()))?;
        let found = match object.remove("version") {
            None => 0,
            Some(v) => v
                .as_u64()
                .ok_or_else(|| malformed(format!("version {v} is not a whole number")))?,
        };
        if found > RECORD_VERSION {
            return Err(StateError::Newer {
                source_name: source_name.to_string(),
                what: Self::WHAT,
                found,
            });
        }
        serde_json::from_value(value).map_err(|e| malformed(e.to_string()))
    }

    /// Reads the record from the file `path`.
    fn read(path: &Path) -> Result<Self, StateError> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| StateError::Unreadable {
            source_name: name.clone(),
            reason: e.to_string(),
        })?;
        Self::parse(&text, &name)
    }
}

impl StateFile for TrainState {
    const WHAT: &'static str = "checkpoint state";
}

impl StateFile for IntakeLink {
    const WHAT: &'static str = "checkpoint intake link";
}

impl<P: Serialize + DeserializeOwned + Default> StateFile for WorkerStatus<P> {
    const WHAT: &'static str = "self-play session status";
}

impl StateFile for EvaluationState {
    const WHAT: &'static str = "evaluation role's state";
}

impl StateFile for ForkState {
    const WHAT: &'static str = "fork record";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_with_their_version() {
        let state = TrainState {
            step: 200,
            elapsed_s: 1.5,
            cpu_s: 2.75,
            consumed: BTreeMap::from([("w-1".to_string(), 3)]),
            games_seen: 9,
            ..TrainState::default()
        };
        let json = state.to_json();
        assert!(json.contains("\"version\": 1"), "{json}");
        assert_eq!(TrainState::parse(&json, "s").unwrap(), state);
        let link = IntakeLink {
            step: 4,
            previous: Some(2),
            shards: vec!["games/w-1/00000000.jsonl".into()],
            samples: vec![41],
            published_unix_ms: 7,
        };
        assert_eq!(IntakeLink::parse(&link.to_json(), "i").unwrap(), link);
        // A link written before the per-shard counts (no `samples`) reads with none.
        let before = IntakeLink {
            samples: Vec::new(),
            ..link
        };
        assert!(!before.to_json().contains("samples"));
        assert_eq!(IntakeLink::parse(&before.to_json(), "i").unwrap(), before);
    }

    #[test]
    fn role_records_round_trip_and_older_files_read() {
        /// A precision line's stand-in (the real one is the metrics', above the layout).
        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
        struct Line {
            choice: String,
        }
        let status = WorkerStatus {
            session: "w-1".into(),
            games: 12,
            positions_per_s: 3.5,
            done: true,
            precision: Some(Line {
                choice: "fp32".into(),
            }),
            ..WorkerStatus::default()
        };
        assert_eq!(WorkerStatus::parse(&status.to_json(), "w").unwrap(), status);
        // As sessions wrote them before records had versions, and before the precision
        // line was typed (any value that does not read as one reads as none).
        let old = r#"{"session": "w-2", "games": 3, "model_step": 20, "done": false}"#;
        let old = WorkerStatus::<Line>::parse(old, "w").unwrap();
        assert_eq!((old.games, old.model_step, old.updated_unix_ms), (3, 20, 0));
        assert_eq!(old.precision, None);
        for precision in [r#"null"#, r#""fp32""#, r#"{"choice": 1}"#] {
            let text = format!(r#"{{"games": 4, "precision": {precision}}}"#);
            let read = WorkerStatus::<Line>::parse(&text, "w").unwrap();
            assert_eq!((read.games, read.precision), (4, None), "{text}");
        }
        let tagged = r#"{"precision": {"type": "precision", "choice": "bf16"}}"#;
        let read = WorkerStatus::<Line>::parse(tagged, "w").unwrap();
        assert_eq!(read.precision.unwrap().choice, "bf16");
        let state = EvaluationState {
            last_step: Some(40),
        };
        assert_eq!(
            EvaluationState::parse(&state.to_json(), "e").unwrap(),
            state
        );
        let old = EvaluationState::parse(r#"{"last_step": null}"#, "e").unwrap();
        assert_eq!(old.last_step, None);
        let fork = r#"{"base": "runs/b", "step": 10, "shards": 4, "unix_ms": 1}"#;
        let fork = ForkState::parse(fork, "f").unwrap();
        assert_eq!(ForkState::parse(&fork.to_json(), "f").unwrap(), fork);
    }

    #[test]
    fn unversioned_records_of_older_runs_still_read() {
        // As runs wrote them before records had versions, with an obsolete key.
        let state = r#"{"step": 200, "elapsed_s": 1.5, "samples_trained": 10, "seed": 3,
                        "next_game": 40}"#;
        let state = TrainState::parse(state, "s").unwrap();
        assert_eq!((state.step, state.seed, state.games_seen), (200, 3, 0));
        assert_eq!(state.cpu_s, 0.0);
        let link = r#"{"step": 4, "previous": null, "shards": [], "published_unix_ms": 9}"#;
        assert_eq!(IntakeLink::parse(link, "i").unwrap().previous, None);
    }

    #[test]
    fn newer_or_malformed_records_are_refused_in_words() {
        let newer = TrainState::parse(r#"{"version": 2, "step": 1}"#, "x/state.json");
        assert_eq!(
            newer.unwrap_err().to_string(),
            "x/state.json: checkpoint state version 2 is newer than this checkers-zero reads \
             (up to 1); update checkers-zero to read it"
        );
        let cases = [
            ("[1]", "not a JSON object"),
            (r#"{"version": "one"}"#, "is not a whole number"),
            (r#"{"step": 1}"#, "missing field `elapsed_s`"),
            (r#"{"step": -1, "elapsed_s": 0}"#, "invalid value"),
            ("{", "EOF"),
        ];
        for (text, reason) in cases {
            let error = TrainState::parse(text, "x/state.json")
                .unwrap_err()
                .to_string();
            assert!(
                error.starts_with("x/state.json: not a checkpoint state: "),
                "{error}"
            );
            assert!(error.contains(reason), "{error}");
        }
        let error = IntakeLink::parse(r#"{"step": 1, "shards": [3]}"#, "i").unwrap_err();
        assert!(
            error.to_string().contains("not a checkpoint intake link"),
            "{error}"
        );
    }
}
