//! The run configuration (`configs/*.toml`): every key, its meaning and its default. Unknown
//! keys and bad values are errors that name the key.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::evaluation::EvaluationConfig;
use crate::game::{GameKind, RulesConfig};
use crate::net::evaluator::EvaluatorConfig;
use crate::net::model::NetConfig;
pub use crate::selfplay::config::{NewWeights, SearchKind, SelfPlayConfig};
use crate::selfplay::worker::WorkerSettings;

/// Errors reading a config.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// TOML syntax, an unknown key or a value of the wrong type.
    #[error("{path}: {message}")]
    Parse {
        /// The file.
        path: String,
        /// What TOML/serde said (it names the key).
        message: String,
    },
    /// A value outside its allowed range.
    #[error("{path}: key `{key}`: {message}")]
    Invalid {
        /// The file.
        path: String,
        /// The full key, e.g. `selfplay.full_visits`.
        key: String,
        /// What is wrong.
        message: String,
    },
}

/// A whole run's configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    /// Game: `rematch`, `rematch3`, `hexdame` or `eximo`.
    pub game: String,
    /// Seed of everything random in the run (net initialisation, games, sampling).
    #[serde(default = "defaults::seed")]
    pub seed: u64,
    /// Net size; defaults to the game's standard size.
    #[serde(default)]
    pub net: Option<NetConfig>,
    /// Self-play settings.
    #[serde(default)]
    pub selfplay: SelfPlayConfig,
    /// Batched inference settings for self-play.
    #[serde(default)]
    pub evaluator: EvaluatorSettings,
    /// Training settings.
    #[serde(default)]
    pub train: TrainConfig,
    /// Periodic evaluation of new checkpoints (and optional gating).
    #[serde(default)]
    pub evaluation: EvaluationConfig,
}

/// Batched-inference settings for self-play.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EvaluatorSettings {
    /// Most positions per forward pass.
    pub max_batch: usize,
    /// Longest wait (ms) for a batch to fill.
    pub max_wait_ms: f64,
    /// Run the self-play net in bfloat16.
    pub bf16: bool,
    /// libtorch threads of each evaluator (0: libtorch's default).
    pub torch_threads: i32,
    /// Evaluator instances, each with its own copy of the net; worker `w` uses instance
    /// `w % instances`.
    pub instances: usize,
}

/// Training settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrainConfig {
    /// Positions per training step.
    pub batch_size: usize,
    /// AdamW learning rate.
    pub learning_rate: f64,
    /// AdamW decoupled weight decay.
    pub weight_decay: f64,
    /// Weight of the W/D/L loss next to the policy loss.
    pub value_loss_weight: f64,
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
}

mod defaults {
    pub fn seed() -> u64 {
        1
    }
}

impl Default for EvaluatorSettings {
    fn default() -> Self {
        EvaluatorSettings {
            max_batch: 128,
            max_wait_ms: 2.0,
            bf16: true,
            torch_threads: 1,
            instances: 1,
        }
    }
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            batch_size: 256,
            learning_rate: 1e-3,
            weight_decay: 1e-4,
            value_loss_weight: 1.0,
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
        }
    }
}

