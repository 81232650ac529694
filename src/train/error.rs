//! Everything that can stop the learner, as one error type shared by `train`, the learner
//! and the distributed roles (which add their own: `crate::roles::RoleError`).

use std::path::PathBuf;

use super::checkpoint::CheckpointError;
use crate::config::ConfigError;
use crate::net::NetError;

/// Everything that can stop a training run.
#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    /// A bad config.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A file of the run could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A checkpoint problem.
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    /// A model problem.
    #[error(transparent)]
    Net(#[from] NetError),
}
