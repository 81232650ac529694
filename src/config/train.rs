//! The training section (`[train]`): the batch, the learning rate and its schedule, the
//! losses' weights, the pacing of steps against self-play (the replay ratio) and the replay
//! window's size.

use serde::{Deserialize, Serialize};

use super::batching::{DeviceChoice, Form, Precision};
use super::check::{first_failure, Check};

/// Training settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrainConfig {
    /// Positions per training step.
    pub batch_size: usize,
    /// AdamW learning rate.
    pub learning_rate: f64,
    /// Step schedule of the learning rate: `[[step, factor], ...]` with rising steps; from
    /// each step on, the rate is `learning_rate * factor` (empty: constant).
    pub learning_rate_drops: Vec<(u64, f64)>,
    /// Share of the run's budget (its step target, else its minutes) at the end over which
    /// the learning rate falls linearly to `learning_rate_final` of itself (0: no decay).
    pub learning_rate_decay_share: f64,
    /// The learning rate's factor at the end of the decay.
    pub learning_rate_final: f64,
    /// AdamW decoupled weight decay.
    pub weight_decay: f64,
    /// Augment with the symmetries that exchange colours as well as the board's (ReMATCH:
    /// White and Orange swapped, 24 maps instead of 12; no effect in the other games).
    pub colour_symmetry: bool,
    /// Weight of the W/D/L loss next to the policy loss.
    pub value_loss_weight: f64,
    /// Weight of the moves-left loss (a net with `net.moves_left` only).
    pub moves_left_loss_weight: f64,
    /// Share of the value target taken from the search's value of the position instead of
    /// the game's result (0: the result alone).
    pub value_q_mix: f64,
    /// Share of the batch draw weight given by policy surprise: samples are drawn with
    /// frequency `(1 - w) + w * surprise / mean surprise` (0: uniform; KataGo uses 0.5).
    pub policy_surprise_weight: f64,
    /// Training steps per iteration; a checkpoint ends every iteration.
    pub steps_per_iteration: u64,
    /// Stop after this many iterations in total (0: no limit).
    pub iterations: u64,
    /// Stop after this many minutes of this invocation (0: no limit).
    pub max_minutes: f64,
    /// Positions sampled for training per new self-play sample (pacing of the trainer).
    pub replay_ratio: f64,
    /// Training starts once the window holds this many positions.
    pub min_window: usize,
    /// The window's size at the start (KataGo's c): it grows as the run produces positions.
    pub window_base: usize,
    /// Growth exponent of the window (KataGo's alpha).
    pub window_exponent: f64,
    /// Growth scale of the window (KataGo's beta).
    pub window_scale: f64,
    /// The largest window.
    pub window_max: usize,
    /// libtorch threads of the trainer (0: libtorch's default).
    pub torch_threads: i32,
    /// Where training runs: `auto`, `cpu`, `cuda` or `cuda:N` (may differ from
    /// `batching.device`: a learner on the GPU, self-play on the CPU).
    pub device: DeviceChoice,
    /// The learner's arithmetic: `auto` (times fp32 and bf16 training steps on this machine
    /// at start-up, cached per machine, and takes the faster), `fp32`, or `bf16` (mixed:
    /// the forward and backward passes in bf16, the weights, optimizer and batch-norm
    /// statistics in fp32, so checkpoints are the same either way).
    pub precision: Precision,
    /// The learner's memory layout: `auto` (times both layouts in each precision with the
    /// precision probe and takes the faster), `contiguous` (NCHW) or `channels-last`
    /// (NHWC, which oneDNN's convolutions prefer on some machines). The same numbers.
    pub layout: MemoryLayout,
}

/// The learner's memory layout setting (`[train] layout`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MemoryLayout {
    /// Measured: the faster of the two per precision.
    #[default]
    Auto,
    /// NCHW, as the weights are stored.
    Contiguous,
    /// NHWC activations.
    ChannelsLast,
}

impl MemoryLayout {
    /// The training forms the learner's probe measures under this setting, the first the
    /// one used when nothing is measured.
    pub fn candidates(self) -> &'static [Form] {
        match self {
            MemoryLayout::Auto => &[Form::Training, Form::TrainingChannelsLast],
            MemoryLayout::Contiguous => &[Form::Training],
            MemoryLayout::ChannelsLast => &[Form::TrainingChannelsLast],
        }
    }
}

impl TrainConfig {
    /// Checks every value's range, naming the first bad key.
    pub fn check(&self) -> Check {
        check_train(self)
    }

