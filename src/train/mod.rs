//! The learner's core: it sees encoded samples only, never game records, searches or
//! matches (the run's settings: [`crate::config`]). Its modules:
//!
//! - [`learner`]: the learner (model, optimizer, counters, window), start here;
//! - [`window`]: the training sample, the replay window and symmetric batches;
//! - [`trainer`]: one training step and its losses; [`optimizer`]: AdamW;
//! - [`precision`]: the learner's precision by measurement;
//! - [`checkpoint`]: checkpoints written and read; [`retention`]: which older ones keep
//!   what, as a pure plan;
//! - [`average`]: several models' weights averaged;
//! - [`error`]: their errors.
//!
//! The loop that runs it, with self-play and evaluation beside it, is
//! [`crate::roles::learner`] (the `train` and `learn` commands).

pub mod average;
pub mod checkpoint;
pub mod error;
pub mod learner;
pub mod optimizer;
pub mod precision;
pub mod retention;
pub mod trainer;
pub mod window;
