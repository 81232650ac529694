//! The retention section (`[checkpoints]`): which checkpoints a run keeps, and of what, and
//! which game files. The plan that applies it: [`crate::train::retention`].

use serde::{Deserialize, Serialize};

use super::check::{first_failure, Check};

/// How many checkpoints a run keeps, and of what.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RetentionConfig {
    /// The newest checkpoints kept whole (0: every checkpoint is kept whole, nothing is
    /// thinned).
    pub keep_full: usize,
    /// Older checkpoints whose weights are kept, at evenly spaced steps (step 0 always among
    /// them while any is kept): the spacing doubles whenever more would be kept.
    pub keep_weights: usize,
    /// Which self-play game files the run keeps once the learner has taken them in.
    pub keep_games: KeepGames,
}

/// Which game files a run keeps after the learner took them in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum KeepGames {
    /// Those a kept checkpoint's replay window reads (the newest whole checkpoints' and
    /// every pinned one's, so that a resume or a fork rebuilds it exactly); older ones are
    /// deleted, so the run's disk stays bounded.
    #[default]
    Windows,
    /// Every one.
    All,
}

impl Default for RetentionConfig {
    fn default() -> Self {
        RetentionConfig {
            keep_full: 2,
            keep_weights: 12,
            keep_games: KeepGames::Windows,
        }
    }
}

impl RetentionConfig {
    /// Checks every value's range, naming the first bad key.
    pub fn check(&self) -> Check {
        first_failure(
            "checkpoints.",
            &[
                (
                    "keep_full",
                    self.keep_full <= 1_000_000,
                    "must be 0..=1000000",
                ),
                (
                    "keep_weights",
                    self.keep_weights <= 1_000_000,
                    "must be 0..=1000000",
                ),
            ],
        )
    }
}