    /// The learning rate of training step `step` (counting from 0), `budget_spent` (0..=1) of
    /// the way through the run's budget when it has one.
    pub fn learning_rate_at(&self, step: u64, budget_spent: Option<f64>) -> f64 {
        let factor = self
            .learning_rate_drops
            .iter()
            .take_while(|(from, _)| *from <= step)
            .last()
            .map_or(1.0, |(_, factor)| *factor);
        let share = self.learning_rate_decay_share;
        let decay = match budget_spent {
            Some(p) if share > 0.0 && p > 1.0 - share => {
                let into = ((p - (1.0 - share)) / share).min(1.0);
                1.0 - (1.0 - self.learning_rate_final) * into
            }
            _ => 1.0,
        };
        self.learning_rate * factor * decay
    }
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            batch_size: 256,
            learning_rate: 1e-3,
            learning_rate_drops: Vec::new(),
            learning_rate_decay_share: 0.35,
            learning_rate_final: 0.1,
            colour_symmetry: false,
            weight_decay: 1e-4,
            value_loss_weight: 1.0,
            moves_left_loss_weight: 0.5,
            value_q_mix: 0.0,
            policy_surprise_weight: 0.0,
            steps_per_iteration: 100,
            iterations: 0,
            max_minutes: 0.0,
            replay_ratio: 4.0,
            min_window: 2_000,
            window_base: 20_000,
            window_exponent: 0.75,
            window_scale: 0.4,
            window_max: 500_000,
            torch_threads: 1,
            device: DeviceChoice::Auto,
            precision: Precision::Auto,
            layout: MemoryLayout::Auto,
        }
    }
}

fn check_train(t: &TrainConfig) -> Check {
    first_failure(
        "train.",
        &[
            (
                "batch_size",
                (1..=65536).contains(&t.batch_size),
                "must be 1..=65536",
            ),
            (
                "learning_rate",
                t.learning_rate > 0.0 && t.learning_rate < 10.0,
                "must be in (0, 10)",
            ),
            (
                "learning_rate_drops",
                t.learning_rate_drops.windows(2).all(|w| w[0].0 < w[1].0)
                    && t.learning_rate_drops
                        .iter()
                        .all(|(_, f)| *f > 0.0 && *f <= 10.0),
                "must be [[step, factor], ...] with rising steps and factors in (0, 10]",
            ),
            (
                "learning_rate_decay_share",
                (0.0..=1.0).contains(&t.learning_rate_decay_share),
                "must be in [0, 1]",
            ),
            (
                "learning_rate_final",
                t.learning_rate_final > 0.0 && t.learning_rate_final <= 1.0,
                "must be in (0, 1]",
            ),
            ("weight_decay", t.weight_decay >= 0.0, "must be >= 0"),
            (
                "value_loss_weight",
                t.value_loss_weight >= 0.0,
                "must be >= 0",
            ),
            (
                "moves_left_loss_weight",
                t.moves_left_loss_weight >= 0.0,
                "must be >= 0",
            ),
            (
                "value_q_mix",
                (0.0..=1.0).contains(&t.value_q_mix),
                "must be in [0, 1]",
            ),
            (
                "policy_surprise_weight",
                (0.0..=1.0).contains(&t.policy_surprise_weight),
                "must be in [0, 1]",
            ),
        ],
    )?;
    check_pacing(t)
}

/// The iteration, pacing and window keys of `[train]`.
fn check_pacing(t: &TrainConfig) -> Check {
    first_failure(
        "train.",
        &[
            (
                "steps_per_iteration",
                t.steps_per_iteration >= 1,
                "must be at least 1",
            ),
            ("max_minutes", t.max_minutes >= 0.0, "must be >= 0"),
            ("replay_ratio", t.replay_ratio > 0.0, "must be positive"),
            ("min_window", t.min_window >= 1, "must be at least 1"),
            ("window_base", t.window_base >= 1, "must be at least 1"),
            (
                "window_exponent",
                t.window_exponent > 0.0 && t.window_exponent <= 1.0,
                "must be in (0, 1]",
            ),
            ("window_scale", t.window_scale >= 0.0, "must be >= 0"),
            (
                "torch_threads",
                (0..=256).contains(&t.torch_threads),
                "must be 0..=256",
            ),
            (
                "window_max",
                t.window_max >= t.window_base,
                "must be at least train.window_base",
            ),
            (
                "min_window",
                t.min_window <= t.window_max,
                "must be at most train.window_max",
            ),
        ],
    )
}
