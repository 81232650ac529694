//! Forked runs (`train --fork BASE@STEP`): a new run that starts from one checkpoint of a
//! base run, as if it were that run stopped there, with its own config (an A/B arm's
//! settings). The fork gets the base's checkpoint at STEP (weights, optimizer state,
//! counters), every shard the base had taken in by then with the checkpoints' intake links
//! (so the replay window is rebuilt exactly as a resume of the base would rebuild it), and
//! the learner's metrics; then it resumes like any run. Two forks of one checkpoint differ
//! only in their settings (and their seed, if the arm sets one): the control arm is a fork
//! with the base's settings.
//!
//! `fork.json` in the new run records where it came from. `config.toml` is written last,
//! so a fork stopped half-way leaves no run (and can simply be made again).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::str::FromStr;

use super::learner::kept_intake_chain;
use super::{read_pointer, read_state_file, write_pointer, RoleError};
use crate::config::RunConfig;
use crate::layout::state::{ForkState, StateFile, TrainState};
use crate::layout::{
    checkpoint_key, held_checkpoints, parse_checkpoint_key, Held, CHECKPOINTS, CHECKPOINT_FILES,
    CONFIG, FORK, INTAKE_FILE, LATEST, LEARNER_METRICS, PROMOTED, STATE_FILE,
};
use crate::store::RunStore;

/// Where a fork starts: a base run and one of its checkpoints (its newest without a step).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ForkPoint {
    /// The base run's directory.
    pub base: PathBuf,
    /// The checkpoint's step (`None`: the one `checkpoints/latest` names).
    pub step: Option<u64>,
}

impl FromStr for ForkPoint {
    type Err = String;

    /// `RUN` or `RUN@STEP`.
    fn from_str(text: &str) -> Result<ForkPoint, String> {
        let (base, step) = match text.rsplit_once('@') {
            Some((base, step)) => {
                let step = step.parse::<u64>().map_err(|_| {
                    format!(
                        "fork '{text}': the step after '@' must be a whole number, got '{step}'"
                    )
                })?;
                (base, Some(step))
            }
            None => (text, None),
        };
        if base.is_empty() {
            return Err(format!("fork '{text}': the base run directory is missing"));
        }
        Ok(ForkPoint {
            base: PathBuf::from(base),
            step,
        })
    }
}

/// The file of a shipped model's folder (`models/GAME/`) that names the checkpoint it was
/// exported from, `RUN@STEP` relative to the folder, so that `--fork models/GAME` trains on
/// from that checkpoint.
pub const SHIPPED_CHECKPOINT: &str = "checkpoint.txt";

impl ForkPoint {
    /// The point itself, or, for a shipped model's folder, the checkpoint it names (a step
    /// given after '@' wins over the named one).
    pub fn resolve(&self) -> Result<ForkPoint, String> {
        let pointer = self.base.join(SHIPPED_CHECKPOINT);
        if !pointer.is_file() {
            return Ok(self.clone());
        }
        let text = std::fs::read_to_string(&pointer)
            .map_err(|e| format!("reading {}: {e}", pointer.display()))?;
        let named: ForkPoint = text
            .trim()
            .parse()
            .map_err(|e| format!("{}: {e}", pointer.display()))?;
        Ok(ForkPoint {
            base: self.base.join(named.base),
            step: self.step.or(named.step),
        })
    }
}

/// Makes the run in `into` a fork of `point` (a run, not a shipped model's folder: see
/// [`ForkPoint::resolve`]) that runs with `config`; returns the record. The config must
/// train the base's game with the base's net (the weights carry over).
pub fn fork_run(
    point: &ForkPoint,
    into: &RunStore,
    config: &RunConfig,
) -> Result<ForkState, RoleError> {
    let base_location = point
        .base
        .to_str()
        .ok_or_else(|| RoleError::Run(format!("{}: not a UTF-8 path", point.base.display())))?;
    let base = RunStore::open(base_location)?;
    let base_config = stored_config(&base)?;
    check_same_net(&base_config, config)?;
    let step = fork_step(&base, point)?;
    let (chain, gone) = kept_intake_chain(&base, step)?;
    if let Some(gone) = gone {
        eprintln!(
            "{base_location} keeps no intake link at step {gone} (a committed run keeps its \
             newest checkpoint's alone): the fork takes the {} shards linked after it, and \
             its replay window refills from new self-play",
            chain.len()
        );
    }
    copy_keys(&base, into, &chain)?;
    copy_checkpoints(&base, into, step, config.seed)?;
    copy_keys(&base, into, &[LEARNER_METRICS.to_string()])?;
    write_pointer(into, LATEST, step)?;
    if config.evaluation.gating {
        write_pointer(into, PROMOTED, step)?;
    }
    let record = ForkState {
        base: base_location.to_string(),
        step,
        shards: chain.len() as u64,
        unix_ms: super::unix_millis() as u64,
    };
    into.put(FORK, record.to_json().into_bytes())?;
    into.put(CONFIG, config.to_toml().into_bytes())?;
    Ok(record)
}

/// The base run's config.
fn stored_config(base: &RunStore) -> Result<RunConfig, RoleError> {
    let text = base.get_text(CONFIG)?.ok_or_else(|| {
        RoleError::Run(format!(
            "{} holds no run to fork (no {CONFIG})",
            base.location()
        ))
    })?;
    Ok(RunConfig::parse(
        &text,
        &format!("{}/{CONFIG}", base.location()),
    )?)
}

