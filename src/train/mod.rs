//! Training: the run configuration, the replay window, the optimizer and training step,
//! checkpoints, their retention and metrics. The `train` command that runs them with self-play lives in
//! `crate::distributed::train` (the distributed roles in one process).

pub mod average;
pub mod checkpoint;
pub mod config;
pub mod error;
pub mod evaluation;
pub mod learner;
pub mod metrics;
pub mod optimizer;
pub mod retention;
pub mod trainer;
pub mod window;
