//! The metrics logs (`learner/metrics.jsonl`, `evaluator/metrics.jsonl`) and their lines:
//! one serde type per line `type`, written and read through [`MetricsLine`]. The field
//! names are the files' keys (the dashboard, `dashboard.js`, reads the same ones; a test
//! checks them). Lines of older runs lack some fields: those read as their defaults.
//!
//! [`log`]: the append-only log file. Here: [`MetricsLine`] and one struct per line.

pub mod log;
#[cfg(test)]
mod tests;

use serde::{Deserialize, Deserializer, Serialize};

use crate::net::precision::{ProbeTimings, Resolved};
use crate::selfplay::diversity::DiversityReport;

/// One line of a metrics log, tagged by its `type`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum MetricsLine {
    /// An iteration's training (the learner).
    Train(TrainLine),
    /// An iteration's intake of self-play games (the learner).
    Intake(IntakeLine),
    /// Self-play's rates over an iteration, with self-play in the learner's process.
    #[serde(rename = "selfplay")]
    SelfPlay(SelfPlayLine),
    /// The learner's memory and disk at a checkpoint.
    Resources(ResourcesLine),
    /// The replay window rebuilt on a resume.
    Window(WindowLine),
    /// A checkpoint's evaluation against one opponent, or its failure.
    Evaluation(EvaluationLine),
    /// Self-play's precision choice.
    Precision(PrecisionLine),
}

impl MetricsLine {
    /// The training step the line is of.
    pub fn step(&self) -> Option<u64> {
        match self {
            MetricsLine::Train(l) => Some(l.step),
            MetricsLine::Intake(l) => Some(l.step),
            MetricsLine::SelfPlay(l) => Some(l.step),
            MetricsLine::Resources(l) => Some(l.step),
            MetricsLine::Window(l) => Some(l.step),
            MetricsLine::Evaluation(EvaluationLine::Played(l)) => Some(l.step),
            MetricsLine::Evaluation(EvaluationLine::Failed(l)) => Some(l.step),
            MetricsLine::Precision(l) => l.step,
        }
    }

    /// The line at training step `step` (a line another part made, logged by the learner).
    pub fn at_step(mut self, step: u64) -> MetricsLine {
        match &mut self {
            MetricsLine::Train(l) => l.step = step,
            MetricsLine::Intake(l) => l.step = step,
            MetricsLine::SelfPlay(l) => l.step = step,
            MetricsLine::Resources(l) => l.step = step,
            MetricsLine::Window(l) => l.step = step,
            MetricsLine::Evaluation(EvaluationLine::Played(l)) => l.step = step,
            MetricsLine::Evaluation(EvaluationLine::Failed(l)) => l.step = step,
            MetricsLine::Precision(l) => l.step = Some(step),
        }
        self
    }
}

/// The `train` line: an iteration's losses (averaged over its steps) and pace.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TrainLine {
    /// The step after the iteration.
    pub step: u64,
    /// The iteration (step / train.steps_per_iteration).
    pub iteration: u64,
    /// Training seconds so far.
    pub elapsed_s: f64,
    /// CPU seconds so far.
    pub cpu_s: f64,
    /// Mean policy loss.
    pub policy_loss: f64,
    /// Mean value loss.
    pub value_loss: f64,
    /// Mean moves-left loss.
    pub moves_left_loss: f64,
    /// Mean total loss.
    pub total_loss: f64,
    /// Mean entropy of the net's policy.
    pub policy_entropy: f64,
    /// The learning rate.
    pub learning_rate: f64,
    /// Samples trained a second.
    pub samples_per_s: f64,
    /// Samples in the replay window.
    pub window: usize,
    /// Samples trained so far.
    pub samples_trained: u64,
}

/// The `intake` line: what came in over an iteration and how its games went.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct IntakeLine {
    /// The step.
    pub step: u64,
    /// Training seconds so far.
    pub elapsed_s: f64,
    /// Shards taken in.
    pub shards: u64,
    /// Games in them.
    pub games: u64,
    /// Samples in them.
    pub samples: u64,
    /// Reanalysed games taken in.
    pub reanalysed_games: u64,
    /// Samples of reanalysed games.
    pub reanalysed_samples: u64,
    /// Samples whose value the solver proved.
    pub proven_samples: u64,
    /// Shards a second.
    pub shards_per_s: f64,
    /// Games a second.
    pub games_per_s: f64,
    /// Samples a second.
    pub samples_per_s: f64,
    /// Games taken in so far.
    pub games_total: u64,
    /// Samples taken in so far.
    pub samples_total: u64,
    /// Mean steps a game.
    pub mean_game_steps: f64,
    /// Wins of side 0.
    pub wins_side0: u64,
    /// Wins of side 1.
    pub wins_side1: u64,
    /// Drawn games.
    pub draws: u64,
    /// Games ended by resignation.
    pub resigned: u64,
    /// Games played through with resignation off.
    pub played_through: u64,
    /// Share of would-be resignations that were false (none while there were none).
    pub false_resign_rate: Option<f64>,
    /// Games side 0 resigned.
    pub resigned_side0: u64,
    /// Games side 1 resigned.
    pub resigned_side1: u64,
    /// Played-through games side 0 would have resigned.
    pub would_resign_side0: u64,
    /// Played-through games side 1 would have resigned.
    pub would_resign_side1: u64,
    /// `false_resign_rate` of side 0.
    pub false_resign_rate_side0: Option<f64>,
    /// `false_resign_rate` of side 1.
    pub false_resign_rate_side1: Option<f64>,
    /// Side 0's resign threshold in the last game that had one.
    pub resign_threshold_side0: Option<f32>,
    /// Side 1's resign threshold in the last game that had one.
    pub resign_threshold_side1: Option<f32>,
    /// Self-play sessions heard from.
    pub sessions: usize,
    /// Shards that could not be read, so far.
    pub rejected_shards: u64,
    /// Diversity of the newest games (none in older runs, or in ones whose figures do not
    /// read as today's).
    #[serde(deserialize_with = "none_unless_readable")]
    pub diversity: Option<DiversityReport>,
}

