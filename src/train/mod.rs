//! Training: the replay window, the optimizer and training step, checkpoints, their
//! retention and metrics (the run's settings: [`crate::config`]). The `train` command that runs them with self-play lives in
//! `crate::distributed::train` (the distributed roles in one process).

pub mod average;
pub mod checkpoint;
pub mod error;
pub mod learner;
pub mod metrics;
pub mod optimizer;
pub mod precision;
pub mod retention;
pub mod trainer;
pub mod window;
