//! Checkpoints: a directory per saved step, written whole under a temporary name and renamed
//! into place, then named in `checkpoints/latest`. The learner writes them in its scratch
//! directory and publishes them to the run (`crate::distributed::publish_checkpoint`), so a
//! run never holds part of one under its final name.
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
use crate::layout::record::{Record, RecordError, TrainState};
use crate::layout::{checkpoint_name, LATEST_FILE, OPTIMIZER_FILE, STATE_FILE, WEIGHTS_FILE};
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
    State(#[from] RecordError),
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

/// Writes a checkpoint of `model`, `optimizer` and `state` under `checkpoints`, atomically,
/// and points `latest` at it. Returns its directory.
pub fn write_checkpoint(
    checkpoints: &Path,
    model: &Model,
    optimizer: &AdamW,
    state: &TrainState,
) -> Result<PathBuf, CheckpointError> {
    std::fs::create_dir_all(checkpoints).map_err(io(checkpoints))?;
    let name = checkpoint_name(state.step);
    let tmp = checkpoints.join(format!(".tmp-{name}-{}", std::process::id()));
    if tmp.exists() {
        std::fs::remove_dir_all(&tmp).map_err(io(&tmp))?;
    }
    std::fs::create_dir(&tmp).map_err(io(&tmp))?;
    model.save(&tmp.join(WEIGHTS_FILE))?;
    optimizer.save(&tmp.join(OPTIMIZER_FILE))?;
    let state_path = tmp.join(STATE_FILE);
    let json = state.to_json();
    write_atomic(&state_path, json.as_bytes()).map_err(io(&state_path))?;
    sync_dir(&tmp);
    let dir = checkpoints.join(&name);
    if dir.exists() {
        // Left by a run killed after this rename but before `latest` moved on.
        std::fs::remove_dir_all(&dir).map_err(io(&dir))?;
    }
    std::fs::rename(&tmp, &dir).map_err(io(&dir))?;
    sync_dir(checkpoints);
    let latest = checkpoints.join(LATEST_FILE);
    write_atomic(&latest, name.as_bytes()).map_err(io(&latest))?;
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
