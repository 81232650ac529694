//! Checkpoints: a directory per saved step, its files each written atomically with the
//! counters (`state.json`) last, so a checkpoint is whole once they are there; then named in
//! `checkpoints/latest`. The learner writes them straight into a local run, or into its
//! scratch directory and then up to a remote store (`crate::roles::learner`); either way
//! a run never holds a checkpoint that reads as whole but is not.
//!
//! ```text
//! checkpoints/step-00000200/model.safetensors   weights (+ model.json: game, encoding, shape)
//!                           optimizer.safetensors  AdamW moments and step count
//!                           state.json             counters, RNG seed, elapsed time
//! checkpoints/latest                             name of the newest checkpoint directory
//! ```
//! Randomness is a function of the run's seed and these counters (games are seeded by their
//! index, training batches by the step), so the counters are the RNG state.

use std::path::{Path, PathBuf};

use tch::Device;

use super::optimizer::AdamW;
use crate::layout::state::{StateError, StateFile, TrainState};
use crate::layout::{checkpoint_name, OPTIMIZER_FILE, STATE_FILE, WEIGHTS_FILE};
use crate::net::model::{Model, NetShape};
use crate::net::NetError;
use crate::util::write_atomic;

/// Errors of checkpoint files.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// Reading or writing failed.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// `state.json` is unreadable, malformed or newer than this build.
    #[error(transparent)]
    State(#[from] StateError),
    /// Weights or optimizer state failed to load or save.
    #[error(transparent)]
    Net(#[from] NetError),
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> CheckpointError + '_ {
    move |source| CheckpointError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Writes a checkpoint of `model`, `optimizer` and `state` into `checkpoints/step-N/`, file
/// by file, each one atomically and the counters last: the checkpoint is whole once its
/// `state.json` is there, the rule every listing of a run reads. Writing the same step again
/// replaces its files. Returns its directory.
pub fn write_checkpoint(
    checkpoints: &Path,
    model: &Model,
    optimizer: &AdamW,
    state: &TrainState,
) -> Result<PathBuf, CheckpointError> {
    let dir = checkpoints.join(checkpoint_name(state.step));
    std::fs::create_dir_all(&dir).map_err(io(&dir))?;
    model.save(&dir.join(WEIGHTS_FILE))?;
    let optimizer_path = dir.join(OPTIMIZER_FILE);
    let tmp = dir.join(format!(
        "{OPTIMIZER_FILE}.{}.tmp.safetensors",
        std::process::id()
    ));
    optimizer.save(&tmp)?;
    std::fs::rename(&tmp, &optimizer_path).map_err(io(&optimizer_path))?;
    let state_path = dir.join(STATE_FILE);
    write_atomic(&state_path, state.to_json().as_bytes()).map_err(io(&state_path))?;
    sync_dir(&dir);
    Ok(dir)
}

fn sync_dir(dir: &Path) {
    if let Ok(handle) = std::fs::File::open(dir) {
        let _ = handle.sync_all();
    }
}

/// Loads a checkpoint's model (checked against `shape`) onto `device`, optimizer state and
/// counters.
pub fn load_checkpoint(
    dir: &Path,
    shape: &NetShape,
    (learning_rate, weight_decay): (f64, f64),
    device: Device,
) -> Result<(Model, AdamW, TrainState), CheckpointError> {
    let state = crate::layout::read_state(dir)?;
    let model = Model::load(&dir.join(WEIGHTS_FILE), shape, device)?;
    let mut optimizer = AdamW::new(model.var_store(), learning_rate, weight_decay);
    optimizer.load(&dir.join(OPTIMIZER_FILE))?;
    Ok((model, optimizer, state))
}