impl RunConfig {
    /// Reads and checks a config file.
    pub fn load(path: &Path) -> Result<RunConfig, ConfigError> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
            path: name.clone(),
            source,
        })?;
        RunConfig::parse(&text, &name)
    }

    /// Parses and checks config text; `name` labels errors.
    pub fn parse(text: &str, name: &str) -> Result<RunConfig, ConfigError> {
        let config: RunConfig = toml::from_str(text).map_err(|e| ConfigError::Parse {
            path: name.to_string(),
            message: e.to_string().trim().replace('\n', " "),
        })?;
        config.validate(name)?;
        Ok(config)
    }

    /// The config as TOML (what a run directory records).
    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(self).expect("configs serialise")
    }

    /// The game.
    pub fn kind(&self) -> GameKind {
        self.game.parse().expect("validated")
    }

    /// The net size: the configured one or the game's standard size.
    pub fn net_config(&self) -> NetConfig {
        self.net
            .clone()
            .unwrap_or_else(|| NetConfig::default_for(self.kind()))
    }

    /// The rules self-play games are played under.
    pub fn rules(&self) -> RulesConfig {
        RulesConfig {
            ply_cap: if self.selfplay.ply_cap == 0 {
                RulesConfig::default().ply_cap
            } else {
                self.selfplay.ply_cap
            },
            ..RulesConfig::default()
        }
    }

    /// The self-play workers' settings.
    pub fn worker_settings(&self) -> WorkerSettings {
        WorkerSettings {
            kind: self.kind(),
            rules: self.rules(),
            selfplay: self.selfplay.clone(),
            seed: self.seed,
        }
    }

    /// The settings of each self-play evaluator instance.
    pub fn evaluator_config(&self) -> EvaluatorConfig {
        let e = &self.evaluator;
        EvaluatorConfig {
            max_batch: e.max_batch,
            max_wait: std::time::Duration::from_secs_f64(e.max_wait_ms / 1000.0),
            torch_threads: e.torch_threads,
            bf16: e.bf16,
            ..EvaluatorConfig::default()
        }
    }

    /// Checks every value's range, naming the first bad key.
    pub fn validate(&self, name: &str) -> Result<(), ConfigError> {
        let bad = |key: &str, message: &str| {
            Err(ConfigError::Invalid {
                path: name.to_string(),
                key: key.to_string(),
                message: message.to_string(),
            })
        };
        if self.game.parse::<GameKind>().is_err() {
            return bad(
                "game",
                &format!("unknown game `{}` ({})", self.game, GameKind::names(", ")),
            );
        }
        if let Some(net) = &self.net {
            if net.blocks == 0 || net.blocks > 64 {
                return bad("net.blocks", "must be 1..=64");
            }
            for (key, value) in [
                ("net.channels", net.channels),
                ("net.policy_channels", net.policy_channels),
                ("net.value_hidden", net.value_hidden),
            ] {
                if !(1..=1024).contains(&value) {
                    return bad(key, "must be 1..=1024");
                }
            }
        }
        let s = &self.selfplay;
        let unit = |v: f32| (0.0..=1.0).contains(&v);
        let checks: [(&str, bool, &str); 15] = [
            (
                "selfplay.workers",
                (1..=64).contains(&s.workers),
                "must be 1..=64",
            ),
            (
                "selfplay.games_in_flight",
                (1..=4096).contains(&s.games_in_flight),
                "must be 1..=4096",
            ),
            (
                "selfplay.full_visits",
                s.full_visits >= 2,
                "must be at least 2",
            ),
            (
                "selfplay.fast_visits",
                s.fast_visits >= 1,
                "must be at least 1",
            ),
            (
                "selfplay.full_search_share",
                s.full_search_share > 0.0 && s.full_search_share <= 1.0,
                "must be in (0, 1]",
            ),
            (
                "selfplay.gumbel_considered",
                s.gumbel_considered >= 2,
                "must be at least 2",
            ),
            ("selfplay.c_puct", s.c_puct > 0.0, "must be positive"),
            (
                "selfplay.dirichlet_alpha",
                s.dirichlet_alpha >= 0.0,
                "must be >= 0",
            ),
            (
                "selfplay.dirichlet_fraction",
                unit(s.dirichlet_fraction),
                "must be in [0, 1]",
            ),
            (
                "selfplay.temperature_start",
                s.temperature_start >= 0.0,
                "must be >= 0",
            ),
            (
                "selfplay.temperature_end",
                s.temperature_end >= 0.0,
                "must be >= 0",
            ),
            (
                "selfplay.temperature_halflife",
                s.temperature_halflife > 0.0,
                "must be positive",
            ),
            (
                "selfplay.resign_threshold",
                (-1.0..=1.0).contains(&s.resign_threshold),
                "must be in [-1, 1]",
            ),
            (
                "selfplay.resign_playthrough",
                unit(s.resign_playthrough),
                "must be in [0, 1]",
            ),
            (
                "selfplay.fpu_reduction",
                s.fpu_reduction >= 0.0,
                "must be >= 0",
            ),
        ];
        for (key, ok, message) in checks {
            if !ok {
                return bad(key, message);
            }
        }
        let e = &self.evaluator;
        if !(1..=4096).contains(&e.max_batch) {
            return bad("evaluator.max_batch", "must be 1..=4096");
        }
        if !(0.0..=1000.0).contains(&e.max_wait_ms) {
            return bad("evaluator.max_wait_ms", "must be in [0, 1000]");
        }
        if !(0..=256).contains(&e.torch_threads) {
            return bad("evaluator.torch_threads", "must be 0..=256");
        }
        if !(1..=64).contains(&e.instances) {
            return bad("evaluator.instances", "must be 1..=64");
        }
        let t = &self.train;
        let train_checks: [(&str, bool, &str); 12] = [
            (
                "train.batch_size",
                (1..=65536).contains(&t.batch_size),
                "must be 1..=65536",
            ),
            (
                "train.learning_rate",
                t.learning_rate > 0.0 && t.learning_rate < 10.0,
                "must be in (0, 10)",
            ),
            ("train.weight_decay", t.weight_decay >= 0.0, "must be >= 0"),
            (
                "train.value_loss_weight",
                t.value_loss_weight >= 0.0,
                "must be >= 0",
            ),
            (
                "train.steps_per_iteration",
                t.steps_per_iteration >= 1,
                "must be at least 1",
            ),
            ("train.max_minutes", t.max_minutes >= 0.0, "must be >= 0"),
            (
                "train.replay_ratio",
                t.replay_ratio > 0.0,
                "must be positive",
            ),
            ("train.min_window", t.min_window >= 1, "must be at least 1"),
            (
                "train.window_base",
                t.window_base >= 1,
                "must be at least 1",
            ),
            (
                "train.window_exponent",
                t.window_exponent > 0.0 && t.window_exponent <= 1.0,
                "must be in (0, 1]",
            ),
            ("train.window_scale", t.window_scale >= 0.0, "must be >= 0"),
            (
                "train.torch_threads",
                (0..=256).contains(&t.torch_threads),
                "must be 0..=256",
            ),
        ];
        for (key, ok, message) in train_checks {
            if !ok {
                return bad(key, message);
            }
        }
        if t.window_max < t.window_base {
            return bad("train.window_max", "must be at least train.window_base");
        }
        if t.min_window > t.window_max {
            return bad("train.min_window", "must be at most train.window_max");
        }
        if let Some((key, message)) = self.evaluation.check() {
            return bad(&key, &message);
        }
        Ok(())
    }

    /// The replay window's size after `positions` self-play positions (KataGo's rule): it
    /// starts at `window_base` and grows sub-linearly, capped at `window_max`.
    pub fn window_size(&self, positions: u64) -> usize {
        let t = &self.train;
        let c = t.window_base as f64;
        let n = positions as f64;
        let size = if n <= c {
            c
        } else {
            c * (1.0 + t.window_scale * ((n / c).powf(t.window_exponent) - 1.0) / t.window_exponent)
        };
        (size as usize).min(t.window_max)
    }
}