/// The `selfplay` line: self-play's rates over an iteration.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SelfPlayLine {
    /// The step.
    pub step: u64,
    /// Training seconds so far.
    pub elapsed_s: f64,
    /// Positions played a second (searched or not).
    pub positions_per_s: f64,
    /// Positions the nets evaluated a second.
    pub net_positions_per_s: f64,
    /// Positions a forward pass.
    pub net_mean_batch: f64,
    /// Share of the time the batchers spent in forward passes.
    pub net_busy: f64,
    /// Net calls per fully searched step.
    pub net_calls_per_searched_step: f64,
    /// Share of net calls made for forced leaves.
    pub forced_leaf_share: f64,
    /// Reanalysis searches.
    pub reanalysed_searches: u64,
}

/// The `resources` line, at each checkpoint.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ResourcesLine {
    /// The step.
    pub step: u64,
    /// Training seconds so far.
    pub elapsed_s: f64,
    /// CPU seconds so far.
    pub cpu_s: f64,
    /// The process's memory now (KiB), where known.
    pub rss_kib: Option<u64>,
    /// Its peak memory (KiB), where known.
    pub peak_rss_kib: Option<u64>,
    /// Bytes of the run directory, for a run on the local disk.
    pub run_disk_bytes: Option<u64>,
    /// Game files deleted by game retention at this checkpoint.
    pub games_deleted: u64,
}

/// The `window` line: the replay window read back on a resume.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct WindowLine {
    /// The step.
    pub step: u64,
    /// Shards read back.
    pub shards_read: u64,
    /// Shards taken in before that are gone.
    pub shards_missing: u64,
    /// Samples read back.
    pub samples: u64,
    /// True when shards were missing: the window refills from new self-play.
    pub refills_from_new_selfplay: bool,
}

/// The `evaluation` line: a result against one opponent, or the evaluation's failure.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum EvaluationLine {
    /// A result.
    Played(EvaluationResult),
    /// The evaluation failed.
    Failed(EvaluationFailure),
}

/// A checkpoint's result against one opponent.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EvaluationResult {
    /// The checkpoint's step.
    pub step: u64,
    /// The opponent.
    pub opponent: String,
    /// Whether the opponent is the incumbent (the net self-play uses).
    pub incumbent: bool,
    /// Games played.
    pub games: u64,
    /// The checkpoint's score (0 to 1).
    pub score: f64,
    /// Elo difference (none when infinite)...
    pub elo: Option<f64>,
    /// ...and its 95% interval.
    pub elo_low: Option<f64>,
    /// See `elo_low`.
    pub elo_high: Option<f64>,
    /// Whether the checkpoint was promoted to self-play.
    pub promoted: bool,
}

/// A checkpoint's evaluation that failed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EvaluationFailure {
    /// The checkpoint's step.
    pub step: u64,
    /// What went wrong.
    pub error: String,
}

/// The `precision` line: self-play's precision choice (without a step in self-play's
/// `state.json`; the learner logs it at its step).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PrecisionLine {
    /// The step it was logged at.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<u64>,
    /// The choice in words (`fp32`, `bf16`, `bf16 from batch N (fp32 below)`).
    pub choice: String,
    /// The smallest batch run in bf16 (none: fp32 throughout).
    pub bf16_from: Option<usize>,
    /// Why.
    pub reason: String,
    /// `forced`, `probed now` or `cached probe`.
    pub source: String,
    /// The timings behind an `auto` choice.
    pub timings: Option<ProbeTimings>,
}

impl PrecisionLine {
    /// The line of a settled precision.
    pub fn of(resolved: &Resolved) -> PrecisionLine {
        PrecisionLine {
            step: None,
            choice: resolved.choice.label(),
            bf16_from: resolved.choice.bf16_from,
            reason: resolved.choice.reason.clone(),
            source: resolved.source.to_string(),
            timings: resolved.timings.clone(),
        }
    }
}

/// A field that reads as `None` when it is missing, null or not of its type (as readers
/// of older lines did).
fn none_unless_readable<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: serde::de::DeserializeOwned,
{
    let value = serde_json::Value::deserialize(deserializer)?;
    Ok(serde_json::from_value(value).ok())
}
