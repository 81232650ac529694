//! Training: the run configuration, the replay window, the optimizer and training step,
//! checkpoints, metrics, and the `train` command that runs self-play and training together.

pub mod checkpoint;
pub mod config;
pub mod error;
pub mod evaluation;
pub mod learner;
pub mod metrics;
pub mod optimizer;
pub mod run;
pub mod trainer;
pub mod window;
