//! The periodic evaluation section (`[evaluation]`): how often new checkpoints play the
//! previous one and fixed anchors during training, and whether they gate self-play. The
//! matches themselves: [`crate::eval::periodic`].

use serde::{Deserialize, Serialize};

use super::check::{first_failure, Check};

/// The `[evaluation]` section of a run config.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EvaluationConfig {
    /// Evaluate every this many iterations (0: never).
    pub every: u64,
    /// Games per opponent (sides alternate).
    pub games: u64,
    /// Visits per step of the checkpoints' MCTS.
    pub visits: u32,
    /// Fixed opponents, as `match` agent specs (e.g. `random`, `uct:200`).
    pub anchors: Vec<String>,
    /// Games in flight at once.
    pub parallel: usize,
    /// Only hand a checkpoint to self-play if it beats the incumbent by `gate_score`.
    pub gating: bool,
    /// Score (0–1, draws ½) against the incumbent needed to be promoted.
    pub gate_score: f64,
}

impl Default for EvaluationConfig {
    fn default() -> Self {
        EvaluationConfig {
            every: 0,
            games: 40,
            visits: 64,
            anchors: Vec::new(),
            parallel: 8,
            gating: false,
            gate_score: 0.55,
        }
    }
}

impl EvaluationConfig {
    /// Checks every value's range, naming the first bad key. The anchors' agent specs are
    /// checked where agents are known ([`crate::eval::periodic`]).
    pub fn check(&self) -> Check {
        first_failure(
            "evaluation.",
            &[
                (
                    "games",
                    self.every == 0 || self.games > 0,
                    "must be at least 1",
                ),
                ("visits", self.visits >= 2, "must be at least 2"),
                (
                    "parallel",
                    (1..=256).contains(&self.parallel),
                    "must be 1..=256",
                ),
                (
                    "gate_score",
                    (0.0..=1.0).contains(&self.gate_score),
                    "must be in [0, 1]",
                ),
                (
                    "gating",
                    !self.gating || self.every > 0,
                    "needs evaluation.every > 0",
                ),
            ],
        )
    }
}