/// A fork keeps the base's weights: same game, same net.
fn check_same_net(base: &RunConfig, arm: &RunConfig) -> Result<(), RoleError> {
    if base.kind() != arm.kind() {
        return Err(RoleError::Run(format!(
            "the fork's config is for {}, the base run trains {}",
            arm.kind(),
            base.kind()
        )));
    }
    if base.net_config() != arm.net_config() {
        return Err(RoleError::Run(
            "the fork's config changes the net ([net]): a fork starts from the base's weights, \
             so its net must be the base's"
                .into(),
        ));
    }
    Ok(())
}

/// The step to fork at: the one asked for, which must have a published checkpoint, or the
/// newest.
fn fork_step(base: &RunStore, point: &ForkPoint) -> Result<u64, RoleError> {
    let latest = read_pointer(base, LATEST)?;
    let step = match (point.step, latest) {
        (Some(step), _) => step,
        (None, Some(latest)) => latest,
        (None, None) => {
            return Err(RoleError::Run(format!(
                "{} has no checkpoint to fork from",
                base.location()
            )))
        }
    };
    let held = held_checkpoints(&base.list(CHECKPOINTS)?);
    let whole = |held: &Held| *held == Held::Full;
    match held.get(&step) {
        Some(Held::Full) if latest.is_some_and(|l| step <= l) => Ok(step),
        Some(Held::Weights) => Err(RoleError::Run(format!(
            "{} keeps only the weights of step {step} (older checkpoints are thinned, \
             [checkpoints]): a fork needs the optimizer state too; whole checkpoints: {}",
            base.location(),
            steps_of(&held, whole)
        ))),
        _ => Err(RoleError::Run(format!(
            "{} has no published checkpoint at step {step} (checkpoints: {})",
            base.location(),
            steps_of(&held, |_| true)
        ))),
    }
}

/// The steps of the checkpoints in `held` that `keep` picks, for an error message.
fn steps_of(held: &BTreeMap<u64, Held>, keep: impl Fn(&Held) -> bool) -> String {
    let steps: Vec<String> = held
        .iter()
        .filter(|(_, h)| keep(h))
        .map(|(step, _)| step.to_string())
        .collect();
    if steps.is_empty() {
        "none".into()
    } else {
        steps.join(", ")
    }
}

/// Copies the objects `keys` that exist in `from` to `to`.
fn copy_keys(from: &RunStore, to: &RunStore, keys: &[String]) -> Result<(), RoleError> {
    for chunk in keys.chunks(64) {
        for (key, bytes) in chunk.iter().zip(from.get_many(chunk)?) {
            if let Some(bytes) = bytes {
                to.put(key, bytes)?;
            }
        }
    }
    Ok(())
}

/// Copies the intake links of every checkpoint up to `step` and the files of the checkpoint
/// at `step`, its state carrying `seed` (the arm's).
fn copy_checkpoints(from: &RunStore, to: &RunStore, step: u64, seed: u64) -> Result<(), RoleError> {
    let links: Vec<String> = from
        .list(CHECKPOINTS)?
        .into_iter()
        .filter(|k| parse_checkpoint_key(k).is_some_and(|(s, f)| s <= step && f == INTAKE_FILE))
        .collect();
    copy_keys(from, to, &links)?;
    let files: Vec<String> = CHECKPOINT_FILES
        .iter()
        .filter(|f| **f != STATE_FILE)
        .map(|f| checkpoint_key(step, f))
        .collect();
    copy_keys(from, to, &files)?;
    let key = checkpoint_key(step, STATE_FILE);
    let mut state: TrainState = read_state_file(from, &key)?
        .ok_or_else(|| RoleError::Run(format!("{}/{key} is missing", from.location())))?;
    state.seed = seed;
    to.put(&key, state.to_json().into_bytes())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fork_points_parse_and_bad_ones_say_why() {
        assert_eq!(
            "runs/base@1200".parse::<ForkPoint>().unwrap(),
            ForkPoint {
                base: "runs/base".into(),
                step: Some(1200)
            }
        );
        assert_eq!("runs/base".parse::<ForkPoint>().unwrap().step, None);
        assert!("runs/base@x"
            .parse::<ForkPoint>()
            .unwrap_err()
            .contains("whole number"));
        assert!("@12".parse::<ForkPoint>().unwrap_err().contains("missing"));
    }

    #[test]
    fn a_shipped_model_folder_forks_the_checkpoint_it_names() {
        let dir = std::env::temp_dir().join(format!("cz-fork-shipped-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let plain: ForkPoint = dir.to_str().unwrap().parse().unwrap();
        assert_eq!(
            plain.resolve().unwrap(),
            plain,
            "no pointer: the folder itself"
        );
        std::fs::write(dir.join(SHIPPED_CHECKPOINT), "../runs/base@900\n").unwrap();
        let named = plain.resolve().unwrap();
        assert_eq!(
            (named.base, named.step),
            (dir.join("../runs/base"), Some(900))
        );
        let given = ForkPoint {
            step: Some(300),
            ..plain.clone()
        };
        assert_eq!(
            given.resolve().unwrap().step,
            Some(300),
            "a given step wins"
        );
        std::fs::write(dir.join(SHIPPED_CHECKPOINT), "x@y").unwrap();
        assert!(plain.resolve().unwrap_err().contains(SHIPPED_CHECKPOINT));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
